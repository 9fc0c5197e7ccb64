"""Rewrites of valid TOSA that MLIR's own `tosa-to-linalg` lowers wrongly.

Each is a registered pass the runtime runs right before `tosa-to-linalg`, and
so does the IREE executor before iree-compile, whose TOSA input runs the same
`tosa-to-linalg` (`TOSA_FIXES`, in order); the TOSA handed to other tools is
not changed.
"""

from __future__ import annotations

from torch_mlir import ir

from ...contract.decode import constant_operand
from ...core.builders import create, retyped, tosa_cast, tosa_const, tosa_const_shape
from ...core.ir import collect_ops, replace_each
from ...core.passes import PassContext, register_pass

__all__ = ["INTEGER_NEGATE_AS_SUB", "HALF_CAST_THROUGH_F32", "DEPTHWISE_IN_ACCUMULATOR_TYPE", "WIDE_TRANSPOSE_CONV_AS_CONV", "TOSA_FIXES"]

INTEGER_NEGATE_AS_SUB = "tosa-custom-integer-negate-as-sub"
HALF_CAST_THROUGH_F32 = "tosa-custom-half-cast-through-f32"
DEPTHWISE_IN_ACCUMULATOR_TYPE = "tosa-custom-depthwise-in-accumulator-type"
WIDE_TRANSPOSE_CONV_AS_CONV = "tosa-custom-wide-transpose-conv-as-conv"


def _i64(type_: ir.Type) -> bool:
    return isinstance(type_, ir.RankedTensorType) and str(type_.element_type) == "i64"


def _zero(value: ir.Value) -> bool:
    constant = constant_operand(value)
    return constant is not None and all(v == 0 for v in constant[1])


@register_pass(INTEGER_NEGATE_AS_SUB,
               "Rewrite a 64-bit integer tosa.negate with zero zero-points as tosa.sub from 0: tosa-to-linalg picks "
               "its intermediate type from the input's largest value + 1, which overflows for i64 and gives an "
               "i64 -> i16 arith.extsi that does not verify (torch-mlir's argmin of an int64 tensor negates it)")
def integer_negate_as_sub(module: ir.Operation, ctx: PassContext) -> None:
    def sub_from_zero(op: ir.Operation) -> ir.Value:
        result_type = ir.RankedTensorType(op.results[0].type)
        zero_type = ir.RankedTensorType.get([1] * result_type.rank, result_type.element_type)
        zero = tosa_const(ir.DenseElementsAttr.get_splat(zero_type, ir.IntegerAttr.get(zero_type.element_type, 0)))
        return create("tosa.sub", result_type, [zero, op.operands[0]])

    replace_each(module, lambda op: op.name == "tosa.negate" and _i64(op.results[0].type)
                 and all(_zero(v) for v in list(op.operands)[1:]), sub_from_zero)


def _half_pair(op: ir.Operation) -> bool:
    types = {str(ir.ShapedType(v.type).element_type) for v in (op.operands[0], op.results[0])}
    return types == {"f16", "bf16"}


@register_pass(HALF_CAST_THROUGH_F32,
               "Rewrite a tosa.cast between f16 and bf16 as two casts through f32: tosa-to-linalg makes it one "
               "arith.truncf of equal widths, which does not verify. Widening to f32 is exact, so the result is "
               "rounded once, to nearest even (the runtime fuzzer's cast cases found it)")
def half_cast_through_f32(module: ir.Operation, ctx: PassContext) -> None:
    def through_f32(op: ir.Operation) -> ir.Value:
        wide_type = ir.RankedTensorType.get(ir.ShapedType(op.operands[0].type).shape, ir.F32Type.get())
        return create("tosa.cast", op.results[0].type, [create("tosa.cast", wide_type, [op.operands[0]])])

    replace_each(module, lambda op: op.name == "tosa.cast" and _half_pair(op), through_f32)


def _narrow_float_depthwise(op: ir.Operation) -> bool:
    if op.name != "tosa.depthwise_conv2d":
        return False
    element = ir.ShapedType(op.results[0].type).element_type
    acc = ir.TypeAttr(op.attributes["acc_type"]).value
    return isinstance(element, (ir.F16Type, ir.BF16Type)) and isinstance(acc, ir.F32Type)


@register_pass(DEPTHWISE_IN_ACCUMULATOR_TYPE,
               "Compute a float16 or bfloat16 tosa.depthwise_conv2d with an f32 accumulator in f32 and cast its "
               "result once: tosa-to-linalg-named rounds the sum to the result type and adds the bias after, in "
               "that type, where TOSA adds it in the accumulator (two roundings: off by several ulps of float16; "
               "every-sample OpInfo conv1d float16/7, conv2d bfloat16/15-17). Widening is exact, and the products "
               "of two halves are exact in f32, so this is the op as TOSA defines it")
def depthwise_in_accumulator_type(module: ir.Operation, ctx: PassContext) -> None:
    for op in collect_ops(module, _narrow_float_depthwise):
        with ir.InsertionPoint(op), op.location:
            f32 = ir.F32Type.get()
            # input, weight, bias and the two zero points (0 for floats), all of the result's element type
            wide = [tosa_cast(v, f32) for v in op.operands]
            conv = create("tosa.depthwise_conv2d", retyped(op.results[0].type, f32), wide,
                          {name: op.attributes[name] for name in op.attributes})
            narrow = tosa_cast(conv, op.results[0].type)
        op.results[0].replace_all_uses_with(narrow)
        op.erase()


def _shaped(shape: list[int], element: ir.Type) -> ir.RankedTensorType:
    return ir.RankedTensorType.get(shape, element)


def _zero_inserted(x: ir.Value, stride: list[int], zero_point: ir.Value) -> ir.Value:
    """`x` [N, H, W, C] with stride - 1 copies of the input zero point after
    each row and column, the trailing ones cut: [N, (H-1)sy+1, (W-1)sx+1, C].
    A convolution reads each inserted value as 0 (it subtracts the zero point)."""
    (n, h, w, c), element = ir.RankedTensorType(x.type).shape, ir.RankedTensorType(x.type).element_type
    sy, sx = stride
    split = [n, h, 1, w, 1, c]
    x = create("tosa.reshape", _shaped(split, element), [x, tosa_const_shape(split)])
    spread = [n, h, sy, w, sx, c]
    x = create("tosa.pad", _shaped(spread, element),
               [x, tosa_const_shape([0, 0, 0, 0, 0, sy - 1, 0, 0, 0, sx - 1, 0, 0]), zero_point])
    merged = [n, h * sy, w * sx, c]
    x = create("tosa.reshape", _shaped(merged, element), [x, tosa_const_shape(merged)])
    kept = [n, (h - 1) * sy + 1, (w - 1) * sx + 1, c]
    return create("tosa.slice", _shaped(kept, element), [x, tosa_const_shape([0, 0, 0, 0]), tosa_const_shape(kept)])


def _wide_strided_transpose_conv(op: ir.Operation) -> bool:
    if op.name != "tosa.transpose_conv2d":
        return False
    element = ir.RankedTensorType(op.operands[0].type).element_type
    stride = list(ir.DenseI64ArrayAttr(op.attributes["stride"]))
    return isinstance(element, ir.IntegerType) and element.width == 16 and stride != [1, 1]


@register_pass(WIDE_TRANSPOSE_CONV_AS_CONV,
               "Rewrite a strided tosa.transpose_conv2d of i16 input (i48 accumulator) as a tosa.conv2d of the input "
               "with stride - 1 zero points inserted between its rows and columns, padded by kernel - 1 + out_pad, "
               "with the kernel reversed: MLIR's decomposition pads the i8 weights with an i16 constant (it does not "
               "verify) and leaves reshapes, a slice and an add on i48, which TOSA has not (IREE refuses them)")
def wide_transpose_conv_as_conv(module: ir.Operation, ctx: PassContext) -> None:
    def as_conv(op: ir.Operation) -> ir.Value:
        x, weight, bias, input_zp, weight_zp = op.operands
        _, kh, kw, _ = ir.RankedTensorType(weight.type).shape
        top, bottom, left, right = ir.DenseI64ArrayAttr(op.attributes["out_pad"])
        spread = _zero_inserted(x, list(ir.DenseI64ArrayAttr(op.attributes["stride"])), input_zp)
        i32 = ir.IntegerType.get_signless(32)
        for axis in (1, 2):
            weight = create("tosa.reverse", weight.type, [weight], {"axis": ir.IntegerAttr.get(i32, axis)})
        pad = [kh - 1 + top, kh - 1 + bottom, kw - 1 + left, kw - 1 + right]
        attrs = {"acc_type": op.attributes["acc_type"], "pad": ir.DenseI64ArrayAttr.get(pad),
                 "stride": ir.DenseI64ArrayAttr.get([1, 1]), "dilation": ir.DenseI64ArrayAttr.get([1, 1])}
        return create("tosa.conv2d", op.results[0].type, [spread, weight, bias, input_zp, weight_zp], attrs)

    replace_each(module, _wide_strided_transpose_conv, as_conv)


# Every rewrite above, in the order the lowerings run them.
TOSA_FIXES = [INTEGER_NEGATE_AS_SUB, HALF_CAST_THROUGH_F32, DEPTHWISE_IN_ACCUMULATOR_TYPE, WIDE_TRANSPOSE_CONV_AS_CONV]
