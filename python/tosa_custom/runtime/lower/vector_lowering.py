"""Vector ops to what convert-vector-to-llvm handles well, in three passes.

`tosa-custom-prepare-vectors` brings the vectorizer's ops to the forms the
lowering patterns take (transform_scripts.VECTOR_PREPARATION_SCRIPT);
`tosa-custom-lower-vectors` lowers them (VECTOR_LOWERING_SCRIPT). Between
the two, `tosa-custom-fold-broadcast-chains` gives a broadcast its plain
form where the preparation left it in pieces.

A contraction's tile reads one A element per row and uses it across the
NR lanes of a B row. The vectorizer reads it as a transfer broadcasting
along a dim in the middle (`vector<1x1x8x32x1xf32>` from a `1x8x1` tile), and
the preparation splits that into read, broadcast, transpose, shape casts
and unit extracts. The transpose of a broadcast is no broadcast to the
lowering patterns: they move it element by element (an extract and an
insert per lane), so each FMA's operand is built of 32 inserts that LLVM
folds back into one splat: 3.9k of a 2-layer BERT's 10k LLVM-dialect ops,
the time of every pass after and of LLVM itself. Such a chain, whatever its
order, takes each result element from one source element; when that map
is a broadcast of the source (shape-cast to the result's rank, with unit
dims where the result repeats it), the chain becomes that broadcast, which
is lowered to a splat per row. The map is computed on the indices (numpy),
so a chain that is not a broadcast (a real transpose) is left as it is.
"""

from __future__ import annotations

import math

import numpy as np
from torch_mlir import ir

from ...core.ir import collect_ops
from ...core.passes import PassContext, register_pass
from .transform_scripts import VECTOR_LOWERING_SCRIPT, VECTOR_PREPARATION_SCRIPT, apply_script

__all__ = ["PREPARE_VECTORS", "FOLD_BROADCAST_CHAINS", "LOWER_VECTORS", "prepare_vectors", "fold_broadcast_chains",
           "lower_vectors"]

PREPARE_VECTORS = "tosa-custom-prepare-vectors"
FOLD_BROADCAST_CHAINS = "tosa-custom-fold-broadcast-chains"
LOWER_VECTORS = "tosa-custom-lower-vectors"

_CHAIN = ("vector.broadcast", "vector.transpose", "vector.shape_cast", "vector.extract")
_MOVES = ("vector.broadcast", "vector.transpose")


@register_pass(PREPARE_VECTORS,
               "Bring vector ops to the forms tosa-custom-lower-vectors lowers: reductions of products as "
               "contractions, permuted or broadcast transfers as plain ones, leading unit dims cast away")
def prepare_vectors(module, ctx: PassContext | None = None) -> None:
    apply_script(module, VECTOR_PREPARATION_SCRIPT)


@register_pass(LOWER_VECTORS,
               "Lower vector ops to what convert-vector-to-llvm handles well: contractions to FMAs on 1-D vectors, "
               "multi-reductions to horizontal reductions, n-D transfers to 1-D loads and stores")
def lower_vectors(module, ctx: PassContext | None = None) -> None:
    apply_script(module, VECTOR_LOWERING_SCRIPT)


def _shape(value: ir.Value) -> tuple[int, ...] | None:
    """A vector's shape (() for a 0-D vector); None for a scalar. Read from
    the type's text: no VectorType is made for a scalar."""
    return tuple(ir.VectorType(value.type).shape) if str(value.type).startswith("vector<") else None


def _in_chain(op: ir.Operation) -> bool:
    """A broadcast, a transpose, a shape cast, or an extract of static
    position from leading unit dims (a shape cast too)."""
    if op.name not in _CHAIN:
        return False
    if op.name != "vector.extract":
        return True
    source, result = _shape(op.operands[0]), _shape(op.results[0])
    if len(op.operands) != 1 or source is None or result is None or len(result) >= len(source):
        return False
    return all(d == 1 for d in source[:len(source) - len(result)])


def _chain(op: ir.Operation) -> tuple[list[ir.Operation], ir.Value]:
    """The chain ending at `op` (last op first) and the value it starts from."""
    chain, current = [], op
    while True:
        chain.append(current)
        source = current.operands[0]
        owner = source.owner
        if not isinstance(owner, ir.Operation) and not hasattr(owner, "operation"):
            return chain, source  # a block argument
        owner = owner.operation
        if not _in_chain(owner):
            return chain, source
        current = owner


def _element_map(chain: list[ir.Operation], source: tuple[int, ...]) -> np.ndarray:
    """For each element of the chain's result, the index of the source element it holds."""
    index = np.arange(math.prod(source)).reshape(source)
    for op in reversed(chain):
        if op.name == "vector.broadcast":
            index = np.broadcast_to(index, _shape(op.results[0]))
        elif op.name == "vector.transpose":
            index = index.transpose(list(ir.DenseI64ArrayAttr(op.attributes["permutation"])))
        else:
            index = index.reshape(_shape(op.results[0]))
    return index


def _broadcast_shape(index: np.ndarray, count: int) -> tuple[int, ...] | None:
    """The shape S (each dim the result's or 1) such that broadcasting the
    source (`count` elements), shape-cast to S, gives `index`; None if there
    is none."""
    result, flat = index.shape, np.arange(count)
    for keep in range(1 << len(result)):
        shape = tuple(d if keep >> i & 1 else 1 for i, d in enumerate(result))
        if math.prod(shape) == count and np.array_equal(np.broadcast_to(flat.reshape(shape), result), index):
            return shape
    return None


def _fold(op: ir.Operation) -> bool:
    """Replace the chain ending at `op` by a broadcast if it is one."""
    chain, source = _chain(op)
    if len(chain) < 2 or not any(c.name in _MOVES for c in chain):
        return False
    source_shape = _shape(source)
    index = _element_map(chain, source_shape or ())
    shape = _broadcast_shape(index, math.prod(source_shape or ()))
    if shape is None:
        return False
    result_type = op.results[0].type
    with ir.InsertionPoint(op), op.location:
        value = source
        if source_shape is not None and source_shape != shape:
            cast = ir.VectorType.get(list(shape), ir.VectorType(source.type).element_type)
            value = ir.Operation.create("vector.shape_cast", [cast], [source]).result
        if shape != index.shape or source_shape is None:
            value = ir.Operation.create("vector.broadcast", [result_type], [value]).result
    op.results[0].replace_all_uses_with(value)
    op.erase()
    return True


@register_pass(FOLD_BROADCAST_CHAINS,
               "Replace each chain of vector broadcasts, transposes, shape casts and unit extracts that "
               "broadcasts its source by one broadcast (the lowering moves a transposed broadcast lane by lane)")
def fold_broadcast_chains(module, ctx: PassContext | None = None) -> int:
    """Returns how many chains were folded. Ops are visited last first, so a
    chain is folded whole from its end; the ops it no longer uses are erased
    when visited (all are pure)."""
    top = getattr(module, "operation", module)
    found = collect_ops(top, lambda op: op.name in _CHAIN)
    folded = 0
    with top.context:
        for op in reversed(found):
            if not any(True for _ in op.results[0].uses):
                op.erase()
            elif _in_chain(op) and _fold(op):
                folded += 1
    return folded
