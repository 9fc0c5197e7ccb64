"""Integer TOSA ops as the quantized lowering builds them, at the current
insertion point: constants, zero points, RESCALE, TABLE, clamps and the
transposes that bring a per-channel axis last (RESCALE's per-channel
multipliers apply along the innermost dim)."""

from __future__ import annotations

from typing import Sequence

import numpy as np
from torch_mlir import ir

from ..core import builders as _b
from .scales import BITS, multiplier_shift

__all__ = ["NUMPY", "int_type", "const", "zero_point", "rescale", "table", "clamp", "transpose", "element_of",
           "retype_like", "clone_with"]

NUMPY = {"i8": np.int8, "i16": np.int16, "i32": np.int32, "i48": np.int64}


def int_type(value_or_type, element: str) -> ir.RankedTensorType:
    """A ranked tensor type of the same shape with the signless integer `element`."""
    return _b.retyped(value_or_type, ir.IntegerType.get_signless(BITS[element]))


def element_of(value: ir.Value) -> str:
    """The element type of a tensor value, as text (`i8`, `f32`)."""
    return str(ir.RankedTensorType(value.type).element_type)


def const(values, element: str, shape: Sequence[int] | None = None) -> ir.Value:
    """A `tosa.const` of integer `values` (shape `shape`, else the array's)."""
    array = np.asarray(values, dtype=NUMPY[element])
    if shape is not None:
        array = array.reshape(shape)
    if element == "i48":  # no buffer layout holds i48: its (few) values as text, a bias or a zero point
        shape = "x".join(map(str, array.shape))
        text = f"dense<{np.array2string(array, separator=', ', threshold=array.size + 1)}> : tensor<{shape}xi48>"
        return _b.tosa_const(ir.Attribute.parse(text.replace("tensor<xi48>", "tensor<i48>")))
    return _b.tosa_const(ir.DenseElementsAttr.get(np.ascontiguousarray(array)))


def zero_point(value: int, element: str) -> ir.Value:
    """The `tensor<1xT>` zero-point operand TOSA 1.0's integer ops take."""
    return const([value], element)


def rescale(x: ir.Value, ratios: np.ndarray, in_zp: int, out_zp: int, out_element: str) -> ir.Value:
    """RESCALE of `x` by `ratios` (one, or one per element of the last dim)
    from `in_zp` to `out_zp`, SINGLE_ROUND, saturating to the output type;
    scale32 (i32 multipliers), except from i48, for which the specification
    requires i16 multipliers (scale32=false)."""
    ratios = np.atleast_1d(np.asarray(ratios, dtype=np.float64))
    in_element = element_of(x)
    scale32 = in_element != "i48"
    pairs = [multiplier_shift(float(r), 32 if scale32 else 16) for r in ratios]
    per_channel = len(pairs) > 1
    operands = [x, const([m for m, _ in pairs], "i32" if scale32 else "i16"), const([s for _, s in pairs], "i8"),
                zero_point(in_zp, in_element), zero_point(out_zp, out_element)]
    attrs = {"input_unsigned": ir.BoolAttr.get(False), "output_unsigned": ir.BoolAttr.get(False),
             "per_channel": ir.BoolAttr.get(per_channel), "scale32": ir.BoolAttr.get(scale32),
             "rounding_mode": ir.Attribute.parse("#tosa.rounding_mode<SINGLE_ROUND>")}
    return _b.create("tosa.rescale", int_type(x, out_element), operands, attrs)


def table(x: ir.Value, entries: np.ndarray) -> ir.Value:
    """TABLE of an i8 `x` by 256 i8 entries (entry i for input i - 128), or
    of an i16 `x` by 513 i16 entries, interpolated into an i32 result."""
    if element_of(x) == "i16":
        return _b.create("tosa.table", int_type(x, "i32"), [x, const(entries, "i16")])
    return _b.create("tosa.table", x.type, [x, const(entries, "i8")])


def clamp(x: ir.Value, low: int, high: int) -> ir.Value:
    """CLAMP of an i8/i16 value to [low, high] (an i32 one uses maximum/minimum: CLAMP has no i32 in pro_int)."""
    element = element_of(x)
    if element == "i32":
        nan = {"nan_mode": ir.Attribute.parse("#tosa.nan_mode<PROPAGATE>")}
        lowest = _b.create("tosa.maximum", x.type, [x, const(np.full([1] * _rank(x), low), "i32")], nan)
        return _b.create("tosa.minimum", x.type, [lowest, const(np.full([1] * _rank(x), high), "i32")], nan)
    ty = ir.IntegerType.get_signless(BITS[element])
    return _b.create("tosa.clamp", x.type, [x], {
        "min_val": ir.IntegerAttr.get(ty, low), "max_val": ir.IntegerAttr.get(ty, high),
        "nan_mode": ir.Attribute.parse("#tosa.nan_mode<PROPAGATE>")})


def _rank(x: ir.Value) -> int:
    return ir.RankedTensorType(x.type).rank


def transpose(x: ir.Value, perms: Sequence[int]) -> ir.Value:
    shape = ir.RankedTensorType(x.type).shape
    ty = ir.RankedTensorType.get([shape[p] for p in perms], ir.RankedTensorType(x.type).element_type)
    return _b.create("tosa.transpose", ty, [x], {"perms": ir.DenseI32ArrayAttr.get(list(perms))})


def retype_like(result: ir.Value, element: str) -> ir.RankedTensorType:
    """`result`'s type with an integer element."""
    return int_type(result, element)


def clone_with(op: ir.Operation, operands: Sequence[ir.Value], result_element: str,
               attributes: dict | None = None) -> ir.Value:
    """`op` again (same name and attributes, unless `attributes` overrides
    some) on `operands`, its single result of integer `result_element`."""
    attrs = {name: op.attributes[name] for name in (getattr(a, "name", a) for a in op.attributes)}
    attrs.update(attributes or {})
    return _b.create(op.name, retype_like(op.results[0], result_element), operands, attrs)
