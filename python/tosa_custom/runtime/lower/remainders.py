"""A contraction's `?` remainder as full register tiles: the rewrites the
transform dialect cannot express, between the tiling script and the
vectorizing one (tiling.apply_tile_plans, transform_scripts.py).

A register tile's cost is mostly one pass over its panel of B (K x NR
floats: a 1 MB weight does not stay in L1), whatever its rows, so a
remainder run as 1-row tiles (5 rows: 5 passes) made a dynamic MLP up to
2.2x slower than the static one, which runs it as one 5-row tile. Both
rewrites below keep a remainder to about one pass, without masks (a masked
A element would be a conditional load per row in the reduction loop) and
without padding (a padded copy of A's rows per column panel):

- `overlap_remainders`: with at least a tile of rows and a remainder that
  is not a power of two (1, 2, 4 rows run as one tile of that size, below:
  an 8-row tile costs more than a 1-row one), the loop of full tiles
  runs one more tile, moved back to end at the last row
  (offset min(iv, M - MR)). Its rows overlap the tile before, and are
  computed again from the contraction's initial value, so they get the same
  values: the tile's init is a fill (fused by the planner, or, when the
  planner could not fuse it, filled again in the tile here); an init of
  another kind keeps the split below.
- `fill_in_full_tiles`: with fewer rows than a tile, the script splits the
  remainder in tiles of halving sizes, each peeled (TilePlan.split_sizes);
  peeling cannot prove those tiles full, because tiling composes the bound
  of the outer remainder into the tile size's `affine.min`. Each peeled loop
  of full tiles is marked, and its `affine.min` replaced here by the tile
  size (the loop runs from 0 to a multiple of it).
"""

from __future__ import annotations

from torch_mlir import ir
from torch_mlir.dialects import affine
from torch_mlir.dialects import arith
from torch_mlir.dialects import linalg

from .transform_scripts import FULL_TILES_ATTR, OVERLAP_ATTR, PEELED_FILL_ATTR

__all__ = ["rewrite_remainders", "overlap_remainders", "fill_in_full_tiles"]


def _marked(module: ir.Module, attr: str) -> list:
    found = []

    def visit(op):
        if attr in op.attributes:
            found.append(op)
        return ir.WalkResult.ADVANCE

    module.operation.walk(visit)
    return found


def fill_in_full_tiles(module: ir.Module) -> int:
    """In each loop marked FULL_TILES_ATTR = s, replace the tile size
    `affine.min(s, ...)` by s, and drop the mark. Returns how many sizes
    became constant."""
    count = 0
    for loop in _marked(module, FULL_TILES_ATTR):
        size = ir.IntegerAttr(loop.attributes[FULL_TILES_ATTR]).value
        del loop.attributes[FULL_TILES_ATTR]
        for op in list(loop.regions[0].blocks[0].operations):
            if op.name != "affine.min" or not any(isinstance(e, ir.AffineConstantExpr) and e.value == size
                                                   for e in ir.AffineMapAttr(op.attributes["map"]).value.results):
                continue
            with ir.InsertionPoint(op), op.location:
                constant = arith.constant(ir.IndexType.get(), size)
            op.results[0].replace_all_uses_with(constant)
            op.erase()
            count += 1
    return count


def _fill_value(v: ir.Value) -> ir.Value | None:
    """The scalar of the linalg.fill `v` comes from, through loop iter_args, or None."""
    while True:
        owner = v.owner
        if isinstance(owner, ir.Block):
            loop = owner.owner
            number = ir.BlockArgument(v).arg_number
            if loop.name != "scf.for" or number == 0:
                return None
            v = loop.operands[2 + number]  # lb, ub, step, then the inits of iter_args 1..
            continue
        op = owner.operation
        return op.operands[0] if op.name == "linalg.fill" else None


def _constant(v: ir.Value) -> int | None:
    owner = v.owner
    if isinstance(owner, ir.Block) or owner.operation.name != "arith.constant":
        return None
    return ir.IntegerAttr(owner.operation.attributes["value"]).value


def _unfilled(body: ir.Block, init: ir.Value) -> list:
    """The slices of the tile's init (the loop's iter_arg) the tile reads as
    they are, not as the destination of a fused fill."""
    slices = [op for op in body.operations if op.name == "tensor.extract_slice" and op.operands[0] == init]
    unfilled = [op for op in slices if any(u.owner.name != "linalg.fill" for u in op.results[0].uses)]
    return unfilled


def _overlap(main) -> bool:
    """Rewrite one peeled loop of full tiles and the remainder loop after it."""
    body = main.regions[0].blocks[0]
    users = [u.owner for u in main.results[0].uses] if len(main.results) == 1 else []
    rest = next((u for u in users if u.name == "scf.for" and u.operands[3] == main.results[0]), None)
    step = _constant(main.operands[2])
    if rest is None or step is None or len(body.arguments) != 2:
        return False
    unfilled = _unfilled(body, body.arguments[1])
    value = _fill_value(main.operands[3]) if unfilled else None
    if unfilled and value is None:
        return False
    lb, ub, rows = main.operands[0], main.operands[1], rest.operands[1]
    index = ir.IndexType.get()
    with ir.InsertionPoint(main), main.location:
        # At least a tile of rows and a remainder of other than one tile of a
        # power of two (which runs as that one tile, as in a static program):
        # the full-tile loop covers them all, the remainder loop none.
        enough = arith.cmpi(arith.CmpIPredicate.sge, arith.subi(rows, lb), arith.constant(index, step))
        left = arith.subi(rows, ub)
        split = arith.andi(left, arith.subi(left, arith.constant(index, 1)))
        whole = arith.andi(enough, arith.cmpi(arith.CmpIPredicate.ne, split, arith.constant(index, 0)))
        bound = arith.select(whole, rows, ub)
    main.operands[1] = bound
    rest.operands[0] = bound
    iv = body.arguments[0]
    with ir.InsertionPoint.at_block_begin(body), main.location:
        last = ir.AffineMap.get(1, 1, [ir.AffineExpr.get_dim(0), ir.AffineExpr.get_symbol(0) - step])
        offset = affine.AffineMinOp(last, [iv, rows]).result
    iv.replace_all_uses_with(offset)
    offset.owner.operands[0] = iv
    for op in unfilled:
        with ir.InsertionPoint.after(op), op.location:
            filled = linalg.fill(value, outs=[op.results[0]])
        fill = filled.owner
        fill.attributes[PEELED_FILL_ATTR] = ir.UnitAttr.get()
        op.results[0].replace_all_uses_with(filled)
        fill.operands[1] = op.results[0]
    return True


def overlap_remainders(module: ir.Module) -> int:
    """Each loop marked OVERLAP_ATTR: with at least a tile of rows, its last
    tile ends at the last row (the remainder loop after it then runs no
    tile). Returns how many loops were rewritten."""
    count = 0
    for main in _marked(module, OVERLAP_ATTR):
        del main.attributes[OVERLAP_ATTR]
        count += _overlap(main)
    return count


def rewrite_remainders(module: ir.Module) -> None:
    """Both rewrites (after the tiling script, before the vectorizing one)."""
    with module.context, ir.Location.unknown():
        overlap_remainders(module)
        fill_in_full_tiles(module)
