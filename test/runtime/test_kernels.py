"""The kernel registry (runtime/kernels/registry.py): a user's kernel replaces a
built-in one only when asked (`override=True`), and then really runs, ahead of
the built-in native kernel; `kernels="user"` names the ops without one."""

from __future__ import annotations

import subprocess
import sys
import textwrap

import pytest
import torch
import torch.nn.functional as F
from _tolerance import reduction_tolerance

import tosa_custom
from tosa_custom import runtime
from tosa_custom.runtime.kernels import registry as kernels


@pytest.fixture
def private_registry(monkeypatch):
    """A copy of the registry, so a registration does not outlive the test."""
    kernels.registered_kernels()
    monkeypatch.setattr(kernels._KERNELS, "_entries", dict(kernels._KERNELS._entries))


class _Gelu(torch.nn.Module):
    def forward(self, x):
        return F.gelu(x) + 1


def _gelu_module():
    return tosa_custom.compile(_Gelu(), (torch.randn(3, 4),), backend_legal_ops=["aten.gelu"])


def test_override_replaces_the_builtin_native_kernel(private_registry):
    assert runtime.load(_gelu_module()).kernels[0].startswith("native")  # what runs without the user's

    @runtime.register_kernel("torch.aten.gelu", override=True)
    def my_gelu(call):
        return call.arguments["self"] * 2

    program = runtime.load(_gelu_module())
    assert program.kernels == [f"python ({__name__}.test_override_replaces_the_builtin_native_kernel.<locals>.my_gelu)"]
    x = torch.randn(3, 4)
    torch.testing.assert_close(program(x), x * 2 + 1)


def test_duplicate_names_the_users_function_and_the_fix(private_registry):
    def my_gelu(call):
        return call.inputs[0]

    with pytest.raises(ValueError, match=r"cannot register .*my_gelu for torch_mlir::torch.aten.gelu: the built-in "
                                         r"kernel tosa_custom.runtime.kernels.numpy_kernels.gelu is registered for it "
                                         r"already; pass register_kernel\(\.\.\., override=True\) to replace it"):
        runtime.register_kernel("torch.aten.gelu")(my_gelu)


def test_override_before_any_builtin_is_loaded():
    """The first thing a script does: register, then load. The built-ins load
    first, so theirs does not collide with the user's (it used to, from numpy_kernels.py)."""
    script = textwrap.dedent("""
        import torch, tosa_custom
        from tosa_custom import runtime

        @runtime.register_kernel("torch.aten.gelu", override=True)
        def my_gelu(call):
            return call.arguments["self"] * 3

        class M(torch.nn.Module):
            def forward(self, x):
                return torch.nn.functional.gelu(x)

        x = torch.ones(2, 2)
        program = runtime.load(tosa_custom.compile(M(), (x,), backend_legal_ops=["aten.gelu"]))
        print(program.kernels[0], program(x).sum().item())
    """)
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == ["python", "(__main__.my_gelu)", "12.0"]


def test_only_user_kernels_names_the_ops_without_one(private_registry):
    from tosa_custom.tools.example import KEPT_OPS, TransformerBlock

    torch.manual_seed(0)
    model, x = TransformerBlock().eval(), torch.randn(2, 8, 32)
    module = tosa_custom.compile(model, (x,), backend_legal_ops=KEPT_OPS).operation.get_asm()
    runtime.load(module)  # the built-in kernels cover every op
    with pytest.raises(tosa_custom.CompileError,
                       match=r"no kernel for torch_mlir::torch.aten.layer_norm; kernels='user' leaves out the "
                             r"built-in ones; registered: ") as e:
        runtime.load(module, kernels="user")
    assert "torch_mlir::" not in str(e.value).split("registered: ")[1]  # other tests' own domains only

    def eager(call):  # the user's own kernel (here: eager PyTorch)
        args, kwargs = call.decoded.bind(call.inputs)
        return call.decoded.overload(*args, **kwargs)

    for name in ("torch.aten.layer_norm", "torch.aten.softmax.int", "torch.aten.gelu"):
        runtime.register_kernel(name, override=True)(eager)
    program = runtime.load(module, kernels="user")
    assert program.kernels == [f"python ({__name__}.{eager.__qualname__})"] * 4, program.kernels
    with torch.no_grad():
        torch.testing.assert_close(program(x), model(x), **reduction_tolerance(4 * 32))


def test_kernel_selection_is_checked():
    with pytest.raises(ValueError, match=r"kernels='users': expected one of 'all', 'user'"):
        runtime.load(_gelu_module(), kernels="users")


def test_a_bool_scalar_torch_mlir_made_an_int_is_a_bool_again():
    """torch-mlir has no bool Scalar: `src * alpha` of index_add with a bool
    alpha reaches the kernel as `mul.Scalar(bool_tensor, 0)`, int64 in eager,
    while the op's type says bool (every-sample OpInfo index_add bool/1)."""
    class IndexAdd(torch.nn.Module):
        def forward(self, x, index, source):
            return torch.index_add(x, 0, index, source, alpha=False)

    args = (torch.tensor([True, False, False]), torch.tensor([1, 2]), torch.tensor([True, False]))
    compiled = tosa_custom.compile(IndexAdd(), args, backend_legal_ops=["aten.mul.Scalar", "aten.index_put"])
    assert "torch.aten.mul.Scalar" in str(compiled)
    got = runtime.load(compiled)(*args)
    assert got.dtype == torch.bool and torch.equal(got, IndexAdd()(*args))
