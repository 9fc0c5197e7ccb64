"""tosa_custom.iree.load runs an op that has no native kernel by the Python
kernel runtime.load would choose (iree/callbacks.py), called back from
IREE's workers: a dummy-mode program (every op kept) against eager and
runtime.load; a user's register_kernel; a kernel's exception as a
KernelError naming the op; several threads calling at once without a
deadlock, whichever way the caller waits; a saved program refused, naming
the op. Quantized and int16 kept ops on IREE: test/quant/test_kept.py and
test_int16.py."""

from __future__ import annotations

import re
import sys
import threading
import warnings

import pytest
import torch

import tosa_custom
from tosa_custom import runtime
from tosa_custom.core.diagnostics import CompileError

from _tolerance import reduction_tolerance

pytest.importorskip("iree.runtime")
pytest.importorskip("iree.compiler")

from tosa_custom import iree  # noqa: E402

_TORCH_KERNEL = f"python ({runtime.torch_kernel.__module__}.torch_kernel)"
_HANG = 120  # seconds: a deadlocked call fails the test instead of hanging it


@pytest.fixture
def private_registry(monkeypatch):
    """register_kernel's entries undone after the test (test/runtime/test_kernels.py)."""
    registry = sys.modules[runtime.register_kernel.__module__]._KERNELS
    monkeypatch.setattr(registry, "_entries", dict(registry._entries))


class _ConvNet(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.conv = torch.nn.Conv2d(3, 8, 3, padding=1)
        self.linear = torch.nn.Linear(8 * 6 * 6, 10)

    def forward(self, x, y):
        h = torch.relu(self.conv(x))
        return self.linear(h.flatten(1)) + y


def _dummy(model, args):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        module = tosa_custom.compile(model.eval(), args, backend_legal_ops=["*"])
    return module.operation.get_asm()


@pytest.fixture(scope="module")
def convnet():
    torch.manual_seed(0)
    model, args = _ConvNet(), (torch.randn(2, 3, 6, 6), torch.randn(2, 10))
    return model.eval(), args, _dummy(model, args)


@pytest.mark.parametrize("threads", [1, 2])
def test_dummy_mode_program_matches_eager_and_the_runtime(convnet, threads):
    model, args, module = convnet
    program = iree.load(module, threads=threads)
    assert {"torch.aten.conv2d", "torch.aten.linear", "torch.aten.add.Tensor"} <= set(program.custom_ops)
    reference = runtime.load(module)
    # The same kernel for each op as the runtime: the generic torch kernel (no native one takes them).
    assert program.kernels == reference.kernels and _TORCH_KERNEL in program.kernels, program.kernels
    with torch.no_grad():
        expected = model(*args)
    got = program(*args)
    torch.testing.assert_close(got, expected, **reduction_tolerance(3 * 3 * 3 + 8 * 6 * 6))
    assert torch.equal(got, reference(*args))  # the same kernels on the same values
    x2 = [torch.randn_like(a) for a in args]
    assert torch.equal(program(*x2), reference(*x2))  # a second call, other inputs


_ACME = """
func.func @f(%a: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %0 = tosa.custom %a {domain_name = "acme", implementation_attrs = "{\\22k\\22: 3}", operator_name = "scale_by"} : (tensor<4x8xf32>) -> tensor<4x8xf32> loc("model.py":7:3)
  %1 = tosa.add %0, %a : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x8xf32>
  return %1 : tensor<4x8xf32>
}"""


@pytest.mark.parametrize("threads", [1, 2])
def test_a_users_kernel_runs_on_iree(private_registry, threads):
    seen = []

    @runtime.register_kernel("scale_by", domain_name="acme")
    def scale_by(call):
        import json

        seen.append(threading.get_ident())
        call.outputs[0].copy_(call.inputs[0] * json.loads(call.implementation_attrs)["k"])

    program = iree.load(_ACME, threads=threads)
    assert program.kernels == [f"python ({__name__}.test_a_users_kernel_runs_on_iree.<locals>.scale_by)"]
    x = torch.randn(4, 8)
    torch.testing.assert_close(program(x), x * 4)
    assert torch.equal(program(x), runtime.load(_ACME)(x))
    if threads == 2:  # called from IREE's worker, not the caller's thread
        assert seen[0] != threading.get_ident()


def test_a_python_kernel_has_a_threads_stack_on_iree_workers(private_registry):
    """IREE's workers have small stacks of their own; a Python kernel on one
    that goes deep in C (here 900 levels of Python through builtins, about
    1 MB; oneDNN's convolutions in a kept PT2E convolution) overflowed it: a
    segfault. Each worker has a Linux thread's 8 MB now."""
    def depth(n):
        return 0 if n == 0 else 1 + sum(map(depth, [n - 1]))

    @runtime.register_kernel("scale_by", domain_name="acme")
    def scale_by(call):
        return call.inputs[0] * (depth(900) - 897)

    program = iree.load(_ACME, threads=2)
    x = torch.randn(4, 8)
    torch.testing.assert_close(program(x), x * 4)


def test_a_users_kernel_replaces_the_native_one_as_in_the_runtime(private_registry):
    model = tosa_custom.e2e.Fn(lambda x: torch.nn.functional.gelu(x) + 1).eval()
    module = tosa_custom.compile(model, (torch.randn(3, 4),), backend_legal_ops=["aten.gelu"]).operation.get_asm()
    assert iree.load(module).kernels[0].startswith("native (")  # the built-in native kernel, without the user's

    @runtime.register_kernel("torch.aten.gelu", override=True)
    def my_gelu(call):
        return call.arguments["self"] * 2

    program = iree.load(module, threads=2)
    assert program.kernels == runtime.load(module).kernels
    assert program.kernels[0].startswith("python (") and "my_gelu" in program.kernels[0]
    x = torch.randn(3, 4)
    torch.testing.assert_close(program(x), x * 2 + 1)


@pytest.mark.parametrize("wait", ["poll", "iree"])
@pytest.mark.parametrize("threads", [1, 2])
def test_a_failing_kernel_is_a_kernel_error_naming_the_op(private_registry, threads, wait):
    @runtime.register_kernel("scale_by", domain_name="acme")
    def scale_by(call):
        if call.inputs[0][0, 0] < 0:
            raise ValueError("a negative first element")
        return call.inputs[0] * 3

    program = iree.load(_ACME, threads=threads, wait=wait)
    x = torch.rand(4, 8)
    torch.testing.assert_close(program(x), x * 4)
    with pytest.raises(runtime.KernelError, match=r"kernel for scale_by at loc\(\"model.py\":7:3\) failed: python "
                                                  r"\(.*scale_by\): error \(status 1\): ValueError: a negative first "
                                                  r"element") as info:
        program(-x)
    assert info.value.op == "scale_by" and isinstance(info.value.__cause__, ValueError)
    torch.testing.assert_close(program(x), x * 4)  # the program stays usable


def test_a_wrong_result_is_a_kernel_error_as_in_the_runtime(private_registry):
    @runtime.register_kernel("scale_by", domain_name="acme")
    def scale_by(call):
        return call.inputs[0][:2]

    with pytest.raises(runtime.KernelError, match=r"KernelError: result #0 is \[2, 8\] float32, expected \[4, 8\] "
                                                  r"float32") as info:
        iree.load(_ACME, threads=2)(torch.rand(4, 8))
    assert info.value.op == "scale_by"


def _run_threads(target, n: int) -> list:
    """`target(i)` on n threads at once; the results, or a failure if any thread is still running after _HANG s."""
    results: list = [None] * n

    def run(i):
        try:
            results[i] = target(i)
        except BaseException as e:  # noqa: BLE001 - handed to the test
            results[i] = e

    threads = [threading.Thread(target=run, args=(i,), daemon=True) for i in range(n)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(_HANG)
    assert not any(t.is_alive() for t in threads), "deadlocked: a call did not return"
    return results


@pytest.mark.parametrize("wait", ["poll", "iree"])
def test_threads_calling_at_once_do_not_deadlock(convnet, wait):
    """Four threads calling one program and a second program at once, on
    IREE's task driver (2 workers): each gets its own inputs' answer."""
    model, args, module = convnet
    programs = [iree.load(module, threads=2, wait=wait), iree.load(module, threads=2, wait=wait)]
    reference = runtime.load(module)
    inputs = [[torch.randn_like(a) for a in args] for _ in range(8)]
    expected = [reference(*x) for x in inputs]

    def call(i):
        return [programs[(i + k) % 2](*inputs[(i + k) % 8]) for k in range(6)]

    for i, results in enumerate(_run_threads(call, 4)):
        assert not isinstance(results, BaseException), results
        for k, got in enumerate(results):
            assert torch.equal(got, expected[(i + k) % 8])


@pytest.mark.parametrize("threads", [1, 2])
def test_a_kernel_calling_its_own_program_is_an_error_not_a_hang(private_registry, threads):
    """On the runtime a kernel may call its program; on IREE one program runs
    one call at a time, so that call would wait forever: refused, and the
    outer call fails naming the op."""
    program = None

    @runtime.register_kernel("scale_by", domain_name="acme")
    def scale_by(call):
        program(call.inputs[0])

    program = iree.load(_ACME, threads=threads)
    [error] = _run_threads(lambda i: program(torch.rand(4, 8)), 1)
    assert isinstance(error, runtime.KernelError) and error.op == "scale_by", error
    assert "KernelError: a Python kernel of this program called it again" in str(error)


_RESULTLESS = """
func.func @f(%a: tensor<4xf32>) -> tensor<4xf32> {
  tosa.custom %a {domain_name = DOMAIN, implementation_attrs = ATTRS, operator_name = OP} : (tensor<4xf32>) -> () loc("model.py":3:1)
  %0 = tosa.abs %a : (tensor<4xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}"""
_METADATA = ('{\\22args\\22:{\\22a\\22:{\\22operand\\22:0},\\22device\\22:{\\22device\\22:\\22cpu\\22},'
             '\\22dtype\\22:{\\22dtype\\22:\\22DTYPE\\22},\\22layout\\22:{\\22layout\\22:\\22strided\\22},'
             '\\22size\\22:null,\\22stride\\22:null},\\22version\\22:1}')


def _resultless(domain: str, op: str, attrs: str = "") -> str:
    return _RESULTLESS.replace("DOMAIN", f'"{domain}"').replace("OP", f'"{op}"').replace("ATTRS", f'"{attrs}"')


def test_a_metadata_assertion_is_checked_once_at_load():
    """A kept op without results would lose its dispatch in IREE: an
    assertion on static metadata is checked at load and left out; one that
    fails is refused, naming the op; any other result-less op is refused."""
    metadata = "torch.aten._assert_tensor_metadata"
    program = iree.load(_resultless("torch_mlir", metadata, _METADATA.replace("DTYPE", "float32")))
    assert program.custom_ops == []
    x = torch.randn(4)
    torch.testing.assert_close(program(x), x.abs())
    with pytest.raises(CompileError, match=r"_assert_tensor_metadata fails on every call, checked at load: "
                                           r"RuntimeError: .*dtype mismatch") as info:
        iree.load(_resultless("torch_mlir", metadata, _METADATA.replace("DTYPE", "int64")))
    assert info.value.category == "kernel-error" and info.value.ops == (metadata,)
    with pytest.raises(CompileError, match=r"acme::log_it has no results \(an assertion\): IREE takes a dispatch "
                                           r"to be free of side effects") as info:
        iree.load(_resultless("acme", "log_it"))
    assert info.value.category == "executor-limit" and info.value.ops == ("log_it",)


def test_a_python_kernel_site_is_refused_for_iree_run_module(convnet, tmp_path):
    _, _, module = convnet
    with pytest.raises(CompileError, match=r"torch_mlir::torch.aten.conv2d runs by its Python kernel "
                                           + re.escape(f"({_TORCH_KERNEL})") + ", which iree-run-module cannot call") \
            as info:
        iree.save(module, tmp_path / "saved")
    assert info.value.category == "no-kernel" and info.value.ops == ("torch.aten.conv2d",)
    assert not (tmp_path / "saved" / "model.vmfb").exists()
