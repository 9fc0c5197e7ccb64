"""Reference numpy kernels for the ops backends most often keep.

Each computes in float64 where the op normalizes or exponentiates, then
rounds once to the output dtype, so results match eager PyTorch to within an
ulp or two of float32. Dtypes numpy lacks (bfloat16) fall back to the generic
torch kernel.
"""

from __future__ import annotations

import math

import numpy as np
import torch

from .kernels import KernelCall, register_kernel, torch_kernel

__all__: list[str] = []


def _np(t: torch.Tensor) -> np.ndarray:
    return t.detach().numpy()


def _numpy_or_torch(fn):
    """Run `fn` for numpy dtypes; bfloat16 (which numpy lacks) goes to torch."""

    def kernel(call: KernelCall):
        if any(t.dtype == torch.bfloat16 for t in list(call.inputs) + list(call.outputs)):
            return torch_kernel(call)
        return fn(call)

    kernel.__name__ = fn.__name__
    kernel.__doc__ = fn.__doc__
    return kernel


def _out(call: KernelCall, value: np.ndarray, i: int = 0) -> None:
    out = call.outputs[i]
    out.copy_(torch.from_numpy(np.ascontiguousarray(value.astype(_np(out).dtype, copy=False))))


def _layer_norm(x, shape, weight, bias, eps):
    axes = tuple(range(x.ndim - len(shape), x.ndim))
    x64 = x.astype(np.float64)
    mean = x64.mean(axis=axes, keepdims=True)
    var = x64.var(axis=axes, keepdims=True)
    rstd = 1.0 / np.sqrt(var + eps)
    y = (x64 - mean) * rstd
    if weight is not None:
        y = y * _np(weight).astype(np.float64)
    if bias is not None:
        y = y + _np(bias).astype(np.float64)
    return y, mean, rstd


@register_kernel("torch.aten.layer_norm")
@_numpy_or_torch
def layer_norm(call: KernelCall):
    a = call.arguments
    y, _, _ = _layer_norm(_np(a["input"]), a["normalized_shape"], a["weight"], a["bias"], a["eps"])
    _out(call, y)


@register_kernel("torch.aten.native_layer_norm")
@_numpy_or_torch
def native_layer_norm(call: KernelCall):
    a = call.arguments
    y, mean, rstd = _layer_norm(_np(a["input"]), a["normalized_shape"], a["weight"], a["bias"], a["eps"])
    for i, v in enumerate((y, mean, rstd)):
        if i < len(call.outputs):
            _out(call, v.reshape(call.outputs[i].shape), i)


def _softmax(x: np.ndarray, dim: int, log: bool) -> np.ndarray:
    x64 = x.astype(np.float64)
    shifted = x64 - x64.max(axis=dim, keepdims=True)
    e = np.exp(shifted)
    s = e.sum(axis=dim, keepdims=True)
    return shifted - np.log(s) if log else e / s


@register_kernel("torch.aten.softmax.int")
@register_kernel("torch.aten._softmax")
@_numpy_or_torch
def softmax(call: KernelCall):
    a = call.arguments
    _out(call, _softmax(_np(a["self"]), a["dim"], log=False))


@register_kernel("torch.aten.log_softmax.int")
@register_kernel("torch.aten._log_softmax")
@_numpy_or_torch
def log_softmax(call: KernelCall):
    a = call.arguments
    _out(call, _softmax(_np(a["self"]), a["dim"], log=True))


_ERF = np.vectorize(math.erf, otypes=[np.float64])


@register_kernel("torch.aten.gelu")
@_numpy_or_torch
def gelu(call: KernelCall):
    a = call.arguments
    x = _np(a["self"]).astype(np.float64)
    if a["approximate"] == "tanh":
        y = 0.5 * x * (1.0 + np.tanh(math.sqrt(2.0 / math.pi) * (x + 0.044715 * x**3)))
    elif a["approximate"] == "none":
        y = 0.5 * x * (1.0 + _ERF(x / math.sqrt(2.0)))
    else:
        raise ValueError(f"gelu: unknown approximate={a['approximate']!r}")
    _out(call, y)


@register_kernel("torch.aten.silu")
@_numpy_or_torch
def silu(call: KernelCall):
    x = _np(call.arguments["self"]).astype(np.float64)
    _out(call, x / (1.0 + np.exp(-x)))
