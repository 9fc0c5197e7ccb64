"""Reference numpy kernels for the ops backends most often keep.

Each computes in float64 where the op normalizes or exponentiates, then
rounds once to the output dtype, so results match eager PyTorch to within an
ulp or two of float32. Dtypes numpy lacks (bfloat16) fall back to the generic
torch kernel. Every kernel is vectorized: Python loops run over coefficients
or results, never over elements.

Kernels write `call.outputs` in place. Results of the ATen op that the custom
op does not have (`call.decoded.dropped_results`, CONTRACT.md 3.4) are skipped.
"""

from __future__ import annotations

import math
from typing import Sequence

import numpy as np
import torch
import torch.utils._pytree as pytree

from .registry import KernelCall, builtin_kernel, torch_kernel

__all__: list[str] = []


def _np(t: torch.Tensor) -> np.ndarray:
    return t.detach().numpy()


def _f64(t: torch.Tensor | None) -> np.ndarray | None:
    return None if t is None else _np(t).astype(np.float64)


def _numpy_lacks(call: KernelCall) -> bool:
    """bfloat16 (numpy has no such dtype) among the operands, the results or
    the arguments the call carries as constants, or an empty operand (numpy's
    max of nothing raises where PyTorch returns an empty result)."""
    operands = [*call.inputs, *(v for v in pytree.tree_leaves(call.arguments) if isinstance(v, torch.Tensor))]
    return any(t.numel() == 0 for t in operands) or any(t.dtype == torch.bfloat16 for t in [*operands, *call.outputs])


def _numpy_or_torch(fn):
    """Run `fn` where numpy computes as PyTorch does; the rest goes to torch."""

    def kernel(call: KernelCall):
        if _numpy_lacks(call):
            return torch_kernel(call)
        return fn(call)

    kernel.__name__ = fn.__name__
    kernel.__qualname__ = fn.__qualname__
    kernel.__doc__ = fn.__doc__
    return kernel


def _out(call: KernelCall, value: np.ndarray, i: int = 0) -> None:
    """Round `value` once to output `i`'s dtype and store it (shapes must agree)."""
    out = call.outputs[i]
    value = np.asarray(value)
    if value.shape != tuple(out.shape):
        raise ValueError(f"kernel computed a {list(value.shape)} result #{i}, the output is {list(out.shape)}")
    # ascontiguousarray makes a 0-d value 1-d: reshape back (a 0-d result failed to store)
    out.copy_(torch.from_numpy(np.ascontiguousarray(value.astype(_np(out).dtype, copy=False))).reshape(out.shape))


def _results(call: KernelCall, values: Sequence[np.ndarray]) -> None:
    """Store the ATen op's results (schema order) in the outputs that exist.

    Results listed in `dropped_results` are not outputs of the custom op.
    """
    dropped = set(call.decoded.dropped_results) if call.decoded is not None else set()
    kept = [v for i, v in enumerate(values) if i not in dropped]
    if len(kept) != len(call.outputs):
        raise ValueError(
            f"the op has {len(values)} results, {len(dropped)} dropped, "
            f"but the call has {len(call.outputs)} outputs"
        )
    for i, v in enumerate(kept):
        _out(call, v, i)


def _trailing_axes(ndim: int, normalized_shape: Sequence[int]) -> tuple[int, ...]:
    return tuple(range(ndim - len(normalized_shape), ndim))


def _channel_shape(ndim: int, channels: int) -> tuple[int, ...]:
    """Broadcast shape of a per-channel (dim 1) vector against an (N, C, *) input."""
    return (1, channels) + (1,) * (ndim - 2)


# --------------------------------------------------------------------------
# Normalizations.
# --------------------------------------------------------------------------


def _layer_norm(x, shape, weight, bias, eps):
    axes = _trailing_axes(x.ndim, shape)
    x64 = x.astype(np.float64)
    mean = x64.mean(axis=axes, keepdims=True)
    var = x64.var(axis=axes, keepdims=True)
    rstd = 1.0 / np.sqrt(var + eps)
    y = (x64 - mean) * rstd
    if weight is not None:
        y = y * _f64(weight)
    if bias is not None:
        y = y + _f64(bias)
    return y, mean, rstd


@builtin_kernel("torch.aten.layer_norm")
@_numpy_or_torch
def layer_norm(call: KernelCall):
    a = call.arguments
    y, _, _ = _layer_norm(_np(a["input"]), a["normalized_shape"], a["weight"], a["bias"], a["eps"])
    _out(call, y)


@builtin_kernel("torch.aten.native_layer_norm")
@_numpy_or_torch
def native_layer_norm(call: KernelCall):
    a = call.arguments
    _results(call, _layer_norm(_np(a["input"]), a["normalized_shape"], a["weight"], a["bias"], a["eps"]))


# The eps rms_norm uses when given None: that of the type it computes in
# (float32 for the half types, as eager PyTorch does).
_RMS_NORM_DEFAULT_EPS = {
    torch.float16: torch.finfo(torch.float32).eps,
    torch.bfloat16: torch.finfo(torch.float32).eps,
    torch.float32: torch.finfo(torch.float32).eps,
    torch.float64: torch.finfo(torch.float64).eps,
}


@builtin_kernel("torch.aten.rms_norm")
@_numpy_or_torch
def rms_norm(call: KernelCall):
    """x / sqrt(mean(x^2 over normalized_shape) + eps) * weight."""
    a = call.arguments
    x = a["input"]
    eps = a["eps"]
    if eps is None:
        eps = _RMS_NORM_DEFAULT_EPS.get(x.dtype, torch.finfo(torch.float64).eps)
    x64 = _np(x).astype(np.float64)
    axes = _trailing_axes(x64.ndim, a["normalized_shape"])
    y = x64 / np.sqrt(np.mean(x64 * x64, axis=axes, keepdims=True) + eps)
    if a["weight"] is not None:
        y = y * _f64(a["weight"])
    _out(call, y)


def _group_norm(x: np.ndarray, n: int, c: int, groups: int, weight, bias, eps: float):
    """(y, mean, rstd); mean and rstd are (N, groups)."""
    if groups <= 0 or c % groups:
        raise ValueError(f"group_norm: {c} channels cannot be split into {groups} groups")
    xg = x.astype(np.float64).reshape(n, groups, -1)
    mean = xg.mean(axis=-1, keepdims=True)
    rstd = 1.0 / np.sqrt(xg.var(axis=-1, keepdims=True) + eps)
    y = ((xg - mean) * rstd).reshape(n, c, -1)
    if weight is not None:
        y = y * _f64(weight)[:, None]
    if bias is not None:
        y = y + _f64(bias)[:, None]
    return y.reshape(x.shape), mean.reshape(n, groups), rstd.reshape(n, groups)


@builtin_kernel("torch.aten.group_norm")
@_numpy_or_torch
def group_norm(call: KernelCall):
    a = call.arguments
    x = _np(a["input"])
    y, _, _ = _group_norm(x, x.shape[0], x.shape[1], a["num_groups"], a["weight"], a["bias"], a["eps"])
    _out(call, y)


@builtin_kernel("torch.aten.native_group_norm")
@_numpy_or_torch
def native_group_norm(call: KernelCall):
    a = call.arguments
    x = _np(a["input"])
    if x.size != a["N"] * a["C"] * a["HxW"]:
        raise ValueError(f"native_group_norm: input {list(x.shape)} is not N={a['N']} x C={a['C']} x HxW={a['HxW']}")
    _results(call, _group_norm(x, a["N"], a["C"], a["group"], a["weight"], a["bias"], a["eps"]))


def _batch_norm(x: np.ndarray, weight, bias, mean: np.ndarray, var: np.ndarray, eps: float) -> np.ndarray:
    """Normalize over channel dim 1 with the given per-channel mean and variance."""
    if x.ndim < 2:
        raise ValueError(f"batch_norm: input must have a channel dimension (dim 1), got shape {list(x.shape)}")
    shape = _channel_shape(x.ndim, x.shape[1])
    y = (x.astype(np.float64) - mean.reshape(shape)) / np.sqrt(var.reshape(shape) + eps)
    if weight is not None:
        y = y * _f64(weight).reshape(shape)
    if bias is not None:
        y = y + _f64(bias).reshape(shape)
    return y


@builtin_kernel("torch.aten._native_batch_norm_legit_no_training")
@_numpy_or_torch
def native_batch_norm_no_training(call: KernelCall):
    """Batch norm in inference: results (out, save_mean, save_invstd), the last
    two empty (and usually dropped, CONTRACT.md 3.4)."""
    a = call.arguments
    y = _batch_norm(_np(a["input"]), a["weight"], a["bias"], _f64(a["running_mean"]), _f64(a["running_var"]), a["eps"])
    empty = np.empty((0,), np.float64)
    _results(call, (y, empty, empty))


@builtin_kernel("torch.aten.batch_norm")
@_numpy_or_torch
def batch_norm(call: KernelCall):
    """With training=False, normalizes with the running statistics. With
    training=True, with the batch's (biased variance), as eager PyTorch does;
    the running statistics are not updated (the custom op has no result for
    them, and its operands are not for writing)."""
    a = call.arguments
    x = _np(a["input"])
    if a["training"]:
        axes = (0,) + tuple(range(2, x.ndim))
        x64 = x.astype(np.float64)
        mean, var = x64.mean(axis=axes), x64.var(axis=axes)
    else:
        if a["running_mean"] is None or a["running_var"] is None:
            raise ValueError("batch_norm: running_mean and running_var must be given when training=False")
        mean, var = _f64(a["running_mean"]), _f64(a["running_var"])
    _out(call, _batch_norm(x, a["weight"], a["bias"], mean, var, a["eps"]))


# --------------------------------------------------------------------------
# Softmax and attention.
# --------------------------------------------------------------------------


def _softmax(x: np.ndarray, dim: int, log: bool) -> np.ndarray:
    x64 = x.astype(np.float64)
    with np.errstate(invalid="ignore"):  # a row of -inf gives nan, as in PyTorch
        shifted = x64 - x64.max(axis=dim, keepdims=True)
        e = np.exp(shifted)
        s = e.sum(axis=dim, keepdims=True)
        return shifted - np.log(s) if log else e / s


@builtin_kernel("torch.aten.softmax.int")
@builtin_kernel("torch.aten._softmax")
@_numpy_or_torch
def softmax(call: KernelCall):
    a = call.arguments
    _out(call, _softmax(_np(a["self"]), a["dim"], log=False))


@builtin_kernel("torch.aten.log_softmax.int")
@builtin_kernel("torch.aten._log_softmax")
@_numpy_or_torch
def log_softmax(call: KernelCall):
    a = call.arguments
    _out(call, _softmax(_np(a["self"]), a["dim"], log=True))


def _safe_softmax(scores: np.ndarray) -> np.ndarray:
    """Softmax over the last axis; a row that is entirely -inf (fully masked)
    gives zeros, as PyTorch's attention does, not nan."""
    m = scores.max(axis=-1, keepdims=True)
    e = np.exp(scores - np.where(np.isneginf(m), 0.0, m))
    s = e.sum(axis=-1, keepdims=True)
    return np.where(s > 0, e / np.where(s > 0, s, 1.0), 0.0)


@builtin_kernel("torch.aten.scaled_dot_product_attention")
@_numpy_or_torch
def scaled_dot_product_attention(call: KernelCall):
    """softmax(q @ k^T * scale + mask) @ v, over (..., L, E) x (..., S, E) x (..., S, Ev)."""
    a = call.arguments
    if a["dropout_p"] != 0.0:
        raise ValueError(
            f"scaled_dot_product_attention: dropout_p={a['dropout_p']} is random; "
            "the reference kernel only computes inference attention (dropout_p=0)"
        )
    q, k, v = _f64(a["query"]), _f64(a["key"]), _f64(a["value"])
    if a["enable_gqa"] and q.ndim >= 3 and k.shape[-3] != q.shape[-3]:
        hq, hk, hv = q.shape[-3], k.shape[-3], v.shape[-3]
        if hq % hk or hq % hv:
            raise ValueError(
                f"scaled_dot_product_attention: {hq} query heads are not a multiple of "
                f"{hk} key / {hv} value heads (enable_gqa=True)"
            )
        k = np.repeat(k, hq // hk, axis=-3)
        v = np.repeat(v, hq // hv, axis=-3)
    scale = a["scale"] if a["scale"] is not None else 1.0 / math.sqrt(q.shape[-1])
    scores = np.matmul(q, np.swapaxes(k, -1, -2)) * scale
    mask = a["attn_mask"]
    if a["is_causal"]:
        if mask is not None:
            raise ValueError("scaled_dot_product_attention: attn_mask must be None when is_causal=True")
        mask = np.tril(np.ones(scores.shape[-2:], dtype=bool))
    elif mask is not None:
        mask = _np(mask)
    if mask is not None:
        if mask.dtype == np.bool_:
            scores = np.where(mask, scores, -np.inf)
        else:
            scores = scores + mask.astype(np.float64)
    _out(call, np.matmul(_safe_softmax(scores), v))


# --------------------------------------------------------------------------
# Activations.
# --------------------------------------------------------------------------

# erf and erfc by W. J. Cody's rational Chebyshev approximations (Math. Comp.
# 23, 1969; the CALERF routine), accurate to about 1e-16 relative in float64.
_ERF_A = (3.16112374387056560e00, 1.13864154151050156e02, 3.77485237685302021e02,
          3.20937758913846947e03, 1.85777706184603153e-1)
_ERF_B = (2.36012909523441209e01, 2.44024637934444173e02, 1.28261652607737228e03,
          2.84423683343917062e03)
_ERF_C = (5.64188496988670089e-1, 8.88314979438837594e00, 6.61191906371416295e01,
          2.98635138197400131e02, 8.81952221241769090e02, 1.71204761263407058e03,
          2.05107837782607147e03, 1.23033935479799725e03, 2.15311535474403846e-8)
_ERF_D = (1.57449261107098347e01, 1.17693950891312499e02, 5.37181101862009858e02,
          1.62138957456669019e03, 3.29079923573345963e03, 4.36261909014324716e03,
          3.43936767414372164e03, 1.23033935480374942e03)
_ERF_P = (3.05326634961232344e-1, 3.60344899949804439e-1, 1.25781726111229246e-1,
          1.60837851487422766e-2, 6.58749161529837803e-4, 1.63153871373020978e-2)
_ERF_Q = (2.56852019228982242e00, 1.87295284992346047e00, 5.27905102951428412e-1,
          6.05183413124413191e-2, 2.33520497626869185e-3)
_ERF_THRESH = 0.46875
_RSQRT_PI = 0.56418958354775628695


def _erf_small(x: np.ndarray) -> np.ndarray:
    """erf(x), for |x| <= 0.46875."""
    z = x * x
    num, den = _ERF_A[4] * z, z
    for i in range(3):
        num = (num + _ERF_A[i]) * z
        den = (den + _ERF_B[i]) * z
    return x * (num + _ERF_A[3]) / (den + _ERF_B[3])


def _erfc_large(y: np.ndarray) -> np.ndarray:
    """erfc(y), for y >= 0.46875 (nan stays nan, +inf gives 0)."""
    y = np.minimum(y, 32.0)  # erfc(32) underflows to 0 already
    num, den = _ERF_C[8] * y, y
    for i in range(7):
        num = (num + _ERF_C[i]) * y
        den = (den + _ERF_D[i]) * y
    mid = (num + _ERF_C[7]) / (den + _ERF_D[7])  # 0.46875 < y <= 4
    z = 1.0 / (y * y)
    num, den = _ERF_P[5] * z, z
    for i in range(4):
        num = (num + _ERF_P[i]) * z
        den = (den + _ERF_Q[i]) * z
    tail = (_RSQRT_PI - z * (num + _ERF_P[4]) / (den + _ERF_Q[4])) / y  # y > 4
    r = np.where(y <= 4.0, mid, tail)
    # exp(-y^2) in two factors, so that the rounding of y^2 does not show
    ysq = np.trunc(y * 16.0) / 16.0
    return np.exp(-ysq * ysq) * np.exp(-(y - ysq) * (y + ysq)) * r


def _erf_parts(x: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(|x| <= 0.46875, erf(x) there, erfc(|x|) elsewhere), each computed
    only on inputs of its range."""
    x = np.asarray(x, dtype=np.float64)
    small = np.abs(x) <= _ERF_THRESH
    return small, _erf_small(np.where(small, x, 0.0)), _erfc_large(np.where(small, 1.0, np.abs(x)))


def _erf(x: np.ndarray) -> np.ndarray:
    """Vectorized float64 erf."""
    small, e, c = _erf_parts(x)
    return np.where(small, e, np.copysign(1.0 - c, x))


def _erfc(x: np.ndarray) -> np.ndarray:
    """Vectorized float64 erfc, accurate far into the right tail."""
    small, e, c = _erf_parts(x)
    return np.where(small, 1.0 - e, np.where(x > 0, c, 2.0 - c))


def _one_plus_erf(x: np.ndarray) -> np.ndarray:
    """1 + erf(x), without cancellation for negative x (where it is erfc(-x))."""
    small, e, c = _erf_parts(x)
    return np.where(small, 1.0 + e, np.where(x > 0, 2.0 - c, c))


@builtin_kernel("torch.aten.gelu")
@_numpy_or_torch
def gelu(call: KernelCall):
    a = call.arguments
    x = _np(a["self"]).astype(np.float64)
    if a["approximate"] == "tanh":
        y = 0.5 * x * (1.0 + np.tanh(math.sqrt(2.0 / math.pi) * (x + 0.044715 * x**3)))
    elif a["approximate"] == "none":
        y = 0.5 * x * _one_plus_erf(x * math.sqrt(0.5))
    else:
        raise ValueError(f"gelu: unknown approximate={a['approximate']!r} (expected 'none' or 'tanh')")
    _out(call, y)


@builtin_kernel("torch.aten.silu")
@_numpy_or_torch
def silu(call: KernelCall):
    x = _np(call.arguments["self"]).astype(np.float64)
    e = np.exp(-np.abs(x))  # never overflows
    _out(call, np.where(x >= 0, x / (1.0 + e), x * e / (1.0 + e)))


# --------------------------------------------------------------------------
# Embedding.
# --------------------------------------------------------------------------


@builtin_kernel("torch.aten.embedding")
@_numpy_or_torch
def embedding(call: KernelCall):
    """weight[indices]: a gather of rows. padding_idx, scale_grad_by_freq and
    sparse only change the gradient."""
    a = call.arguments
    weight, indices = _np(a["weight"]), _np(a["indices"])
    if weight.ndim != 2:
        raise ValueError(f"embedding: weight must be 2-d, got shape {list(weight.shape)}")
    if indices.size and (indices.min() < 0 or indices.max() >= weight.shape[0]):
        bad = indices[(indices < 0) | (indices >= weight.shape[0])].reshape(-1)[0]
        raise IndexError(f"embedding: index {int(bad)} out of range for {weight.shape[0]} embeddings")
    _out(call, np.take(weight, indices.astype(np.int64, copy=False), axis=0))
