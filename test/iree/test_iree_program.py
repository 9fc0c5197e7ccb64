"""tosa_custom.iree.load: tunneled programs run by IREE (3.13, pinned), each
tosa.custom by its native kernel through the plugin, at 1 and 2 threads,
against eager PyTorch; the result semantics of runtime.load (in-place
write-back, state, weights as arguments); the refusal of an op without an
allowed kernel; a kernel's failure as a KernelError naming the op."""

from __future__ import annotations

import os
import warnings
from pathlib import Path

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")

import pytest
import torch

import tosa_custom
from tosa_custom import runtime
from tosa_custom.core.diagnostics import CompileError
from tosa_custom.runtime.kernels import native
from tosa_custom.tools.example import KEPT_OPS, TransformerBlock

from _models import small_bert
from _out_resize import check_out_resize
from _tolerance import reduction_tolerance

pytest.importorskip("iree.runtime")
pytest.importorskip("iree.compiler")

from tosa_custom import iree  # noqa: E402

F = torch.nn.functional
THREADS = [1, 2]
BLOCK_TOL = reduction_tolerance(4 * 64)  # the MLP's 4 x dim contraction
BERT_TOL = reduction_tolerance(64, depth=2)  # intermediate_size 64, 2 layers
LLAMA_TOL = reduction_tolerance(64, depth=2)


def _compile(model, args, ops, **kwargs):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return tosa_custom.compile(model.eval(), args, backend_legal_ops=ops, **kwargs)


def _builtin(kernels: list[str]) -> bool:
    return all(k.startswith("native (libtosa_custom_kernels.so") for k in kernels)


@pytest.mark.parametrize("threads", THREADS)
def test_example_block(threads):
    torch.manual_seed(0)
    model, x = TransformerBlock(dim=64, heads=2), torch.randn(2, 16, 64)
    program = iree.load(_compile(model, (x,), KEPT_OPS), threads=threads)
    assert program.custom_ops == ["torch.aten.layer_norm", "torch.aten.softmax.int", "torch.aten.layer_norm",
                                  "torch.aten.gelu"]
    assert _builtin(program.kernels) and "layer_norm f32" in program.kernels[0]
    with torch.no_grad():
        expected = model(x)
    torch.testing.assert_close(program(x), expected, **BLOCK_TOL)
    torch.testing.assert_close(program(x.numpy()), expected, **BLOCK_TOL)  # numpy in, same answer


@pytest.mark.parametrize("threads", THREADS)
def test_bert(threads):
    model, ids = small_bert(hidden_act="gelu")
    mask = torch.ones(2, 8, dtype=torch.int64)
    mask[1, 6:] = 0
    program = iree.load(_compile(model, (ids, mask), ["aten.layer_norm", "aten.softmax.int", "aten.gelu"]),
                        threads=threads)
    assert sorted(set(program.custom_ops)) == ["torch.aten.gelu", "torch.aten.layer_norm", "torch.aten.softmax.int"]
    assert len(program.custom_ops) == 9 and _builtin(program.kernels)  # 5 layer_norm, 2 softmax, 2 gelu
    with torch.no_grad():
        expected = model(ids, mask)
    torch.testing.assert_close(program(ids, mask), expected, **BERT_TOL)


def _llama():
    transformers = pytest.importorskip("transformers")
    torch.manual_seed(0)
    config = transformers.LlamaConfig(vocab_size=64, hidden_size=32, intermediate_size=64, num_hidden_layers=2,
                                      num_attention_heads=2, num_key_value_heads=1, max_position_embeddings=32,
                                      attn_implementation="eager")
    model = transformers.LlamaModel(config).eval()

    class Llama(torch.nn.Module):
        """LlamaModel's layers with the causal mask as a float constant:
        transformers' own mask builder gathers i64 values, which IREE's TOSA
        input (pro_fp) refuses, as tosa-validate does."""

        def __init__(self):
            super().__init__()
            self.model = model

        def forward(self, ids):
            h = self.model.embed_tokens(ids)
            n = ids.shape[1]
            position = self.model.rotary_emb(h, torch.arange(n).unsqueeze(0))
            mask = torch.full((n, n), float("-inf")).triu(1)[None, None]
            for layer in self.model.layers:
                out = layer(h, attention_mask=mask, position_embeddings=position)
                h = out[0] if isinstance(out, tuple) else out
            return self.model.norm(h)

    return Llama().eval(), torch.randint(0, 64, (1, 8), generator=torch.Generator().manual_seed(0))


@pytest.mark.parametrize("threads", THREADS)
def test_llama(threads):
    model, ids = _llama()
    program = iree.load(_compile(model, (ids,), ["aten.rms_norm", "aten.silu", "aten.softmax.int"] ),
                        threads=threads)
    assert "torch.aten.silu" in program.custom_ops and "torch.aten.softmax.int" in program.custom_ops
    assert _builtin(program.kernels)
    with torch.no_grad():
        expected = model(ids)
    torch.testing.assert_close(program(ids), expected, **LLAMA_TOL)


class _Accumulate(torch.nn.Module):
    """Writes its input in place and keeps a running sum as state."""

    def __init__(self):
        super().__init__()
        self.register_buffer("total", torch.zeros(4, 32))

    def forward(self, x, y):
        self.total.add_(y)
        x.mul_(2.0)
        return F.gelu(x) + F.layer_norm(self.total, (32,))


@pytest.mark.parametrize("weights", ["inline", "arguments"])
def test_in_place_updates_and_state(weights):
    torch.manual_seed(0)
    x0, ys = torch.randn(4, 32), [torch.randn(4, 32) for _ in range(3)]
    module = _compile(_Accumulate(), (x0.clone(), ys[0]), ["aten.gelu", "aten.layer_norm"], weights=weights)
    program = iree.load(module, threads=2, weights=_Accumulate() if weights == "arguments" else None)
    assert program.custom_ops == ["torch.aten.gelu", "torch.aten.layer_norm"]
    eager = _Accumulate()
    for y in ys:
        xe, xp = x0.clone(), x0.clone()
        with torch.no_grad():
            expected = eager(xe, y)
        got = program(xp, y)
        torch.testing.assert_close(got, expected, rtol=1e-5, atol=1e-5)
        torch.testing.assert_close(xp, xe)  # the caller's tensor was written, as eager writes it
    torch.testing.assert_close(program.state_dict()["total"], eager.total)
    program.reset_state()
    assert not program.state_dict()["total"].any()


class _Dtypes(torch.nn.Module):
    """A 0-d input, uint8 in and out, bfloat16 in and out, beside a kept gelu."""

    def forward(self, scale, small, half, x):
        return F.gelu(x) * scale, small + 3, (half * 2).exp()


def test_zero_rank_uint8_and_bfloat16_at_the_boundary():
    """IREE takes and returns these as the signature carries them (uint8 on
    i8, bfloat16 as ml_dtypes'); the program gives back eager's dtypes."""
    args = (torch.tensor(1.5), torch.tensor([250, 1, 7], dtype=torch.uint8),
            torch.randn(2, 3).to(torch.bfloat16), torch.randn(2, 8))
    program = iree.load(_compile(_Dtypes(), args, ["aten.gelu"]), threads=2)
    assert [s.dtype for s in program.input_specs] == [torch.float32, torch.uint8, torch.bfloat16, torch.float32]
    got, expected = program(*args), _Dtypes()(*args)
    assert [t.dtype for t in got] == [torch.float32, torch.uint8, torch.bfloat16]
    torch.testing.assert_close(got[0], expected[0], rtol=1e-5, atol=1e-5)
    torch.testing.assert_close(got[1], expected[1], rtol=0, atol=0)  # 253, 4, 10: wraps as eager's would
    torch.testing.assert_close(got[2], expected[2], rtol=1.6e-2, atol=1e-2)  # bfloat16's 8-bit mantissa


def test_weights_as_arguments_swap_without_recompiling():
    torch.manual_seed(0)
    model, x = TransformerBlock(dim=32, heads=2), torch.randn(2, 8, 32)
    program = iree.load(_compile(model, (x,), KEPT_OPS, weights="arguments"), weights=model.state_dict())
    other = TransformerBlock(dim=32, heads=2).eval()
    program.load_weights(other.state_dict())
    with torch.no_grad():
        torch.testing.assert_close(program(x), other(x), **reduction_tolerance(4 * 32))


def test_op_without_an_allowed_kernel_is_refused_naming_it():
    """atan2 has no native kernel: it runs by the generic torch kernel
    (test_python_kernels.py), unless only the user's kernels may run."""
    module = _compile(tosa_custom.e2e.Fn(lambda x: torch.atan2(x, x + 1)), (torch.randn(3, 4),), ["aten.atan2"])
    text = module.operation.get_asm()
    with pytest.raises(CompileError, match=r"no kernel for torch_mlir::torch.aten.atan2 \(element types f32, f32\); "
                                           r"kernels='user' leaves out the built-in ones") as info:
        iree.load(text, kernels="user")
    assert info.value.category == "no-kernel" and tuple(info.value.ops) == ("torch.aten.atan2",)
    with pytest.raises(CompileError, match=r"the generic torch kernel is off \(torch_fallback=False\)"):
        iree.load(text, torch_fallback=False)


_CHECKED_SQRT = """
func.func @f(%a: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %0 = tosa.custom %a {domain_name = "acme", implementation_attrs = "", operator_name = "checked_sqrt"} : (tensor<4x8xf32>) -> tensor<4x8xf32> loc("model.py":7:3)
  return %0 : tensor<4x8xf32>
}"""


@pytest.fixture(scope="module")
def fixture_so(tmp_path_factory) -> Path:
    source = Path(__file__).parents[1] / "native" / "fixture_kernels.c"
    return native.compile_kernel_library([source], tmp_path_factory.mktemp("k") / "libfixture.so")


@pytest.fixture
def fixture_library(fixture_so):
    library = runtime.load_kernel_library(fixture_so)
    yield library
    native.unload_kernel_library(library)  # it overrides aten.gelu: never leak it into other tests


@pytest.mark.parametrize("wait", ["poll", "iree"])
def test_kernel_error_reaches_the_caller_naming_the_op(fixture_library, wait):
    """The fixture's checked_sqrt fails on a negative element (a version-2
    kernel of a user's library, run whole: it declares no split), whichever
    way the caller waits (polled: the call's semaphore fails)."""
    program = iree.load(_CHECKED_SQRT, threads=2, wait=wait)
    assert program.kernels == ["native (libfixture.so: checked_sqrt f32)"]
    x = torch.rand(4, 8)
    torch.testing.assert_close(program(x), x.sqrt())
    x[2, 3] = -1.0
    with pytest.raises(runtime.KernelError, match=r"kernel for checked_sqrt at loc\(\"model.py\":7:3\) failed: "
                                                  r"native \(.*\): invalid argument \(status 2\): .*negative") as info:
        program(x)
    assert info.value.op == "checked_sqrt"
    torch.testing.assert_close(program(x.abs()), x.abs().sqrt())  # the program stays usable


_RENDEZVOUS = """
func.func @f(%a: tensor<4xf32>) -> tensor<4xf32> {
  %0 = tosa.custom %a {domain_name = "acme", implementation_attrs = "", operator_name = "rendezvous_fail"} : (tensor<4xf32>) -> tensor<4xf32> loc(WHERE)
  return %0 : tensor<4xf32>
}"""


@pytest.fixture
def rendezvous_library(tmp_path):
    so = native.compile_kernel_library([Path(__file__).with_name("fixture_rendezvous.c")], tmp_path / "librdv.so")
    library = runtime.load_kernel_library(so)
    yield library
    native.unload_kernel_library(library)


def _failure(program, x):
    try:
        program(x)
    except runtime.KernelError as e:
        return e
    return None


def test_failures_of_concurrent_calls_each_name_their_own_op(rendezvous_library):
    """Two programs called from two threads fail at the same time (the
    fixture's kernel fails only once the other call has arrived): each
    KernelError names its own location and input, not the other's."""
    from concurrent.futures import ThreadPoolExecutor

    wheres = ['"first.py":1:1', '"second.py":22:2']
    programs = [iree.load(_RENDEZVOUS.replace("WHERE", w), threads=2) for w in wheres]
    for _ in range(3):
        with ThreadPoolExecutor(2) as pool:
            errors = list(pool.map(_failure, programs, [torch.full((4,), 1.0), torch.full((4,), 2.0)]))
        for error, where, value in zip(errors, wheres, ("1", "2")):
            assert error is not None and error.op == "rendezvous_fail"
            assert f"at loc({where}) failed" in str(error) and f"first element {value}" in str(error), str(error)


def test_failing_calls_of_one_program_from_two_threads(fixture_library):
    """One program, two threads, each call failing on its own element: the
    calls take turns (an IREE context runs one call at a time) and each
    error names its own element."""
    from concurrent.futures import ThreadPoolExecutor

    program = iree.load(_CHECKED_SQRT, threads=2)
    inputs = []
    for i in range(8):
        x = torch.rand(4, 8)
        x.view(-1)[i] = -1.0
        inputs.append(x)
    with ThreadPoolExecutor(2) as pool:
        errors = list(pool.map(lambda x: _failure(program, x), inputs))
    for i, error in enumerate(errors):
        assert error is not None and f"element {i} is negative" in str(error), str(error)


def test_saved_artifact_runs_with_iree_run_module(tmp_path):
    """save() writes a directory iree-run-module runs without Python: the
    line it returns, run in a fresh environment, prints eager's result."""
    import subprocess

    import numpy as np

    torch.manual_seed(0)
    model, x = TransformerBlock(dim=32, heads=2), torch.randn(2, 4, 32)
    saved = iree.save(_compile(model, (x,), KEPT_OPS, weights="arguments"), tmp_path / "block", inputs=[x],
                      weights=model.state_dict(), threads=2)
    out = tmp_path / "out.npy"
    env = {k: v for k, v in os.environ.items() if k != "TOSA_CUSTOM_IREE_SITES"} | saved.environment
    done = subprocess.run([*saved.command, f"--output=@{out}"], env=env, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr[-3000:]
    with torch.no_grad():
        expected = model(x)
    torch.testing.assert_close(torch.from_numpy(np.load(out)), expected, **reduction_tolerance(4 * 32))
    assert (tmp_path / "block" / "run.sh").read_text().count("iree-run-module") == 1
    # without the sites, the plugin says what is missing
    done = subprocess.run(list(saved.command), env={k: v for k, v in env.items() if k != "TOSA_CUSTOM_IREE_SITES"},
                          capture_output=True, text=True, timeout=300)
    assert done.returncode != 0 and "tosa_custom_site_" in done.stderr and "TOSA_CUSTOM_IREE_SITES" in done.stderr


def test_results_outlive_their_program():
    """A result stays valid after its program (and IREE's device) is gone:
    the README's blocks replaced an IREE program and then dropped its
    result, whose view of IREE's buffer crashed when unmapped."""
    import gc

    torch.manual_seed(0)
    model = TransformerBlock(dim=32, heads=4).eval()
    x = torch.randn(2, 8, 32)
    program = iree.load(tosa_custom.compile(model, (x,), backend_legal_ops=KEPT_OPS))
    y = program(x)
    del program
    gc.collect()
    with torch.no_grad():
        torch.testing.assert_close(y, model(x), rtol=1e-5, atol=1e-5)
    y.add_(1)  # its own memory, writable
    del y
    gc.collect()


def test_out_of_another_size_is_resized_and_inputs_stay_resizable():
    check_out_resize(iree.load)
