"""The numpy reference kernels against eager PyTorch.

Each kernel is checked three ways:
- called directly with a `KernelCall` on awkward shapes, dtypes and values
  (the call built by `make_call`, which `test_compiled_op` checks against
  what `tosa_custom.decode` gives for a real `tosa.custom`);
- on a real `tosa.custom`, decoded and called directly, and end to end through
  `runtime.load(module)(inputs)` (`test_compiled_op`);
- against the generic torch kernel, for every registered numpy kernel
  (`test_matches_generic_torch_kernel`, which needs an input factory per op).

Tolerances. The kernels compute in float64 and round once, so:
- float64: rtol=1e-12, atol=1e-12 of eager float64;
- float32: rtol=2e-6, atol=1e-6 of eager float32 (eager rounds at every step:
  a few ulp), and within 1 ulp (rtol=1.2e-7, atol=1e-12) of eager float64
  rounded to float32 (`test_float32_is_float64_rounded_once`);
- float16: rtol=2e-3, atol=1e-3 (2 ulp) of eager float16.
"""

from __future__ import annotations

import math
import zlib
from typing import Callable

import mpmath
import numpy as np
import pytest
import torch
from torch_mlir import ir

import tosa_custom
from tosa_custom.core import ir as _ir
from tosa_custom import runtime
from tosa_custom.contract.encoding import DOMAIN, DecodedCall, Operand, canonical_json
from tosa_custom.runtime.kernels import registry as kernels, numpy_kernels
from tosa_custom.runtime.kernels.registry import KernelCall
from tosa_custom.core.schema import overload_name
from tosa_custom.e2e import Fn

F = torch.nn.functional
aten = torch.ops.aten
f16, f32, f64 = torch.float16, torch.float32, torch.float64

TOL = {
    f64: dict(rtol=1e-12, atol=1e-12),
    f32: dict(rtol=2e-6, atol=1e-6),
    f16: dict(rtol=2e-3, atol=1e-3),
    torch.bfloat16: dict(rtol=0, atol=0),  # goes to the torch kernel: identical
    torch.int64: dict(rtol=0, atol=0),  # embedding of an integer table: a gather
}
ONE_ULP_F32 = dict(rtol=1.2e-7, atol=1e-12)


# --------------------------------------------------------------------------
# Helpers.
# --------------------------------------------------------------------------


def _generator(*key) -> torch.Generator:
    return torch.Generator().manual_seed(zlib.crc32(repr(key).encode()))  # the same in every run


def rand(*shape, dtype=f32, scale=1.0, seed=0):
    return (torch.randn(shape, generator=_generator(shape, dtype, scale, seed), dtype=f64) * scale).to(dtype)


def positive(*shape, dtype=f32, seed=0):
    return (torch.rand(shape, generator=_generator(shape, "positive", seed), dtype=f64) + 0.25).to(dtype)


def make_call(overload, *args, dropped=(), **kwargs) -> tuple[DecodedCall, list[torch.Tensor]]:
    """The DecodedCall `decode()` would give for `overload(*args, **kwargs)`,
    with every tensor argument an operand (in argument order), and the operands."""
    operands: list[torch.Tensor] = []

    def sub(v):
        if isinstance(v, torch.Tensor):
            operands.append(v)
            return Operand(len(operands) - 1)
        return [sub(x) for x in v] if isinstance(v, list) else v

    decoded = DecodedCall(overload, tuple(sub(a) for a in args), {k: sub(v) for k, v in kwargs.items()},
                          tuple(dropped))
    return decoded, operands


def numpy_kernel(decoded: DecodedCall):
    kernel = kernels.find_kernel(overload_name(decoded.overload), DOMAIN, decoded)
    assert kernel is not None and kernel is not runtime.torch_kernel, overload_name(decoded.overload)
    assert kernel.__module__ == numpy_kernels.__name__
    return kernel


def eager_results(decoded: DecodedCall, operands) -> list[torch.Tensor]:
    """Eager PyTorch's results for the call, without the dropped ones."""
    result = runtime.torch_kernel(KernelCall(decoded, [t.clone() for t in operands], []))
    results = list(result) if isinstance(result, (tuple, list)) else [result]
    return [r for i, r in enumerate(results) if i not in decoded.dropped_results]


def run_kernel(decoded: DecodedCall, operands, like=None) -> list[torch.Tensor]:
    """Call the numpy kernel directly; outputs shaped like `like` (default: eager's results)."""
    like = eager_results(decoded, operands) if like is None else like
    outputs = [torch.full_like(r, float("nan")) if r.is_floating_point() else torch.empty_like(r) for r in like]
    before = [t.clone() for t in operands]
    result = numpy_kernel(decoded)(KernelCall(decoded, operands, outputs))
    if result is not None:  # only the bfloat16 fallback returns its results
        results = list(result) if isinstance(result, (tuple, list)) else [result]
        results = [r for i, r in enumerate(results) if i not in decoded.dropped_results]
        for out, r in zip(outputs, results):
            out.copy_(r)
    for b, t in zip(before, operands):  # inputs are read-only
        torch.testing.assert_close(t, b, rtol=0, atol=0, equal_nan=True)
    return outputs


def check(decoded: DecodedCall, operands, tol=None) -> list[torch.Tensor]:
    """Run the numpy kernel and compare every output with eager PyTorch."""
    expected = eager_results(decoded, operands)
    got = run_kernel(decoded, operands, expected)
    for g, e in zip(got, expected):
        assert g.shape == e.shape and g.dtype == e.dtype
        torch.testing.assert_close(g, e, **(tol or TOL[e.dtype]), equal_nan=True)
    return got


def check_rounded_once(decoded: DecodedCall, operands) -> None:
    """float32: within 1 ulp of eager float64 rounded to float32."""
    got = run_kernel(decoded, operands)
    wide = [t.double() if t.dtype == f32 else t for t in operands]
    for g, e in zip(got, eager_results(decoded, wide)):
        torch.testing.assert_close(g, e.to(g.dtype), **ONE_ULP_F32, equal_nan=True)


def block_operands(op, args) -> list[torch.Tensor]:
    """The custom op's operands: function arguments by number; a `tosa.const`
    (the const encoding), which `decode` already read, as a placeholder."""
    return [args[ir.BlockArgument(v).arg_number] if isinstance(v.owner, ir.Block) else torch.zeros(())
            for v in op.operands]


# --------------------------------------------------------------------------
# Real tosa.custom ops: decoded and called directly, and end to end.
# --------------------------------------------------------------------------

CASES: dict[str, tuple] = {
    # name: (fn, args, backend_legal_op, encoding, hand-built equivalent of the call)
    "layer_norm-f32": (
        lambda x, w, b: F.layer_norm(x, (1, 13), w, b, 1e-5),
        (rand(3, 1, 13, scale=100.0), rand(1, 13), rand(1, 13)), "aten.layer_norm", "json",
        lambda x, w, b: make_call(aten.layer_norm.default, x, [1, 13], w, b, 1e-5, False)),
    "layer_norm-f64-const": (
        lambda x: F.layer_norm(x, (9,), eps=1e-3),
        (rand(2, 1, 9, dtype=f64, scale=1e-3),), "aten.layer_norm", "const",
        lambda x: make_call(aten.layer_norm.default, x, [9], None, None, 1e-3, False)),
    "native_layer_norm": (
        lambda x, w, b: F.layer_norm(x, (5, 7), w, b),
        (rand(3, 5, 7), rand(5, 7), rand(5, 7)), "aten.native_layer_norm", "json",
        lambda x, w, b: make_call(aten.native_layer_norm.default, x, [5, 7], w, b, 1e-5)),
    "rms_norm-f32": (
        lambda x, w: F.rms_norm(x, (11,), w),
        (rand(2, 3, 11, scale=1e3), rand(11)), "aten.rms_norm", "json",
        lambda x, w: make_call(aten.rms_norm.default, x, [11], w, None)),
    "rms_norm-f16": (
        lambda x: F.rms_norm(x, (3, 5), eps=1e-6),
        (rand(4, 3, 5, dtype=f16),), "aten.rms_norm", "json",
        lambda x: make_call(aten.rms_norm.default, x, [3, 5], None, 1e-6)),
    "group_norm": (
        lambda x, w, b: F.group_norm(x, 3, w, b, 1e-4),
        (rand(2, 6, 3, 5, scale=10.0), rand(6), rand(6)), "aten.group_norm", "json",
        lambda x, w, b: make_call(aten.group_norm.default, x, 3, w, b, 1e-4, False)),
    "native_group_norm-f64": (
        lambda x, w: F.group_norm(x, 2, w),
        (rand(1, 4, 7, dtype=f64), rand(4, dtype=f64)), "aten.native_group_norm", "json",
        lambda x, w: make_call(aten.native_group_norm.default, x, w, None, 1, 4, 7, 2, 1e-5)),
    "batch_norm_no_training": (
        lambda x, m, v, w, b: F.batch_norm(x, m, v, w, b, False, 0.1, 1e-3),
        (rand(2, 5, 7), rand(5), positive(5), rand(5), rand(5)), "aten._native_batch_norm_legit_no_training", "json",
        lambda x, m, v, w, b: make_call(aten._native_batch_norm_legit_no_training.default, x, w, b, m, v, 0.1, 1e-3,
                                        dropped=(1, 2))),
    "softmax-const": (
        lambda x: torch.softmax(x, -2),
        (rand(3, 5, 1, scale=30.0),), "aten.softmax.int", "const",
        lambda x: make_call(aten.softmax.int, x, -2, None)),
    "_softmax-f64": (
        lambda x: torch.softmax(x, 1),
        (rand(2, 9, 3, dtype=f64),), "aten._softmax", "json",
        lambda x: make_call(aten._softmax.default, x, 1, False)),
    "_softmax-0d-f64": (  # OpInfo softmin(dtype=float64) of a 0-d sample: a 0-d result failed to store
        lambda x: torch.softmax(x, 0),
        (rand(dtype=f64),), "aten._softmax", "json",
        lambda x: make_call(aten._softmax.default, x, 0, False)),
    "log_softmax-0d": (
        lambda x: torch.log_softmax(x, -1),
        (rand(),), "aten.log_softmax.int", "json",
        lambda x: make_call(aten.log_softmax.int, x, -1, None)),
    "log_softmax": (
        lambda x: torch.log_softmax(x, 0),
        (rand(7, 3, scale=10.0),), "aten.log_softmax.int", "json",
        lambda x: make_call(aten.log_softmax.int, x, 0, None)),
    "_log_softmax-f16": (
        lambda x: torch.log_softmax(x, -1),
        (rand(3, 11, dtype=f16),), "aten._log_softmax", "json",
        lambda x: make_call(aten._log_softmax.default, x, -1, False)),
    "gelu-f32": (
        lambda x: F.gelu(x),
        (rand(5, 13, scale=3.0),), "aten.gelu", "json",
        lambda x: make_call(aten.gelu.default, x, approximate="none")),
    "gelu-tanh-f64": (
        lambda x: F.gelu(x, approximate="tanh"),
        (rand(17, dtype=f64, scale=3.0),), "aten.gelu", "const",
        lambda x: make_call(aten.gelu.default, x, approximate="tanh")),
    "gelu-f16": (
        lambda x: F.gelu(x),
        (rand(3, 1, 7, dtype=f16, scale=3.0),), "aten.gelu", "json",
        lambda x: make_call(aten.gelu.default, x, approximate="none")),
    "silu": (
        F.silu,
        (rand(4, 9, scale=20.0),), "aten.silu", "json",
        lambda x: make_call(aten.silu.default, x)),
    "sdpa-causal": (
        lambda q, k, v: F.scaled_dot_product_attention(q, k, v, is_causal=True),
        (rand(2, 3, 5, 4), rand(2, 3, 7, 4), rand(2, 3, 7, 6)), "aten.scaled_dot_product_attention", "json",
        lambda q, k, v: make_call(aten.scaled_dot_product_attention.default, q, k, v, None, 0.0, True,
                                  scale=None, enable_gqa=False)),
    "sdpa-bool-mask-scale": (
        lambda q, k, v, m: F.scaled_dot_product_attention(q, k, v, attn_mask=m, scale=0.3),
        (rand(1, 2, 9, 3), rand(1, 2, 7, 3), rand(1, 2, 7, 5), positive(9, 7) > 0.65),
        "aten.scaled_dot_product_attention", "const",
        lambda q, k, v, m: make_call(aten.scaled_dot_product_attention.default, q, k, v, m, 0.0, False,
                                     scale=0.3, enable_gqa=False)),
    "sdpa-float-mask-gqa-f64": (
        lambda q, k, v, m: F.scaled_dot_product_attention(q, k, v, attn_mask=m, enable_gqa=True),
        (rand(2, 6, 5, 4, dtype=f64), rand(2, 2, 3, 4, dtype=f64), rand(2, 2, 3, 4, dtype=f64), rand(1, 5, 3, dtype=f64)),
        "aten.scaled_dot_product_attention", "json",
        lambda q, k, v, m: make_call(aten.scaled_dot_product_attention.default, q, k, v, m, 0.0, False,
                                     scale=None, enable_gqa=True)),
    "sdpa-f16": (
        lambda q, k, v: F.scaled_dot_product_attention(q, k, v),
        (rand(3, 5, 8, dtype=f16), rand(3, 11, 8, dtype=f16), rand(3, 11, 3, dtype=f16)),
        "aten.scaled_dot_product_attention", "json",
        lambda q, k, v: make_call(aten.scaled_dot_product_attention.default, q, k, v, None, 0.0, False,
                                  scale=None, enable_gqa=False)),
    "embedding": (
        lambda i, w: F.embedding(i, w, padding_idx=2),
        (torch.tensor([[0, 6, 2], [6, 6, 1]]), rand(7, 5)), "aten.embedding", "json",
        lambda i, w: make_call(aten.embedding.default, w, i, 2, False, False)),
    "embedding-i32-f16": (
        lambda i, w: F.embedding(i, w),
        (torch.tensor([3, 0, 3, 10], dtype=torch.int32), rand(11, 1, dtype=f16)), "aten.embedding", "json",
        lambda i, w: make_call(aten.embedding.default, w, i, -1, False, False)),
}


@pytest.mark.parametrize("name", CASES)
def test_compiled_op(name):
    fn, args, op_name, encoding, hand_built = CASES[name]
    # f64 cases are outside every TOSA profile: the kernels are under test here, not the target.
    module = tosa_custom.compile(Fn(fn), args, backend_legal_ops=[op_name], encoding=encoding, tosa_target=None)
    (op,) = tosa_custom.custom_ops(module)
    decoded = tosa_custom.decode(op)
    operands = block_operands(op, args)
    # make_call, which the other tests use, builds the call decode() gives
    expected_call, _ = hand_built(*args)
    assert (decoded.overload, decoded.args, decoded.kwargs, decoded.dropped_results) == (
        expected_call.overload, expected_call.args, expected_call.kwargs, expected_call.dropped_results)

    # directly, the outputs being the custom op's results
    expected_results = eager_results(decoded, operands)
    assert [list(ir.ShapedType(r.type).shape) for r in op.results] == [list(e.shape) for e in expected_results]
    got = run_kernel(decoded, operands, expected_results)
    for g, e in zip(got, expected_results):
        torch.testing.assert_close(g, e, **TOL[e.dtype])

    # end to end: the program's result is the model's
    operator_name = ir.StringAttr(op.attributes["operator_name"]).value
    program = runtime.load(module)
    assert program.custom_ops == [operator_name]
    with torch.no_grad():
        expected = fn(*args)
    torch.testing.assert_close(program(*args), expected, **TOL[expected.dtype])


def _batch_norm_module(training: bool, shape=(2, 5, 7)) -> str:
    """aten.batch_norm as a hand-written tosa.custom: export never keeps it."""
    args = {"input": {"operand": 0}, "weight": {"operand": 1}, "bias": None, "running_mean": {"operand": 2},
            "running_var": {"operand": 3}, "training": training, "momentum": 0.1, "eps": 1e-5,
            "cudnn_enabled": True}
    attrs = canonical_json({"version": 1, "args": args}).replace('"', "\\22")
    x = f"tensor<{'x'.join(map(str, shape))}xf32>"
    c = f"tensor<{shape[1]}xf32>"
    return f"""
func.func @f(%x: {x}, %w: {c}, %m: {c}, %v: {c}) -> {x} {{
  %0 = tosa.custom %x, %w, %m, %v {{domain_name = "torch_mlir", implementation_attrs = "{attrs}", operator_name = "torch.aten.batch_norm"}} : ({x}, {c}, {c}, {c}) -> {x}
  return %0 : {x}
}}"""


@pytest.mark.parametrize("training", [False, True])
def test_batch_norm_custom_op(training):
    text = _batch_norm_module(training)
    x, w, m, v = rand(2, 5, 7, scale=5.0), rand(5), rand(5), positive(5)
    (op,) = tosa_custom.custom_ops(ir.Module.parse(text, _ir.make_context()))
    decoded = tosa_custom.decode(op)
    assert decoded.args == make_call(aten.batch_norm.default, x, w, None, m, v, training, 0.1, 1e-5, True)[0].args
    expected = F.batch_norm(x, m.clone(), v.clone(), w, None, training, 0.1, 1e-5)
    (got,) = run_kernel(decoded, [x, w, m, v], [expected])
    torch.testing.assert_close(got, expected, **TOL[f32])
    torch.testing.assert_close(runtime.load(text)(x, w, m, v), expected, **TOL[f32])


# --------------------------------------------------------------------------
# Each kernel directly, on awkward shapes, dtypes and values.
# --------------------------------------------------------------------------

DTYPES = [f32, f64, f16]
SCALES = [1e-3, 1.0, 1e3]


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("shape,normalized", [((3, 1, 13), [13]), ((2, 5, 7), [5, 7]), ((1, 9), [9]), ((4, 3), [4, 3])])
@pytest.mark.parametrize("affine", [True, False])
def test_layer_norm(dtype, shape, normalized, affine):
    for scale in SCALES:
        x = rand(*shape, dtype=dtype, scale=scale)
        w, b = (rand(*normalized, dtype=dtype), rand(*normalized, dtype=dtype)) if affine else (None, None)
        check(*make_call(aten.layer_norm.default, x, normalized, w, b, 1e-5, True))
        check(*make_call(aten.native_layer_norm.default, x, normalized, w, b, 1e-5))


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("shape,normalized", [((3, 1, 13), [13]), ((2, 5, 7), [5, 7]), ((9,), [9]), ((1, 1), [1])])
@pytest.mark.parametrize("eps", [None, 1e-6])
@pytest.mark.parametrize("affine", [True, False])
def test_rms_norm(dtype, shape, normalized, eps, affine):
    for scale in SCALES + [1e-20]:
        x = rand(*shape, dtype=f64, scale=scale).to(dtype)
        w = rand(*normalized, dtype=dtype) if affine else None
        check(*make_call(aten.rms_norm.default, x, normalized, w, eps))


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("shape,groups", [((2, 6, 3, 5), 3), ((1, 4, 7), 2), ((3, 10), 5), ((2, 9, 1, 1, 3), 1),
                                          ((1, 1, 11), 1)])
@pytest.mark.parametrize("affine", [True, False])
def test_group_norm(dtype, shape, groups, affine):
    n, c = shape[:2]
    hw = math.prod(shape[2:])
    for scale in SCALES:
        x = rand(*shape, dtype=dtype, scale=scale)
        w, b = (rand(c, dtype=dtype), rand(c, dtype=dtype)) if affine else (None, None)
        check(*make_call(aten.group_norm.default, x, groups, w, b, 1e-5, True))
        check(*make_call(aten.native_group_norm.default, x, w, b, n, c, hw, groups, 1e-5))


@pytest.mark.parametrize("dtype", DTYPES)
def test_group_norm_of_one_element_groups_is_the_bias(dtype):
    """Exactly: x - mean is 0. (Eager computes x * rstd - mean * rstd, which
    leaves about |x| / sqrt(eps) ulp.)"""
    x, w, b = rand(3, 5, dtype=dtype, scale=10.0), rand(5, dtype=dtype), rand(5, dtype=dtype)
    (got,) = run_kernel(*make_call(aten.group_norm.default, x, 5, w, b, 1e-5, True))
    torch.testing.assert_close(got, b.expand(3, 5), rtol=0, atol=0)
    eager_error = 4 * torch.finfo(dtype).eps * x.abs().max().item() / math.sqrt(1e-5)
    torch.testing.assert_close(got, F.group_norm(x, 5, w, b, 1e-5), rtol=0, atol=eager_error)


def test_group_norm_refuses_groups_that_do_not_divide_channels():
    with pytest.raises(ValueError, match="6 channels cannot be split into 4 groups"):
        run_kernel(*make_call(aten.group_norm.default, rand(2, 6, 3), 4, None, None, 1e-5, True),
                   like=[torch.empty(2, 6, 3)])


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("shape", [(3, 5), (2, 5, 7), (1, 3, 4, 5), (2, 1, 1)])
@pytest.mark.parametrize("affine", [True, False])
def test_batch_norm_inference(dtype, shape, affine):
    c = shape[1]
    for scale in [1e-2, 1.0, 1e2]:  # of x, of the mean, and of the standard deviation
        x, m = rand(*shape, dtype=dtype, scale=scale), rand(c, dtype=dtype, scale=scale)
        v = (positive(c, dtype=f64) * scale**2).to(dtype)
        w, b = (rand(c, dtype=dtype), rand(c, dtype=dtype)) if affine else (None, None)
        # as in inference: save_mean and save_invstd (empty) dropped
        check(*make_call(aten._native_batch_norm_legit_no_training.default, x, w, b, m, v, 0.1, 1e-5, dropped=(1, 2)))
        # all three results present: the two empty ones stay empty
        check(*make_call(aten._native_batch_norm_legit_no_training.default, x, w, b, m, v, 0.1, 1e-5))
        check(*make_call(aten.batch_norm.default, x, w, b, m, v, False, 0.1, 1e-5, False))


@pytest.mark.parametrize("shape", [(3, 5), (2, 5, 7), (4, 3, 1, 2)])
def test_batch_norm_training_uses_batch_statistics_and_leaves_running_stats(shape):
    c = shape[1]
    x, b, m, v = rand(*shape, scale=3.0), rand(c), rand(c), positive(c)
    decoded, operands = make_call(aten.batch_norm.default, x, None, b, m, v, True, 0.1, 1e-5, False)
    expected = F.batch_norm(x, m.clone(), v.clone(), None, b, True, 0.1, 1e-5)
    (got,) = run_kernel(decoded, operands, [expected])  # run_kernel checks the inputs are unchanged
    torch.testing.assert_close(got, expected, **TOL[f32])


def test_batch_norm_inference_needs_running_stats():
    decoded, operands = make_call(aten.batch_norm.default, rand(2, 3), None, None, None, None, False, 0.1, 1e-5, False)
    with pytest.raises(ValueError, match="running_mean and running_var must be given when training=False"):
        run_kernel(decoded, operands, like=[torch.empty(2, 3)])


def test_multi_result_kernels_respect_dropped_results():
    x, m, v = rand(2, 3, 4), rand(3), positive(3)
    decoded, operands = make_call(aten._native_batch_norm_legit_no_training.default, x, None, None, m, v, 0.1, 1e-5,
                                  dropped=(1, 2))
    with pytest.raises(ValueError, match="the op has 3 results, 2 dropped, but the call has 3 outputs"):
        run_kernel(decoded, operands, like=[torch.empty(2, 3, 4), torch.empty(0), torch.empty(0)])
    decoded, operands = make_call(aten.native_layer_norm.default, x, [4], None, None, 1e-5)
    with pytest.raises(ValueError, match=r"computed a \[2, 3, 1\] result #1, the output is \[3, 2, 1\]"):
        run_kernel(decoded, operands, like=[torch.empty(2, 3, 4), torch.empty(3, 2, 1), torch.empty(2, 3, 1)])


SOFTMAX_OPS = [
    lambda x, d: make_call(aten.softmax.int, x, d, None),
    lambda x, d: make_call(aten._softmax.default, x, d, False),
    lambda x, d: make_call(aten.log_softmax.int, x, d, None),
    lambda x, d: make_call(aten._log_softmax.default, x, d, False),
]


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("shape,dim", [((3, 13), -1), ((3, 13), 0), ((2, 1, 9), -2), ((2, 1, 9), 1), ((7,), 0),
                                       ((5, 3, 2), -3)])
@pytest.mark.parametrize("op", range(4), ids=["softmax.int", "_softmax", "log_softmax.int", "_log_softmax"])
def test_softmax(dtype, shape, dim, op):
    for scale in [1e-3, 1.0, 50.0]:
        x = rand(*shape, dtype=dtype, scale=scale)
        check(*SOFTMAX_OPS[op](x, dim))


@pytest.mark.parametrize("op", range(4), ids=["softmax.int", "_softmax", "log_softmax.int", "_log_softmax"])
def test_softmax_with_infinities(op):
    x = rand(3, 6)
    x[0, 2] = -math.inf
    x[1, :] = -math.inf  # a row with nothing: nan, as in eager
    x[2, 4] = math.inf
    check(*SOFTMAX_OPS[op](x, -1))


def test_softmax_to_another_dtype():
    check(*make_call(aten.softmax.int, rand(4, 5), 1, f64))
    check(*make_call(aten.log_softmax.int, rand(4, 5, dtype=f16), 0, f32))


GELU_VALUES = torch.tensor([0.0, -0.0, 1e-30, -1e-30, 1e-7, -1e-7, 0.3, -0.3, 0.46875 * math.sqrt(2), -0.66,
                            1.0, -1.0, 3.9, -4.0 * math.sqrt(2), -8.0, -9.5, 10.0, 30.0, 1e4, -1e4, 1e38, -3e38])


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("approximate", ["none", "tanh"])
def test_gelu(dtype, approximate):
    values = GELU_VALUES if dtype != f16 else GELU_VALUES[GELU_VALUES.abs() < 6e4]
    for x in [rand(3, 1, 17, dtype=dtype, scale=3.0), rand(1000, dtype=dtype, scale=10.0), values.to(dtype)]:
        check(*make_call(aten.gelu.default, x, approximate=approximate))


def test_gelu_does_not_overflow_near_the_float32_maximum():
    x = torch.tensor([3e38, 2e38, -3e38])
    for approximate in ("none", "tanh"):
        (got,) = run_kernel(*make_call(aten.gelu.default, x, approximate=approximate), like=[x])
        assert torch.equal(got, x.clamp(min=0))  # eager float32 "none" gives inf for 2e38 and 3e38


def test_gelu_none_is_exact_to_the_float32_ulp():
    """Eager float32 gelu is off by several ulp (and flushes the left tail to
    -0); ours is float64 erf rounded once: within 1 ulp of eager float64."""
    x = torch.linspace(-12, 12, 100_003)
    check_rounded_once(*make_call(aten.gelu.default, x, approximate="none"))


def test_gelu_refuses_an_unknown_approximation():
    decoded, operands = make_call(aten.gelu.default, rand(3), approximate="tanh")
    decoded.kwargs["approximate"] = "fast"  # eager refuses it, so decode() would never see it
    with pytest.raises(ValueError, match=r"gelu: unknown approximate='fast' \(expected 'none' or 'tanh'\)"):
        run_kernel(decoded, operands, like=[torch.empty(3)])


def test_erf_and_erfc_are_float64_accurate():
    mpmath.mp.dps = 30
    x = np.concatenate([np.linspace(-6, 6, 1201), np.linspace(-0.5, 0.5, 101), np.linspace(4.5, 27, 46),
                        [0.0, 1e-300, -1e-300, 0.46875, -0.46875, 4.0, -4.0, 26.5, -26.5]])
    erf = np.array([float(mpmath.erf(v)) for v in x])
    erfc = np.array([float(mpmath.erfc(v)) for v in x])
    np.testing.assert_allclose(numpy_kernels._erf(x), erf, rtol=1e-15, atol=0)
    np.testing.assert_allclose(numpy_kernels._erfc(x), erfc, rtol=2e-15, atol=0)
    np.testing.assert_allclose(numpy_kernels._one_plus_erf(x), np.where(x < 0, np.array(
        [float(mpmath.erfc(-v)) for v in x]), 1.0 + erf), rtol=2e-15, atol=0)
    special = np.array([np.inf, -np.inf, np.nan, 1e300, -1e300])
    np.testing.assert_array_equal(numpy_kernels._erf(special), [1.0, -1.0, np.nan, 1.0, -1.0])
    np.testing.assert_array_equal(numpy_kernels._erfc(special), [0.0, 2.0, np.nan, 0.0, 2.0])


@pytest.mark.parametrize("dtype", DTYPES)
def test_silu(dtype):
    values = torch.tensor([0.0, 1e-30, -1e-30, 1.0, -1.0, 20.0, -20.0, 100.0, -100.0, 1e4, -1e4, -3e38, 3e38])
    if dtype == f16:
        values = values[values.abs() < 6e4]
    for x in [rand(3, 1, 17, dtype=dtype, scale=5.0), values.to(dtype)]:
        check(*make_call(aten.silu.default, x))


def _sdpa(q, k, v, mask=None, dropout_p=0.0, is_causal=False, scale=None, enable_gqa=False):
    return make_call(aten.scaled_dot_product_attention.default, q, k, v, mask, dropout_p, is_causal,
                     scale=scale, enable_gqa=enable_gqa)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("lead,L,S,E,Ev", [((2, 3), 5, 7, 4, 6), ((1,), 9, 1, 3, 5), ((), 13, 13, 8, 8),
                                           ((2, 1), 1, 6, 5, 3)])
@pytest.mark.parametrize("is_causal", [False, True])
@pytest.mark.parametrize("scale", [None, 0.17])
def test_sdpa(dtype, lead, L, S, E, Ev, is_causal, scale):
    q, k, v = rand(*lead, L, E, dtype=dtype), rand(*lead, S, E, dtype=dtype), rand(*lead, S, Ev, dtype=dtype)
    check(*_sdpa(q, k, v, is_causal=is_causal, scale=scale))


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("mask_shape", [(5, 7), (1, 7), (3, 5, 7), (2, 1, 5, 1)])
@pytest.mark.parametrize("kind", ["bool", "float"])
def test_sdpa_masks(dtype, mask_shape, kind):
    q, k, v = rand(2, 3, 5, 4, dtype=dtype), rand(2, 3, 7, 4, dtype=dtype), rand(2, 3, 7, 6, dtype=dtype)
    g = torch.Generator().manual_seed(len(mask_shape))
    if kind == "bool":
        mask = torch.rand(*mask_shape, generator=g) > 0.3
    else:
        mask = (torch.randn(*mask_shape, generator=g, dtype=f64) * 2).to(dtype)
        mask[(torch.rand(*mask_shape, generator=g) < 0.2)] = -math.inf
    check(*_sdpa(q, k, v, mask))


@pytest.mark.parametrize("kind", ["bool", "float"])
def test_sdpa_fully_masked_rows_give_zeros(kind):
    q, k, v = rand(1, 4, 3), rand(1, 5, 3), rand(1, 5, 2)
    mask = torch.ones(4, 5, dtype=torch.bool)
    mask[1] = False
    if kind == "float":
        mask = torch.zeros(4, 5).masked_fill(~mask, -math.inf)
    (got,) = check(*_sdpa(q, k, v, mask))
    assert (got[0, 1] == 0).all()


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("hq,hkv", [(6, 2), (4, 1), (3, 3)])
def test_sdpa_grouped_query_attention(dtype, hq, hkv):
    q, k, v = rand(2, hq, 5, 4, dtype=dtype), rand(2, hkv, 7, 4, dtype=dtype), rand(2, hkv, 7, 3, dtype=dtype)
    check(*_sdpa(q, k, v, enable_gqa=True))
    check(*_sdpa(q, k, v, is_causal=True, enable_gqa=True, scale=2.0))


def test_sdpa_large_scores():
    q, k, v = rand(2, 6, 5, dtype=f64, scale=30.0), rand(2, 9, 5, dtype=f64, scale=30.0), rand(2, 9, 4, dtype=f64)
    check(*_sdpa(q, k, v))
    check(*_sdpa(q * 1e-6, k, v))


def test_sdpa_refuses_dropout():
    q = rand(2, 3, 4)
    decoded, operands = _sdpa(q, q.clone(), q.clone(), dropout_p=0.1)
    with pytest.raises(ValueError, match=r"dropout_p=0.1 is random; the reference kernel only computes "
                                         r"inference attention \(dropout_p=0\)"):
        run_kernel(decoded, operands, like=[torch.empty(2, 3, 4)])


def test_sdpa_refuses_a_mask_with_is_causal():
    q = rand(2, 3, 4)
    decoded, operands = _sdpa(q, q.clone(), q.clone(), torch.ones(3, 3, dtype=torch.bool), is_causal=True)
    with pytest.raises(ValueError, match="attn_mask must be None when is_causal=True"):
        run_kernel(decoded, operands, like=[torch.empty(2, 3, 4)])


def test_sdpa_dropout_error_surfaces_end_to_end():
    class M(torch.nn.Module):
        def forward(self, q, k, v):
            return F.scaled_dot_product_attention(q, k, v, dropout_p=0.5)

    q = rand(1, 2, 3, 4)
    module = tosa_custom.compile(M(), (q, q, q), backend_legal_ops=["aten.scaled_dot_product_attention"],
                                 tosa_target=None)  # f64 cases: the kernel is under test, not the target
    with pytest.raises(runtime.KernelError, match=r"scaled_dot_product_attention at .* failed: ValueError: "
                                                    r"scaled_dot_product_attention: dropout_p=0.5 is random"):
        runtime.load(module)(q, q, q)


@pytest.mark.parametrize("weight_dtype", [f32, f64, f16, torch.int64])
@pytest.mark.parametrize("index_dtype", [torch.int64, torch.int32])
@pytest.mark.parametrize("index_shape", [(), (1,), (3, 5), (2, 1, 3)])
def test_embedding(weight_dtype, index_dtype, index_shape):
    weight = (rand(13, 3, dtype=f64, scale=1e3)).to(weight_dtype)
    g = torch.Generator().manual_seed(len(index_shape))
    indices = torch.randint(0, 13, index_shape, generator=g, dtype=index_dtype)
    for padding_idx in (-1, 0, 12):
        (got,) = check(*make_call(aten.embedding.default, weight, indices, padding_idx, False, False))
        assert torch.equal(got, weight[indices.long()])  # a gather is exact


@pytest.mark.parametrize("bad", [13, -1])
def test_embedding_refuses_out_of_range_indices(bad):
    decoded, operands = make_call(aten.embedding.default, rand(13, 3), torch.tensor([0, bad, 2]), -1, False, False)
    with pytest.raises(IndexError, match=f"embedding: index {bad} out of range for 13 embeddings"):
        run_kernel(decoded, operands, like=[torch.empty(3, 3)])


def test_strided_inputs_and_outputs():
    """Operands and outputs need not be contiguous (the runtime binds strided views)."""
    x = rand(7, 5).t()
    q, k, v = (rand(2, 5, 3, 4, seed=i).transpose(1, 2) for i in range(3))
    for decoded, operands in [make_call(aten.layer_norm.default, x, [7], None, rand(14)[::2], 1e-5, True),
                              make_call(aten.softmax.int, x, 0, None),
                              make_call(aten.gelu.default, x, approximate="none"),
                              make_call(aten.group_norm.default, x.unsqueeze(0), 5, None, None, 1e-5, True),
                              _sdpa(q, k, v, is_causal=True),
                              make_call(aten.embedding.default, rand(4, 9)[:, ::2], torch.tensor([3, 0, 3]), -1,
                                        False, False)]:
        expected = eager_results(decoded, operands)
        like = [torch.empty(e.shape[::-1]).permute(*reversed(range(e.dim()))) for e in expected]
        for g, e in zip(run_kernel(decoded, operands, like), expected):
            assert not g.is_contiguous() and g.shape == e.shape
            torch.testing.assert_close(g, e, **TOL[f32])


def test_bfloat16_goes_to_the_torch_kernel():
    x = rand(3, 7, dtype=torch.bfloat16)
    check(*make_call(aten.gelu.default, x, approximate="none"))
    check(*make_call(aten.native_layer_norm.default, x, [7], None, None, 1e-5))


# --------------------------------------------------------------------------
# Every registered numpy kernel against the generic torch kernel.
# --------------------------------------------------------------------------


def _nk(name: str) -> str:
    return f"{DOMAIN}::torch.aten.{name}"


# key -> (dtype -> (overload, args, kwargs, dropped)): one random input of the op
FACTORIES: dict[str, Callable] = {
    _nk("layer_norm"): lambda dt: (aten.layer_norm.default, (rand(3, 5, 7, dtype=dt), [5, 7], rand(5, 7, dtype=dt),
                                                              rand(5, 7, dtype=dt), 1e-5, False), {}, ()),
    _nk("native_layer_norm"): lambda dt: (aten.native_layer_norm.default,
                                          (rand(3, 1, 11, dtype=dt), [11], None, rand(11, dtype=dt), 1e-5), {}, ()),
    _nk("rms_norm"): lambda dt: (aten.rms_norm.default, (rand(2, 3, 9, dtype=dt), [3, 9], rand(3, 9, dtype=dt), None),
                                 {}, ()),
    _nk("group_norm"): lambda dt: (aten.group_norm.default, (rand(2, 6, 5, dtype=dt), 3, rand(6, dtype=dt),
                                                              rand(6, dtype=dt), 1e-5, True), {}, ()),
    _nk("native_group_norm"): lambda dt: (aten.native_group_norm.default, (rand(3, 4, 2, 3, dtype=dt), None,
                                                                            rand(4, dtype=dt), 3, 4, 6, 4, 1e-5), {}, ()),
    _nk("_native_batch_norm_legit_no_training"): lambda dt: (
        aten._native_batch_norm_legit_no_training.default,
        (rand(2, 5, 3, dtype=dt), rand(5, dtype=dt), rand(5, dtype=dt), rand(5, dtype=dt), positive(5, dtype=dt),
         0.1, 1e-5), {}, (1, 2)),
    _nk("batch_norm"): lambda dt: (aten.batch_norm.default, (rand(3, 4, 5, dtype=dt), rand(4, dtype=dt), None,
                                                              rand(4, dtype=dt), positive(4, dtype=dt), False, 0.1, 1e-5,
                                                              False), {}, ()),
    _nk("softmax.int"): lambda dt: (aten.softmax.int, (rand(3, 9, dtype=dt), -1, None), {}, ()),
    _nk("_softmax"): lambda dt: (aten._softmax.default, (rand(3, 9, 2, dtype=dt), 1, False), {}, ()),
    _nk("log_softmax.int"): lambda dt: (aten.log_softmax.int, (rand(7, 3, dtype=dt), 0, None), {}, ()),
    _nk("_log_softmax"): lambda dt: (aten._log_softmax.default, (rand(2, 9, dtype=dt), -1, False), {}, ()),
    _nk("gelu"): lambda dt: (aten.gelu.default, (rand(5, 11, dtype=dt, scale=3.0),), {"approximate": "none"}, ()),
    _nk("silu"): lambda dt: (aten.silu.default, (rand(5, 11, dtype=dt, scale=3.0),), {}, ()),
    _nk("scaled_dot_product_attention"): lambda dt: (
        aten.scaled_dot_product_attention.default,
        (rand(2, 4, 5, 3, dtype=dt), rand(2, 2, 7, 3, dtype=dt), rand(2, 2, 7, 6, dtype=dt),
         positive(5, 7) > 0.45, 0.0, False), {"scale": None, "enable_gqa": True}, ()),
    _nk("embedding"): lambda dt: (aten.embedding.default, (rand(11, 4, dtype=dt), torch.tensor([[3, 10], [0, 3]]),
                                                            -1, False, False), {}, ()),
}


def _numpy_kernel_keys() -> list[str]:
    return [k for k in runtime.registered_kernels()
            if getattr(kernels._KERNELS.get(k), "__module__", None) == numpy_kernels.__name__]


@pytest.mark.parametrize("dtype", [f32, f64])
@pytest.mark.parametrize("key", _numpy_kernel_keys())
def test_matches_generic_torch_kernel(key, dtype):
    if key not in FACTORIES:
        pytest.fail(f"no input factory for the numpy kernel {key}: add one to FACTORIES")
    overload, args, kwargs, dropped = FACTORIES[key](dtype)
    assert key == f"{DOMAIN}::{overload_name(overload)}"
    decoded, operands = make_call(overload, *args, dropped=dropped, **kwargs)
    call = KernelCall(decoded, operands, [])
    expected = runtime.torch_kernel(call)
    expected = list(expected) if isinstance(expected, (tuple, list)) else [expected]
    expected = [e for i, e in enumerate(expected) if i not in dropped]
    got = run_kernel(decoded, operands, expected)
    assert len(got) == len(expected)
    for g, e in zip(got, expected):
        torch.testing.assert_close(g, e, **TOL[dtype])
    if dtype == f32:
        check_rounded_once(decoded, operands)


def test_factories_name_registered_kernels():
    assert sorted(FACTORIES) == sorted(_numpy_kernel_keys())


@pytest.mark.parametrize("dtype", [torch.float32, torch.bfloat16])
@pytest.mark.parametrize("op", ["softmax", "log_softmax"])
def test_empty_operands_go_to_torch_as_eager_does(op, dtype):
    """numpy's max over an empty axis raises, and numpy has no bfloat16; an
    empty operand may also reach the kernel as a constant (no tensor operand
    at all): the kernel hands all of these to torch. OpInfo's masked softmax
    samples found it."""
    def fn(x):
        return getattr(torch, op)(x, dim=1)

    x = torch.randn(5, 0, 3, dtype=dtype)
    module = tosa_custom.compile(Fn(fn), (x,), backend_legal_ops=["*"], tosa_target=None)
    got = runtime.load(module)(x)
    assert (got.shape, got.dtype) == ((5, 0, 3), dtype)
    program = runtime.load(tosa_custom.compile(Fn(lambda: fn(torch.zeros(5, 0, 0, dtype=dtype))), (),
                                               backend_legal_ops=["*"], tosa_target=None))
    assert tuple(program().shape) == (5, 0, 0)
