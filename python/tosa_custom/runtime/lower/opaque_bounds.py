"""Loop bounds of run-time value hidden from the subset analyses.

One-shot bufferization and loop-invariant subset hoisting ask, for every
`tensor.insert_slice` and the `tensor.extract_slice` of its destination,
whether the two are the same slice (ValueBoundsConstraintSet::areEqual). Each
question builds a constraint set from the whole backward slice of the first
offset before it even looks at the second: a tile's offset is a loop's
induction variable, so the set holds the loop's bounds and whatever computes
them. On `?` dims those are the remainder loops' split points (remainders.py:
`arith.select`s of floor divisions of a `tensor.dim`, which ValueBounds
splits into cases) and the dims' own chains, for every slice of every nest.
Dynamic GPT-2's bufferization took 0.66 s against 0.01 s static.

The tiles' offsets and sizes are the same SSA values on both sides of each
question, so the answers never needed the bounds. Each loop bound that is
not a constant goes through an `arith.index_cast` to i64 and back, which
ValueBounds does not model: the induction variable is bounded by an opaque
value and the walk stops there. The canonicalizer folds each pair back (the
pipeline runs it right after both analyses). Dynamic GPT-2: bufferization
0.66 -> 0.11 s, hoisting 0.15 -> under 0.05 s; the bufferized IR is the same.
"""

from __future__ import annotations

from torch_mlir import ir

from ...core.ir import collect_ops
from ...core.passes import PassContext, register_pass

__all__ = ["HIDE_LOOP_BOUNDS", "hide_loop_bounds"]

HIDE_LOOP_BOUNDS = "tosa-custom-hide-loop-bounds"


@register_pass(HIDE_LOOP_BOUNDS,
               "Pass each scf.for bound that is not a constant through an index_cast pair ValueBounds does not see "
               "through, so that slice comparisons stop at the loop (canonicalize folds the pairs back)")
def hide_loop_bounds(module, ctx: PassContext | None = None) -> int:
    """Returns how many bounds were hidden."""
    hidden = 0
    with module.context:
        i64, index = ir.IntegerType.get_signless(64), ir.IndexType.get()
        for loop in collect_ops(module, lambda op: op.name == "scf.for"):
            for position in (0, 1):  # lower and upper bound; steps are constants here
                bound = loop.operands[position]
                owner = bound.owner
                if bound.type != index or (not isinstance(owner, ir.Block) and
                                           owner.name in ("arith.constant", "arith.index_cast")):
                    continue  # an integer loop, a constant, or hidden already
                with ir.InsertionPoint(loop), loop.location:
                    wide = ir.Operation.create("arith.index_cast", results=[i64], operands=[bound]).result
                    back = ir.Operation.create("arith.index_cast", results=[index], operands=[wide]).result
                loop.operands[position] = back
                hidden += 1
    return hidden
