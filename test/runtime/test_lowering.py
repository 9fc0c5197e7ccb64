"""lowering.py: the runtime lowering pipeline really emits vector code, falls back
to loops when tiling fails, and computes what eager PyTorch does."""

from __future__ import annotations

import collections

import pytest
import torch
from _tolerance import assert_reduction_close

from tosa_custom.core.passes import run_pipeline
from tosa_custom import runtime
from tosa_custom.runtime.lower import lowering, tiling
from _runtime_ir import _matmul, _names, _ops, _parse  # noqa: F401  (shared IR helpers)


def test_matmul_becomes_vector_fmas_before_llvm():
    module = _parse(_matmul(2, 64, 32, 96))
    lowering.lower_to_vectors(module, cpu="avx512")  # IR only: the 8 x 32 tile of any AVX-512 host
    names = _names(module)
    text = str(module)
    assert not [n for n in names if n.startswith("linalg.")], names
    assert names["vector.fma"] >= 8  # one FMA per accumulator row of the 8 x 32 tile
    assert "vector<32xf32>" in text
    # the accumulators stay in registers across the reduction loop
    assert any("iter_args" in line and "vector<" in line for line in text.splitlines())
    # and in the LLVM dialect, vector FMAs on LLVM vector types
    run_pipeline(module, lowering.BACKEND_PIPELINE, "the backend pipeline")
    llvm = str(module)
    assert "llvm.intr.fmuladd" in llvm and "vector<32xf32>" in llvm  # vector.fma lowers to fmuladd


@pytest.mark.parametrize("b,m,k,n", [(1, 64, 32, 96), (2, 16, 256, 64), (3, 7, 13, 5), (1, 1, 1, 1), (2, 24, 9, 40)])
@pytest.mark.parametrize("vectorize", [True, False], ids=["vectorized", "naive"])
def test_matmul_matches_eager(b, m, k, n, vectorize):
    g = torch.Generator().manual_seed(b * 1000 + m + k + n)
    a, w = torch.randn(b, m, k, generator=g), torch.randn(b, k, n, generator=g)
    program = runtime.load(_matmul(b, m, k, n), vectorize=vectorize)
    assert_reduction_close(program(a, w), torch.bmm(a, w), k)


ATTENTION = """
func.func @f(%q: tensor<8x16x32xf32>, %k: tensor<8x16x32xf32>, %v: tensor<8x16x32xf32>) -> tensor<8x16x32xf32> {
  %z = "tosa.const"() <{values = dense<0.0> : tensor<1xf32>}> : () -> tensor<1xf32>
  %kt = tosa.transpose %k {perms = array<i32: 0, 2, 1>} : (tensor<8x16x32xf32>) -> tensor<8x32x16xf32>
  %s = tosa.matmul %q, %kt, %z, %z : (tensor<8x16x32xf32>, tensor<8x32x16xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<8x16x16xf32>
  %m = tosa.reduce_max %s {axis = 2 : i32} : (tensor<8x16x16xf32>) -> tensor<8x16x1xf32>
  %d = tosa.sub %s, %m : (tensor<8x16x16xf32>, tensor<8x16x1xf32>) -> tensor<8x16x16xf32>
  %e = tosa.exp %d : (tensor<8x16x16xf32>) -> tensor<8x16x16xf32>
  %sum = tosa.reduce_sum %e {axis = 2 : i32} : (tensor<8x16x16xf32>) -> tensor<8x16x1xf32>
  %r = tosa.reciprocal %sum : (tensor<8x16x1xf32>) -> tensor<8x16x1xf32>
  %sh = "tosa.const"() <{values = dense<0> : tensor<1xi8>}> : () -> tensor<1xi8>
  %p = tosa.mul %e, %r, %sh : (tensor<8x16x16xf32>, tensor<8x16x1xf32>, tensor<1xi8>) -> tensor<8x16x16xf32>
  %o = tosa.matmul %p, %v, %z, %z : (tensor<8x16x16xf32>, tensor<8x16x32xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<8x16x32xf32>
  return %o : tensor<8x16x32xf32>
}"""


def test_attention_reductions_and_exp_are_vectorized():
    module = _parse(ATTENTION)
    plans = lowering.lower_to_vectors(module, cpu="avx512")  # IR only: the same plan on any host
    kinds = collections.Counter(plan.kind for plan in plans)
    assert kinds["contraction"] + kinds["contraction-like"] >= 2 and kinds["elementwise"] >= 2
    names = _names(module)
    assert names["math.exp"] == 0  # expanded into polynomial arithmetic on vectors
    assert names["vector.reduction"] > 0  # the max and the sum: horizontal vector reductions
    assert names["vector.fma"] > 0


def test_attention_matches_eager():
    g = torch.Generator().manual_seed(0)
    q, k, v = (torch.randn(8, 16, 32, generator=g) for _ in range(3))
    program = runtime.load(ATTENTION)
    expected = torch.softmax(q @ k.transpose(1, 2), dim=-1) @ v
    assert_reduction_close(program(q, k, v), expected, k=32, depth=2)  # q.k over 32, p.v over 16


def test_generic_contraction_gets_fmas():
    """A contraction that fusion turned into a linalg.generic (mul + add per step) still runs on FMAs."""
    module = _parse(ATTENTION)
    lowering.lower_to_vectors(module)
    names = _names(module)
    assert names["vector.fma"] > 0 and names["vector.contract"] == 0


def test_failed_transform_falls_back_to_loops(monkeypatch):
    monkeypatch.setattr(tiling, "tiling_script", lambda plans: "this is not a transform script")
    with pytest.warns(RuntimeWarning, match="lowering with naive loops"):
        program = runtime.load(_matmul(1, 16, 8, 32))
    a, w = torch.randn(1, 16, 8), torch.randn(1, 8, 32)
    assert_reduction_close(program(a, w), torch.bmm(a, w), k=8)


RESHAPED = """
func.func @f(%a: tensor<2x6xf32>) -> (tensor<3x4xf32>, tensor<3x4xf32>) {
  %s = tosa.const_shape {values = dense<[3, 4]> : tensor<2xindex>} : () -> !tosa.shape<2>
  %r = tosa.reshape %a, %s : (tensor<2x6xf32>, !tosa.shape<2>) -> tensor<3x4xf32>
  %0 = tosa.custom %r {domain_name = "lowering_test", implementation_attrs = "", operator_name = "record"} : (tensor<3x4xf32>) -> tensor<3x4xf32>
  return %0, %r : tensor<3x4xf32>, tensor<3x4xf32>
}"""

_SEEN: list = []


@runtime.register_kernel("record", domain_name="lowering_test")
def _record(call):
    _SEEN.append((tuple(call.inputs[0].shape), tuple(call.outputs[0].shape), call.inputs[0].clone()))
    torch.mul(call.inputs[0], 2.0, out=call.outputs[0])


def test_kernels_see_the_shapes_of_their_operands():
    """An input passed on reshaped (same memory, another shape) is a view of the op's shape."""
    program = runtime.load(RESHAPED)
    x = torch.arange(12, dtype=torch.float32).reshape(2, 6)
    for _ in range(3):  # cached views and the call's own tensors alike
        _SEEN.clear()
        doubled, reshaped = program(x)
        (in_shape, out_shape, seen), = _SEEN
        assert in_shape == (3, 4) and out_shape == (3, 4)
        torch.testing.assert_close(seen, x.reshape(3, 4))
        torch.testing.assert_close(doubled, 2 * x.reshape(3, 4))
        torch.testing.assert_close(reshaped, x.reshape(3, 4))
    y = torch.randn(2, 6)  # another input: new memory, same answers
    doubled, _ = program(y)
    torch.testing.assert_close(doubled, 2 * y.reshape(3, 4))


@pytest.mark.parametrize("dtype", [torch.int8, torch.int16, torch.int32, torch.int64])
def test_integer_argmin_runs(dtype):
    """torch-mlir negates the input of an integer argmin; for int64, MLIR's
    tosa-to-linalg lowering of that negate did not verify (an i64 -> i16
    extsi): tosa-custom-integer-negate-as-sub runs first."""
    import tosa_custom
    from tosa_custom import runtime
    from tosa_custom.e2e.modules import Fn

    x = torch.tensor([[3, -1, 2, -1], [0, 5, -7, 9]], dtype=dtype)
    model = Fn(lambda t: torch.argmin(t, 1))
    program = runtime.load(tosa_custom.compile(model, (x,), tosa_target=None))  # i64 is outside TOSA 1.0
    assert torch.equal(program(x), model(x))


@pytest.mark.parametrize("env,expected", [(None, False), ("0", False), ("1", True)])
def test_lowering_verifies_each_pass_only_when_asked(monkeypatch, env, expected):
    """TOSA_CUSTOM_VERIFY_EACH: every pipeline the lowering runs verifies after each pass or once."""
    seen = []
    real = lowering.run_pipeline
    monkeypatch.setattr(lowering, "run_pipeline", lambda *a, **k: (seen.append(k["verify_each"]), real(*a, **k))[1])
    if env is None:
        monkeypatch.delenv(lowering.VERIFY_EACH, raising=False)
    else:
        monkeypatch.setenv(lowering.VERIFY_EACH, env)
    module = _parse(_matmul(1, 4, 3, 5))
    lowering.lower(module)
    assert seen and set(seen) == {expected}
    assert "llvm.func" in str(module)


class _Aspp(torch.nn.Module):
    """DeepLabV3's atrous branches: 3x3 convolutions of dilation 2 to 36 (padded
    as much) and a dilated depthwise one, summed."""

    def __init__(self):
        super().__init__()
        self.convs = torch.nn.ModuleList(torch.nn.Conv2d(8, 4, 3, padding=d, dilation=d) for d in (2, 12, 36))
        self.depthwise = torch.nn.Conv2d(8, 8, 5, padding=4, dilation=2, groups=8)
        self.project = torch.nn.Conv2d(8, 4, 1)

    def forward(self, x):
        return sum(conv(x) for conv in self.convs) + self.project(self.depthwise(x))


@pytest.mark.parametrize("size", [(4, 4), (3, 20), (26, 26)])
def test_taps_reading_only_padding_are_dropped_and_match_eager(size):
    """dead_taps.py: on a map smaller than a dilation, the taps that read only
    padding are cut from the kernel (4x4: every dilated branch keeps its
    centre); on larger maps, fewer or none. Every size computes what eager does."""
    import tosa_custom

    torch.manual_seed(0)
    model, x = _Aspp().eval(), torch.randn(1, 8, *size)
    text = str(tosa_custom.compile(model, (x,)))
    module = _parse(text)
    with module.context:
        run_pipeline(module, ["tosa-custom-drop-padding-taps"], "cutting taps")
    kernels = [str(op.operands[1].type) for op in _ops(module) if op.name in ("tosa.conv2d", "tosa.depthwise_conv2d")]
    if size == (4, 4):
        assert sorted(kernels) == sorted(["tensor<4x3x3x8xf32>", "tensor<4x1x1x8xf32>", "tensor<4x1x1x8xf32>",
                                          "tensor<3x3x8x1xf32>", "tensor<4x1x1x8xf32>"]), kernels
    program = runtime.load(text)
    with torch.no_grad():
        expected = model(x)
    assert_reduction_close(program(x), expected, k=8 * 9, depth=2)


def _linear(rows: int, k: int, n: int, weights) -> str:
    """x @ W with W a constant: the runtime packs W in column panels and the
    contraction reads one A element per tile row, broadcast across its lanes."""
    values = ", ".join(f"{v:.6e}" for v in weights.reshape(-1).tolist())
    return f"""
func.func @f(%a: tensor<1x{rows}x{k}xf32>) -> tensor<1x{rows}x{n}xf32> {{
  %z = "tosa.const"() <{{values = dense<0.0> : tensor<1xf32>}}> : () -> tensor<1xf32>
  %w = "tosa.const"() <{{values = dense<[[{values}]]> : tensor<1x{k * n}xf32>}}> : () -> tensor<1x{k * n}xf32>
  %s = tosa.const_shape {{values = dense<[1, {k}, {n}]> : tensor<3xindex>}} : () -> !tosa.shape<3>
  %b = tosa.reshape %w, %s : (tensor<1x{k * n}xf32>, !tosa.shape<3>) -> tensor<1x{k}x{n}xf32>
  %0 = tosa.matmul %a, %b, %z, %z : (tensor<1x{rows}x{k}xf32>, tensor<1x{k}x{n}xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<1x{rows}x{n}xf32>
  return %0 : tensor<1x{rows}x{n}xf32>
}}"""


@pytest.mark.parametrize("cpu", ["avx512", "avx2"])
def test_a_packed_contraction_broadcasts_each_row_once(cpu):
    """Each tile row's A element reaches its FMA as one broadcast (a splat
    per row), not built lane by lane from a transposed broadcast (32 scalar
    inserts per row on AVX-512 before vector_lowering.py's fold), and the
    product is eager's (run at avx2, which any x86-64 host here runs)."""
    g = torch.Generator().manual_seed(7)
    w, a = torch.randn(64, 64, generator=g), torch.randn(1, 32, 64, generator=g)
    module = _parse(_linear(32, 64, 64, w))
    lowering.lower_to_vectors(module, cpu=cpu)
    text = str(module)
    assert "vector.fma" in text or "math.fma" in text
    assert "f32 into vector<" not in text  # no element-wise vector building
    if cpu == "avx2":
        program = runtime.load(_linear(32, 64, 64, w), cpu="avx2")
        assert_reduction_close(program(a), a @ w, 64)
