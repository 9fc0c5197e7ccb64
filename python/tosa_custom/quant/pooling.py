"""Averages of quantized values rounded as PT2E rounds them: half to even.

An average pool or a mean whose output keeps its input's scale (PT2E's
quantizers share the parameters across it) divides a sum of integers by the
window's size n: quantize(mean(dequantize(q))) = round(S / n) + zero point,
with S the sum of q - zero point. When n is even, S / n is an exact tie for
one S in n, and PT2E's `torch.round` takes the even neighbour. RESCALE
(SINGLE_ROUND) and AVG_POOL2D round ties up (away from zero), so a 2x2
pool's result differed by 1 LSB in one element in eight: in ResNet18 those
fed the classifier and were most of what its integer TOSA differed from
PT2E's arithmetic by.

So the lowering keeps an average as the i32 sum at scale s / n (a window
without padding is a depthwise convolution by ones; a mean is already a
sum and a multiplication by 1/n), and a quantize that divides it by an
even n rounds half to even with integer ops (INTDIV, then the tie's
correction), exactly; any other ratio is a RESCALE as before.
"""

from __future__ import annotations

import numpy as np
from torch_mlir import ir

from ..core import builders as _b
from . import build as _build
from . import qdq as _qdq
from . import wide as _wide
from .scales import BITS, QParams
from .values import QValue, materialize

__all__ = ["avg_pool", "even_divisor", "divide_half_even", "quantize_average"]

_EXACT = 1e-6  # how close n * ratio must be to 1 for the ratio to be 1 / n (a float32 1/n in a mean)


def avg_pool(low, op) -> bool:
    """AVG_POOL2D without padding of an int8 or int16 value (zero point 0
    for int16), read only by quantizes (through data movement), as the sum
    of each window (scale s / n: i32, or i48 narrowed to i32 for int16),
    rounded once by the quantize; False, building nothing, for any other
    (AVG_POOL2D's own result, rounded to the input's scale, then stands
    for the float average a quantizer left unquantized)."""
    x = low.need(op, 0)
    pad = list(ir.DenseI64ArrayAttr(op.attributes["pad"]))
    if (any(pad) or x.per_channel or x.element not in _wide.ACCUMULATOR or x.element == "i16" and x.zero_point
            or not _quantized_later(op.results[0])):
        return False
    kernel = list(ir.DenseI64ArrayAttr(op.attributes["kernel"]))
    channels = ir.RankedTensorType(x.value.type).shape[-1]
    acc = _wide.ACCUMULATOR[x.element]
    ones = _build.const(np.ones(kernel + [channels, 1], dtype=np.int8), "i8")
    attrs = {"pad": op.attributes["pad"], "stride": op.attributes["stride"],
             "dilation": ir.DenseI64ArrayAttr.get([1, 1]),
             "acc_type": ir.TypeAttr.get(ir.IntegerType.get_signless(BITS[acc]))}
    operands = [x.value, ones, _build.const(np.zeros(channels, dtype=np.int64), acc),
                _build.zero_point(x.zero_point, x.element), _build.zero_point(0, "i8")]
    total = _b.create("tosa.depthwise_conv2d", _build.int_type(op.results[0], acc), operands, attrs)
    n = kernel[0] * kernel[1]
    low.set(op, _wide.narrowed(QValue(total, np.asarray(float(x.scale) / n)), _wide.magnitude(x) * n))
    return True


# Ops that only move a value (TorchToTosa's NCHW <-> NHWC transposes) between a pool and its quantize.
_MOVES = ("tosa.transpose", "tosa.reshape", "tosa.slice", "tosa.identity")


def _quantized_later(value: ir.Value) -> bool:
    """Whether every path from `value` reaches a quantize through data movement only."""
    users = [u.owner.operation if hasattr(u.owner, "operation") else u.owner for u in value.uses]
    return bool(users) and all(_qdq.kind(u) == "quantize" or (u.name in _MOVES and _quantized_later(u.results[0]))
                               for u in users)


def even_divisor(x: QValue, q: QParams) -> int | None:
    """n when quantizing `x` (i32, zero point 0, per tensor) to `q` divides it by an even n, else None."""
    if x.element != "i32" or x.zero_point or x.per_channel or q.per_channel:
        return None
    inverse = float(q.scale) / float(x.scale)
    n = round(inverse)
    return n if n >= 2 and n % 2 == 0 and abs(n / inverse - 1) < _EXACT else None


def _full(value: ir.Value, number: int) -> ir.Value:
    return _build.const(np.full([1] * ir.RankedTensorType(value.type).rank, number), "i32")


def _ew(name: str, a: ir.Value, b: ir.Value, boolean: bool = False) -> ir.Value:
    """An elementwise op on `a` and a constant `b` (or two tensors of `a`'s shape)."""
    return _b.create(name, _b.retyped(a, ir.IntegerType.get_signless(1)) if boolean else a.type, [a, b])


def divide_half_even(s: ir.Value, n: int) -> ir.Value:
    """round(s / n), ties to even, for an i32 `s` and an even n > 0.

    a = s + n/2; q = floor(a / n) (INTDIV truncates: one less when the
    remainder is negative); s / n was a tie when a / n is exact, and then
    q - (q & 1) is the even neighbour."""
    a = _ew("tosa.add", s, _full(s, n // 2))
    q = _ew("tosa.intdiv", a, _full(s, n))
    shift = _build.const([0], "i8")
    r = _b.create("tosa.sub", a.type, [a, _b.create("tosa.mul", a.type, [q, _full(s, n), shift])])
    negative = _b.create("tosa.greater", _b.retyped(r, ir.IntegerType.get_signless(1)), [_full(s, 0), r])
    zero, one = _full(s, 0), _full(s, 1)
    q = _ew("tosa.sub", q, _b.create("tosa.select", q.type, [negative, one, zero]))
    r = _ew("tosa.add", r, _b.create("tosa.select", r.type, [negative, _full(s, n), zero]))
    tie = _ew("tosa.equal", r, zero, True)
    odd = _ew("tosa.bitwise_and", q, one)
    return _ew("tosa.sub", q, _b.create("tosa.select", q.type, [tie, odd, zero]))


def quantize_average(x: QValue, q: QParams, where) -> ir.Value:
    """`x` as the integers of `q`: half to even when that divides by an even n, else values.materialize."""
    n = even_divisor(x, q)
    if n is None:
        return materialize(x, q, where)
    rounded = divide_half_even(x.value, n)
    return materialize(QValue(rounded, np.asarray(float(q.scale))), q, where)
