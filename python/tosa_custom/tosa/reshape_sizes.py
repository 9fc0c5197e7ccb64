"""`tosa-custom-explicit-reshape-sizes`: every size of a `tosa.reshape` spelt out.

torch-mlir lowers a reshape of `?` dims (and some static ones) to a
`tosa.reshape` whose shape has a -1 for the size to infer. The TOSA
specification has no such entry: strict validation refuses it ("shape input
contains inferable dimension (-1)"), and a backend reading the shape
literally gets a negative size. The size is the element count over the
other sizes: a constant when the input's shape is static, else computed with
the 1.1 draft's shape operations (`tosa.dim` of each `?` dim, `tosa.mul_shape`,
`tosa.div_floor_shape`, `tosa.concat_shape`), which a dynamic program has
already (EXT-SHAPE) and the runtime lowers (`tosa-custom-lower-shape-ops`).
"""

from __future__ import annotations

import math

from torch_mlir import ir

from ..core import builders as _b
from ..core import ir as _ir
from ..core.passes import PassContext, register_pass

__all__ = ["EXPLICIT_RESHAPE_SIZES"]

EXPLICIT_RESHAPE_SIZES = "tosa-custom-explicit-reshape-sizes"


def _sizes(op: ir.Operation) -> list[int] | None:
    """The reshape's constant sizes when one is -1, else None."""
    owner = op.operands[1].owner
    if isinstance(owner, ir.Block) or owner.operation.name != "tosa.const_shape":
        return None
    attr = owner.operation.attributes["values"]
    # `index` elements read back unsigned: -1 is 2**64 - 1.
    sizes = [int(attr[i]) - (1 << 64) if int(attr[i]) >= 1 << 63 else int(attr[i]) for i in range(len(attr))]
    return sizes if sizes.count(-1) == 1 else None


def _element_count(x: ir.Value) -> ir.Value:
    """The number of elements of `x`, as a `!tosa.shape<1>` (its `?` dims read with tosa.dim)."""
    t = ir.RankedTensorType(x.type)
    static = math.prod(n for i, n in enumerate(t.shape) if not t.is_dynamic_dim(i))
    total = _b.tosa_const_shape([static])
    i32 = ir.IntegerType.get_signless(32)
    for i in range(t.rank):
        if t.is_dynamic_dim(i):
            dim = _b.create("tosa.dim", _b.tosa_shape_type(1), [x], {"axis": ir.IntegerAttr.get(i32, i)})
            total = _b.create("tosa.mul_shape", _b.tosa_shape_type(1), [total, dim])
    return total


def _explicit(op: ir.Operation, sizes: list[int]) -> ir.Value:
    """The reshape's shape with its -1 computed."""
    k, x = sizes.index(-1), op.operands[0]
    known = math.prod(n for i, n in enumerate(sizes) if i != k)
    t = ir.RankedTensorType(x.type)
    if t.has_static_shape:
        return _b.tosa_const_shape(sizes[:k] + [math.prod(t.shape) // max(known, 1)] + sizes[k + 1:])
    dynamic = [i for i in range(t.rank) if t.is_dynamic_dim(i)]
    static = math.prod(n for i, n in enumerate(t.shape) if not t.is_dynamic_dim(i))
    if len(dynamic) == 1 and static == known:  # the one `?` dim moves: its size is the inferred one
        inferred = _b.create("tosa.dim", _b.tosa_shape_type(1), [x],
                             {"axis": ir.IntegerAttr.get(ir.IntegerType.get_signless(32), dynamic[0])})
    else:
        inferred = _b.create("tosa.div_floor_shape", _b.tosa_shape_type(1),
                             [_element_count(x), _b.tosa_const_shape([known])])
    shape, rank = inferred, 1
    if k:
        shape, rank = _b.create("tosa.concat_shape", _b.tosa_shape_type(k + 1),
                                [_b.tosa_const_shape(sizes[:k]), shape]), k + 1
    if sizes[k + 1:]:
        shape = _b.create("tosa.concat_shape", _b.tosa_shape_type(len(sizes)),
                          [shape, _b.tosa_const_shape(sizes[k + 1:])])
    return shape


@register_pass(EXPLICIT_RESHAPE_SIZES,
               "Replace the -1 (inferred size) in a tosa.reshape's shape by the size: a constant for a static "
               "input, else computed with TOSA 1.1 shape ops (TOSA has no inferred size; strict validation "
               "refuses it)")
def explicit_reshape_sizes(module: ir.Operation, ctx: PassContext) -> None:
    for op in _ir.collect_ops(module, lambda o: o.name == "tosa.reshape"):
        sizes = _sizes(op)
        if sizes is None or any(n < 0 for i, n in enumerate(sizes) if i != sizes.index(-1)):
            continue
        old = op.operands[1].owner.operation
        with ir.InsertionPoint(op), op.location:
            op.operands[1] = _explicit(op, sizes)
        if not list(old.results[0].uses):
            old.erase()
