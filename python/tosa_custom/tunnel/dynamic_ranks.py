"""`tosa-custom-align-dynamic-ranks`: an elementwise operand of lower rank
with several `?` dims, given the result's rank before TorchToTosa (issue 41,
item 1).

TorchToTosa aligns the ranks of an elementwise op's operands with a
`tosa.reshape` whose sizes are the operand's, `?` written -1: with two `?`
dims that reshape is invalid ("expected at most one target dimension to be
-1"). It is what a causal mask does: sdpa's [T, S] additive mask added to the
[B, H, T, S] scores. The operand becomes a `tosa.reshape` to the full rank
with leading 1s, its `?` sizes computed by TOSA shape ops (1.1 draft) from
the dims PyTorch bound; TorchToTosa then sees operands of equal rank. An
operand with at most one `?` dim is left to TorchToTosa, whose -1 is valid.
"""

from __future__ import annotations

from torch_mlir import ir

from ..core import builders as _b
from ..core import ir as _ir
from ..core.passes import PassContext, register_pass
from .sizes import _ELEMENTWISE, Shapes, SizeExprs, _builtin_type, _dims, _to_builtin

__all__ = ["ALIGN_DYNAMIC_RANKS", "align_dynamic_ranks"]

ALIGN_DYNAMIC_RANKS = "tosa-custom-align-dynamic-ranks"


def _aligned(value: ir.Value, rank: int, shapes: Shapes) -> "ir.Value | None":
    """`value` reshaped to `rank` dims (leading 1s) as a vtensor, or None
    when a `?` size cannot be computed."""
    dims = _dims(value.type)
    sizes = [1] * (rank - len(dims)) + [d if d is not None else shapes.sizes.dim(value, i)
                                        for i, d in enumerate(dims)]
    if not all(shapes.can(s) for s in sizes):
        return None
    vtype = str(value.type)
    shape = ",".join(["1"] * (rank - len(dims)) + ["?" if d is None else str(d) for d in dims])
    torch_type = ir.Type.parse(vtype[:vtype.index("[") + 1] + shape + vtype[vtype.index("]"):])
    builtin = _builtin_type(torch_type)
    reshaped = _b.create("tosa.reshape", builtin, [_to_builtin(value), shapes.build_all(sizes)])
    return _b.create("torch_c.from_builtin_tensor", torch_type, [reshaped])


@register_pass(ALIGN_DYNAMIC_RANKS,
               "Give an elementwise op's operand of lower rank with several `?` dims the result's rank (leading "
               "1s) by a tosa.reshape whose sizes are TOSA shape ops, before TorchToTosa, whose own rank "
               "alignment writes each `?` as -1 and so fails with two (a causal mask added to attention scores)")
def align_dynamic_ranks(module: ir.Operation, ctx: PassContext) -> dict:
    shapes = Shapes(module, SizeExprs(module))
    done = 0
    for op in _ir.collect_ops(module, lambda o: o.name in _ELEMENTWISE):
        out = _dims(op.results[0].type)
        if out is None:
            continue
        for k, operand in enumerate(op.operands):
            dims = _dims(operand.type)
            if dims is None or len(dims) >= len(out) or dims.count(None) < 2:
                continue
            with ir.InsertionPoint(op), op.location:
                aligned = _aligned(operand, len(out), shapes)
            if aligned is not None:
                op.operands[k] = aligned
                done += 1
    return {"operands": done}
