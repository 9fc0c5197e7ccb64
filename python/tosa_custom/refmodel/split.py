"""The entry function cut at its kept ops: TOSA runs of it for the reference
model, each tosa.custom on its own for our kernels.

The reference model runs a CUSTOM op only through a C++ plugin that cannot
be built from the tosa-tools wheel, so a tunneled program reaches it in
pieces. The entry is a DAG (one block); each op is scheduled as soon as its
operands exist: a TOSA op in segment s, the highest segment among its
operands' producers (a kept op's results reach segment k + 1 when it ran
after segment k), a kept op after the segment its operands came from at the
latest. Segments are then as few as the longest chain of kept ops allows,
and each holds every TOSA op that can run at that point (maximal, not the
runs between customs in text order, which would cut independent ops apart).

Invariant values (constants, weight arguments, and what is computed from
them alone: a weight's reshapes and transposes, shape operands) are
computed in each piece that reads them rather than scheduled: a transposed
weight never crosses a piece's boundary (a weight argument does, as it
is), and a kept op sees its constant operands as constants, as the
runtime decodes them. A returned invariant is computed by the last
segment; one without elements (a `tensor.empty`: TOSA ops refuse
zero-size tensors) is made by the program.

Each piece becomes a module of its own (a function `main`, its live-in
values as arguments, live-out values as results), in the entry's context.
Values are numbered: the entry's arguments first, then each op's results
in block order; a piece reads and writes values by number.
"""

from __future__ import annotations

import dataclasses

from torch_mlir import ir
from torch_mlir.dialects import func as func_d

from ..core.diagnostics import CompileError

__all__ = ["Graph", "Piece", "Plan", "plan", "build", "KEPT_OP"]

KEPT_OP = "tosa.custom"


@dataclasses.dataclass
class Piece:
    """A segment (TOSA for the reference model) or one kept op."""

    kind: str  # "segment" or "kept"
    ops: list[int]  # the entry's ops it runs, by index in the block (kept: its tosa.custom)
    inputs: list[int] = dataclasses.field(default_factory=list)  # the values it reads, by number
    outputs: list[int] = dataclasses.field(default_factory=list)  # the values it writes, by number
    constants: list[int] = dataclasses.field(default_factory=list)  # invariant ops cloned in, by index


class Graph:
    """The entry's values by number, and which are invariant: the same at
    every call with the same weights (constants, weight arguments, and
    what is computed from them alone)."""

    def __init__(self, func: ir.Operation, weights: int = 0):
        block = func.regions[0].blocks[0]
        self.numbers: dict[ir.Value, int] = {}
        self.types: list[ir.Type] = []
        for a in block.arguments:
            self._number(a)
        self.arguments = len(self.types)
        self.invariant: set[int] = set(range(self.arguments - weights, self.arguments))
        self.ops = [op.operation for op in block.operations]
        returned = self.ops.pop()  # func.return
        self.producer: dict[int, int] = {}  # value -> index of the op defining it
        for i, op in enumerate(self.ops):
            numbers = [self._number(r) for r in op.results]
            self.producer.update((n, i) for n in numbers)
            if self.is_invariant(i):
                self.invariant.update(numbers)
        self.results = [self.numbers[v] for v in returned.operands]

    def _number(self, value: ir.Value) -> int:
        self.numbers[value] = len(self.types)
        self.types.append(value.type)
        return self.numbers[value]

    def is_invariant(self, i: int) -> bool:
        op = self.ops[i]
        return op.name != KEPT_OP and all(n in self.invariant for n in self.operands(i))

    def operands(self, i: int) -> list[int]:
        return [self.numbers[v] for v in self.ops[i].operands]

    def defined(self, i: int) -> list[int]:
        return [self.numbers[r] for r in self.ops[i].results]

    def computing(self, values) -> tuple[list[int], list[int]]:
        """The invariant ops computing `values` (and those they read), by
        index, and the weight arguments they read (or that are among `values`)."""
        ops, weights, stack = set(), set(), [v for v in values if v in self.invariant]
        while stack:
            n = stack.pop()
            if n not in self.producer:
                weights.add(n)
            elif self.producer[n] not in ops:
                ops.add(self.producer[n])
                stack.extend(self.operands(self.producer[n]))
        return sorted(ops), sorted(weights)

    def empty(self, n: int) -> bool:
        """An invariant value without elements (`tensor.empty`): TOSA ops
        refuse it, the program makes it."""
        t = self.types[n]
        return n in self.producer and n in self.invariant and isinstance(t, ir.RankedTensorType) and 0 in t.shape


@dataclasses.dataclass
class Plan:
    graph: Graph
    pieces: list[Piece]  # in the order they run


def _schedule(graph: Graph) -> tuple[dict[int, int], dict[int, int]]:
    """Each TOSA op's segment and each kept op's stage (it runs after that
    segment), by op index: as soon as their operands exist."""
    ready: dict[int, int] = {}  # value -> the first segment that can read it
    segment, stage = {}, {}
    for i, op in enumerate(graph.ops):
        if graph.is_invariant(i):
            continue
        at = max((ready.get(n, 0) for n in graph.operands(i) if n not in graph.invariant), default=0)
        if op.name == KEPT_OP:
            stage[i] = at
            ready.update((n, at + 1) for n in graph.defined(i))
        else:
            segment[i] = at
            ready.update((n, at) for n in graph.defined(i))
    return segment, stage


def _check_nesting(graph: Graph) -> None:
    for op in graph.ops:
        for region in op.regions:
            for block in region.blocks:
                for inner in block.operations:
                    if inner.operation.name == KEPT_OP:
                        raise CompileError(f"{inner.location}: a tosa.custom inside {op.name} cannot run between "
                                           "reference model segments: kept ops must sit in the entry's body",
                                           category="runtime-lowering-failed", ops=[KEPT_OP])


def plan(func: ir.Operation, weights: int = 0) -> Plan:
    """The pieces of `func` (whose last `weights` arguments are weights), in
    the order they run; a segment nothing reads is left out (with its dead ops)."""
    graph = Graph(func, weights)
    _check_nesting(graph)
    segment, stage = _schedule(graph)
    last = max([*segment.values(), *(s + 1 for s in stage.values())], default=0)
    pieces = []
    for s in range(last + 1):
        pieces.append(Piece("segment", sorted(i for i in segment if segment[i] == s)))
        pieces += [Piece("kept", [i]) for i in sorted(stage) if stage[i] == s]
    # Returned invariants are computed by the last segment (no kept op runs
    # after it: one at stage s feeds segment s + 1 at most), fresh each call.
    returned = [n for n in dict.fromkeys(graph.results)
                if n in graph.invariant and n in graph.producer and not graph.empty(n)]
    _wire(graph, pieces, returned)
    return Plan(graph, [p for p in pieces if p.kind == "kept" or p.outputs])


def _wire(graph: Graph, pieces: list[Piece], returned: list[int]) -> None:
    """Each piece's inputs (what it reads from outside itself), the
    invariant ops it clones, and its outputs (what it defines that another
    piece or the entry's return reads; the last segment: `returned` too)."""
    owner: dict[int, int] = {}  # value -> the piece defining it
    for p, piece in enumerate(pieces):
        for i in piece.ops:
            owner.update((n, p) for n in graph.defined(i))
    read_elsewhere: set[int] = set(graph.results)
    for p, piece in enumerate(pieces):
        reads = [n for i in piece.ops for n in graph.operands(i)]
        piece.constants, weights = graph.computing(reads + (returned if p == len(pieces) - 1 else []))
        outside = [n for n in reads if n not in graph.invariant and owner.get(n) != p]
        piece.inputs = list(dict.fromkeys(outside + weights))
        read_elsewhere.update(piece.inputs)
    for piece in pieces:
        piece.outputs = [n for i in piece.ops for n in graph.defined(i) if n in read_elsewhere]
    pieces[-1].outputs += returned


def build(piece: Piece, graph: Graph, context: ir.Context) -> ir.Module:
    """A module of one function `main` that runs `piece`: its inputs as
    arguments, its outputs as results, its constants cloned in."""
    with context, ir.Location.unknown():
        module = ir.Module.create()
        with ir.InsertionPoint(module.body):
            func = func_d.FuncOp("main", ([graph.types[n] for n in piece.inputs],
                                          [graph.types[n] for n in piece.outputs]))
            block = func.add_entry_block()
        values = dict(zip(piece.inputs, block.arguments))
        with ir.InsertionPoint(block):
            for i in sorted(set(piece.constants) | set(piece.ops)):
                clone = graph.ops[i].clone()
                for k, n in enumerate(graph.operands(i)):
                    clone.operands[k] = values[n]
                values.update(zip(graph.defined(i), clone.results))
            func_d.ReturnOp([values[n] for n in piece.outputs])
    return module
