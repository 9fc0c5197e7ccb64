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
transform dialect: `plan_tiling` picks, per op, a register tile (8 x 32 f32
accumulators for a contraction, one reduction step at a time; 64 lanes along
the contiguous dimension otherwise), a generated script applies
`tile_using_for` / `structured.fuse` + `structured.vectorize` (tiling.py), and
the vector ops are lowered to FMAs on 1-D vectors. f32 exp, tanh and erf become
polynomials (polymath.py; LLVM would call libm per lane). What the planner does not
take (convolutions, gathers, ops on i1 buffers) becomes loops as before, and
`vectorize=False` gives the old all-loops lowering. The pass list around it
is the one the platform notes found to work (and why each odd step is there).
"""

from __future__ import annotations

import warnings

from torch_mlir import ir, passmanager
from torch_mlir.dialects import memref as memref_d
from torch_mlir.dialects import math as math_d
from torch_mlir.dialects import vector as vector_d

from .._ir import collect_ops
from .outline import CustomCallSite, outline_custom_ops
from .polymath import expand_math
from .tiling import (
    VECTOR_LOWERING_SCRIPT,
    TilePlan,
    apply_script,
    make_columns_contiguous,
    pack_columns,
    plan_tiling,
    producer,
    single_use,
    tile_and_vectorize,
)

__all__ = [
    "CustomCallSite", "outline_custom_ops", "lower", "lower_to_vectors", "plan_tiling", "tile_and_vectorize",
    "expand_math", "fuse_multiply_add", "make_columns_contiguous", "pack_columns", "write_results_in_place",
    "TilePlan", "DEALLOCATION_PIPELINE", "LOWERING_PIPELINE", "NAIVE_PIPELINE", "FRONTEND_PIPELINE",
    "BUFFERIZE_PIPELINE", "BACKEND_PIPELINE", "VECTOR_LOWERING_SCRIPT",
]


# --- Pipelines -------------------------------------------------------------
#
# `lower()` runs, in order:
#   FRONTEND_PIPELINE       TOSA to linalg on tensors, elementwise fusion;
#   tile_and_vectorize      named ops (convolutions too) to linalg.generic,
#                           B operands made column-contiguous and, for big
#                           contractions, packed in panels; then the transform
#                           script `plan_tiling` makes for this module: tile,
#                           fuse C's fill, vectorize;
#   expand_math             f32 exp / tanh / erf as polynomials;
#   BUFFERIZE_PIPELINE      accumulators hoisted out of the reduction loops,
#                           bufferization, results as out-params;
#   write_results_in_place  no copy for a result computed in a reshaped buffer;
#   DEALLOCATION_PIPELINE   frees, memref.copy as loops;
#   fuse_multiply_add       mul + add of generic contractions as FMAs;
#   VECTOR_LOWERING_SCRIPT  vector ops to what LLVM lowers well;
#   BACKEND_PIPELINE        linalg left over as loops, everything to LLVM.
# NAIVE_PIPELINE is the old lowering: every linalg op as scalar loops (the
# floor the benchmark compares against, and the fallback if vectorizing fails).

_TOSA_TO_LINALG = (
    "func.func(tosa-optional-decompositions, tosa-infer-shapes, tosa-make-broadcastable, "
    "tosa-to-linalg-named, tosa-to-linalg, tosa-to-arith, tosa-to-tensor, tosa-to-scf),"
    "canonicalize, cse,"
    "func.func(linalg-fuse-elementwise-ops)"
)
_BUFFERIZE = (
    "one-shot-bufferize{bufferize-function-boundaries function-boundary-type-conversion=identity-layout-map},"
    "buffer-results-to-out-params{hoist-static-allocs modify-public-functions},"
    "buffer-deallocation-pipeline,"
    # The wheel lacks the runner-utils library: memrefCopy would not resolve.
    "func.func(refback-munge-memref-copy)"
)
_TO_LLVM = (
    "func.func(llvm-request-c-wrappers),"
    "expand-strided-metadata, lower-affine, convert-scf-to-cf,"
    "convert-vector-to-llvm{reassociate-fp-reductions}, finalize-memref-to-llvm,"
    # math ops LLVM has no intrinsic for (erf, tan, ...) become libm calls.
    "convert-math-to-llvm, convert-math-to-libm, convert-arith-to-llvm, convert-index-to-llvm, convert-ub-to-llvm,"
    "convert-func-to-llvm, convert-cf-to-llvm, reconcile-unrealized-casts"
)

FRONTEND_PIPELINE = f"builtin.module({_TOSA_TO_LINALG})"
BUFFERIZE_PIPELINE = (
    # inline: pack_columns' packing functions, now tiled.
    "builtin.module(inline, canonicalize, cse, func.func(loop-invariant-subset-hoisting), canonicalize,"
    "one-shot-bufferize{bufferize-function-boundaries function-boundary-type-conversion=identity-layout-map},"
    # Tiled loops carry their buffer through iter_args and copy each tile onto
    # itself: fold both, so the result is the allocation itself and
    # hoist-static-allocs can make it the caller's output buffer (no copy).
    "canonicalize, cse, canonicalize,"
    "buffer-results-to-out-params{hoist-static-allocs modify-public-functions})"
)
"""On tensors, after tiling: hoisting, bufferization, results as out-params.
`write_results_in_place` then runs, then DEALLOCATION_PIPELINE."""
DEALLOCATION_PIPELINE = (
    "builtin.module(buffer-deallocation-pipeline,"
    # The wheel lacks the runner-utils library: memrefCopy would not resolve.
    "func.func(refback-munge-memref-copy))"
)
BACKEND_PIPELINE = (
    "builtin.module(func.func(convert-linalg-to-loops), func.func(convert-vector-to-scf{full-unroll}),"
    f"{_TO_LLVM})"
)
NAIVE_PIPELINE = (
    f"builtin.module({_TOSA_TO_LINALG},"
    f"{_BUFFERIZE},"
    "func.func(convert-linalg-to-loops),"
    "func.func(llvm-request-c-wrappers),"
    "expand-strided-metadata, lower-affine, convert-scf-to-cf, finalize-memref-to-llvm,"
    "convert-math-to-llvm, convert-math-to-libm, convert-arith-to-llvm, convert-index-to-llvm, convert-ub-to-llvm,"
    "convert-func-to-llvm, convert-cf-to-llvm, reconcile-unrealized-casts)"
)
LOWERING_PIPELINE = NAIVE_PIPELINE  # the historic name: one textual pipeline, naive loops


def write_results_in_place(module: ir.Module) -> int:
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
    with module.context:
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


def fuse_multiply_add(module: ir.Module) -> int:
    """`addf(acc, mulf(a, b))` on vectors -> `math.fma(a, b, acc)`. Returns how many.

    The vectorizer turns a contraction written as a linalg.generic into a
    multiply and an add per reduction step (only named contractions become
    vector.contract, which lowers to FMAs); LLVM does not fuse them without
    fast-math flags, which doubles the arithmetic of the inner loop. A
    `vector.shape_cast` between the two (dropping a unit reduction dimension)
    is looked through.
    """
    found = collect_ops(
        module, lambda op: op.name == "arith.addf" and isinstance(op.results[0].type, ir.VectorType)
    )
    fused = 0
    with module.context:
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


def _vectorize_linalg(module: ir.Module) -> dict[TilePlan, int]:
    plans = tile_and_vectorize(module)
    expand_math(module)
    passmanager.PassManager.parse(BUFFERIZE_PIPELINE).run(module.operation)
    write_results_in_place(module)
    passmanager.PassManager.parse(DEALLOCATION_PIPELINE).run(module.operation)
    fuse_multiply_add(module)
    apply_script(module, VECTOR_LOWERING_SCRIPT)
    return plans


def lower_to_vectors(module: ir.Module) -> dict[TilePlan, int]:
    """The vectorizing lowering up to, not including, the LLVM dialect, in place.

    Leaves 1-D vector ops, scf loops and memrefs (and linalg ops that were not
    tiled); returns the tile plans used. Errors propagate (no fallback): for
    tests and for looking at the code `lower` makes.
    """
    with module.context:
        passmanager.PassManager.parse(FRONTEND_PIPELINE).run(module.operation)
        return _vectorize_linalg(module)


def lower(module: ir.Module, vectorize: bool = True) -> None:
    """Lower TOSA (custom ops already outlined) to the LLVM dialect, in place.

    With `vectorize`, contractions (matmul, batch_matmul and the generics
    fusion makes of them), elementwise ops and reductions are tiled and
    vectorized with the transform dialect; other linalg ops become loops. If
    that fails, the module is lowered naively instead, with a RuntimeWarning
    (slow, still right). Without, every linalg op becomes scalar loops
    (NAIVE_PIPELINE). Raises `ir.MLIRError` if a pass fails.
    """
    with module.context:
        if not vectorize:
            passmanager.PassManager.parse(NAIVE_PIPELINE).run(module.operation)
            return
        passmanager.PassManager.parse(FRONTEND_PIPELINE).run(module.operation)
        saved = module.operation.clone(ip=False)
        try:
            _vectorize_linalg(module)
        except (ValueError, ir.MLIRError) as e:
            warnings.warn(f"tosa_custom.runtime: tiling/vectorization failed, lowering with naive loops: {e}",
                          RuntimeWarning, stacklevel=2)
            for op in list(module.body.operations):
                op.erase()
            for op in list(saved.regions[0].blocks[0].operations):
                module.body.append(op)
            passmanager.PassManager.parse(f"builtin.module({_BUFFERIZE})").run(module.operation)
        finally:
            saved.erase()
        passmanager.PassManager.parse(BACKEND_PIPELINE).run(module.operation)
