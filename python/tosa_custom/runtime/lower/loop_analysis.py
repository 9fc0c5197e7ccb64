"""What the tile planner and the passes beside it read of a linalg op: its
loops, their ranges, each operand's accesses (plain, sliding windows, i1),
and whether its body is a contraction. One home, so that tiling.py,
prologues.py and the column passes agree on what a loop is.
"""

from __future__ import annotations

import dataclasses

from torch_mlir import ir

__all__ = ["DYNAMIC_RANGE", "BODY_OK", "LoopInfo", "analyze", "dim", "linear_terms", "producer_name",
           "is_pure_contraction", "packed_in_vectors"]

# The range the planner gives a loop of `?` iterations: more than any tile,
# divided by none (so it is tiled at the cap and its remainder peeled).
DYNAMIC_RANGE = (1 << 40) + 1
BODY_OK = ("arith.", "math.", "linalg.yield")
"""The ops a planned body may hold (others, such as linalg.index and
tensor.extract, leave the op to loops)."""


def dim(expr) -> int | None:
    return expr.position if isinstance(expr, ir.AffineDimExpr) else None


def linear_terms(expr) -> dict[int, int] | None:
    """{dim: coefficient} of a sum of dims times constants (plus a constant), else None."""
    if isinstance(expr, ir.AffineDimExpr):
        return {expr.position: 1}
    if isinstance(expr, ir.AffineConstantExpr):
        return {}
    if isinstance(expr, ir.AffineMulExpr):
        for a, b in ((expr.lhs, expr.rhs), (expr.rhs, expr.lhs)):
            if isinstance(b, ir.AffineConstantExpr):
                terms = linear_terms(a)
                return None if terms is None else {d: c * b.value for d, c in terms.items()}
        return None
    if isinstance(expr, ir.AffineAddExpr):
        lhs, rhs = linear_terms(expr.lhs), linear_terms(expr.rhs)
        if lhs is None or rhs is None:
            return None
        for d, c in rhs.items():
            lhs[d] = lhs.get(d, 0) + c
        return lhs
    return None


def producer_name(v: ir.Value) -> str:
    owner = v.owner
    return "" if isinstance(owner, ir.Block) else owner.operation.name


def is_pure_contraction(body: ir.Block, n_inputs: int) -> bool:
    """mul of the two inputs, added to the output: `create_named_contraction` takes it."""
    ops = list(body.operations)
    if n_inputs != 2 or len(ops) != 3:
        return False
    mul, add, yield_ = ops
    if (mul.name, add.name) not in (("arith.mulf", "arith.addf"), ("arith.muli", "arith.addi")):
        return False
    args = list(body.arguments)
    if set(mul.operands) != {args[0], args[1]} or mul.operands[0] == mul.operands[1]:
        return False
    return set(add.operands) == {mul.result, args[2]} and yield_.operands[0] == add.result


@dataclasses.dataclass
class LoopInfo:
    maps: list
    operands: list
    reduction: list[bool]
    ranges: list[int]
    shaped: list  # ShapedType or None, per operand
    windows: list[dict[int, int]]  # the compound (sliding-window) input indices
    bool_dims: set[int]  # loops a bool (i1) operand is indexed by
    body_ops: list[str]
    dynamic: frozenset[int] = frozenset()  # `?` loops (their range is DYNAMIC_RANGE)

    @property
    def n_loops(self) -> int:
        return len(self.ranges)

    def is_contraction(self) -> bool:
        names = self.body_ops
        return (any(self.reduction) and len(self.operands) >= 3
                and any(n in ("arith.mulf", "arith.muli") for n in names)
                and any(n in ("arith.addf", "arith.addi") for n in names))

    def contiguous_loops(self) -> list[tuple[int, int]]:
        """Per shaped operand indexed by a loop in its last place, looking
        past unit dims (contiguous all the same): its elements (a `?` dim
        counted as DYNAMIC_RANGE) and that loop."""
        found = []
        for m, t in zip(self.maps, self.shaped):
            if t is None or not m.results:
                continue
            inner = list(m.results)
            while len(inner) > 1 and dim(inner[-1]) is not None and self.ranges[dim(inner[-1])] == 1:
                inner.pop()
            d = dim(inner[-1])
            if d is None:
                continue
            size = 1
            for j, s in enumerate(t.shape):
                size *= DYNAMIC_RANGE if t.is_dynamic_dim(j) else s
            found.append((size, d))
        return found

    def columns_and_rows(self) -> tuple[int, int | None]:
        """The output loops a contraction's register tile spans: columns (vector lanes), rows."""
        out_dims = [d for d in (dim(e) for e in self.maps[-1].results) if d is not None]
        wide = [d for d in out_dims if self.ranges[d] > 1]
        n_dim = (wide or out_dims)[-1]
        inputs = self.maps[:-1]
        with_n = [m for m in inputs if n_dim in {dim(e) for e in m.results}]
        b_dims = set()
        if len(with_n) < len(inputs):  # some input (A) lacks the columns: rows are A's own loops
            for m in with_n:
                b_dims.update(dim(e) for e in m.results)
        rows = [d for d in out_dims if d != n_dim and d not in b_dims]
        rows = [d for d in rows if self.ranges[d] > 1] or rows
        return n_dim, (rows[-1] if rows else None)


def packed_in_vectors(element: ir.Type) -> bool:
    """An integer type whose LLVM vectors are laid out unlike its memrefs:
    a width that is not a power-of-two number of bytes (i1, i48)."""
    if not isinstance(element, ir.IntegerType):
        return False
    width = element.width
    return width < 8 or width & (width - 1) != 0


def analyze(op, dynamic: bool = False) -> LoopInfo | None:
    """Loops, ranges and accesses of a linalg op with static shapes (or, if
    `dynamic`, `?` dims too: their loops' range is DYNAMIC_RANGE), or None."""
    attrs = op.attributes
    if "indexing_maps" not in attrs or len(op.regions) != 1:
        return None
    maps = [ir.AffineMapAttr(a).value for a in attrs["indexing_maps"]]
    operands = list(op.operands)
    if len(maps) != len(operands) or not maps or maps[0].n_dims == 0:
        return None
    n_loops = maps[0].n_dims
    out_dims = [dim(e) for e in maps[-1].results]
    if "iterator_types" in attrs:
        reduction = ["reduction" in str(a) for a in attrs["iterator_types"]]
    else:  # named contractions (matmul, batch_matmul): loops not in the output reduce
        reduction = [d not in out_dims for d in range(n_loops)]
    if len(reduction) != n_loops or any(d is None for d in out_dims if False):
        return None
    ranges: list[int | None] = [None] * n_loops
    bool_dims: set[int] = set()
    windows: list[dict[int, int]] = []
    shaped = []
    dynamic_loops: set[int] = set()
    for i, (m, v) in enumerate(zip(maps, operands)):
        t = v.type
        if not isinstance(t, ir.ShapedType):
            shaped.append(None)
            continue
        if not t.has_static_shape and not dynamic:
            return None
        shaped.append(t)
        for j, e in enumerate(m.results):
            d = dim(e)
            if d is not None:
                if ranges[d] is None and not t.is_dynamic_dim(j):
                    ranges[d] = t.shape[j]
                elif t.is_dynamic_dim(j):
                    dynamic_loops.add(d)
                continue
            if t.is_dynamic_dim(j):
                return None
            terms = linear_terms(e)
            if terms is None or i == len(operands) - 1:
                return None  # floordiv/mod (im2col-like) or a windowed output: left to loops
            if len([d for d, c in terms.items() if c]) > 1:
                windows.append(terms)
        if packed_in_vectors(t.element_type):
            # LLVM packs a vector of i1 into bits in memory; a memref of i1
            # holds one byte per element (an i48 accumulator: 6 bytes in a
            # vector, 8 in a memref). Such results stay scalar loops, and
            # such operands are only ever read one element at a time.
            if i == len(operands) - 1:
                return None
            bool_dims.update(d for d in (dim(e) for e in m.results) if d is not None)
            for e in m.results:
                terms = linear_terms(e) or {}
                bool_dims.update(terms)
    dynamic_loops = {d for d in dynamic_loops if ranges[d] is None}  # a static size elsewhere wins
    ranges = [DYNAMIC_RANGE if d in dynamic_loops else r for d, r in enumerate(ranges)]
    if any(r is None for r in ranges) or 0 in ranges or (dynamic_loops and windows):
        return None  # a zero-size loop: nothing to vectorize (vector types have no zero dimension)
    body_ops = [o.name for o in op.regions[0].blocks[0].operations]
    if not all(n.startswith(BODY_OK) for n in body_ops):
        return None  # linalg.index, tensor.extract (gathers), ...: left to loops
    return LoopInfo(maps, operands, reduction, ranges, shaped, windows, bool_dims, body_ops,
                     frozenset(dynamic_loops))
