"""A large function's body as calls of functions of bounded size, so that
LLVM's time grows with the program, not with the square of it (issue 42).

LLVM's optimizer and code generator are superlinear in the size of one
function (register allocation, scheduling, alias queries over one CFG): a
whole network lowered into its entry function, 290k LLVM ops for
densenet121, took minutes in the ExecutionEngine, where the same code as
functions of a few thousand ops each takes seconds. Before the lowering to
LLVM (loops, vectors and memrefs), the entry block of each function larger
than the bound is cut into runs of consecutive ops of about the bound's
size; each run becomes a private function called in its place, taking the
values it reads from the run before as arguments (constants are cloned into
it instead, so LLVM still folds them) and returning those later ops read.
Stack allocations of the function's own block stay in it (their memory
ends with the function that makes them). Each new function is marked
`llvm.no_inline`: LLVM's inliner would otherwise fold a function called
once straight back. The compiled code does the same work: each run is a
few loop nests, one call each.
"""

from __future__ import annotations

from torch_mlir import ir
from torch_mlir.dialects import func as func_d

from ..core.ir import collect_ops
from ..core.passes import Option, PassContext, parse_count, register_pass

__all__ = ["SPLIT_FUNCTIONS", "DEFAULT_OPS", "split_functions"]

SPLIT_FUNCTIONS = "tosa-custom-split-functions"
DEFAULT_OPS = 4000
"""Ops per function (nested ops counted) past which a function is split, and
the size of each piece: below a few thousand LLVM's time per op is flat."""
_PREFIX = "__tosa_custom_part"
# Ops cloned into each piece that reads them, not passed: constants LLVM
# folds, and symbol addresses.
_CLONED = ("arith.constant", "ub.poison", "memref.get_global", "vector.constant_mask")
_KEPT = ("memref.alloca", "llvm.intr.stacksave", "llvm.intr.stackrestore", "memref.alloca_scope")


def _size(op) -> int:
    count = [0]

    def visit(_):
        count[0] += 1
        return ir.WalkResult.ADVANCE

    op.walk(visit)
    return count[0]


def _pieces(ops: list, limit: int) -> list[list]:
    """Runs of consecutive ops of a block of about `limit` ops each. A
    terminator and a stack allocation end a run and belong to none; a cloned
    constant among them stays where it is (it reads nothing)."""
    pieces, run, size = [], [], 0
    for i, op in enumerate(ops):
        if op.name in _CLONED and i < len(ops) - 1:
            continue
        if op.name in _KEPT or i == len(ops) - 1:
            if run:
                pieces.append((run, op))
            run, size = [], 0
            continue
        run.append(op)
        size += _size(op)
        if size >= limit:
            pieces.append((run, ops[i + 1]))
            run, size = [], 0
    return pieces


def _enclosing_function(op) -> ir.Operation:
    op = op.operation
    while op.name != "func.func":
        op = op.parent.operation
    return op


def _defined_inside(ops: list) -> tuple[set, list]:
    """The values the ops (and what they nest) define, and the values they
    read from outside, in order of first use."""
    defined, read = set(), []

    def visit(op):
        for region in op.regions:
            for block in region.blocks:
                defined.update(block.arguments)
        defined.update(op.results)
        return ir.WalkResult.ADVANCE

    for op in ops:
        op.walk(visit)
    seen = set()

    def reads(op):
        for v in op.operands:
            if v not in defined and v not in seen:
                seen.add(v)
                read.append(v)
        return ir.WalkResult.ADVANCE

    for op in ops:
        op.walk(reads)
    return defined, read


def _rewire(value: ir.Value, new: ir.Value, within: ir.Operation) -> None:
    """Uses of `value` inside function `within` read `new` instead."""
    for use in list(value.uses):
        if _enclosing_function(use.owner) == within:
            use.owner.operands[use.operand_number] = new


def _outline(fn: ir.Operation, ops: list, follower: ir.Operation, name: str) -> None:
    """Move `ops` into a new private function `name`, called before `follower`."""
    _, read = _defined_inside(ops)
    cloned = [v for v in read if not isinstance(v.owner, ir.Block) and v.owner.operation.name in _CLONED]
    passed = [v for v in read if v not in set(cloned)]
    with ir.InsertionPoint(fn.parent.regions[0].blocks[0]), fn.location:
        piece = func_d.FuncOp(name, ([v.type for v in passed], []), visibility="private")
    piece.attributes["llvm.no_inline"] = ir.UnitAttr.get()
    entry = piece.add_entry_block()
    for op in ops:
        entry.append(op)
    for v, arg in zip(passed, entry.arguments):
        _rewire(v, arg, piece.operation)
    for v in cloned:
        copy = v.owner.operation.clone(ip=ir.InsertionPoint(ops[0]))
        _rewire(v, copy.results[0], piece.operation)
    results = [r for op in ops for r in op.results
               if any(_enclosing_function(u.owner) != piece.operation for u in r.uses)]
    with ir.InsertionPoint(entry), fn.location:
        func_d.ReturnOp(results)
    piece.attributes["function_type"] = ir.TypeAttr.get(
        ir.FunctionType.get([v.type for v in passed], [r.type for r in results]))
    with ir.InsertionPoint(follower), follower.location:
        call = func_d.CallOp([r.type for r in results], ir.FlatSymbolRefAttr.get(name), passed)
    for r, new in zip(results, call.results if results else []):
        _rewire(r, new, fn)


def split_function(fn: ir.Operation, limit: int, first: int) -> int:
    """Split `fn` (a func.func with one block) into pieces of about `limit`
    ops; returns how many pieces were made, named from `first` on."""
    ops = [op.operation for op in fn.regions[0].blocks[0].operations]
    made = 0
    for run, follower in _pieces(ops, limit):
        if len(run) == 1 and _size(run[0]) < 8:
            continue  # a lone small op: a call would cost as much
        _outline(fn, run, follower, f"{_PREFIX}{first + made}")
        made += 1
    return made


@register_pass(SPLIT_FUNCTIONS,
               "Cut a function of more than OPS ops into private functions of about OPS ops each, called in "
               "order, so LLVM's superlinear time per function stays bounded",
               options=(Option("ops", "the size (ops, nested included) of a piece", DEFAULT_OPS, parse_count),))
def split_functions(module, ctx: PassContext | None = None) -> int:
    """Returns how many functions were made."""
    limit = ctx.options.ops if ctx is not None else DEFAULT_OPS
    root = getattr(module, "operation", module)
    made = 0
    functions = collect_ops(root, lambda op: op.name == "func.func", enter_matches=False)
    with root.context, ir.Location.unknown():
        for fn in functions:
            name = ir.StringAttr(fn.attributes["sym_name"]).value
            body = fn.regions[0].blocks
            if name.startswith(_PREFIX) or len(body) != 1 or _size(fn) <= limit:
                continue
            made += split_function(fn, limit, made)
    return made
