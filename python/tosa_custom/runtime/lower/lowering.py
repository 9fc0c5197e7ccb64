"""TOSA with `tosa.custom` ops, down to LLVM IR the ExecutionEngine runs.

`tosa-to-linalg` refuses `tosa.custom`, so each custom op first becomes, on
tensors, a call of a private extern function in destination-passing style:
inputs become read-only `bufferization.to_buffer` views (zero-copy, maybe
strided), the compiled code allocates the outputs, the kernel writes them, and
`bufferization.to_tensor ... restrict writable` hands them back. The kernel
never owns memory.

(outline.py does that.) `lower` then takes the module to the LLVM dialect. Contractions (matmul,
batch_matmul, and the linalg.generic contractions elementwise fusion makes of
them), elementwise ops and reductions are tiled and vectorized with the
transform dialect: `plan_tiling` picks, per op, a register tile (MR x NR f32
accumulators for a contraction, one reduction step at a time; a vector length
along the contiguous dimension otherwise), sized for the CPU the program is
planned for (cpu.py: the host's ISA, or `TOSA_CUSTOM_CPU` / `cpu=`; the JIT is
kept to that ISA when it is narrower than the host's), a generated script applies
`tile_using_for` / `structured.fuse` + `structured.vectorize` (tiling.py), and
the vector ops are lowered to FMAs on 1-D vectors. f32 exp, tanh and erf become
polynomials (polymath.py; LLVM would call libm per lane). What the planner does not
take (convolutions, gathers, ops on i1 buffers) becomes loops as before, and
`vectorize=False` gives the old all-loops lowering. The pass list around it
is the one the platform notes found to work (and why each odd step is there).

Every step is a pass (ours registered as `tosa-custom-*`), and the whole
lowering is one textual pipeline, `pipeline(vectorize)`, which
`tosa-custom-opt --pass-pipeline=...` replays on a TOSA module;
`Program.pipeline` shows the one a program ran.
"""

from __future__ import annotations

import os
import warnings

from torch_mlir import ir
from torch_mlir.dialects import arith as arith_d
from torch_mlir.dialects import memref as memref_d
from torch_mlir.dialects import math as math_d
from torch_mlir.dialects import vector as vector_d

from ...core.ir import collect_ops
from ...core.diagnostics import CompileError
from ...core.passes import Option, PassContext, parse_names, pipeline_text, register_pass, run_pipeline
from ..compiled.cpu import CpuTarget, cpu_target
from .outline import OUTLINE_CUSTOM_OPS, CustomCallSite, outline_custom_ops
from .extreme_inits import MAX_MIN_FROM_INFINITY
from .half_rounding import ROUND_EMULATED_FLOATS
from .tosa_fixes import TOSA_FIXES
from .dead_taps import DROP_PADDING_TAPS
from .shape_ops import LOWER_SHAPE_OPS
from .broadcasts import DROP_IDENTITY_BROADCASTS, UNIFY_BOUNDARY_DIMS
from .exact_sizes import FOLD_EXACT_SIZES
from .masks import LOWER_MASKS
from .result_buffers import OFFER_RESULT_BUFFERS
from .split_functions import SPLIT_FUNCTIONS, with_pieces
from .loop_hints import HINT_LOOPS
from .flat_globals import FLATTEN_CONSTANT_GLOBALS
from .opaque_bounds import HIDE_LOOP_BOUNDS
from .early_frees import FREE_AFTER_LAST_USE
from .copies import LOWER_COPIES
from .integer_contractions import WIDEN_INTEGER_CONTRACTIONS
from .polymath import EXPAND_MATH, expand_math
from .prologues import SPLIT_CONTRACTION_PROLOGUES
from .transform_scripts import VECTOR_LOWERING_SCRIPT
from .vector_lowering import FOLD_BROADCAST_CHAINS, LOWER_VECTORS, PREPARE_VECTORS
from .tiling import (
    GENERALIZE,
    MAKE_COLUMNS_CONTIGUOUS,
    PACK_COLUMNS,
    TILE_AND_VECTORIZE,
    TilePlan,
    make_columns_contiguous,
    pack_columns,
    plan_tiling,
    producer,
    single_use,
    tile_and_vectorize,
)
from ..kernels.tosa_kernels import OUTLINE_TOSA_FALLBACKS

__all__ = [
    "CustomCallSite", "outline_custom_ops", "lower", "lower_to_vectors", "plan_tiling", "tile_and_vectorize",
    "expand_math", "fuse_multiply_add", "make_columns_contiguous", "pack_columns", "write_results_in_place",
    "distinct_results", "pipeline", "OUTLINE", "DISTINCT_RESULTS", "WRITE_RESULTS_IN_PLACE",
    "FUSE_MULTIPLY_ADD", "SPLIT_MULTIPLY_ADD", "JIT_FEATURES", "VERIFY_EACH", "split_multiply_add", "jit_features",
    "TilePlan",
    "DEALLOCATION_PIPELINE", "LOWERING_PIPELINE", "NAIVE_PIPELINE",
    "FRONTEND_PIPELINE", "BUFFERIZE_PIPELINE", "BACKEND_PIPELINE", "VECTOR_LOWERING_SCRIPT",
]

DISTINCT_RESULTS = "tosa-custom-distinct-results"
WRITE_RESULTS_IN_PLACE = "tosa-custom-write-results-in-place"
TO_BUFFER_PER_CALL = "tosa-custom-to-buffer-per-call"
FUSE_MULTIPLY_ADD = "tosa-custom-fuse-multiply-add"
SPLIT_MULTIPLY_ADD = "tosa-custom-split-multiply-add"
JIT_FEATURES = "tosa-custom-jit-features"


# --- Pipelines -------------------------------------------------------------
#
# The runtime lowering is one textual pipeline (`pipeline()`), in order:
#   OUTLINE                 TOSA ops tosa-to-linalg lacks as runtime custom
#                           ops; every tosa.custom as an extern call (kernels
#                           are bound between these two: outline.py);
#   _FRONTEND               convolution taps that read only padding cut
#                           (dead_taps.py); TOSA to linalg on tensors (1.1 shape ops into
#                           tensor.reshape first; float max/min reductions
#                           then started from infinity), elementwise fusion;
#   _tile(cpu)              integer matmuls on operands widened to i32, zero
#                           points subtracted (integer_contractions.py);
#                           elementwise work fusion put into a contraction's
#                           A side taken back out (prologues.py); named ops
#                           (convolutions too) to linalg.generic, B operands
#                           made column-contiguous and, for big contractions,
#                           packed in panels; then the transform script the
#                           planner makes for this module: tile, fuse C's
#                           fill, vectorize; f32 exp / tanh / erf as
#                           polynomials;
#   _BUFFERIZE_TILED        accumulators hoisted out of the reduction loops,
#                           bufferization, results as out-params, no copy for
#                           a result computed in a reshaped buffer (with
#                           results of dynamic size: returned instead,
#                           `_returning`);
#   _DEALLOCATE             frees, memref.copy as loops;
#   _VECTOR_TAIL            mul + add of generic contractions as FMAs, vector
#                           ops to what LLVM lowers well (on a CPU without
#                           FMA, every FMA split back into mul + add);
#   _BACKEND                linalg left over as loops, everything to LLVM;
#                           the JIT kept to the planned ISA if it is narrower
#                           than the host's.
# `_tile`, `_vector_tail` and the JIT features depend on the CPU the program
# is planned for (`_for_cpu`), which the pipeline text names.
# The naive pipeline is the old lowering: every linalg op as scalar loops (the
# floor the benchmark compares against, and the fallback if vectorizing fails).

OUTLINE = [OUTLINE_TOSA_FALLBACKS, OUTLINE_CUSTOM_OPS]
# tosa-to-arith lowers the tosa.apply_scale of tosa.rescale only with
# include-apply-rescale (else it reaches LLVM); its default form computes in
# 64 bits, as the specification's apply_scale does (i48 values included).
_FRONTEND = [
    *TOSA_FIXES, DROP_PADDING_TAPS, LOWER_SHAPE_OPS,
    "func.func(tosa-optional-decompositions, tosa-infer-shapes, tosa-make-broadcastable, "
    "tosa-to-linalg-named, tosa-to-linalg, tosa-to-arith{include-apply-rescale=true}, tosa-to-tensor, tosa-to-scf)",
    MAX_MIN_FROM_INFINITY, "canonicalize", "cse", "func.func(linalg-fuse-elementwise-ops)",
]
# With `?` dims, before fusion: the dynamic broadcasts that equal boundary
# sizes rule out, removed (broadcasts.py), once reshapes' sizes are one value
# each (exact_sizes.py). Shapes are reified first, so that unifying sees every
# tensor.dim of an argument. One round removes a chain of broadcasts (each
# compares sizes through the last); the second takes what canonicalization
# exposes.
_DYNAMIC_BROADCASTS = ["resolve-shaped-type-result-dims", UNIFY_BOUNDARY_DIMS, FOLD_EXACT_SIZES, "canonicalize",
                       "cse", DROP_IDENTITY_BROADCASTS] * 2


def _frontend(dynamic: bool) -> list[str]:
    if not dynamic:
        return _FRONTEND
    fuse = _FRONTEND.index("func.func(linalg-fuse-elementwise-ops)")
    return _FRONTEND[:fuse] + _DYNAMIC_BROADCASTS + _FRONTEND[fuse - 2:]


_ONE_SHOT = "one-shot-bufferize{bufferize-function-boundaries function-boundary-type-conversion=identity-layout-map}"
# buffer-results-to-out-params{hoist-static-allocs} frees a buffer returned
# twice twice (a crash): DISTINCT_RESULTS runs right before it, always.
_OUT_PARAMS = [DISTINCT_RESULTS, "buffer-results-to-out-params{hoist-static-allocs modify-public-functions}"]
_DEALLOCATE = [
    "buffer-deallocation-pipeline",
    # The clones ownership-based deallocation makes of a returned buffer it
    # does not own (an argument, a constant): alloc + copy.
    "convert-bufferization-to-memref",
    # A contiguous copy stays, for memcpy; a strided one becomes loops (the wheel
    # lacks the runner-utils library: memrefCopy would not resolve; copies.py).
    LOWER_COPIES,
]
_BUFFERIZE_TILED = [
    # inline: pack_columns' packing functions, now tiled. Without the
    # inliner's own canonicalization of every function (the one after it
    # does the same: the same LLVM code for BERT and resnet18; BERT's
    # inliner 15-30 ms -> 3 ms).
    "inline{default-pipeline=}", "canonicalize", "cse",
    # The size of a tile of a loop's result as the size of the loop's init,
    # min/max of a loop's bounds folded: hoisting and one-shot bufferization
    # compare slices of `?` sizes by walking each size back through its
    # producers (ValueBoundsConstraintSet), which this shortens (dynamic
    # Llama: bufferization 4.7 -> 3.9 s).
    "func.func(scf-for-loop-canonicalization)",
    # Both analyses compare a tile's slices through the loops' bounds: hidden
    # from them, and folded back by the canonicalizer after each (opaque_bounds.py).
    HIDE_LOOP_BOUNDS, "func.func(loop-invariant-subset-hoisting)", "canonicalize",
    TO_BUFFER_PER_CALL, HIDE_LOOP_BOUNDS, _ONE_SHOT,
    # Tiled loops carry their buffer through iter_args and copy each tile onto
    # itself: fold both, so the result is the allocation itself and
    # hoist-static-allocs can make it the caller's output buffer (no copy).
    "canonicalize", "cse", "canonicalize", *_OUT_PARAMS, WRITE_RESULTS_IN_PLACE,
]
# Between the two vector scripts, each broadcast the preparation left as a
# transposed chain made one broadcast (vector_lowering.py).
_LOWER_VECTORS = [PREPARE_VECTORS, FOLD_BROADCAST_CHAINS, LOWER_VECTORS]
_VECTOR_TAIL = [FUSE_MULTIPLY_ADD, *_LOWER_VECTORS]


def _tile(cpu: CpuTarget) -> list[str]:
    on = f"{{cpu={cpu.name}}}"
    return [WIDEN_INTEGER_CONTRACTIONS, SPLIT_CONTRACTION_PROLOGUES, GENERALIZE, MAKE_COLUMNS_CONTIGUOUS,
            PACK_COLUMNS + on, GENERALIZE, TILE_AND_VECTORIZE + on, LOWER_MASKS, EXPAND_MATH]


def _vector_tail(cpu: CpuTarget) -> list[str]:
    # Without FMA, llvm.fma is a libm call per lane: keep (or split back to) mul + add.
    return _VECTOR_TAIL if cpu.fma else [*_LOWER_VECTORS, SPLIT_MULTIPLY_ADD]


def _jit(cpu: CpuTarget) -> list[str]:
    features = cpu.jit_features
    return [f"{JIT_FEATURES}{{features={','.join(features)}}}"] if features else []
# LLVM computes bf16 in f32 and rounds back with __truncsfbf2, a compiler-rt
# builtin the JIT finds only where the host's libgcc has it (GCC 13+) or the
# CPU has AVX512-BF16. Do the same in MLIR, rounding with integer ops, so
# every x86-64 CPU runs bf16 the same way.
# Each op rounded to bf16 as eager rounds it: the casts both emulations make
# lose their contract flag, which would let extf(truncf(x)) fold to x
# (half_rounding.py).
_SOFT_BF16 = [
    "func.func(arith-emulate-unsupported-floats{source-types=bf16 target-type=f32}, "
    "math-extend-to-supported-types{extra-types=f16 target-type=f32})", ROUND_EMULATED_FLOATS,
    "func.func(arith-expand{include-bf16=true})",
]
_TO_LLVM = [
    # A large function cut into pieces of bounded size (split_functions.py;
    # after the C wrappers are requested, so the pieces get none).
    # Each buffer freed after its last use first, so that a piece's arguments
    # are the buffers live across its cuts, not every buffer (early_frees.py).
    *_SOFT_BF16, "func.func(llvm-request-c-wrappers)", FREE_AFTER_LAST_USE, SPLIT_FUNCTIONS,
    "expand-strided-metadata", "lower-affine",
    # Loops of run-time trip count are not LLVM's to vectorize or unroll again, nor the outer
    # loops of cold static nests LLVM's to unroll (loop_hints.py).
    HINT_LOOPS, "convert-scf-to-cf",
    # math ops LLVM has no intrinsic for (erf, tan, ...) become libm calls, one
    # per lane: before the vectors are lowered, which lowers the lanes'
    # extracts and inserts (after, they reached LLVM as vector ops: erf of
    # half-precision vectors, which expand-math leaves to libm).
    "convert-math-to-llvm", "convert-math-to-libm",
    "convert-vector-to-llvm{reassociate-fp-reductions}", "finalize-memref-to-llvm",
    "convert-arith-to-llvm", "convert-index-to-llvm",
    "convert-ub-to-llvm", "convert-func-to-llvm", "convert-cf-to-llvm", "reconcile-unrealized-casts",
    # Constants as flat arrays: LLVM builds and emits nested ones row by row (flat_globals.py).
    FLATTEN_CONSTANT_GLOBALS,
    # The LLVM dialect's own folds: the lowerings' repeated constants and descriptor
    # insert/extract chains (BERT's 46k ops -> 12k), which LLVM would otherwise translate and fold.
    "canonicalize", "cse",
]
_BACKEND = ["func.func(convert-linalg-to-loops)", "func.func(convert-vector-to-scf{full-unroll})", *_TO_LLVM]


def _returning(passes: list[str], returns: bool) -> list[str]:
    """A program with results of dynamic size returns them (allocated by the
    compiled code; ownership-based deallocation clones one it does not own)
    instead of writing them into the caller's buffers; after deallocation,
    each returned allocation may take a buffer the caller offers
    (result_buffers.py)."""
    if not returns:
        return passes
    out_params = (*_OUT_PARAMS, WRITE_RESULTS_IN_PLACE)
    kept = [p for p in passes if p not in out_params]
    if _DEALLOCATE[-1] in kept:
        kept.insert(kept.index(_DEALLOCATE[-1]) + 1, OFFER_RESULT_BUFFERS)
    return kept


def _vectorize(cpu: CpuTarget, returns: bool = False) -> list[str]:
    return _tile(cpu) + _returning(_BUFFERIZE_TILED + _DEALLOCATE, returns) + _vector_tail(cpu)
_NAIVE_BUFFERIZE = [TO_BUFFER_PER_CALL, _ONE_SHOT, *_OUT_PARAMS, *_DEALLOCATE]
# Naive loops are LLVM's to vectorize: no loop hints there.
_NAIVE_LOOPS = ["func.func(convert-linalg-to-loops)",
                *[p for p in _TO_LLVM if not p.startswith("convert-vector-to-llvm") and p != HINT_LOOPS]]
_NAIVE = _NAIVE_BUFFERIZE + _NAIVE_LOOPS

FRONTEND_PIPELINE = pipeline_text(_FRONTEND)
BUFFERIZE_PIPELINE = pipeline_text(_BUFFERIZE_TILED)
"""On tensors, after tiling: hoisting, bufferization, results as out-params,
written in place. DEALLOCATION_PIPELINE follows."""
DEALLOCATION_PIPELINE = pipeline_text(_DEALLOCATE)
BACKEND_PIPELINE = pipeline_text(_BACKEND)
NAIVE_PIPELINE = pipeline_text(_FRONTEND + _NAIVE)
LOWERING_PIPELINE = NAIVE_PIPELINE  # the historic name: one textual pipeline, naive loops


def pipeline(vectorize: bool = True, *, outline: bool = True, cpu: "str | CpuTarget | None" = None,
             returns: bool = False, dynamic: bool = False, pieces: int = 1) -> str:
    """The runtime lowering as one textual pipeline `tosa-custom-opt
    --pass-pipeline=...` replays: outline (unless `outline=False`, for a
    module already outlined), TOSA to linalg, tile and vectorize for `cpu`
    (cpu.cpu_target: default $TOSA_CUSTOM_CPU, else the host), or, without
    `vectorize`, naive loops, bufferize, lower to the LLVM dialect. With
    `returns` (results of dynamic size), the entry returns its results
    instead of taking out-params; with `dynamic` (`?` dims in the entry's
    signature), impossible dynamic broadcasts are removed first; with
    `pieces` > 1, a large function is cut into that many (split_functions.py)."""
    cpu = cpu_target(cpu)
    body = _vectorize(cpu, returns) + _BACKEND if vectorize else _returning(_NAIVE, returns)
    body = with_pieces(body, pieces)
    return pipeline_text((OUTLINE if outline else []) + _frontend(dynamic) + body + _jit(cpu))


VERIFY_EACH = "TOSA_CUSTOM_VERIFY_EACH"
"""Set to 1, the runtime's lowering verifies the IR after every pass (as the
opt tool does), to find the pass that broke it; by default it verifies what
each of its pipelines makes, once (about half of a large program's lowering
time was the verifier, run after each of ~60 passes)."""


def _run(module, elements, on_result=None) -> None:
    run_pipeline(module, elements, "lowering to LLVM", category="runtime-lowering-failed", on_result=on_result,
                 verify_each=os.environ.get(VERIFY_EACH, "0") not in ("", "0"))


@register_pass(DISTINCT_RESULTS,
               "Return a buffer a function returns more than once as a copy per extra result "
               "(buffer-results-to-out-params{hoist-static-allocs} would free it twice)")
def distinct_results(module, ctx: PassContext | None = None) -> int:
    """Returns how many results got their own buffer.

    A TOSA function returning one value twice is what torch.export gives for
    an input the model mutates and also returns. After bufferization both
    results are one `memref.alloc`; hoisting replaces the allocation by the
    first output argument and erases it, then reaches it again for the second
    (a use after free: a segmentation fault). Each later occurrence becomes a
    fresh allocation, filled by a copy, which hoisting then turns into the
    caller's own output buffer.
    """
    copied = 0
    returns = []  # each ends a block of a function's body: found without walking the bodies (~10 ms on BERT)
    for function in collect_ops(module, lambda op: op.name == "func.func", enter_matches=False):
        for block in function.regions[0].blocks:
            ops = block.operations
            if len(ops) and ops[len(ops) - 1].name == "func.return":
                returns.append(ops[len(ops) - 1].operation)
    with module.context, ir.Location.unknown():
        for ret in returns:
            seen = set()
            for i, v in enumerate(list(ret.operands)):
                t = v.type
                key = v  # ir.Value hashes by identity of the SSA value
                if key not in seen:
                    seen.add(key)
                    continue
                if not isinstance(t, ir.MemRefType) or not t.has_static_shape or \
                        t != ir.MemRefType.get(t.shape, t.element_type):
                    continue  # not a buffer hoisting would take (out-params copies it)
                with ir.InsertionPoint(ret), ret.location:
                    fresh = memref_d.alloc(t, [], [])
                    memref_d.copy(v, fresh)
                ret.operands[i] = fresh
                copied += 1
    return copied


@register_pass(TO_BUFFER_PER_CALL,
               "Give each kernel call its own bufferization.to_buffer of a tensor it reads, right before it (CSE "
               "merges them, and bufferization then reuses the tensor's buffer before a later call reads it)")
def to_buffer_per_call(module, ctx: PassContext | None = None) -> int:
    """Returns how many views were re-created.

    The outline reads a kernel's inputs through read-only `to_buffer` views
    made right before its call. Two calls reading the same tensor get one
    view after CSE, placed before the first call, so one-shot bufferization
    sees the tensor's last read there and may compute a later value into its
    buffer before the second call reads it (a wrong answer: cross product of
    int64 tensors, four index_select calls on two computed indices). A view
    per call, right before it, keeps the tensor alive until the call.
    """
    made = 0
    views = collect_ops(module, lambda op: op.name == "bufferization.to_buffer")
    for view in views:
        uses = [use for use in view.results[0].uses]
        if not uses or not all(use.owner.name == "func.call" for use in uses):
            continue
        for use in uses:
            user = use.owner
            copy = view.clone(ip=ir.InsertionPoint(user))
            user.operands[use.operand_number] = copy.results[0]
            made += 1
        view.erase()
    return made


@register_pass(WRITE_RESULTS_IN_PLACE,
               "Compute a result held in a reshaped buffer into the caller's output buffer directly, instead of "
               "copying it there at the end")
def write_results_in_place(module, ctx: PassContext | None = None) -> int:
    """`memref.copy(reshape(%alloc), %out)` at the end of a function -> compute into %out directly.

    buffer-results-to-out-params makes a returned allocation the caller's
    output buffer only when it is returned as is; a result computed in a
    reshaped buffer (pack_columns' [.., N/NR, NR] view of C) is copied out
    instead. If the output argument is used by nothing else, the allocation
    becomes the matching reshape of the argument and the copy goes away.
    Returns how many copies were removed.
    """
    copies = collect_ops(module, lambda op: op.name == "memref.copy")
    removed = 0
    with module.context, ir.Location.unknown():
        for copy in copies:
            src, dst = copy.operands
            if not isinstance(dst.owner, ir.Block) or not single_use(dst) or not single_use(src):
                continue
            reshape = src.owner
            if isinstance(reshape, ir.Block) or reshape.operation.name not in (
                    "memref.collapse_shape", "memref.expand_shape"):
                continue
            reshape = reshape.operation
            alloc = reshape.operands[0].owner
            if isinstance(alloc, ir.Block) or alloc.operation.name != "memref.alloc":
                continue
            alloc = alloc.operation
            alloc_type = alloc.results[0].type
            if not alloc_type.has_static_shape or alloc.parent != copy.parent or list(alloc.operands):
                continue
            with ir.InsertionPoint(alloc), alloc.location:
                groups = reshape.attributes["reassociation"]
                if reshape.name == "memref.collapse_shape":
                    view = memref_d.expand_shape(alloc_type, dst, groups, [], list(alloc_type.shape))
                else:
                    view = memref_d.collapse_shape(alloc_type, dst, groups)
            if view.type != alloc_type:
                view.owner.erase()
                continue
            copy.erase()
            reshape.erase()
            alloc.results[0].replace_all_uses_with(view)
            alloc.erase()
            removed += 1
    return removed


@register_pass(FUSE_MULTIPLY_ADD,
               "Fuse addf(acc, mulf(a, b)) on vectors into math.fma (the vectorized generic contractions' inner "
               "loop)")
def fuse_multiply_add(module, ctx: PassContext | None = None) -> int:
    """`addf(acc, mulf(a, b))` on vectors -> `math.fma(a, b, acc)`. Returns how many.
    Not on float16 or bfloat16 vectors: eager rounds the product to the half
    type before the sum (half_rounding.py); their contractions accumulate in
    float32, which is fused.

    The vectorizer turns a contraction written as a linalg.generic into a
    multiply and an add per reduction step (only named contractions become
    vector.contract, which lowers to FMAs); LLVM does not fuse them without
    fast-math flags, which doubles the arithmetic of the inner loop. A
    `vector.shape_cast` between the two (dropping a unit reduction dimension)
    is looked through.
    """
    found = collect_ops(
        module, lambda op: op.name == "arith.addf" and isinstance(op.results[0].type, ir.VectorType)
        and not isinstance(ir.VectorType(op.results[0].type).element_type, (ir.F16Type, ir.BF16Type))
    )
    fused = 0
    with module.context, ir.Location.unknown():
        for add in found:
            for i in (0, 1):
                v, acc = add.operands[i], add.operands[1 - i]
                cast = producer(v, "vector.shape_cast")
                mul = producer(cast.operands[0] if cast else v, "arith.mulf")
                if mul is None:
                    continue
                t = add.results[0].type
                with ir.InsertionPoint(add), add.location:
                    a, b = mul.operands
                    if cast is not None:
                        a, b = vector_d.shape_cast(t, a), vector_d.shape_cast(t, b)
                    new = math_d.fma(a, b, acc)
                add.results[0].replace_all_uses_with(new)
                add.erase()
                if cast is not None:
                    cast.erase()
                mul.erase()
                fused += 1
                break
    return fused


@register_pass(SPLIT_MULTIPLY_ADD,
               "Split math.fma and vector.fma into mulf + addf, for a CPU without FMA (LLVM would call libm's "
               "fmaf per lane)")
def split_multiply_add(module, ctx: PassContext | None = None) -> int:
    """Returns how many were split. The polynomials of polymath.py and the
    outer products of contractions are written with FMAs; on SSE or AVX
    (no FMA unit) an unfused multiply and add is the fast form (and as
    accurate as what eager PyTorch computes there)."""
    found = collect_ops(module, lambda op: op.name in ("math.fma", "vector.fma"))
    with module.context, ir.Location.unknown():
        for op in found:
            a, b, c = op.operands
            with ir.InsertionPoint(op), op.location:
                new = arith_d.addf(arith_d.mulf(a, b), c)
            op.results[0].replace_all_uses_with(new)
            op.erase()
    return len(found)


@register_pass(JIT_FEATURES,
               "Give every LLVM function the target features the JIT must leave out (`-avx512f`: the code an AVX2 "
               "host runs, on an AVX-512 host)",
               options=(Option("features", "LLVM target features, comma-separated", (), parse_names, metavar="a,b"),))
def jit_features(module, ctx: PassContext | None = None) -> int:
    """Returns how many functions got them. The ExecutionEngine targets the
    host's CPU; a function's `target_features` override its features (the
    CPU name is not taken from a function), so removing features is how a
    program is made to run as on a narrower CPU."""
    features = ctx.options.features if ctx is not None else ()
    if not features:
        return 0
    # Not into the bodies: a walk visiting every LLVM op in Python cost 70 ms for the example block.
    found = collect_ops(module, lambda op: op.name == "llvm.func" and len(op.regions[0].blocks) > 0,
                        enter_matches=False)
    with module.context:
        attr = ir.Attribute.parse("#llvm.target_features<[" + ", ".join(f'"{f}"' for f in features) + "]>")
        for fn in found:
            fn.attributes["target_features"] = attr
    return len(found)


def _dynamic_signature(module) -> bool:
    """Some function of `module` takes or returns a tensor with a `?` dim."""
    for func in collect_ops(module, lambda op: op.name == "func.func", enter_matches=False):
        ftype = ir.TypeAttr(func.attributes["function_type"]).value
        if any(isinstance(t, ir.RankedTensorType) and not t.has_static_shape
               for t in list(ftype.inputs) + list(ftype.results)):
            return True
    return False


def lower_to_vectors(module: ir.Module, cpu: "str | CpuTarget | None" = None) -> dict[TilePlan, int]:
    """The vectorizing lowering up to, not including, the LLVM dialect, in place.

    Leaves 1-D vector ops, scf loops and memrefs (and linalg ops that were not
    tiled); returns the tile plans used. Errors propagate (no fallback): for
    tests and for looking at the code `lower` makes.
    """
    plans: dict[TilePlan, int] = {}
    _run(module, _frontend(_dynamic_signature(module)) + _vectorize(cpu_target(cpu)),
         on_result={TILE_AND_VECTORIZE: plans.update})
    return plans


def lower(module: ir.Module, vectorize: bool = True, cpu: "str | CpuTarget | None" = None,
          returns: bool = False, pieces: int = 1) -> str:
    """Lower TOSA (custom ops already outlined) to the LLVM dialect, in place;
    returns the pipeline run (`pipeline(vectorize, outline=False)`, or the
    naive one it fell back to).

    With `vectorize`, contractions (matmul, batch_matmul and the generics
    fusion makes of them), elementwise ops and reductions are tiled and
    vectorized with the transform dialect; other linalg ops become loops. If
    that fails, the module is lowered naively instead, with a RuntimeWarning
    (slow, still right). Without, every linalg op becomes scalar loops
    (NAIVE_PIPELINE). Tiles are sized for `cpu` (default $TOSA_CUSTOM_CPU,
    else the host's ISA); a narrower ISA than the host's also keeps the JIT
    to it. With `pieces` > 1, a large function is cut into about that many
    pieces of equal size, compiled apart (split_functions.py). Raises
    `CompileError` (runtime-lowering-failed) if a pass fails.
    """
    cpu = cpu_target(cpu)
    jit = _jit(cpu)
    dynamic = _dynamic_signature(module)
    frontend = _frontend(dynamic)
    if not vectorize:
        _run(module, frontend + with_pieces(_returning(_NAIVE, returns), pieces) + jit)
        return pipeline(False, outline=False, cpu=cpu, returns=returns, dynamic=dynamic, pieces=pieces)
    vectorizing = _vectorize(cpu, returns)
    _run(module, frontend)
    with module.context:
        saved = module.operation.clone(ip=False)
    try:
        _run(module, vectorizing)
        ran = frontend + vectorizing
    except (ValueError, CompileError) as e:
        warnings.warn(f"tosa_custom.runtime: tiling/vectorization failed, lowering with naive loops: {e}",
                      RuntimeWarning, stacklevel=2)
        for op in list(module.body.operations):
            op.erase()
        for op in list(saved.regions[0].blocks[0].operations):
            module.body.append(op)
        naive = _returning(_NAIVE_BUFFERIZE, returns)
        _run(module, naive)
        ran = frontend + naive
    finally:
        saved.erase()
    backend = with_pieces(_BACKEND, pieces)
    _run(module, backend + jit)
    return pipeline_text(ran + backend + jit)
