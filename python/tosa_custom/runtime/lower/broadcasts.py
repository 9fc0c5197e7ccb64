"""Dynamic broadcasts that cannot happen, removed.

`tosa-to-linalg` cannot know whether two `?` dims of an elementwise op's
operands are equal, so for each it emits `scf.if (dim == 1)` around a copy
that broadcasts the operand to the larger of the two sizes: a copy per
operand per op in a program of `?` dims, and a wall elementwise fusion does
not cross. Two facts remove most of them:

- `tosa-custom-unify-boundary-dims`: inputs whose dims are the same symbol
  at the boundary (`tosa_custom.shape`, CONTRACT.md §15.1) are equal on every
  call (the runtime checks it before running), so each `tensor.dim` of such a
  dim becomes the dim of the input that binds the symbol; `max(d, d)` then
  folds to `d`.
- `tosa-custom-drop-identity-broadcasts`: a broadcast of dim i of `x`,
  taken when `dim(x, i) == 1`, to a size that is that same `dim(x, i)`, is
  `x` (1 broadcast to 1), so the `scf.if` yielding it or `x` is `x`. The two
  sizes are compared as exact_sizes.same_size does, following each
  `tensor.dim` to the size it reads: in program order, so a chain of such
  broadcasts (each reading the dims of the last) goes in one run.
"""

from __future__ import annotations

from torch_mlir import ir

from ...core.attrs import SHAPE
from ...core.ir import collect_ops
from ...core.passes import PassContext, register_pass
from .exact_sizes import same_size

__all__ = ["UNIFY_BOUNDARY_DIMS", "DROP_IDENTITY_BROADCASTS", "unify_boundary_dims", "drop_identity_broadcasts"]

UNIFY_BOUNDARY_DIMS = "tosa-custom-unify-boundary-dims"
DROP_IDENTITY_BROADCASTS = "tosa-custom-drop-identity-broadcasts"


def _binders(func) -> dict[tuple[int, int], tuple[int, int]]:
    """(argument, dim) -> the (argument, dim) that binds the same bare symbol, first in order."""
    if "arg_attrs" not in func.attributes:
        return {}
    first: dict[str, tuple[int, int]] = {}
    same = {}
    for i, attrs in enumerate(ir.ArrayAttr(func.attributes["arg_attrs"])):
        attrs = ir.DictAttr(attrs)
        if SHAPE not in attrs:
            continue
        for d, attr in enumerate(ir.ArrayAttr(attrs[SHAPE])):
            if isinstance(attr, ir.StringAttr) and attr.value.isidentifier():
                binder = first.setdefault(attr.value, (i, d))
                if binder != (i, d):
                    same[(i, d)] = binder
    return same


def _constant_index(v: ir.Value) -> int | None:
    owner = v.owner
    if isinstance(owner, ir.Block) or owner.name != "arith.constant":
        return None
    return ir.IntegerAttr(owner.attributes["value"]).value


@register_pass(UNIFY_BOUNDARY_DIMS,
               "Read every dim of an entry argument that is the same boundary symbol (tosa_custom.shape) as an "
               "earlier argument's dim from that argument, so equal sizes are one value")
def unify_boundary_dims(module, ctx: PassContext | None = None) -> int:
    """Returns how many tensor.dim ops now read the binding argument."""
    changed = 0
    for func in collect_ops(module, lambda op: op.name == "func.func", enter_matches=False):
        same = _binders(func)
        if not same or not func.regions[0].blocks:
            continue
        args = list(func.regions[0].blocks[0].arguments)
        for op in collect_ops(func, lambda op: op.name == "tensor.dim"):
            source, index = op.operands
            if not isinstance(source.owner, ir.Block) or source.owner != func.regions[0].blocks[0]:
                continue
            binder = same.get((ir.BlockArgument(source).arg_number, _constant_index(index)))
            if binder is None:
                continue
            with ir.InsertionPoint(op), op.location:
                dim = ir.Operation.create("arith.constant", results=[ir.IndexType.get()],
                                          attributes={"value": ir.IntegerAttr.get(ir.IndexType.get(), binder[1])})
                op.operands[0] = args[binder[0]]
                op.operands[1] = dim.result
            changed += 1
    return changed


def _is_identity_broadcast(if_op, copy, x: ir.Value) -> bool:
    """`copy`, yielded when `dim(x, i) == 1`, broadcasts dim i of `x` to a
    size that is that same dim: it is `x`. (Its other dims are `x`'s own: a
    linalg op reads them with the identity map.)"""
    if copy.name != "linalg.generic" or len(copy.operands) != 2 or copy.operands[0] != x:
        return False
    block = copy.regions[0].blocks[0]
    body = list(block.operations)
    if len(body) != 1 or list(body[0].operands) != [block.arguments[0]] or copy.operands[1].type != x.type:
        return False
    cond = if_op.operands[0].owner
    if isinstance(cond, ir.Block) or cond.name != "arith.cmpi" or _constant_index(cond.operands[1]) != 1:
        return False
    in_map = ir.AffineMapAttr(ir.ArrayAttr(copy.attributes["indexing_maps"])[0]).value
    broadcast = [i for i, e in enumerate(in_map.results) if isinstance(e, ir.AffineConstantExpr)]
    empty = copy.operands[1].owner
    t = ir.RankedTensorType(x.type)
    if len(broadcast) != 1 or isinstance(empty, ir.Block) or empty.name != "tensor.empty" \
            or not t.is_dynamic_dim(broadcast[0]):
        return False
    sizes = dict(zip([i for i in range(t.rank) if t.is_dynamic_dim(i)], empty.operands))
    # The condition reads x's own dim, and the copy's size is that dim.
    return same_size(cond.operands[0], (x, broadcast[0]), sizes[broadcast[0]])


@register_pass(DROP_IDENTITY_BROADCASTS,
               "Replace an scf.if that yields a value or its broadcast to its own sizes (tosa-to-linalg's dynamic "
               "broadcast of a size-1 dim) by the value")
def drop_identity_broadcasts(module, ctx: PassContext | None = None) -> int:
    """Returns how many results were replaced (canonicalization then erases
    the scf.if nothing reads)."""
    dropped = 0
    for op in collect_ops(module, lambda op: op.name == "scf.if" and len(op.results) > 0):
        if len(op.regions[1].blocks) != 1:
            continue
        then_yield = list(op.regions[0].blocks[0].operations)[-1]
        else_yield = list(op.regions[1].blocks[0].operations)[-1]
        for result, copied, x in zip(op.results, then_yield.operands, else_yield.operands):
            copy = copied.owner
            if not isinstance(copy, ir.Block) and _is_identity_broadcast(op, copy, x):
                result.replace_all_uses_with(x)
                dropped += 1
    return dropped
