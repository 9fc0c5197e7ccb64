"""The integer form of each TOSA op that computes on quantized values, one
rule per op family, as the specification defines them: convolutions and
matmul on int8 with zero points into an i32 accumulator (scale: input
scale x weight scale, per channel), on int16 into i48, narrowed to i32
at once (wide.py); adds on a common i32 scale; products
of integers (scale: the product); sums in i32; average pooling with zero
points; max pooling, clamps and data movement on the integers themselves;
elementwise functions as TABLE. Each rule records what its result stands
for (`QValue`); nothing is rescaled until a quantize asks for it
(values.materialize; an average, pooling.quantize_average), so a following
relu or clamp costs no extra rounding."""

from __future__ import annotations

import math

import numpy as np
import torch
from torch_mlir import ir

from ..core import builders as _b
from ..core.passes import PassFailure
from . import build as _build
from . import kept as _kept
from . import qdq as _qdq
from . import tables as _tables
from . import wide as _wide
from .scales import BITS, QParams
from .pooling import quantize_average
from .values import QValue, from_qparams, materialize, to_i32

__all__ = ["RULES", "Lowering"]

# Headroom when an int8/int16 value joins an i32 sum: scaled up by 2^20 (2^12), it still leaves 3 bits.
_FINER = {"i8": 20, "i16": 12}


class Lowering:
    """One function's lowering: what each float value stands for."""

    def __init__(self, blobs):
        self.blobs = blobs
        self.shadow: dict[ir.Value, QValue] = {}

    def q(self, value: ir.Value) -> QValue | None:
        return self.shadow.get(value)

    def need(self, op: ir.Operation, index: int) -> QValue:
        found = self.q(op.operands[index])
        if found is None:
            raise PassFailure(f"{op.name}: operand #{index} is a float value that is not quantized, beside a "
                              "quantized one (a quantized model computes each op on quantized operands)", op)
        return found

    def constant(self, value: ir.Value) -> np.ndarray | None:
        return _qdq.constant_array(value, self.blobs)

    def set(self, op: ir.Operation, qv: QValue) -> None:
        self.shadow[op.results[0]] = qv


def _stored(x: QValue, op, what: str) -> QValue:
    """`x`, which must be int8/int16 (a quantize's output, or moved from one)."""
    if x.element not in ("i8", "i16"):
        raise PassFailure(f"{op.name}: {what} of an {x.element} value (an accumulator or sum that no quantize "
                          "has narrowed): the quantizer left this op's input unquantized", op)
    return x


# --- PT2E's quantize and dequantize -------------------------------------------------------------


def _custom(low: Lowering, op) -> None:
    kind = _qdq.kind(op)
    if kind == "dequantize":
        low.set(op, from_qparams(op.operands[0], _qdq.read_qparams(op, low.blobs)))
    elif kind == "quantize":
        x = low.q(op.operands[0])
        if x is None:
            raise PassFailure("quantize of a value computed in float: the op that makes it has no quantized "
                              "input (the quantizer left it in float)", op)
        value = quantize_average(x, _qdq.read_qparams(op, low.blobs), op)
        op.results[0].replace_all_uses_with(value)
        op.erase()
    elif _tables.tabulated(op) and low.q(op.operands[0]) is not None:  # else a kept op on integers (kept.py)
        _table(low, op)
    elif any(low.q(v) is not None for v in op.operands):
        _kept.rewrite_in_lowering(low, op)  # one TOSA data movement of a dequantize away


def _table(low: Lowering, op) -> None:
    x = _stored(low.need(op, 0), op, "a table")
    users = [u.owner.operation if hasattr(u.owner, "operation") else u.owner for u in op.results[0].uses]
    if x.per_channel or not users or any(_qdq.kind(u) != "quantize" for u in users):
        raise PassFailure(f"{op.name}: an elementwise function is a TABLE only from int8 or int16 to a quantize", op)
    wanted = [_qdq.read_qparams(u, low.blobs) for u in users]
    if any(not w.same_as(wanted[0]) for w in wanted):
        raise PassFailure(f"{op.name}: quantized to different parameters by its users", op)
    if x.element == "i16":
        low.set(op, from_qparams(_table16(x, op, wanted[0]), wanted[0]))
        return
    given = QParams(np.asarray(x.scale), x.zero_point, max(x.low, -128), min(x.high, 127), wanted[0].dtype)
    result = _build.table(x.value, _tables.entries(op, given, wanted[0]))
    low.set(op, from_qparams(result, wanted[0]))


def _table16(x: QValue, op, wanted: QParams) -> ir.Value:
    """An int16 TABLE (513 interpolated entries; its i32 result at 1/128 of
    `wanted`'s scale) RESCALEd to `wanted`; refused, naming the fixes, where
    the interpolation is more than 1 LSB off PT2E (tables.entries16)."""
    given = QParams(np.asarray(x.scale), x.zero_point, max(x.low, -32768), min(x.high, 32767), torch.int16)
    try:
        table = _tables.entries16(_tables.function_of(op), given, wanted)
    except ValueError as e:
        name = _tables.aten_name(op)
        raise PassFailure(f"{name} of an int16 value: {e}, so it is not lowered. Keep it as a tosa.custom on the "
                          f"integers (backend_legal_ops=[\"{name}\"], CONTRACT.md §18), or quantize its input and "
                          "output to int8 (a 256-entry TABLE, exact)", op) from None
    fine = QValue(_build.table(x.value, table), np.asarray(float(wanted.scale) / _tables.STEP16))
    return materialize(fine, wanted, op)


# --- Data movement -------------------------------------------------------------------------------


def _reshaped_axis(before: list[int], after: list[int], axis: int) -> int | None:
    """Where dim `axis` of `before` is in `after`, when a reshape keeps it whole."""
    prefix = math.prod(before[:axis])
    for j, size in enumerate(after):
        if size == before[axis] and math.prod(after[:j]) == prefix:
            return j
    return None


def _moved_axis(op, x: QValue) -> int | None:
    if not x.per_channel:
        return None
    before = list(ir.RankedTensorType(op.operands[0].type).shape)
    after = list(ir.RankedTensorType(op.results[0].type).shape)
    if op.name == "tosa.transpose":
        return list(ir.DenseI32ArrayAttr(op.attributes["perms"])).index(x.axis)
    if op.name == "tosa.reshape":
        axis = _reshaped_axis(before, after, x.axis)
    else:
        axis = x.axis if len(before) == len(after) and before[x.axis] == after[x.axis] else None
    if axis is None:
        raise PassFailure(f"{op.name} changes the dim a per-channel scale lies along", op)
    return axis


def _move(low: Lowering, op) -> None:
    x = low.need(op, 0)
    if op.name == "tosa.resize" and "NEAREST" not in str(op.attributes["mode"]):
        raise PassFailure("a bilinear resize of a quantized value (nearest only)", op)
    axis = _moved_axis(op, x)
    value = _build.clone_with(op, [x.value, *op.operands[1:]], x.element)
    low.set(op, x.replace(value=value, axis=axis))


def _pad(low: Lowering, op) -> None:
    x = low.need(op, 0)
    constant = low.constant(op.operands[2]) if len(op.operands) > 2 else np.zeros(1)
    if constant is None or x.per_channel:
        raise PassFailure("a pad of a quantized value by a value computed at run time, or per channel", op)
    padded = int(np.clip(round(float(constant.reshape(-1)[0]) / float(x.scale)) + x.zero_point, x.low, x.high))
    value = _build.clone_with(op, [x.value, op.operands[1], _build.zero_point(padded, x.element)], x.element)
    low.set(op, x.replace(value=value, low=min(x.low, padded), high=max(x.high, padded)))


def _common_scale(values: list[QValue]) -> float:
    """One i32 scale every value is rescaled to: no coarser than an
    accumulator's own (it is never scaled up), 2^20 finer than an int8's."""
    return max(float(np.max(v.scale)) / (1 << _FINER.get(v.element, 0)) for v in values)


def _concat(low: Lowering, op) -> None:
    xs = [low.need(op, i) for i in range(len(op.operands))]
    first = xs[0]
    if all(not x.per_channel and x.element == first.element and x.zero_point == first.zero_point
           and float(x.scale) == float(first.scale) for x in xs):
        value = _build.clone_with(op, [x.value for x in xs], first.element)
        low.set(op, first.replace(value=value, low=min(x.low for x in xs), high=max(x.high for x in xs)))
        return
    scale = _common_scale(xs)
    wide = [to_i32(x, scale, op) for x in xs]
    low.set(op, QValue(_build.clone_with(op, [w.value for w in wide], "i32"), np.asarray(scale)))


# --- Convolutions and matmul ---------------------------------------------------------------------

# Per op: the weight dim its output channels lie along (TOSA's layouts).
_WEIGHT_AXIS = {"tosa.conv2d": 0, "tosa.transpose_conv2d": 0, "tosa.depthwise_conv2d": 2, "tosa.conv3d": 0}


def _bias(low: Lowering, op, channels: int) -> np.ndarray:
    """The float bias constant, one per output channel."""
    bias = low.constant(op.operands[2])
    if bias is None:
        raise PassFailure(f"{op.name}: a bias computed at run time (it must be a constant)", op)
    return np.broadcast_to(bias.astype(np.float64).reshape(-1), (channels,))


def _in_accumulator(bias: np.ndarray, scale: np.ndarray, element: str, op) -> np.ndarray:
    """`bias` as integers at the accumulator's `scale` (per channel), checked to fit `element`."""
    ints = np.round(bias / np.broadcast_to(scale, bias.shape))
    if np.any(np.abs(ints) >= 2.0 ** (BITS[element] - 1)):
        raise PassFailure(f"{op.name}: the bias does not fit {element} at the accumulator's scale", op)
    return ints.astype(np.int64)


def _why(op) -> str:
    if op.name != "tosa.transpose_conv2d":
        return ""
    return (", the input channels: scales inside the sum have no integer form (XNNPACK's quantizer puts ch_axis=0 on "
            "conv_transpose weights); quantize them per output channel (ch_axis=1) or per tensor")


def _conv(low: Lowering, op) -> None:
    x, w = _stored(low.need(op, 0), op, "a convolution"), _stored(low.need(op, 1), op, "a convolution")
    if x.per_channel or w.element != "i8":
        raise PassFailure(f"{op.name}: an int8 or int16 input per tensor and int8 weights are lowered", op)
    acc = _wide.accumulator(x.element, op)
    _wide.zero_point_zero(x, op, "the input")
    weight_shape = list(ir.RankedTensorType(w.value.type).shape)
    if w.per_channel and (w.axis != _WEIGHT_AXIS[op.name] or (op.name == "tosa.depthwise_conv2d"
                                                              and weight_shape[3] != 1)):
        raise PassFailure(f"{op.name}: per-channel weight scales along dim {w.axis} of {weight_shape}{_why(op)}",
                          op)
    channels = list(ir.RankedTensorType(op.results[0].type).shape)[-1]
    scale = np.asarray(float(x.scale) * (w.scale if w.per_channel else float(w.scale)))
    bias = _bias(low, op, channels)
    wide = acc == "i48"  # its bias joins after the narrowing: IREE misreads negative i48 constants
    inside = _in_accumulator(np.zeros_like(bias) if wide else bias, scale, acc, op)
    operands = [x.value, w.value, _build.const(inside, acc),
                _build.zero_point(x.zero_point, x.element), _build.zero_point(w.zero_point, "i8")]
    width = ir.IntegerType.get_signless(BITS[acc])
    value = _build.clone_with(op, operands, acc, {"acc_type": ir.TypeAttr.get(width)})
    rank = ir.RankedTensorType(value.type).rank
    result = QValue(value, scale, 0, rank - 1 if w.per_channel else None)
    if wide:
        terms = math.prod(weight_shape) // channels  # products summed into each output
        result = _wide.narrowed(result, _wide.magnitude(x) * _wide.magnitude(w) * terms
                                + float(np.max(np.abs(bias / np.broadcast_to(scale, bias.shape)))))
        ints = _in_accumulator(bias, result.scale, "i32", op).reshape([1] * (rank - 1) + [channels])
        result = result.replace(value=_b.create("tosa.add", result.value.type,
                                                [result.value, _build.const(ints, "i32")]))
    low.set(op, result)


def _matmul(low: Lowering, op) -> None:
    a, b = _stored(low.need(op, 0), op, "a matmul"), _stored(low.need(op, 1), op, "a matmul")
    if a.per_channel or (b.per_channel and b.axis != 2):
        raise PassFailure("tosa.matmul: int8 or int16 operands, the first per tensor, the second per tensor or "
                          "per output column", op)
    if "i16" in (a.element, b.element):  # TOSA's MATMUL is i8 x i8 or i16 x i16 (EXT-INT16): int8 weights widen
        a, b = _wide.as_element(a, "i16"), _wide.as_element(b, "i16")
        _wide.zero_point_zero(a, op, "the first operand")
        _wide.zero_point_zero(b, op, "the second operand")
    acc = _wide.accumulator(a.element, op)
    scale = float(a.scale) * (b.scale if b.per_channel else float(b.scale))
    value = _build.clone_with(op, [a.value, b.value, _build.zero_point(a.zero_point, a.element),
                                   _build.zero_point(b.zero_point, b.element)], acc)
    terms = ir.RankedTensorType(a.value.type).shape[-1]
    bound = _wide.magnitude(a) * _wide.magnitude(b) * terms
    low.set(op, _wide.narrowed(QValue(value, np.asarray(scale), 0, 2 if b.per_channel else None), bound))
