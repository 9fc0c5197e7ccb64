"""Every dtype PyTorch models use, as program inputs, outputs and kernel operands.

f32, f64, f16, bf16, i64, i32, i16, i8, u8 and bool: through stock TOSA (no
custom op), through a kept op run by a kernel (the generic torch kernel, or a
numpy kernel), and a kernel returning the wrong dtype, which must be an error,
never a silent cast. Results must have exactly eager PyTorch's dtype and
(integers, bool, and ops exact in floating point) exactly its values.

Known failures are strict xfails naming where they fail (compile, lowering,
engine, kernel) and why.

Most of these dtypes are outside TOSA 1.0's profiles (f64 anywhere, i8/i16
arithmetic, bool comparison): the runtime runs them all, so the modules are
compiled with `tosa_target=None`; test/tosa/test_target.py covers the check.
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest
import torch
from torch import nn

import tosa_custom
from tosa_custom import runtime
from tosa_custom.runtime.kernels import registry as kernels
from tosa_custom.e2e import Fn

FLOATS = [torch.float32, torch.float64, torch.float16, torch.bfloat16]
INTS = [torch.int64, torch.int32, torch.int16, torch.int8, torch.uint8]
ALL = FLOATS + INTS + [torch.bool]
SHAPE = (3, 4)


def _name(dtype: torch.dtype) -> str:
    return str(dtype).replace("torch.", "")


def _sample(dtype: torch.dtype, seed: int = 0, shape=SHAPE) -> torch.Tensor:
    """Values that tell dtypes apart: negatives for signed types, >127 for uint8."""
    g = torch.Generator().manual_seed(seed)
    if dtype == torch.bool:
        return torch.randint(0, 2, shape, generator=g).bool()
    if dtype.is_floating_point:
        return (torch.randn(shape, generator=g) * 3).to(dtype)
    if dtype == torch.uint8:
        return torch.randint(0, 256, shape, generator=g).to(dtype)
    return torch.randint(-60, 60, shape, generator=g).to(dtype)  # x + x stays in int8 range


def _compile_load(fn, args, kept=None, vectorize=True):
    with warnings.catch_warnings():
        warnings.filterwarnings("error", message=r".*but the model contains no such op.*")
        module = tosa_custom.compile(Fn(fn), args, backend_legal_ops=kept, tosa_target=None)
    return runtime.load(module, vectorize=vectorize)


def _check_exact(fn, args, kept=None, vectorize=True):
    program = _compile_load(fn, args, kept, vectorize)
    with torch.no_grad():
        expected = fn(*args)
    out = program(*args)
    assert out.dtype == expected.dtype, f"got {out.dtype}, eager gives {expected.dtype}"
    assert torch.equal(out, expected), f"\n{out}\n!=\n{expected}"
    return program


# --------------------------------------------------------------------------
# Known failures, by dtype and path.
# --------------------------------------------------------------------------



# --------------------------------------------------------------------------
# Stock TOSA: no custom op.
# --------------------------------------------------------------------------

def _stock_cases():
    """(id, fn, number of same-dtype inputs, marks) for one dtype."""
    for dtype in ALL:
        d = _name(dtype)
        if dtype == torch.bool:
            yield d, "logic", lambda x, y: (~x | y) ^ (x & y), 2, ()
            yield d, "where", lambda c, x, y: torch.where(c, x, y), 3, ()
            yield d, "eq", lambda x, y: x == y, 2, ()
            yield d, "to_float", lambda x, y: x.float() - y.float(), 2, ()
            yield d, "mul", lambda x, y: x * y, 2, ()  # i1 tosa.mul is logical and: exact, not refused
            yield d, "add", lambda x, y: x + y, 2, ()
            yield d, "maximum", lambda x, y: torch.maximum(x, y), 2, ()
            yield d, "gt", lambda x, y: x > y, 2, ()
            continue
        marks = ()
        yield d, "add", lambda x: x + x, 1, marks
        yield d, "abs", torch.abs, 1, marks
        yield d, "maximum", lambda x, y: torch.maximum(x, y), 2, marks
        yield d, "where", lambda c, x, y: torch.where(c, x, y), 3, marks
        yield d, "to_float", lambda x: x.to(torch.float32) * 0.5, 1, marks


def _inputs(dtype, fn_id, n):
    if fn_id == "where":  # a bool condition, then two values of the dtype
        return (_sample(torch.bool, 7),) + tuple(_sample(dtype, i) for i in range(n - 1))
    return tuple(_sample(dtype, i) for i in range(n))


# Both lowerings: the vectorizing one must leave i1 memrefs to scalar loops (LLVM
# packs vector<N x i1> into bits in memory, a memref / torch.bool has a byte per
# element); a bool condition input, bool outputs and bool intermediates check it.
@pytest.mark.parametrize("vectorize", [True, False], ids=["vectorized", "naive"])
@pytest.mark.parametrize(
    "dtype,fn_id,fn,n",
    [pytest.param(getattr(torch, d), i, f, n, id=f"{d}-{i}", marks=m) for d, i, f, n, m in _stock_cases()],
)
def test_stock(dtype, fn_id, fn, n, vectorize):
    if dtype == torch.bool and fn_id in ("add", "maximum", "gt"):
        # torch-mlir computes these on i1 (True + True == False): refused, never silently wrong.
        with pytest.raises(tosa_custom.CompileError, match="bool tensors reach arithmetic or ordering ops"):
            _compile_load(fn, _inputs(dtype, fn_id, n), vectorize=vectorize)
        return
    if dtype == torch.uint8 and fn_id in ("abs", "maximum", "to_float"):
        # torch-mlir computes uint8 as signed int8: refused, never silently wrong.
        with pytest.raises(tosa_custom.CompileError, match="uint8 values reach ops whose result depends on their sign"):
            _compile_load(fn, _inputs(dtype, fn_id, n), vectorize=vectorize)
        return
    program = _check_exact(fn, _inputs(dtype, fn_id, n), vectorize=vectorize)
    assert program.custom_ops == []


@pytest.mark.xfail(
    reason="upstream torch-mlir: aten.mul.Scalar on si16 is not legalized to TOSA: CompileError "
           "'failed to legalize operation 'torch.aten.mul.Scalar' that was explicitly marked illegal'",
    raises=tosa_custom.CompileError, strict=True)
def test_int16_mul_scalar():
    _check_exact(lambda x: x * 3, (_sample(torch.int16),))


def test_int16_mul_tensor():
    _check_exact(lambda x, y: x * y, (_sample(torch.int16, 0), _sample(torch.int16, 1)))


def test_uint8_stock_semantics():
    """A sign-dependent op on uint8 is refused (naming it and the fix); kept
    as tosa.custom it computes PyTorch's unsigned answer; uint8 in and out."""
    x = torch.tensor([[200, 100, 5, 255]], dtype=torch.uint8)
    fn = lambda x: (x > 50).to(torch.float32) + x.to(torch.float32)  # noqa: E731
    with pytest.raises(tosa_custom.CompileError, match=r"torch\.aten\.gt\.Scalar.*backend_legal_ops"):
        _compile_load(fn, (x,))
    program = _compile_load(fn, (x,), kept=["aten.gt.Scalar", "aten._to_copy"])
    assert program.input_specs[0].dtype == torch.uint8
    torch.testing.assert_close(program(x), fn(x))
    wrap = _compile_load(lambda x: x + x, (x,))  # sign-blind: stock, uint8 in and out
    assert wrap(x).dtype == torch.uint8 and torch.equal(wrap(x), x + x)
    picked = _compile_load(lambda x, i: x.index_select(1, i) * x[:, :2], (x, torch.tensor([3, 0])))
    torch.testing.assert_close(picked(x, torch.tensor([3, 0])), x.index_select(1, torch.tensor([3, 0])) * x[:, :2])


@pytest.mark.parametrize("fn, args, op", [
    # A sign-blind op with a wider operand promotes: uint8 200 + int8 1 is 201 in int16.
    (lambda a, b: a + b, (torch.tensor([200], dtype=torch.uint8), torch.tensor([1], dtype=torch.int8)),
     "aten.add.Tensor"),
    (lambda a, b: a == b, (torch.tensor([200], dtype=torch.uint8), torch.tensor([-56], dtype=torch.int8)),
     "aten.eq.Tensor"),
    (lambda a, b: a * b, (torch.tensor([200], dtype=torch.uint8), torch.tensor([0.5])), "aten.mul.Tensor"),
    # Not an aten op, the same signed lowering.
    (lambda x: torch.ops.quantized_decomposed.quantize_per_tensor(x, 0.02, 128, 0, 255, torch.uint8),
     (torch.randn(2, 6),), "quantized_decomposed.quantize_per_tensor"),
])
def test_uint8_mixed_with_other_dtypes_is_refused(fn, args, op):
    import torch.ao.quantization.fx._decomposed  # noqa: F401  registers quantized_decomposed

    with pytest.raises(tosa_custom.CompileError, match=rf"depends on their sign.*torch\.{op}"):
        tosa_custom.compile(Fn(fn), args)


# --------------------------------------------------------------------------
# Kept ops: kernels see and return every dtype.
# --------------------------------------------------------------------------

def _kept_cases():
    for dtype in ALL:
        d = _name(dtype)
        marks = ()
        yield d, "clone", torch.clone, ["aten.clone"], 1, marks
        yield d, "add", lambda x, y: x + y, ["aten.add.Tensor"], 2, marks
        yield d, "maximum", lambda x, y: torch.maximum(x, y), ["aten.maximum"], 2, marks
        yield d, "where", lambda c, x, y: torch.where(c, x, y), ["aten.where.self"], 3, marks
        if dtype != torch.bool:  # eager PyTorch has neither abs nor neg for bool
            yield d, "abs", torch.abs, ["aten.abs"], 1, marks
            yield d, "neg", torch.neg, ["aten.neg"], 1, marks


@pytest.mark.parametrize(
    "dtype,fn_id,fn,kept,n",
    [pytest.param(getattr(torch, d), i, f, k, n, id=f"{d}-{i}", marks=m) for d, i, f, k, n, m in _kept_cases()],
)
def test_kept(dtype, fn_id, fn, kept, n, monkeypatch):
    seen = []
    key = f"torch_mlir::torch.{kept[0]}"

    def spy(call):  # the generic torch kernel, recording the dtypes it sees and returns
        seen.append(([t.dtype for t in call.inputs], [t.dtype for t in call.outputs]))
        result = kernels.torch_kernel(call)
        seen.append(result.dtype)
        return result

    monkeypatch.setitem(kernels._KERNELS._entries, key, spy)
    args = _inputs(dtype, fn_id, n)
    program = _check_exact(fn, args, kept)
    assert program.custom_ops == ["torch." + kept[0]]
    (in_dtypes, out_dtypes), result_dtype = seen
    assert in_dtypes == [a.dtype for a in args]
    assert out_dtypes == [dtype] and result_dtype == dtype


# Ops with numpy kernels, on every floating dtype. The numpy kernels compute in
# float64 and round once, so they are compared with the float64 reference
# rounded to the dtype, within torch.testing's per-dtype defaults (f16 rtol
# 1e-3, f32 1.3e-6, f64 1e-7: about one ulp). Not with eager PyTorch: eager f16
# log_softmax is up to ~6 ulp off the reference, the kernel is correctly rounded.
# bf16 (which numpy lacks) goes to the generic torch kernel: compared with eager.


def _reference(fn, x: torch.Tensor) -> torch.Tensor:
    with torch.no_grad():
        return fn(x) if x.dtype == torch.bfloat16 else fn(x.double()).to(x.dtype)
NUMPY_KERNEL_OPS = [
    ("softmax", lambda x: torch.softmax(x, -1), ["aten.softmax.int"]),
    ("log_softmax", lambda x: torch.log_softmax(x, -1), ["aten.log_softmax.int"]),
    ("gelu", lambda x: nn.functional.gelu(x), ["aten.gelu"]),
    ("gelu_tanh", lambda x: nn.functional.gelu(x, approximate="tanh"), ["aten.gelu"]),
    ("silu", nn.functional.silu, ["aten.silu"]),
]


@pytest.mark.parametrize("dtype", FLOATS, ids=_name)
@pytest.mark.parametrize("op_id,fn,kept", NUMPY_KERNEL_OPS, ids=[o[0] for o in NUMPY_KERNEL_OPS])
def test_numpy_kernels_float_dtypes(dtype, op_id, fn, kept):
    x = _sample(dtype)
    program = _compile_load(fn, (x,), kept)
    assert program.custom_ops == ["torch." + kept[0]]
    out = program(x)
    assert out.dtype == dtype
    torch.testing.assert_close(out, _reference(fn, x))


@pytest.mark.parametrize("dtype", FLOATS, ids=_name)
def test_layer_norm_kernel_float_dtypes(dtype):
    torch.manual_seed(0)
    model = nn.LayerNorm(4).to(dtype).eval()
    with torch.no_grad():
        model.weight.uniform_(0.5, 1.5)
        model.bias.uniform_(-0.5, 0.5)
    x = _sample(dtype)
    program = runtime.load(tosa_custom.compile(model, (x,), backend_legal_ops=["aten.layer_norm"], tosa_target=None))
    assert program.custom_ops == ["torch.aten.layer_norm"]
    out = program(x)
    assert out.dtype == dtype
    if dtype == torch.bfloat16:
        with torch.no_grad():
            torch.testing.assert_close(out, model(x))
    else:
        double = nn.LayerNorm(4).double().eval()
        double.load_state_dict({k: v.double() for k, v in model.state_dict().items()})
        with torch.no_grad():
            torch.testing.assert_close(out, double(x.double()).to(dtype))


@pytest.mark.parametrize("index_dtype", [torch.int64, torch.int32], ids=_name)
@pytest.mark.parametrize("dtype", FLOATS, ids=_name)
def test_embedding_kernel(dtype, index_dtype):
    torch.manual_seed(0)
    model = nn.Embedding(10, 4).to(dtype).eval()
    ids = torch.tensor([[0, 3, 9], [9, 1, 1]], dtype=index_dtype)
    program = runtime.load(tosa_custom.compile(model, (ids,), backend_legal_ops=["aten.embedding"], tosa_target=None))
    assert program.custom_ops == ["torch.aten.embedding"]
    out = program(ids)
    assert out.dtype == dtype
    with torch.no_grad():
        assert torch.equal(out, model(ids))


# --------------------------------------------------------------------------
# A kernel returning the wrong dtype: an error, never a silent cast.
# --------------------------------------------------------------------------

WRONG = [
    (torch.int8, torch.uint8),  # same bytes: a reinterpretation would look plausible
    (torch.float16, torch.bfloat16),  # same size
    (torch.bfloat16, torch.float16),
    (torch.bool, torch.uint8),
    (torch.bool, torch.int8),
    (torch.int32, torch.float32),
    (torch.int64, torch.int32),
    (torch.float32, torch.float64),
    (torch.float64, torch.float32),
    (torch.int16, torch.int32),
]


@pytest.mark.parametrize("as_numpy", [False, True], ids=["tensor", "ndarray"])
@pytest.mark.parametrize("dtype,wrong", WRONG, ids=[f"{_name(a)}-as-{_name(b)}" for a, b in WRONG])
def test_kernel_wrong_dtype_is_an_error(dtype, wrong, as_numpy, monkeypatch):
    if as_numpy and wrong == torch.bfloat16:
        pytest.skip("numpy has no bfloat16")

    def bad(call):
        r = call.inputs[0].to(wrong)
        return r.numpy() if as_numpy else r

    monkeypatch.setitem(kernels._KERNELS._entries, "torch_mlir::torch.aten.clone", bad)
    x = _sample(dtype)
    program = _compile_load(torch.clone, (x,), ["aten.clone"])
    assert program.custom_ops == ["torch.aten.clone"]
    message = (rf"kernel for torch.aten.clone at .* failed: KernelError: result #0 is \[3, 4\] {_name(wrong)}, "
               rf"expected \[3, 4\] {_name(dtype)}")
    with pytest.raises(runtime.KernelError, match=message):
        program(x)
    # kernels are bound at load: the same failure again, not a stale or silent one
    with pytest.raises(runtime.KernelError, match=message):
        program(x)


def test_registered_numpy_kernel_wrong_dtype_is_an_error(monkeypatch):
    """Replacing a registered (numpy) kernel: softmax returning float64 for float32."""
    from tosa_custom.runtime.kernels import numpy_kernels  # noqa: F401  (registers the builtin kernels)

    key = "torch_mlir::torch.aten.softmax.int"
    assert key in kernels._KERNELS
    monkeypatch.setitem(kernels._KERNELS._entries, key,
                        lambda call: np.zeros(tuple(call.outputs[0].shape), dtype=np.float64))
    x = _sample(torch.float32)
    program = _compile_load(lambda x: torch.softmax(x, -1), (x,), ["aten.softmax.int"])
    with pytest.raises(runtime.KernelError, match=r"result #0 is \[3, 4\] float64, expected \[3, 4\] float32"):
        program(x)


_COMPLEX_MODULE = """
func.func @main(%a: tensor<3x2xf32> {tosa_custom.dtype = "complex64"}) -> (tensor<3x2xf32> {tosa_custom.dtype = "complex64"}) {
  %0 = tosa.custom %a, %a {domain_name = "torch_mlir", operator_name = "torch.aten.mul.Tensor",
    implementation_attrs = "{\\"args\\":{\\"self\\":{\\"operand\\":0},\\"other\\":{\\"operand\\":1}},\\"operand_dtypes\\":{\\"0\\":\\"complex64\\",\\"1\\":\\"complex64\\"},\\"result_dtypes\\":{\\"0\\":\\"complex64\\"},\\"version\\":2}"}
    : (tensor<3x2xf32>, tensor<3x2xf32>) -> tensor<3x2xf32>
  return %0 : tensor<3x2xf32>
}
"""


def test_complex_arguments_and_results_are_taken_and_returned_as_complex():
    """`tosa_custom.dtype = "complex64"` on f32 [..., 2]: the program takes and
    returns complex64 [...] (CONTRACT.md 4.7), strided inputs included."""
    program = runtime.load(_COMPLEX_MODULE)
    assert [s.describe() for s in program.input_specs] == ["[3] complex64"]
    assert [s.describe() for s in program.output_specs] == ["[3] complex64"]
    z = torch.randn(6, dtype=torch.complex64)[::2]  # not contiguous
    out = program(z)
    assert out.dtype == torch.complex64
    torch.testing.assert_close(out, z * z)
    with pytest.raises(ValueError, match=r"input #0 is \[3, 2\] float32; expected \[3\] complex64"):
        program(torch.view_as_real(z))


@pytest.mark.parametrize("attr, element, message", [
    ("complex64", "3x5xf32", "complex needs a trailing dim of 2"),
    ("complex128", "3x2xf32", "does not fit"),
    ("quaternion", "3x2xf32", "known: uint8 on int8, complex64 on float32, complex128 on float64"),
])
def test_boundary_dtype_that_does_not_fit_is_refused(attr, element, message):
    text = f"""
func.func @main(%a: tensor<{element}> {{tosa_custom.dtype = "{attr}"}}) -> tensor<{element}> {{
  return %a : tensor<{element}>
}}"""
    with pytest.raises(ValueError, match=rf"arg #0: tosa_custom.dtype = '{attr}'.*{message}"):
        runtime.load(text)


@pytest.mark.parametrize("cpu", ["host", "avx2"])
@pytest.mark.parametrize("shape, pool", [
    ((1, 2, 9), lambda t: nn.functional.avg_pool1d(t, 7, 3, ceil_mode=True)),  # OpInfo bfloat16/8
    ((2, 3, 9), lambda t: nn.functional.avg_pool1d(t, 3)),  # OpInfo bfloat16/0: f32 -> bf16 in a libcall
])
def test_bf16_avg_pool_compiles_vectorized(cpu, shape, pool):
    """OpInfo avg_pool1d in bfloat16: with the host's AVX512-BF16 enabled in
    the JIT, LLVM aborted the process on the vectorized code (cpu.py
    _SOFT_BF16); without it, LLVM calls __truncsfbf2 (lib/runtime.c)."""
    torch.manual_seed(0)
    x = torch.randn(*shape, dtype=torch.bfloat16)
    model = Fn(pool)
    program = runtime.load(tosa_custom.compile(model, (x,), tosa_target=None), cpu=cpu)
    expected = model(x)
    torch.testing.assert_close(program(x), expected, rtol=1.6e-2, atol=1e-2)


# erf has no LLVM intrinsic: a libm call per lane. On float16 and bfloat16
# vectors the lanes' extracts reached LLVM unlowered (OpInfo special.ndtr
# bfloat16/0, every-sample run: "an op reached LLVM without a lowering").
@pytest.mark.parametrize("vectorize", [True, False], ids=["vectorized", "naive"])
@pytest.mark.parametrize("dtype", [torch.float32, torch.float16, torch.bfloat16], ids=_name)
@pytest.mark.parametrize("fn", [torch.erf, torch.special.ndtr], ids=["erf", "ndtr"])
def test_libm_math_on_every_float_dtype(fn, dtype, vectorize):
    x = torch.linspace(-3, 3, 37).reshape(1, 37).to(dtype)
    program = _compile_load(fn, (x,), vectorize=vectorize)
    out = program(x)
    assert out.dtype == dtype
    # One rounding of the type each way (erf itself is computed in float32).
    torch.testing.assert_close(out, fn(x), atol=torch.finfo(dtype).eps, rtol=torch.finfo(dtype).eps)
