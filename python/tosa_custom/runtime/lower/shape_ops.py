"""TOSA 1.1's shape operations, as the runtime's tosa-to-linalg cannot take them.

A reshape with two or more `?` entries in its size list reaches the runtime
as `tosa.dim` + `tosa.const_shape` + `tosa.concat_shape` feeding the shape
operand of `tosa.reshape` (CONTRACT.md §15.3, the 1.1 draft's shape ops);
`tosa-to-tensor` lowers a reshape only when its shape is one
`tosa.const_shape`. This pass computes such a shape in `index` arithmetic
(a dim as `tensor.dim`, a -1 as the element count over the other sizes) and
rewrites the reshape into `tensor.reshape` by a shape tensor, which
bufferizes to a `memref.reshape` (no copy for an identity-layout source).
A `tosa.slice` whose start or size is so computed (a slice to a run-time
end) becomes `tensor.extract_slice` by those values, and a `tosa.tile` by
computed multiples (how the frontend counts a size at run time: ones tiled
by a dim, then summed) a `linalg.generic` into a tensor of the computed
size. The shape ops left without users go.

The elementwise shape arithmetic of the draft (add, sub, mul, div_floor,
div_ceil, mod, min, max) is computed too, so a size computed from dims does
not stop the lowering.
"""

from __future__ import annotations

from torch_mlir import ir
from torch_mlir.dialects import arith as arith_d
from torch_mlir.dialects import tensor as tensor_d

from ...core.ir import collect_ops
from ...core.passes import PassContext, register_pass

__all__ = ["LOWER_SHAPE_OPS", "lower_shape_ops"]

LOWER_SHAPE_OPS = "tosa-custom-lower-shape-ops"

# Elementwise shape arithmetic: the arith op of each (signed index math).
_ARITH = {"tosa.add_shape": arith_d.addi, "tosa.sub_shape": arith_d.subi, "tosa.mul_shape": arith_d.muli,
          "tosa.div_floor_shape": arith_d.floordivsi, "tosa.div_ceil_shape": arith_d.ceildivsi,
          "tosa.mod_shape": arith_d.remsi, "tosa.max_shape": arith_d.maxsi, "tosa.min_shape": arith_d.minsi}
_SHAPE_OPS = ("tosa.dim", "tosa.const_shape", "tosa.concat_shape", *_ARITH)


def _index(v: int) -> ir.Value:
    return arith_d.constant(ir.IndexType.get(), v)


class _Unsupported(Exception):
    """A shape value made by an op this pass does not compute."""


def _sizes(value: ir.Value) -> list:
    """The entries of a `!tosa.shape` value: index Values, or ints for constants."""
    owner = value.owner
    name = "" if isinstance(owner, ir.Block) else owner.name
    op = None if isinstance(owner, ir.Block) else owner.operation
    if name == "tosa.const_shape":
        # index elements read back unsigned: -1 is 2**64 - 1
        return [v - 2 ** 64 if v >= 2 ** 63 else v for v in map(int, ir.DenseIntElementsAttr(op.attributes["values"]))]
    if name == "tosa.dim":
        axis = ir.IntegerAttr(op.attributes["axis"]).value
        source = op.operands[0]
        size = ir.RankedTensorType(source.type).shape[axis]
        if not ir.ShapedType.is_dynamic_size(size):
            return [size]
        return [tensor_d.dim(source, _index(axis))]
    if name == "tosa.concat_shape":
        return [s for operand in op.operands for s in _sizes(operand)]
    if name in _ARITH:
        lhs, rhs = _sizes(op.operands[0]), _sizes(op.operands[1])
        return [_ARITH[name](_value(a), _value(b)) for a, b in zip(lhs, rhs)]
    raise _Unsupported(name or "a block argument")


def _value(size) -> ir.Value:
    return _index(size) if isinstance(size, int) else size


def _inferred(source: ir.Value, sizes: list) -> list:
    """A -1 entry as the element count over the product of the others."""
    if -1 not in sizes:
        return sizes
    t = ir.RankedTensorType(source.type)
    count = _index(1)
    for axis, n in enumerate(t.shape):
        count = arith_d.muli(count, tensor_d.dim(source, _index(axis)) if t.is_dynamic_dim(axis) else _index(n))
    known = _index(1)
    for s in sizes:
        if not (isinstance(s, int) and s == -1):
            known = arith_d.muli(known, _value(s))
    return [arith_d.divsi(count, known) if isinstance(s, int) and s == -1 else s for s in sizes]


def _constant(v: ir.Value) -> bool:
    return not isinstance(v.owner, ir.Block) and v.owner.name == "tosa.const_shape"


def _reshape(op) -> ir.Value:
    sizes = _inferred(op.operands[0], _sizes(op.operands[1]))
    shape = tensor_d.from_elements(ir.RankedTensorType.get([len(sizes)], ir.IndexType.get()),
                                   [_value(s) for s in sizes])
    return tensor_d.reshape(op.results[0].type, op.operands[0], shape)


def _slice(op) -> ir.Value:
    """tensor.extract_slice by the computed starts and sizes (a size of -1: to the end)."""
    x = op.operands[0]
    t = ir.RankedTensorType(x.type)
    starts, sizes = _sizes(op.operands[1]), _sizes(op.operands[2])
    sizes = [arith_d.subi(tensor_d.dim(x, _index(i)) if t.is_dynamic_dim(i) else _index(t.shape[i]), _value(b))
             if isinstance(n, int) and n == -1 else n for i, (b, n) in enumerate(zip(starts, sizes))]
    dynamic = ir.ShapedType.get_dynamic_size()
    static = [[v if isinstance(v, int) else dynamic for v in vs] for vs in (starts, sizes)]
    result = ir.RankedTensorType.get(static[1], t.element_type)
    new = tensor_d.extract_slice(result, x, [v for v in starts if not isinstance(v, int)],
                                 [v for v in sizes if not isinstance(v, int)], [], static[0], static[1],
                                 [1] * t.rank)
    return new if result == op.results[0].type else tensor_d.cast(op.results[0].type, new)


def _tile(op) -> ir.Value:
    """A `linalg.generic` reading input index `i mod d` along each tiled axis
    (d the input's static size: 0 for a size-1 axis, a broadcast; the
    frontend tiles a `tensor<1xi32>` by a dim to count it, and a [1, T] row
    by the batch) and `i` along the others (a `?` axis is never tiled), into
    `tensor.empty` of the input sizes times the computed multiples."""
    from torch_mlir.dialects import linalg as linalg_d

    x = op.operands[0]
    t, result = ir.RankedTensorType(x.type), ir.RankedTensorType(op.results[0].type)
    multiples = _sizes(op.operands[1])
    if any(t.is_dynamic_dim(i) and m != 1 for i, m in enumerate(multiples)):
        raise _Unsupported("a tile along a ? dim")  # i mod a run-time size is not an affine read
    sizes = [tensor_d.dim(x, _index(i)) if t.is_dynamic_dim(i)
             else n * m if isinstance(m, int) else arith_d.muli(_index(n), m)
             for i, (n, m) in enumerate(zip(t.shape, multiples))]
    empty = tensor_d.EmptyOp(sizes, t.element_type).result
    read = [ir.AffineDimExpr.get(i) if t.is_dynamic_dim(i) or m == 1 else
            ir.AffineConstantExpr.get(0) if n == 1 else ir.AffineDimExpr.get(i) % n
            for i, (n, m) in enumerate(zip(t.shape, multiples))]
    maps = ir.ArrayAttr.get([ir.AffineMapAttr.get(ir.AffineMap.get(t.rank, 0, read)),
                             ir.AffineMapAttr.get(ir.AffineMap.get_identity(t.rank))])
    parallel = ir.ArrayAttr.get([ir.Attribute.parse("#linalg.iterator_type<parallel>")] * t.rank)
    generic = linalg_d.GenericOp([empty.type], [x], [empty], maps, parallel)
    block = generic.regions[0].blocks.append(t.element_type, t.element_type)
    with ir.InsertionPoint(block):
        linalg_d.YieldOp([block.arguments[0]])
    out = generic.results[0]
    return out if out.type == result else tensor_d.cast(result, out)


_REWRITES = {"tosa.reshape": (_reshape, (1,)), "tosa.slice": (_slice, (1, 2)), "tosa.tile": (_tile, (1,))}


def _tile_of_dynamic_dims(op) -> bool:
    """A tile of an input with two or more `?` dims (GQA's repeat_kv over a
    dynamic batch and length): tosa-to-linalg reshapes its broadcast with a
    -1 for each, which tosa.reshape refuses past one; `_tile` takes it."""
    return op.name == "tosa.tile" and sum(map(ir.ShapedType.is_dynamic_size,
                                                ir.RankedTensorType(op.operands[0].type).shape)) >= 2


@register_pass(LOWER_SHAPE_OPS,
               "Rewrite a tosa.reshape, tosa.slice or tosa.tile whose shape operands are computed by TOSA 1.1 shape ops "
               "(tosa.dim, tosa.concat_shape, shape arithmetic), and a tosa.tile of an input with two or more ? dims, into tensor.reshape / tensor.extract_slice / linalg.generic by "
               "index values, for tosa-to-linalg")
def lower_shape_ops(module, ctx: PassContext | None = None) -> int:
    """Returns how many ops were rewritten."""
    found = collect_ops(module, lambda op: op.name in _REWRITES)
    rewritten = 0
    with module.context:
        for op in found:
            rewrite, shapes = _REWRITES[op.name]
            if all(_constant(op.operands[i]) for i in shapes) and not _tile_of_dynamic_dims(op):
                continue  # tosa-to-tensor / tosa-to-linalg take it (a reshape's one -1 included)
            with ir.InsertionPoint(op), op.location:
                try:
                    new = rewrite(op)
                except _Unsupported as e:
                    if ctx is not None:
                        ctx.error(op, f"the shape of this {op.name[5:]} is computed by {e}, which the runtime does "
                                      "not lower; compute it with tosa.dim, tosa.const_shape, tosa.concat_shape")
                    continue
            op.results[0].replace_all_uses_with(new)
            op.erase()
            rewritten += 1
        _erase_unused(module)
    return rewritten


def _erase_unused(module) -> None:
    """Shape ops nothing reads any more, users first."""
    for op in reversed(collect_ops(module, lambda op: op.name in _SHAPE_OPS)):
        if not any(True for r in op.results for _ in r.uses):
            op.erase()
