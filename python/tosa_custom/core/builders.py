"""IR builders every layer shares: one place that knows how a `tosa.const`,
a `tosa.cast` or a torch constant is spelt, so that a change of the op's form
(TOSA renamed `value` to `values` once) is made here and nowhere else.

Each builds at the current insertion point and location, as the bindings'
op builders do, and returns the single result."""

from __future__ import annotations

from typing import Sequence

import numpy as np
from torch_mlir import ir

from . import dtypes as _dtypes
from . import schema as _schema

__all__ = ["create", "retyped", "tosa_const", "tosa_cast", "tosa_shape_type", "tosa_const_shape", "torch_constant", "dtype_code", "torch_to_dtype", "empty_vtensor",
           "scalar_literal", "signless_elements"]


def create(name: str, result: ir.Type, operands: Sequence[ir.Value] = (), attributes: dict | None = None,
           loc: ir.Location | None = None) -> ir.Value:
    """The result of a new single-result op `name` (any dialect, generic form)."""
    return ir.Operation.create(name, results=[result], operands=list(operands), attributes=attributes or {},
                               loc=loc).result


def retyped(value: "ir.Value | ir.Type", element: ir.Type) -> ir.RankedTensorType:
    """A ranked tensor type of `value`'s (or a type's) shape with another element type."""
    ty = value.type if isinstance(value, ir.Value) else value
    return ir.RankedTensorType.get(ir.RankedTensorType(ty).shape, element)


def signless_elements(values: ir.DenseElementsAttr, ty: ir.Type) -> ir.DenseElementsAttr:
    """The same elements, bit for bit (uint8 as int8, CONTRACT.md 3.5), with
    the builtin signless element type and the shape of `ty`: a torch literal's
    `si64`/`ui8` attribute for a TOSA constant."""
    array = np.array(values)
    if values.is_splat:
        array = np.full(ty.shape, array.reshape(-1)[0], dtype=array.dtype)
    if array.dtype == np.uint8:
        array = array.view(np.int8)
    return ir.DenseElementsAttr.get(np.ascontiguousarray(array), type=ty.element_type, shape=ty.shape)


def tosa_const(values: ir.Attribute, result: ir.Type | None = None, loc: ir.Location | None = None) -> ir.Value:
    """`tosa.const` of an elements attribute; its type unless `result` is given
    (a `dense_resource` attribute, whose type may be spelt otherwise)."""
    return create("tosa.const", result if result is not None else values.type, attributes={"values": values},
                  loc=loc)


def tosa_shape_type(rank: int) -> ir.Type:
    """`!tosa.shape<rank>`, the type of TOSA 1.1's shape values."""
    return ir.Type.parse(f"!tosa.shape<{rank}>")


def tosa_const_shape(values: "list[int]") -> ir.Value:
    """`tosa.const_shape` of these sizes."""
    attr = ir.Attribute.parse(f"dense<[{', '.join(map(str, values))}]> : tensor<{len(values)}xindex>")
    return create("tosa.const_shape", tosa_shape_type(len(values)), [], {"values": attr})


def tosa_cast(value: ir.Value, result: ir.Type, loc: ir.Location | None = None) -> ir.Value:
    """`tosa.cast` of `value` to `result` (a type, or an element type for a tensor of `value`'s shape)."""
    if not isinstance(result, (ir.RankedTensorType, ir.UnrankedTensorType)):
        result = retyped(value, result)
    return create("tosa.cast", result, [value], loc=loc)


def torch_constant(value: "int | float | bool | str | None") -> ir.Value:
    """`torch.constant.int/float/bool/str/none` for a Python value."""
    if isinstance(value, str):
        return create("torch.constant.str", ir.Type.parse("!torch.str"), attributes={"value": ir.StringAttr.get(value)})
    if value is None:
        return create("torch.constant.none", ir.Type.parse("!torch.none"))
    if isinstance(value, bool):
        return create("torch.constant.bool", ir.Type.parse("!torch.bool"), attributes={"value": ir.BoolAttr.get(value)})
    if isinstance(value, int):
        return create("torch.constant.int", ir.Type.parse("!torch.int"),
                      attributes={"value": ir.IntegerAttr.get(ir.IntegerType.get_signless(64), value)})
    return create("torch.constant.float", ir.Type.parse("!torch.float"),
                  attributes={"value": ir.FloatAttr.get(ir.F64Type.get(), value)})


def dtype_code(ty: ir.Type) -> int:
    """PyTorch's ScalarType number of a `!torch.vtensor` type's element (4 for si64), as a `dtype=` operand takes it."""
    torch_dtype = _dtypes.by_torch_mlir(_dtypes.parse_vtensor(str(ty))[1]).torch
    return next(c for c, d in _schema.DTYPES.items() if d == torch_dtype)


def torch_to_dtype(value: ir.Value, result: ir.Type, attributes: dict | None = None,
                   made=lambda v: v) -> ir.Value:
    """`torch.aten.to.dtype` of `value` to the vtensor type `result`, whose
    element says the dtype (`ui8` from `si8` is PyTorch's bit-preserving wrap).
    `made` is given each value built, for a caller that erases what it built."""
    operands = [value, *(made(torch_constant(c)) for c in (dtype_code(result), False, False, None))]
    return made(create("torch.aten.to.dtype", result, operands, attributes))


def empty_vtensor(original: ir.Type) -> ir.Value:
    """A zero-size `!torch.vtensor` of type `original`: it needs no computing
    and no constant, so it is an empty builtin tensor (CONTRACT.md 3.4)."""
    dims, element = _dtypes.parse_vtensor(str(original))
    dtype = _dtypes.by_torch_mlir(element)
    # uint8 is i8 in TOSA (torch-mlir's type conversion); complex stays complex, a zero-size one is never lowered
    element = dtype.builtin if dtype.pairs else dtype.tosa
    empty = create("tensor.empty", ir.Type.parse(f"tensor<{''.join(f'{d}x' for d in dims)}{element}>"))
    return create("torch_c.from_builtin_tensor", original, [empty])


def scalar_literal(number: "int | float", element: str) -> ir.Value:
    """A 0-d `torch.vtensor.literal` of `number` with torch-mlir element type
    `element` ("si8", "f32"): an operand of the tensor's own dtype, where a
    Scalar operand would make TorchToTosa promote the other (to i64 for an
    int8 comparison, which TOSA 1.0 does not take)."""
    if element.startswith(("f", "bf")) and isinstance(number, int):
        number = float(number)  # MLIR reads `0` as no float
    value = ir.Attribute.parse(f"dense<{number}> : tensor<{element}>")
    return create("torch.vtensor.literal", ir.Type.parse(f"!torch.vtensor<[],{element}>"), attributes={"value": value})
