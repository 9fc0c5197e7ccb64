"""Integer forms of the arithmetic between quantized values: add and sub
on a common i32 scale, products of the integers (their scales multiply),
sums in i32, and the ops that keep the integers' scale (pooling, clamps).
A float constant joining an i32 value is quantized to that value's scale
(a bias, once PyTorch's decomposition of linear has split it off)."""

from __future__ import annotations

import math

import numpy as np
from torch_mlir import ir

from ..core import builders as _b
from ..core.passes import PassFailure
from . import build as _build
from .rules import Lowering, _common_scale, _stored, _FINER
from .values import QValue, to_i32

__all__ = ["add_sub", "mul", "reduce_sum", "avg_pool", "keep_scale", "clamp", "max_min"]

_I32 = 2 ** 31


def _i32_const(values: np.ndarray, op) -> ir.Value:
    ints = np.round(values)
    if np.any(np.abs(ints) >= _I32):
        raise PassFailure(f"{op.name}: a constant beyond i32 at the scale of the value it joins", op)
    return _build.const(ints.astype(np.int64), "i32")


def _finer(x: QValue, op) -> QValue:
    """`x` in i32 with zero point 0; an int8/int16 one on a scale 2^20 (2^12) finer, leaving room to add."""
    if x.element == "i32" and x.zero_point == 0:
        return x
    return to_i32(x, x.scale / (1 << _FINER[x.element]), op)


def add_sub(low: Lowering, op) -> None:
    a, b = low.q(op.operands[0]), low.q(op.operands[1])
    if a is not None and b is not None:
        scale = _common_scale([a, b])
        wide = [to_i32(a, scale, op), to_i32(b, scale, op)]
        low.set(op, QValue(_b.create(op.name, _build.int_type(op.results[0], "i32"), [w.value for w in wide]),
                           np.asarray(scale)))
        return
    index = 0 if a is not None else 1
    x = _finer(a if a is not None else b, op)
    constant = low.constant(op.operands[1 - index])
    if constant is None:
        low.need(op, 1 - index)  # raises: a float operand beside a quantized one
    rank = ir.RankedTensorType(op.results[0].type).rank
    other = _i32_const(constant.astype(np.float64) / x.scale_along(rank), op)
    operands = [x.value, other] if index == 0 else [other, x.value]
    low.set(op, x.replace(value=_b.create(op.name, _build.int_type(op.results[0], "i32"), operands)))


def _product_scale(a: QValue, b: QValue, op) -> tuple[np.ndarray, int | None]:
    if a.per_channel and b.per_channel:
        raise PassFailure("tosa.mul of two per-channel values", op)
    if a.per_channel or b.per_channel:
        channel, other = (a, b) if a.per_channel else (b, a)
        return channel.scale * float(other.scale), channel.axis
    return np.asarray(float(a.scale) * float(b.scale)), None


def mul(low: Lowering, op) -> None:
    a, b = low.q(op.operands[0]), low.q(op.operands[1])
    shift = op.operands[2]
    if a is not None and b is not None:
        a, b = (to_i32(_stored(v, op, "a product"), v.scale, op) for v in (a, b))
        scale, axis = _product_scale(a, b, op)
        value = _b.create("tosa.mul", _build.int_type(op.results[0], "i32"), [a.value, b.value, shift])
        low.set(op, QValue(value, scale, 0, axis))
        return
    index = 0 if a is not None else 1
    x = a if a is not None else b
    constant = low.constant(op.operands[1 - index])
    if constant is None:
        low.need(op, 1 - index)
    same_shape = op.results[0].type == op.operands[index].type
    flat = constant.reshape(-1)
    if same_shape and flat.size and np.all(flat == flat[0]) and flat[0] > 0:
        low.set(op, x.replace(scale=x.scale * float(flat[0])))  # a positive number: only the scale changes
        return
    x = to_i32(_stored(x, op, "a product"), x.scale, op)
    unit = float(np.max(np.abs(constant))) / (1 << 15) or 1.0
    other = _i32_const(constant.astype(np.float64) / unit, op)
    operands = [x.value, other, shift] if index == 0 else [other, x.value, shift]
    low.set(op, x.replace(value=_b.create("tosa.mul", _build.int_type(op.results[0], "i32"), operands),
                          scale=x.scale * unit))


def reduce_sum(low: Lowering, op) -> None:
    x = low.need(op, 0)
    axis = ir.IntegerAttr(op.attributes["axis"]).value
    if x.per_channel and x.axis == axis:
        raise PassFailure("a sum along the dim of per-channel scales", op)
    x = x if x.element == "i32" and x.zero_point == 0 else to_i32(x, x.scale, op)
    low.set(op, x.replace(value=_build.clone_with(op, [x.value], "i32")))


def avg_pool(low: Lowering, op) -> None:
    x = _stored(low.need(op, 0), op, "an average pool")
    if x.per_channel:
        raise PassFailure("an average pool of per-channel values", op)
    zp = _build.zero_point(x.zero_point, x.element)
    value = _build.clone_with(op, [x.value, zp, _build.zero_point(x.zero_point, x.element)], x.element,
                              {"acc_type": ir.TypeAttr.get(ir.IntegerType.get_signless(32))})
    low.set(op, x.replace(value=value))


def keep_scale(low: Lowering, op) -> None:
    """Max pooling and max/min reductions: on the integers, the same scale (it is positive)."""
    x = low.need(op, 0)
    if op.name == "tosa.max_pool2d":
        _stored(x, op, "a max pool")
    low.set(op, x.replace(value=_build.clone_with(op, [x.value], x.element)))


def clamp(low: Lowering, op) -> None:
    """A float clamp as integer bounds: q >= ceil(lo / s + zp), q <= floor(hi / s + zp), exact on integers."""
    x = low.need(op, 0)
    lo, hi = (ir.FloatAttr(op.attributes[k]).value for k in ("min_val", "max_val"))
    _clamp_to(low, op, x, lo, hi)


def _clamp_to(low: Lowering, op, x: QValue, lo: float, hi: float) -> None:
    if x.element == "i32":
        low.set(op, x.replace(value=_wide_clamp(x, lo, hi, op)))
        return
    if x.per_channel:
        raise PassFailure("a clamp of per-channel int8 values", op)
    s = float(x.scale)
    low_int = max(x.low, math.ceil(lo / s + x.zero_point) if math.isfinite(lo) else x.low)
    high_int = min(x.high, math.floor(hi / s + x.zero_point) if math.isfinite(hi) else x.high)
    high_int = max(high_int, low_int)
    if (low_int, high_int) == (x.low, x.high):
        low.set(op, x)
        return
    low.set(op, x.replace(value=_build.clamp(x.value, low_int, high_int), low=low_int, high=high_int))


def max_min(low: Lowering, op) -> None:
    """maximum/minimum: with a number, a clamp from one side (how TorchToTosa
    lowers hardtanh and relu6); of two quantized values, on a common scale."""
    a, b = low.q(op.operands[0]), low.q(op.operands[1])
    if a is not None and b is not None:
        scale = _common_scale([a, b])
        wide = [to_i32(a, scale, op), to_i32(b, scale, op)]
        value = _b.create(op.name, _build.int_type(op.results[0], "i32"), [w.value for w in wide], _nan_mode())
        low.set(op, QValue(value, np.asarray(scale)))
        return
    index = 0 if a is not None else 1
    x = a if a is not None else b
    constant = low.constant(op.operands[1 - index])
    flat = constant.reshape(-1) if constant is not None else np.zeros(0)
    if not flat.size or not np.all(flat == flat[0]) or op.results[0].type != op.operands[index].type:
        low.need(op, 1 - index)  # raises unless the other operand is quantized
        raise PassFailure(f"{op.name} of a quantized value and a constant of many values", op)
    bound = float(flat[0])
    lo, hi = (bound, math.inf) if op.name == "tosa.maximum" else (-math.inf, bound)
    _clamp_to(low, op, x, lo, hi)


def _nan_mode() -> dict:
    return {"nan_mode": ir.Attribute.parse("#tosa.nan_mode<PROPAGATE>")}


def _wide_clamp(x: QValue, lo: float, hi: float, op) -> ir.Value:
    """maximum/minimum of an i32 value with per-channel integer bounds (CLAMP has no i32 in pro_int)."""
    value, scale = x.value, x.scale_along()
    for bound, name, rounding in ((lo, "tosa.maximum", np.ceil), (hi, "tosa.minimum", np.floor)):
        ints = rounding(bound / scale) if math.isfinite(bound) else np.full(scale.shape, np.inf * bound)
        if np.all(np.abs(ints) >= _I32):  # beyond i32 (float's max as relu's upper bound): no bound at all
            continue
        ints = np.clip(ints, -_I32, _I32 - 1)
        value = _b.create(name, value.type, [value, _build.const(ints.astype(np.int64), "i32")], _nan_mode())
    return value
