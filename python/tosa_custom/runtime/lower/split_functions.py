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

With `pieces=K` (K > 1), a function of more than `pieces-above` ops is also
cut into about K pieces of equal size, for the K processes that compile a
large program's LLVM code in parallel (compiled/parallel.py): each piece
goes to one of them. The option is in the pipeline text, so a replay cuts
the same pieces.
"""

from __future__ import annotations

from torch_mlir import ir
from torch_mlir.dialects import arith as arith_d
from torch_mlir.dialects import func as func_d

from ...core.ir import collect_ops
from ...core.passes import Option, PassContext, parse_count, register_pass
from .early_frees import top_level

__all__ = ["SPLIT_FUNCTIONS", "DEFAULT_OPS", "DEFAULT_ABOVE", "DEFAULT_PIECES_ABOVE", "split_functions",
           "with_pieces"]

SPLIT_FUNCTIONS = "tosa-custom-split-functions"
DEFAULT_OPS = 4000
"""The size of a piece (ops, nested counted): below a few thousand LLVM's
time per op is flat."""
DEFAULT_ABOVE = 30000
"""The size past which a function is split. Split at 4000, mobilenet_v3_small
(1x3x64x64) ran 24% slower and resnet18 3% (interleaved rounds on a loaded
host; the cause is not known yet). Measured at 1x3x64x64 (AVX2 host, cut at
16000 against not, alternated in one process): efficientnet_b0 (20.9k ops
here) and regnet_y_400mf (24.1k) gained nothing in LLVM and ran up to 10%
slower; densenet121 (35.2k, one entry of 219k LLVM ops) took 223 s in the
ExecutionEngine uncut and 38 s cut. Its LLVM time grows with something other
than the op count (densenet's entry has 1335 loop nests and 493 buffers
live across its concatenations), so the bound sits between the two."""
DEFAULT_PIECES_ABOVE = 2500
"""The size past which `pieces` cuts a function: compiled/parallel.py's
MIN_OPS (6000 LLVM ops), under which the module stays in one process, at
the fewest LLVM ops per op measured (after the lowering's last
canonicalization: BERT's entry 3.3k ops here, 7.7k LLVM, since broadcast
chains are folded, vector_lowering.py; 10.6k and 11.8k before). Cut and
compiled in one process anyway, pieces cost LLVM time: at 3000 (before the
fold), dynamic GPT-2 and OPT (selective; entries of 3.9k and 4.8k ops)
loaded in 1.2 and 1.8 s against 1.1 and 1.3 s uncut, BERT in 1.29 against
1.20 s. BERT now loads in 0.70-0.76 s cut in two processes, 0.88-0.91 s
uncut in one; the example block (1.1k ops, 2.5k LLVM) 0.29 s uncut, 0.45-0.50
s cut (AVX-512 host). Since contiguous copies are memcpy (copies.py) and
cold static nests' outer loops are not unrolled (loop_hints.py), LLVM takes less
per op, and BERT is at the break-even: 0.71 s cut in two, 0.73 s uncut (8
alternated loads); 4 layers 1.09 against 1.25 s, 8 layers 2.02 against 2.80."""
_PREFIX = "__tosa_custom_part"
# Ops cloned into each piece that reads them, not passed: constants LLVM
# folds, and symbol addresses.
_CLONED = ("arith.constant", "ub.poison", "memref.get_global", "vector.constant_mask")
# Views of a buffer, traced to the buffer (a piece's argument that is the
# only view of a fresh allocation among the call's buffers is `noalias`).
_VIEWS = ("memref.subview", "memref.expand_shape", "memref.collapse_shape", "memref.reinterpret_cast",
          "memref.cast", "memref.assume_alignment", "memref.view")
_KEPT = ("memref.alloca", "llvm.intr.stacksave", "llvm.intr.stackrestore", "memref.alloca_scope")


def _op_sizes(fn: ir.Operation, ops: list) -> tuple[list[int], int]:
    """The size of each of `ops` (the ops of `fn`'s block, nested counted)
    and of `fn`, in one post-order walk (an op is visited after what it nests)."""
    sizes, count, last = [], 0, 0

    def visit(op):
        nonlocal count, last
        count += 1
        if len(sizes) < len(ops) and op == ops[len(sizes)]:
            sizes.append(count - last)
            last = count
        return ir.WalkResult.ADVANCE

    fn.walk(visit)
    return sizes, count


def _pieces(ops: list, sizes: list[int], limit: int) -> list[list]:
    """Runs of consecutive ops of a block of about `limit` ops each. A
    terminator and a stack allocation end a run and belong to none; a cloned
    constant and an allocation of static size among them stay where they are
    (they read nothing; an allocation seen by LLVM is known not to alias
    another, which each piece is told: `_no_alias`)."""
    pieces, run, size = [], [], 0
    for i, op in enumerate(ops):
        if (op.name in _CLONED or op.name == "memref.alloc" and not list(op.operands)) and i < len(ops) - 1:
            continue
        if op.name in _KEPT or i == len(ops) - 1:
            if run:
                pieces.append((run, op))
            run, size = [], 0
            continue
        run.append(op)
        size += sizes[i]
        if size >= limit:
            pieces.append((run, ops[i + 1]))
            run, size = [], 0
    return pieces


def _enclosing_function(op) -> ir.Operation:
    op = op.operation
    while op.name != "func.func":
        op = op.parent.operation
    return op


def _defined_inside(ops: list) -> tuple[set, dict]:
    """The values the ops (and what they nest) define, and the values they
    read from outside, in order of first use, each with its uses there (op,
    operand number): rewiring those alone, not every use of a constant read
    by thousands of ops, keeps a cut linear in the program. One walk in
    pre-order: an op's operands are defined before it (in a block before it
    or by an op it is nested in), its results and its regions' arguments
    after (a second walk for the uses cost BERT's cut 15 ms more)."""
    defined, read = set(), {}

    def visit(op):
        for i, v in enumerate(op.operands):
            if v not in defined:
                read.setdefault(v, []).append((op, i))
        defined.update(op.results)
        for region in op.regions:
            for block in region.blocks:
                defined.update(block.arguments)
        return ir.WalkResult.ADVANCE

    for op in ops:
        op.walk(visit, ir.WalkOrder.PRE_ORDER)
    return defined, read


def _rewire(value: ir.Value, new: ir.Value, within: ir.Operation) -> None:
    """Uses of `value` inside function `within` read `new` instead."""
    for use in list(value.uses):
        if _enclosing_function(use.owner) == within:
            use.owner.operands[use.operand_number] = new


def _base(v: ir.Value, pieces: dict) -> ir.Value | None:
    """The allocation or argument of the function being split whose buffer
    `v` (a value of it) views, through views and the pieces made so far; or
    None if not known."""
    call = None
    while True:
        owner = v.owner
        if isinstance(owner, ir.Block):
            if call is None:
                return v  # the function's own argument
            if owner.owner.name != "func.func":
                return None
            v, call = call.operands[ir.BlockArgument(v).arg_number], None
            continue
        op = owner.operation
        if op.name == "memref.alloc":
            return v
        if op.name in _VIEWS:
            v = op.operands[0]
        elif op.name == "func.call" and call is None and \
                ir.FlatSymbolRefAttr(op.attributes["callee"]).value in pieces:
            piece = pieces[ir.FlatSymbolRefAttr(op.attributes["callee"]).value]
            ret = list(piece.regions[0].blocks[0].operations)[-1]
            v, call = ret.operands[ir.OpResult(v).result_number], op
        else:
            return None


def _no_alias(passed: list, pieces: dict) -> list[bool]:
    """Per argument: the only buffer argument viewing its allocation, all
    of the call's buffer arguments traced (LLVM then knows what it knew in
    the one function: distinct allocations do not alias)."""
    bases = [_base(v, pieces) if isinstance(v.type, ir.MemRefType) else None for v in passed]
    buffers = [b for v, b in zip(passed, bases) if isinstance(v.type, ir.MemRefType)]
    if any(b is None for b in buffers):
        return [False] * len(passed)
    return [b is not None and not isinstance(b.owner, ir.Block) and sum(1 for c in buffers if c == b) == 1
            for b in bases]


def _widened(t: ir.Type) -> ir.Type | None:
    """The type a value of type `t` crosses a call as, when not itself: a
    vector of i1 as one of i8. LLVM's X86 back end (this wheel's, AVX-512
    hosts) aborts the process on a `<1 x i1>` argument ("Cannot emit physreg
    copy instruction": efficientnet_v2_s, a hoisted one-lane mask live
    across a cut); i8 lanes cross any call, and each side converts once."""
    if isinstance(t, ir.VectorType) and isinstance(t.element_type, ir.IntegerType) and t.element_type.width == 1:
        return ir.VectorType.get(t.shape, ir.IntegerType.get_signless(8), scalable=t.scalable_dims)
    return None


def _outline(fn: ir.Operation, ops: list, follower: ir.Operation, name: str, pieces: dict) -> None:
    """Move `ops` into a new private function `name`, called before `follower`."""
    _, read = _defined_inside(ops)
    cloned = [v for v in read if not isinstance(v.owner, ir.Block) and v.owner.operation.name in _CLONED]
    passed = [v for v in read if v not in set(cloned)]
    arg_types = [_widened(v.type) or v.type for v in passed]
    with ir.InsertionPoint(fn.parent.regions[0].blocks[0]), fn.location:
        piece = func_d.FuncOp(name, (arg_types, []), visibility="private")
    piece.attributes["llvm.no_inline"] = ir.UnitAttr.get()
    piece.attributes["arg_attrs"] = ir.ArrayAttr.get(
        [ir.DictAttr.get({"llvm.noalias": ir.UnitAttr.get()} if no else {}) for no in _no_alias(passed, pieces)])
    pieces[name] = piece.operation
    entry = piece.add_entry_block()
    for op in ops:
        entry.append(op)
    for v, arg in zip(passed, entry.arguments):
        if arg.type != v.type:
            with ir.InsertionPoint(ops[0]), fn.location:
                arg = arith_d.trunci(v.type, arg)
        for op, i in read[v]:
            op.operands[i] = arg
    for v in cloned:
        copy = v.owner.operation.clone(ip=ir.InsertionPoint(ops[0]))
        for op, i in read[v]:
            op.operands[i] = copy.results[0]
    results = [r for op in ops for r in op.results
               if any(_enclosing_function(u.owner) != piece.operation for u in r.uses)]
    with ir.InsertionPoint(entry), fn.location:
        func_d.ReturnOp(results)
    piece.attributes["function_type"] = ir.TypeAttr.get(ir.FunctionType.get(arg_types, [r.type for r in results]))
    with ir.InsertionPoint(follower), follower.location:
        operands = [v if t == v.type else arith_d.extui(t, v) for v, t in zip(passed, arg_types)]
        call = func_d.CallOp([r.type for r in results], ir.FlatSymbolRefAttr.get(name), operands)
    for r, new in zip(results, call.results if results else []):
        _rewire(r, new, fn)


def _take_allocations(ops: list, runs: list) -> None:
    """A static allocation every use of which is in one run moves into it
    (first): its buffer is the piece's own, not an argument. With each buffer
    freed after its last use (early_frees.py), most are: mobilenet_v3_small
    cut in two passed 92 and 174 buffers to its pieces, and LLVM's code
    generation took 10 s against 2.5 s uncut; LLVM also sees the piece's
    own allocations as distinct, as it did in the one function."""
    where = {op: k for k, (run, _) in enumerate(runs) for op in run}
    for op in ops:
        if op.name != "memref.alloc" or list(op.operands) or op in where:
            continue
        homes = set()
        for use in op.results[0].uses:
            homes.add(where.get(top_level(use.owner.operation, where), -1))
        if len(homes) == 1 and -1 not in homes:
            run = runs[homes.pop()][0]
            op.move_before(run[0])
            run.insert(0, op)
            where[op] = None


def split_function(fn: ir.Operation, ops: list, sizes: list[int], limit: int, first: int) -> int:
    """Split `fn` (a func.func with one block, `ops` of `sizes`) into pieces
    of about `limit` ops; returns how many pieces were made, named from `first` on."""
    made, pieces = 0, {}
    runs = _pieces(ops, sizes, limit)
    size_of = {op: size for op, size in zip(ops, sizes)}
    _take_allocations(ops, runs)
    for run, follower in runs:
        if len(run) == 1 and size_of.get(run[0], 0) < 8:
            continue  # a lone small op: a call would cost as much
        _outline(fn, run, follower, f"{_PREFIX}{first + made}", pieces)
        made += 1
    return made


@register_pass(SPLIT_FUNCTIONS,
               "Cut a function of more than ABOVE ops into private functions of about OPS ops each, called in "
               "order, so LLVM's superlinear time per function stays bounded",
               options=(Option("ops", "the size (ops, nested included) of a piece", DEFAULT_OPS, parse_count),
                        Option("above", "split only a function of more ops than this", DEFAULT_ABOVE, parse_count),
                        Option("pieces", "also cut a function of more than PIECES-ABOVE ops into about this many "
                               "pieces of equal size (1: no)", 1, parse_count),
                        Option("pieces-above", "the size past which PIECES cuts a function", DEFAULT_PIECES_ABOVE,
                               parse_count)))
def split_functions(module, ctx: PassContext | None = None) -> int:
    """Returns how many functions were made."""
    limit = ctx.options.ops if ctx is not None else DEFAULT_OPS
    above = ctx.options.above if ctx is not None else DEFAULT_ABOVE
    pieces = ctx.options.pieces if ctx is not None else 1
    pieces_above = ctx.options.pieces_above if ctx is not None else DEFAULT_PIECES_ABOVE
    root = getattr(module, "operation", module)
    made = 0
    functions = collect_ops(root, lambda op: op.name == "func.func", enter_matches=False)
    with root.context, ir.Location.unknown():
        for fn in functions:
            name = ir.StringAttr(fn.attributes["sym_name"]).value
            body = fn.regions[0].blocks
            if name.startswith(_PREFIX) or len(body) != 1:
                continue
            ops = [op.operation for op in body[0].operations]
            sizes, size = _op_sizes(fn, ops)
            bound = limit if size > max(limit, above) else None
            if pieces > 1 and size > pieces_above:
                bound = min(bound or size, -(-size // pieces))
            if bound is not None:
                made += split_function(fn, ops, sizes, bound, made)
    return made


def with_pieces(passes: list[str], pieces: int) -> list[str]:
    """`passes` with this pass told to cut large functions into `pieces`."""
    if pieces <= 1:
        return passes
    return [f"{SPLIT_FUNCTIONS}{{pieces={pieces}}}" if p == SPLIT_FUNCTIONS else p for p in passes]
