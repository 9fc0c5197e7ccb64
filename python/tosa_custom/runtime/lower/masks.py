"""Masked vectors out of `vector.mask` regions, on tensors, before bufferization.

A loop of `?` iterations is tiled at full vectors and its remainder (fewer
lanes than a tile, how many known only at run time) is vectorized at the
tile's size with masks (transform_scripts.py): one masked step instead of a
scalar loop over up to a tile's worth of elements. The vectorizer wraps each
masked transfer and reduction in a `vector.mask` region. Those regions do not
survive the rest of the lowering: the ownership-based deallocation puts its
own constants inside them, which the region's verifier then refuses ("expects
only one operation to mask"), and a masked reduction would reach LLVM as
vector-predication intrinsics that x86 expands lane by lane. So right after
vectorization:

- a masked transfer becomes a transfer with a mask operand (upstream's
  `lower_masked_transfers` patterns), which bufferizes like any transfer and
  ends as a masked load or store;
- a masked multi-reduction becomes an unmasked one of its source with the
  masked-off lanes replaced by the reduction's neutral element (arith.select):
  the same value, and the tile's full-width reduction code;
- a masked write into the leading part of a small tensor the vector covers
  whole (a reduction's per-lane partial results, TilePlan.partial_reduction:
  `insert_slice(mask { transfer_write v, T[0:r] }, T[0:r])`) becomes a write
  of `select(mask, v, T)` into all of T, and a masked read of that part a read
  of T: whole-vector ops the bufferization's hoisting keeps in registers,
  where masked loads and stores of memory just written stall on store
  forwarding.
"""

from __future__ import annotations

import math

from torch_mlir import ir
from torch_mlir.dialects import arith, ub, vector

from ...core.ir import collect_ops
from ...core.passes import PassContext, register_pass
from .transform_scripts import apply_script, patterns_script

__all__ = ["LOWER_MASKS", "lower_masks"]

LOWER_MASKS = "tosa-custom-lower-masks"

_TRANSFER_PATTERNS = ("transform.apply_patterns.vector.lower_masked_transfers",)


def _neutral(kind: str, element: ir.Type) -> ir.Attribute | None:
    """The element that leaves a reduction of `kind` unchanged, or None."""
    if isinstance(element, ir.FloatType):
        value = {"add": 0.0, "mul": 1.0, "maximumf": -math.inf, "minimumf": math.inf,
                 "maxnumf": math.nan, "minnumf": math.nan}.get(kind)
        return None if value is None else ir.FloatAttr.get(element, value)
    if not isinstance(element, ir.IntegerType):
        return None
    width = element.width
    ones, smin, smax = -1, -(1 << (width - 1)), (1 << (width - 1)) - 1
    value = {"add": 0, "mul": 1, "or": 0, "xor": 0, "and": ones, "maxui": 0, "minui": ones,
             "maxsi": smin, "minsi": smax}.get(kind)
    return None if value is None else ir.IntegerAttr.get(element, value if width > 1 else value & 1)


def _kind(op) -> str:
    text = str(op.attributes["kind"])  # #vector.kind<maximumf>
    return text[text.index("<") + 1:text.rindex(">")]


def _unmask_reduction(mask_op) -> bool:
    """`vector.mask %m { vector.multi_reduction %src, %acc }` -> the
    reduction of `select(%m, %src, neutral)`; False if it is something else."""
    body = list(mask_op.regions[0].blocks[0].operations)
    if len(body) != 2 or body[0].name != "vector.multi_reduction" or len(mask_op.operands) != 1:
        return False
    reduction = body[0]
    source = reduction.operands[0]
    vtype = ir.VectorType(source.type)
    neutral = _neutral(_kind(reduction), vtype.element_type)
    if neutral is None:
        return False
    with ir.InsertionPoint(mask_op), mask_op.location:
        fill = arith.constant(vtype, ir.DenseElementsAttr.get_splat(vtype, neutral))
        selected = arith.select(mask_op.operands[0], source, fill)
        unmasked = reduction.clone(ip=ir.InsertionPoint(mask_op))
    unmasked.operands[0] = selected
    mask_op.results[0].replace_all_uses_with(unmasked.results[0])
    mask_op.erase()
    return True


def _leading_slice(op) -> bool:
    """A tensor.extract_slice / insert_slice at offset 0 with unit strides."""
    offsets = ir.DenseI64ArrayAttr(op.attributes["static_offsets"])
    strides = ir.DenseI64ArrayAttr(op.attributes["static_strides"])
    return all(o == 0 for o in offsets) and all(t == 1 for t in strides)


def _owner_name(v: ir.Value) -> str:
    return "" if isinstance(v.owner, ir.Block) else v.owner.name


def _whole_write(mask_op) -> bool:
    """`insert_slice(mask %m { transfer_write %v, %s }, %t)`, %s a leading
    slice of %t (static, the vector's shape), written at the same place ->
    `transfer_write select(%m, %v, read %t), %t`; masked reads of %s under
    %m (poison padding) -> that read of %t. False if it is something else."""
    body = list(mask_op.regions[0].blocks[0].operations)
    results = list(mask_op.results)
    if len(body) != 2 or body[0].name != "vector.transfer_write" or len(results) != 1:
        return False
    write = body[0]
    value, part = write.operands[0], write.operands[1]
    uses = list(results[0].uses)
    if _owner_name(part) != "tensor.extract_slice" or len(uses) != 1 or uses[0].owner.name != "tensor.insert_slice":
        return False
    extract, insert = part.owner, uses[0].owner
    whole = extract.operands[0]
    vtype = ir.VectorType(value.type)
    if (insert.operands[1] != whole or not _leading_slice(extract) or not _leading_slice(insert)
            or list(extract.operands[1:]) != list(insert.operands[2:])
            or str(extract.attributes["static_sizes"]) != str(insert.attributes["static_sizes"])
            or not isinstance(whole.type, ir.RankedTensorType) or list(whole.type.shape) != list(vtype.shape)
            or any(_owner_name(i) != "arith.constant" for i in write.operands[2:])):
        return False
    indices = list(write.operands[2:])
    identity = ir.AffineMap.get_minor_identity(vtype.rank, vtype.rank)
    with ir.InsertionPoint.after(extract), mask_op.location:  # before every read of the part
        poison = ub.PoisonOp(vtype.element_type).result
        full = vector.TransferReadOp(vtype, whole, indices, identity, poison, [True] * vtype.rank).result
    with ir.InsertionPoint(mask_op), mask_op.location:
        selected = arith.select(mask_op.operands[0], value, full)
        written = vector.TransferWriteOp(whole.type, selected, whole, indices, identity, [True] * vtype.rank).result
    for use in list(part.uses):
        read = use.owner
        outer = read.parent if read.name == "vector.transfer_read" else None
        if (outer is not None and outer.name == "vector.mask" and outer.operands[0] == mask_op.operands[0]
                and _owner_name(read.operands[-1]) == "ub.poison"):  # the padding: lanes nothing may rely on
            outer.results[0].replace_all_uses_with(full)
            outer.erase()
    insert.results[0].replace_all_uses_with(written)
    insert.erase()
    mask_op.erase()
    return True


@register_pass(LOWER_MASKS,
               "Take masked transfers and multi-reductions out of vector.mask regions (a transfer with a mask "
               "operand; a reduction of the source with masked-off lanes set to the neutral element; a write "
               "into the leading lanes of a tensor one vector covers, a select and a whole write), before "
               "bufferization")
def lower_masks(module, ctx: PassContext | None = None) -> int:
    """Returns how many reductions and writes were unmasked (a `vector.mask`
    that stays, of an op no rewrite takes, fails later with its own error)."""
    found = collect_ops(module, lambda op: op.name == "vector.mask")
    if not found:
        return 0
    unmasked = 0
    with module.context, ir.Location.unknown():
        for op in found:
            unmasked += _unmask_reduction(op) or _whole_write(op)
        apply_script(module, patterns_script(_TRANSFER_PATTERNS))
    return unmasked
