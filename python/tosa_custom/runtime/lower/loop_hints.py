"""The loop nests of run-time sizes in a large program are not LLVM's to
vectorize or unroll again, nor the outer loops of its cold static nests.

Tiling vectorizes and unrolls the loops it makes (tiling.py) and peels their
remainders (remainders.py). In a nest where a trip count is a run-time value
(a `?` dim), LLVM's loop vectorizer and unroller still take every loop,
constant ones unrolled into bodies whose addresses have run-time strides:
each loop grows a vector body, an epilogue and run-time checks, and the
scalar-evolution queries behind them are most of the JIT's time. Measured on
the dynamic two-layer Llama of the real-model list (selective mode, 6.8k ops
here, 727 loops), its LLVM dialect compiled by the ExecutionEngine alone:
49 s unhinted (a loaded AVX2 host); hinting only the loops of run-time trip
count (441), 65 s on a busier host against 15 s with every loop hinted; with
the nests hinted (667 loops), 4.8 s, as with every loop, against 3.9 s for
the static Llama (quiet host). Its run time is the same (within 2% at 1x1,
2x8 and 4x32). Loops of static nests stay LLVM's to unroll: that is what
makes the convolutions fast (every loop hinted made resnet18 1.9x and
mobilenet_v3_small 1.2x slower), and a small program keeps what LLVM's loop
passes give (the dynamic MLP of benchmarks/dynamic.py, 700 ops, ran up to
1.2x slower at 17 rows hinted), so only a module of more than `above` ops
(2000 by default) is hinted.

In a static nest that runs fewer than `COLD_OPS` ops a call (its trip
counts times its loops' bodies), the loops that hold other loops are
hinted too, against unrolling only (`OUTER_HINT`). LLVM unrolls a nest
inside out: once an inner loop of a few iterations is straight code, the
loop around it is unrolled in turn and the whole nest copied as many times,
for LLVM's passes and code generation to go through. A nest that small
cannot pay that back at run time (a few microseconds a call at most).
Measured (AVX-512 host, the ExecutionEngine alone, fastest of 3
alternated): a 2-layer BERT (two thirds of its nests under COLD_OPS, all
under 10^5) 0.57 -> 0.45 s, resnet18 at 64x64 (11 of 143 static nests
cold) 2.45 -> 2.36 s. Larger nests do gain from the copies: with every
static nest's outer loops hinted, resnet18's LLVM took 3.42 -> 2.39 s but
its code ran ~3% slower (benchmarks/runtime.py 5.8 -> 6.1 ms; four
programs loaded side by side, medians 9.5 -> 9.7 ms), so hot nests stay
LLVM's. The innermost loops stay LLVM's everywhere: unrolling those is what
makes the convolutions fast (above), and hinting the scalar ones too
(strided copies, paddings) made resnet18 ~10% slower in one measurement.

The hint is `llvm.loop_annotation` itself, under the name of `llvm.br`'s
own attribute, `loop_annotation`, on each `scf.for` it marks:
`convert-scf-to-cf` copies an attribute of LLVM's dialect onto the loop's
latch branch, and `convert-cf-to-llvm` keeps a branch's attributes, so the
latch `llvm.br` holds it as the property the translation to LLVM IR reads as
`llvm.loop` metadata (`llvm.loop.unroll.disable`, `llvm.loop.isvectorized`).
A pass moving it there after the lowering walked every LLVM op in Python
(0.4-1 s on efficientnet_b0's 570k).
"""

from __future__ import annotations

from torch_mlir import ir

from ...core.ir import collect_ops, count_ops
from ...core.passes import Option, PassContext, parse_count, parse_flag, register_pass

__all__ = ["HINT_LOOPS", "HINT", "OUTER_HINT", "COLD_OPS", "DEFAULT_ABOVE", "hint_loops"]

HINT_LOOPS = "tosa-custom-hint-loops"
HINT = "#llvm.loop_annotation<unroll = <disable = true>, isVectorized = true>"
"""Neither unrolled nor vectorized by LLVM."""
OUTER_HINT = "#llvm.loop_annotation<unroll = <disable = true>>"
"""Not unrolled by LLVM: a loop of a cold static nest that holds another loop."""
COLD_OPS = 10_000
"""Ops a call runs in a static nest (trip counts times bodies) under which
its outer loops are not unrolled: ~3 us at most, so whatever unrolling
would save there is under that a call."""
CARRIED = "loop_annotation"
"""The attribute convert-scf-to-cf copies from an scf.for onto its latch
branch (its value is of LLVM's dialect), and llvm.br's own."""
DEFAULT_ABOVE = 2000
"""The size (ops, nested counted) past which a module's loops are hinted."""
_CONSTANTS = ("arith.constant", "index.constant")


def _constant(value: ir.Value) -> bool:
    owner = value.owner
    return not isinstance(owner, ir.Block) and owner.name in _CONSTANTS


def _run_time_trip_count(loop: ir.Operation) -> bool:
    lower, upper, step = list(loop.operands)[:3]
    return not (_constant(lower) and _constant(upper) and _constant(step))


def _trip_count(loop: ir.Operation) -> int:
    """The iterations of a loop of constant bounds and step."""
    lower, upper, step = (ir.IntegerAttr(v.owner.attributes["value"]).value for v in list(loop.operands)[:3])
    return max(0, -(-(upper - lower) // step))


@register_pass(HINT_LOOPS,
               "In a module of more than ABOVE ops, mark each scf.for of a loop nest with a run-time trip count so "
               "that LLVM neither vectorizes nor unrolls it, and each loop holding another in a static nest that "
               "runs under COLD_OPS ops so that LLVM does not unroll it (loop_annotation, which convert-scf-to-cf "
               "carries to the latch branch and the lowering to LLVM keeps as the llvm.br's own)",
               options=(Option("above", "hint only in a module of more ops than this", DEFAULT_ABOVE, parse_count),
                        Option("all", "mark every loop, of static nests too, against both (slower code: to measure "
                                      "what LLVM's loop passes give)", False, parse_flag, implicit="true")))
def hint_loops(module, ctx: PassContext | None = None) -> int:
    """Returns how many loops were marked."""
    above = ctx.options.above if ctx is not None else DEFAULT_ABOVE
    every = ctx.options.all if ctx is not None else False
    root = getattr(module, "operation", module)
    if count_ops(root, limit=above) <= above:
        return 0
    loops, outer = [], []
    for nest in collect_ops(root, lambda op: op.name == "scf.for", enter_matches=False):
        members = collect_ops(nest, lambda op: op.name == "scf.for")
        if every or any(_run_time_trip_count(op) for op in members):
            loops += members
        else:
            around = {loop: _enclosing_loop(loop, nest) for loop in members}
            if _ops_run(members, around) < COLD_OPS:
                outer += list(dict.fromkeys(a for a in around.values() if a is not None))  # those holding one
    for hinted, text in ((loops, HINT), (outer, OUTER_HINT)):
        if hinted:
            hint = ir.Attribute.parse(text, root.context)
            for loop in hinted:
                loop.attributes[CARRIED] = hint
    return len(loops) + len(outer)


def _enclosing_loop(loop: ir.Operation, nest: ir.Operation) -> ir.Operation | None:
    """The nearest loop around `loop` within `nest` (None for the nest's own)."""
    if loop == nest:
        return None
    parent = loop.parent.operation
    while parent.name != "scf.for":
        parent = parent.parent.operation
    return parent


def _ops_run(members: list, around: dict) -> int:
    """The ops a static nest (`members`, post-order; `around`: each one's
    enclosing loop) runs: each loop's body (its block's ops, a nested region
    counted as one) times the iterations of it and the loops around it."""
    runs, total = {}, 0
    for loop in reversed(members):  # each loop after the loops around it
        runs[loop] = _trip_count(loop) * (runs[around[loop]] if around[loop] is not None else 1)
        total += runs[loop] * len(loop.regions[0].blocks[0].operations)
    return total
