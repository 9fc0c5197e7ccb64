"""Constant operands rearranged once, at compile time, instead of on every call.

The tiling passes give a contraction's B operand the layout its register
tile reads (make_columns_contiguous: columns innermost; pack_columns: column
panels). B is most often a weight, a constant of the program: a convolution's
f x kh x kw x c filter, a linear layer's matrix. Rearranged by a linalg op,
every call pays for the copy, and a transposed copy of a convolution's
filter writes each element to another cache line: resnet18's 512-channel
3x3 filter (9.4 MB) cost more to transpose than to convolve. Here the
elements of a dense constant are rearranged with numpy when the module is
lowered, and the op reads the new constant.

Only constants whose elements the bindings hand to numpy (f32, f64, f16 and
integers of whole bytes, dense or splat) are folded; any other operand keeps
its linalg op.
"""

from __future__ import annotations

import numpy as np
from torch_mlir import ir
from torch_mlir.dialects import arith as arith_d

__all__ = ["numpy_holds", "constant_array", "constant_like", "is_dense_constant", "packed_constant",
           "transposed_constant"]


def _elements(v: ir.Value) -> ir.DenseElementsAttr | None:
    owner = v.owner
    if isinstance(owner, ir.Block) or owner.operation.name != "arith.constant":
        return None
    attr = owner.operation.attributes["value"]
    return attr if isinstance(attr, ir.DenseElementsAttr) else None


def numpy_holds(element: ir.Type) -> bool:
    """The bindings hand elements of this type to numpy (f32, f64, f16,
    integers of whole bytes)."""
    return isinstance(element, (ir.F32Type, ir.F64Type, ir.F16Type)) or \
        (isinstance(element, ir.IntegerType) and element.width in (8, 16, 32, 64))


def is_dense_constant(v: ir.Value) -> bool:
    """`v` is an arith.constant of a dense (or splat) elements attribute: one
    the tiling passes rearrange now, without reading its elements to find out."""
    return _elements(v) is not None


def constant_array(v: ir.Value) -> np.ndarray | None:
    """The elements of `v` if it is a dense (or splat) arith.constant numpy can
    hold, in `v`'s shape; else None."""
    attr = _elements(v)
    if attr is None:
        return None
    t = attr.type
    element = t.element_type
    if not numpy_holds(element):
        return None
    try:
        if attr.is_splat:
            value = np.array(ir.DenseElementsAttr.get_splat(ir.RankedTensorType.get([1], element),
                                                            attr.get_splat_value()))
            return np.broadcast_to(value.reshape(()), tuple(t.shape))
        return np.array(attr).reshape(tuple(t.shape))
    except (TypeError, ValueError):
        return None


def constant_like(array: np.ndarray, element: ir.Type) -> ir.Value:
    """A new arith.constant (at the insertion point) of `array`'s elements and shape."""
    t = ir.RankedTensorType.get(list(array.shape), element)
    flat = array.reshape(-1)
    if flat.size and (flat == flat[0]).all():
        attr = ir.DenseElementsAttr.get_splat(t, ir.DenseElementsAttr.get(np.ascontiguousarray(flat[:1]),
                                                                         type=element).get_splat_value())
    else:
        attr = ir.DenseElementsAttr.get(np.ascontiguousarray(array), type=element, shape=list(array.shape))
    return arith_d.ConstantOp(t, attr).result


def transposed_constant(v: ir.Value, perm: list[int]) -> ir.Value | None:
    """`v` transposed by `perm` (result dim i is v's dim perm[i]) as a new
    constant, if `v` is one `constant_array` reads; else None."""
    array = constant_array(v)
    if array is None:
        return None
    return constant_like(np.transpose(array, perm), ir.RankedTensorType(v.type).element_type)


def packed_constant(v: ir.Value, nr: int, perm: list[int]) -> ir.Value | None:
    """`v` ([.., N]) packed in column panels as pack_columns lays them out: N
    padded with zeros to whole panels of `nr`, split in (N / nr, nr), the
    split dims ordered by `perm`; None if `v` is no constant `constant_array` reads."""
    array = constant_array(v)
    if array is None:
        return None
    n = array.shape[-1]
    padded = -(-n // nr) * nr
    if padded != n:
        array = np.concatenate([array, np.zeros(array.shape[:-1] + (padded - n,), array.dtype)], axis=-1)
    split = array.reshape(array.shape[:-1] + (padded // nr, nr))
    return constant_like(np.transpose(split, perm), ir.RankedTensorType(v.type).element_type)
