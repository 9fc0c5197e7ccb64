"""Each buffer freed after its last use, not at the end of the function.

Ownership-based deallocation frees a function's buffers where its block
ends: in a network's entry, every intermediate buffer (173 in
mobilenet_v3_small) lives to the end, and all of them at once. When
split_functions.py cuts the entry into pieces, every buffer a piece touches
is then live across the cut: each piece took ~170 memref arguments, and
LLVM's code generation of mobilenet_v3_small cut in two took 10 s against
2.5 s whole (register allocation over hundreds of live-in pointers), which
made compiling in parallel (compiled/parallel.py) slower than not.

Here, a top-level `memref.dealloc` of a function's block moves to right
after the last top-level op that uses the buffer or anything aliasing it:
a view of it, or any memref an op using it makes (a loop carrying it). A
buffer whose address is taken as a number (`extract_aligned_pointer_as_index`)
keeps its free where it was. The program frees each buffer earlier and so
holds fewer at once; the ops themselves do not change.
"""

from __future__ import annotations

from torch_mlir import ir

from ...core.ir import collect_ops
from ...core.passes import PassContext, register_pass

__all__ = ["FREE_AFTER_LAST_USE", "free_after_last_use", "top_level"]

FREE_AFTER_LAST_USE = "tosa-custom-free-after-last-use"
# Ops that read a buffer's descriptor or address into a non-memref value: uses of
# the number may follow anywhere, so the buffer's free stays where it is.
_ADDRESS = ("memref.extract_aligned_pointer_as_index", "memref.extract_strided_metadata")


def top_level(op: ir.Operation, index: dict) -> ir.Operation | None:
    """The op of the function's block (keys of `index`) that is or holds `op`."""
    while op is not None and op not in index:
        parent = op.parent
        op = None if parent is None or parent.name in ("func.func", "builtin.module") else parent.operation
    return op


def _last_use(buffer: ir.Value, index: dict, free: ir.Operation) -> int | None:
    """The position in the function's block of the last op using `buffer` or an alias of
    it, or None when its address escapes as a number."""
    last, seen, work = -1, set(), [buffer]
    while work:
        value = work.pop()
        if value in seen:
            continue
        seen.add(value)
        for use in value.uses:
            user = use.owner.operation
            if user == free:
                continue
            if user.name in _ADDRESS:
                return None
            top = top_level(user, index)
            if top is None:
                return None
            last = max(last, index[top])
            work += [r for r in user.results if isinstance(r.type, ir.MemRefType)]
            if user.name == "scf.yield":  # a loop or branch yielding it: the parent's results alias it
                work += [r for r in user.parent.results if isinstance(r.type, ir.MemRefType)]
    return last


@register_pass(FREE_AFTER_LAST_USE,
               "Move each top-level memref.dealloc of a function to right after the last use of its buffer "
               "(ownership-based deallocation frees at the block's end: every buffer alive at once)")
def free_after_last_use(module, ctx: PassContext | None = None) -> int:
    """Returns how many frees moved."""
    moved = 0
    root = getattr(module, "operation", module)
    for fn in collect_ops(root, lambda op: op.name == "func.func", enter_matches=False):
        if len(fn.regions[0].blocks) != 1:
            continue
        ops = [op.operation for op in fn.regions[0].blocks[0].operations]
        index = {op: i for i, op in enumerate(ops)}
        plans = []
        for free in ops:
            if free.name != "memref.dealloc":
                continue
            last = _last_use(free.operands[0], index, free)
            if last is not None and last + 1 < index[free] and ops[last].name != "func.return":
                plans.append((free, ops[last]))
        for free, after in plans:
            free.move_after(after)
            moved += 1
    return moved
