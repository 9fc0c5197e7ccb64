"""Elementwise work fused into a contraction's A operand, computed once per element again.

`linalg-fuse-elementwise-ops` fuses an elementwise producer into any
consumer, a contraction too: a layer norm's normalisation (rsqrt, scale,
shift) or a GELU (erf) in front of a linear layer ends up in the body of the
matmul, and is then computed for every (row, column, k), N times per
element of A instead of once. ConvNeXt's blocks (layer_norm over channels,
Linear, GELU, Linear) ran 3.5-5.7x slower than eager for it.

`tosa-custom-split-contraction-prologues` takes such a prologue back out:
the ops the multiplication's A side is computed by, from inputs that do not
index the contraction's columns, become an elementwise linalg.generic over
A's loops (one pass over A's elements, vectorized as any elementwise op),
and the contraction multiplies its result: a plain contraction the register
tile takes. The B side (weights, a dequantization) is left as it is.
"""

from __future__ import annotations

from torch_mlir import ir
from torch_mlir.dialects import linalg as linalg_d
from torch_mlir.dialects import tensor as tensor_d

from ...core.ir import collect_ops
from ...core.passes import PassContext, register_pass
from .loop_analysis import analyze, dim

__all__ = ["SPLIT_CONTRACTION_PROLOGUES", "split_contraction_prologues"]

SPLIT_CONTRACTION_PROLOGUES = "tosa-custom-split-contraction-prologues"


def _cone(value: ir.Value, body: ir.Block) -> tuple[list, set[int]] | None:
    """The body ops `value` is computed by (in body order) and the block
    arguments they read; None if it is a block argument itself."""
    if isinstance(value.owner, ir.Block):
        return None
    ops, args, todo = set(), set(), [value]
    while todo:
        v = todo.pop()
        owner = v.owner
        if isinstance(owner, ir.Block):
            if owner == body:
                args.add(v.arg_number)
            continue
        op = owner.operation
        if op.parent.name != "linalg.generic" or op in ops:
            continue  # a value from outside the body (a constant)
        ops.add(op)
        todo.extend(op.operands)
    return [op.operation for op in body.operations if op.operation in ops], args


def _side(op):
    """(the product's A-side value, its cone, the args it reads) of a
    contraction-like generic whose body ends in `out + a * b`, else None."""
    info = analyze(op)
    if info is None or not info.is_contraction() or info.windows or len(op.results) != 1:
        return None
    body = op.regions[0].blocks[0]
    ops = list(body.operations)
    out = body.arguments[len(body.arguments) - 1]
    acc = ops[-1].operands[0].owner
    if isinstance(acc, ir.Block) or acc.name != "arith.addf" or out not in list(acc.operands):
        return None
    product = [v for v in acc.operands if v != out][0].owner
    if isinstance(product, ir.Block) or product.name != "arith.mulf":
        return None
    n_dim, _ = info.columns_and_rows()
    for side in product.operands:
        cone = _cone(side, body)
        if cone is None or not cone[1] or n_dim in _loops(info, cone[1]):
            continue
        if any(dim(e) is None and not isinstance(e, ir.AffineConstantExpr)
               for i in cone[1] for e in info.maps[i].results):
            continue
        if _escapes(cone[0], side, [o for o in ops if o.operation not in cone[0]]):
            continue
        return info, side, cone
    return None


def _loops(info, args) -> set[int]:
    return {d for i in args for d in (dim(e) for e in info.maps[i].results) if d is not None}


def _escapes(cone_ops, side, rest) -> bool:
    """Some value of the cone other than `side` is read outside it."""
    inner = {r for op in cone_ops for r in op.results if r != side}
    return any(v in inner for op in rest for v in op.operands)


def _prologue(op, info, side, cone) -> ir.Value:
    """The cone as an elementwise generic over A's loops: its result tensor."""
    ops, args = cone
    args = sorted(args)
    loops = sorted(_loops(info, args))
    position = {d: i for i, d in enumerate(loops)}
    moved = ir.AffineMap.get(len(loops), 0, [ir.AffineExpr.get_dim(position.get(d, 0))
                                            for d in range(info.n_loops)])
    maps = [ir.AffineMap.get(len(loops), 0, [e.compose(moved) for e in info.maps[i].results]) for i in args]
    identity = ir.AffineMap.get_identity(len(loops))
    element = side.type
    empty = tensor_d.empty([info.ranges[d] for d in loops], element)
    generic = linalg_d.GenericOp([empty.type], [info.operands[i] for i in args], [empty],
                                 ir.ArrayAttr.get([ir.AffineMapAttr.get(m) for m in maps + [identity]]),
                                 ir.ArrayAttr.get([ir.Attribute.parse("#linalg.iterator_type<parallel>")] * len(loops)))
    body = op.regions[0].blocks[0]
    block = generic.regions[0].blocks.append(*[body.arguments[i].type for i in args], element)
    mapping = {body.arguments[i]: block.arguments[j] for j, i in enumerate(args)}
    with ir.InsertionPoint(block):
        _clone_all(ops, mapping)
        linalg_d.YieldOp([mapping[side]])
    return generic.results[0], ir.AffineMap.get(info.n_loops, 0, [ir.AffineExpr.get_dim(d) for d in loops])


def _clone_all(ops, mapping: dict) -> None:
    """Clone `ops` in order at the insertion point, reading `mapping`'s values
    for theirs; each clone's results join `mapping`."""
    for o in ops:
        clone = o.clone()
        for k, v in enumerate(clone.operands):
            if v in mapping:
                clone.operands[k] = mapping[v]
        for old, new in zip(o.results, clone.results):
            mapping[old] = new


def _contraction(op, info, side, cone, a: ir.Value, a_map: ir.AffineMap) -> ir.Value:
    """The contraction again, reading `a` for `side`, without the cone's ops and unread inputs."""
    body = op.regions[0].blocks[0]
    rest = [o.operation for o in body.operations if o.operation not in cone[0]]
    n_in = len(body.arguments) - 1
    read = sorted({v.arg_number for o in rest for v in o.operands
                   if isinstance(v.owner, ir.Block) and v.owner == body and v.arg_number < n_in})
    inputs = [a] + [info.operands[i] for i in read]
    maps = [a_map] + [info.maps[i] for i in read] + [info.maps[-1]]
    out = info.operands[-1]
    generic = linalg_d.GenericOp([out.type], inputs, [out], ir.ArrayAttr.get([ir.AffineMapAttr.get(m) for m in maps]),
                                 op.attributes["iterator_types"])
    types = [side.type] + [body.arguments[i].type for i in read] + [body.arguments[n_in].type]
    block = generic.regions[0].blocks.append(*types)
    mapping = {body.arguments[i]: block.arguments[j + 1] for j, i in enumerate(read)}
    mapping[side] = block.arguments[0]
    mapping[body.arguments[n_in]] = block.arguments[len(read) + 1]
    with ir.InsertionPoint(block):
        _clone_all(rest, mapping)
    return generic.results[0]


@register_pass(SPLIT_CONTRACTION_PROLOGUES,
               "Take elementwise work that fusion put into a contraction's A side (a layer norm's scaling, a GELU) "
               "back out into an elementwise generic over A, computed once per element instead of once per column")
def split_contraction_prologues(module, ctx: PassContext | None = None) -> int:
    """Returns how many contractions lost a prologue."""
    found = collect_ops(module, lambda op: op.name == "linalg.generic", enter_matches=False)
    count = 0
    with module.context, ir.Location.unknown():
        for op in found:
            split = _side(op)
            if split is None:
                continue
            info, side, cone = split
            with ir.InsertionPoint(op), op.location:
                a, a_map = _prologue(op, info, side, cone)
                result = _contraction(op, info, side, cone, a, a_map)
            op.results[0].replace_all_uses_with(result)
            op.erase()
            count += 1
    return count
