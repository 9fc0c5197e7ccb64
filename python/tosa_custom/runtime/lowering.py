"""TOSA with `tosa.custom` ops, down to LLVM IR the ExecutionEngine runs.

`tosa-to-linalg` refuses `tosa.custom`, so each custom op first becomes, on
tensors, a call of a private extern function in destination-passing style:
inputs become read-only `bufferization.to_buffer` views (zero-copy, maybe
strided), the compiled code allocates the outputs, the kernel writes them, and
`bufferization.to_tensor ... restrict writable` hands them back. The kernel
never owns memory.

`lower` then takes the module to the LLVM dialect. Contractions (matmul,
batch_matmul, and the linalg.generic contractions elementwise fusion makes of
them), elementwise ops and reductions are tiled and vectorized with the
transform dialect: `plan_tiling` picks, per op, a register tile (8 x 32 f32
accumulators for a contraction, one reduction step at a time; 64 lanes along
the contiguous dimension otherwise), a generated script applies
`tile_using_for` / `structured.fuse` + `structured.vectorize`, and the vector
ops are lowered to FMAs on 1-D vectors. f32 exp and tanh become polynomials
(`expand_math`; LLVM would call libm per lane). What the planner does not
take (convolutions, gathers, ops on i1 buffers) becomes loops as before, and
`vectorize=False` gives the old all-loops lowering. The pass list around it
is the one the platform notes found to work (and why each odd step is there).
"""

from __future__ import annotations

import dataclasses
import warnings

from torch_mlir import ir, passmanager
from torch_mlir.dialects import arith
from torch_mlir.dialects import func as func_d
from torch_mlir.dialects import linalg as linalg_d
from torch_mlir.dialects import memref as memref_d
from torch_mlir.dialects import tensor as tensor_d
from torch_mlir.dialects import math as math_d
from torch_mlir.dialects import vector as vector_d
from torch_mlir.dialects.transform import interpreter

from ..decode import custom_op_strings, custom_ops

__all__ = [
    "CustomCallSite", "outline_custom_ops", "lower", "lower_to_vectors", "plan_tiling", "tile_and_vectorize",
    "expand_math", "fuse_multiply_add", "make_columns_contiguous", "pack_columns", "write_results_in_place",
    "TilePlan", "DEALLOCATION_PIPELINE", "LOWERING_PIPELINE", "NAIVE_PIPELINE", "FRONTEND_PIPELINE",
    "BUFFERIZE_PIPELINE", "BACKEND_PIPELINE", "VECTOR_LOWERING_SCRIPT",
]


@dataclasses.dataclass(frozen=True)
class CustomCallSite:
    """One former tosa.custom: its extern symbol and its tensor types."""

    index: int
    symbol: str  # the extern function; the JIT resolves `_mlir_ciface_` + symbol
    operator_name: str
    domain_name: str
    implementation_attrs: str
    input_types: tuple[str, ...]  # element types, e.g. "f32"
    input_shapes: tuple[tuple[int, ...], ...]
    output_types: tuple[str, ...]
    output_shapes: tuple[tuple[int, ...], ...]
    location: str
    const_inputs: tuple  # per input: the constant's Python value for tosa.const scalars/lists, else None


def _strided(shape: list[int], element: ir.Type) -> ir.Type:
    layout = "strided<[" + ", ".join("?" for _ in shape) + "], offset: ?>"
    dims = "".join(f"{d}x" for d in shape)
    return ir.Type.parse(f"memref<{dims}{element}, {layout}>")


def _identity(shape: list[int], element: ir.Type) -> ir.Type:
    return ir.Type.parse("memref<" + "".join(f"{d}x" for d in shape) + f"{element}>")


def outline_custom_ops(module: ir.Module, read_constant) -> list[CustomCallSite]:
    """Rewrite every tosa.custom into a destination-passing extern call.

    `read_constant(value)` returns the Python value of a `tosa.const` operand
    (scalars and lists the const encoding made), else None.
    """
    sites: list[CustomCallSite] = []
    with module.context, ir.Location.unknown():
        body = module.body
        for index, op in enumerate(custom_ops(module)):
            operator_name, domain_name, attrs = custom_op_strings(op)
            symbol = f"tosa_custom_kernel_{index}"
            in_types = [v.type for v in op.operands]
            out_types = [r.type for r in op.results]
            for t in in_types + out_types:
                if not t.has_static_shape:
                    raise ValueError(
                        f"{op.location}: {operator_name} has a dynamic shape {t}; the runtime needs static shapes"
                    )
            in_memrefs = [_strided(t.shape, t.element_type) for t in in_types]
            out_memrefs = [_identity(t.shape, t.element_type) for t in out_types]
            with ir.InsertionPoint.at_block_begin(body):
                fn_type = ir.FunctionType.get(in_memrefs + out_memrefs, [])
                decl = ir.Operation.create(
                    "func.func",
                    attributes={
                        "sym_name": ir.StringAttr.get(symbol),
                        "function_type": ir.TypeAttr.get(fn_type),
                        "sym_visibility": ir.StringAttr.get("private"),
                        "llvm.emit_c_interface": ir.UnitAttr.get(),
                    },
                    regions=1,
                )
                del decl
            loc = op.location
            with ir.InsertionPoint(op), loc:
                views = [
                    ir.Operation.create(
                        "bufferization.to_buffer", results=[m], operands=[v],
                        attributes={"read_only": ir.UnitAttr.get()},
                    ).result
                    for v, m in zip(op.operands, in_memrefs)
                ]
                outs = [ir.Operation.create("memref.alloc", results=[m],
                                            attributes={"operandSegmentSizes": ir.DenseI32ArrayAttr.get([0, 0])}).result
                        for m in out_memrefs]
                ir.Operation.create(
                    "func.call", operands=views + outs,
                    attributes={"callee": ir.FlatSymbolRefAttr.get(symbol)},
                )
                for r, m in zip(op.results, outs):
                    back = ir.Operation.create(
                        "bufferization.to_tensor", results=[r.type], operands=[m],
                        attributes={"restrict": ir.UnitAttr.get(), "writable": ir.UnitAttr.get()},
                    ).result
                    r.replace_all_uses_with(back)
            sites.append(CustomCallSite(
                index=index, symbol=symbol, operator_name=operator_name, domain_name=domain_name,
                implementation_attrs=attrs,
                input_types=tuple(str(t.element_type) for t in in_types),
                input_shapes=tuple(tuple(t.shape) for t in in_types),
                output_types=tuple(str(t.element_type) for t in out_types),
                output_shapes=tuple(tuple(t.shape) for t in out_types),
                location=str(loc),
                const_inputs=tuple(read_constant(v) for v in op.operands),
            ))
            op.erase()
    return sites


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

_SEQUENCE_HEAD = """module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.consumed}) {
"""
_SEQUENCE_TAIL = """    transform.yield
  }
}
"""

VECTOR_LOWERING_SCRIPT = _SEQUENCE_HEAD + """\
    %f = transform.structured.match ops{["func.func"]} in %root : (!transform.any_op) -> !transform.any_op
    transform.apply_patterns to %f {
      transform.apply_patterns.vector.reduction_to_contract
      transform.apply_patterns.vector.transfer_permutation_patterns
      transform.apply_patterns.vector.cast_away_vector_leading_one_dim
    } : !transform.any_op
    transform.apply_patterns to %f {
      transform.apply_patterns.vector.lower_contraction lowering_strategy = "outerproduct"
      transform.apply_patterns.vector.lower_outerproduct
      transform.apply_patterns.vector.reorder_multi_reduction_dims lowering_strategy = "innerreduction"
      transform.apply_patterns.vector.multi_reduction_flattening lowering_strategy = "innerreduction"
      transform.apply_patterns.vector.multi_reduction_unrolling lowering_strategy = "innerreduction"
      transform.apply_patterns.vector.lower_transpose lowering_strategy = "shuffle_1d"
      transform.apply_patterns.vector.lower_shape_cast
      transform.apply_patterns.vector.lower_broadcast
      transform.apply_patterns.vector.split_transfer_full_partial split_transfer_strategy = "linalg-copy"
      transform.apply_patterns.vector.transfer_to_scf max_transfer_rank = 1 full_unroll = true
      transform.apply_patterns.vector.lower_transfer max_transfer_rank = 1
    } : !transform.any_op
""" + _SEQUENCE_TAIL
"""Vector ops to what convert-vector-to-llvm handles well: contractions become
outer products and then FMAs on 1-D vectors, multi-reductions horizontal
reductions, n-D transfers 1-D loads and stores. No canonicalization after it:
that would fold the chains of row inserts that build a 2-D accumulator into a
`vector.from_elements` of every scalar, which LLVM then builds lane by lane."""

# Register tile of a contraction: MR rows x NR columns of the output, the
# reduction one step at a time with the accumulators in registers (16 zmm
# for 8 x 32 f32, plus the B row and a broadcast: fits AVX-512's 32).
_MR, _NR = 8, 32
# Vector length (elements) for elementwise ops, and for a reduction along the
# contiguous dimension.
_VEC_ELEMENTWISE, _VEC_REDUCTION = 64, 512

# Named ops without indexing maps that become linalg.generic before planning
# (convolutions and pooling too, by prefix: `_generalize_script`).
_GENERALIZE = ("linalg.transpose", "linalg.copy", "linalg.broadcast", "linalg.map", "linalg.reduce",
               "linalg.elementwise")
_GENERALIZE_PREFIXES = ("linalg.conv_", "linalg.depthwise_conv_", "linalg.pooling_")
_BODY_OK = ("arith.", "math.", "linalg.yield")


@dataclasses.dataclass(frozen=True)
class TilePlan:
    """How one linalg op is tiled and vectorized."""

    kind: str  # "contraction" (named vector.contract), "contraction-like", "elementwise"
    tile_sizes: tuple[int, ...]
    interchange: tuple[int, ...] | None = None
    # The output is a linalg.fill no other linalg op feeds: tile the parallel
    # loops with the fill fused in (its tile becomes the zero accumulator in
    # registers, no pass over memory), then the reduction loops.
    fuse_fill: bool = False
    reduction: tuple[bool, ...] = ()
    # A sliding-window access (a convolution's oh + kh): the tile leaves the
    # window loops at 1, and its unit dimensions are folded away before it is
    # vectorized (the vectorizer takes only plain dimensions).
    window: bool = False


def _largest_divisor(n: int, cap: int) -> int:
    for c in range(min(n, cap), 0, -1):
        if n % c == 0:
            return c
    return 1


def _dim(expr) -> int | None:
    return expr.position if isinstance(expr, ir.AffineDimExpr) else None


def _linear_terms(expr) -> dict[int, int] | None:
    """{dim: coefficient} of a sum of dims times constants (plus a constant), else None."""
    if isinstance(expr, ir.AffineDimExpr):
        return {expr.position: 1}
    if isinstance(expr, ir.AffineConstantExpr):
        return {}
    if isinstance(expr, ir.AffineMulExpr):
        for a, b in ((expr.lhs, expr.rhs), (expr.rhs, expr.lhs)):
            if isinstance(b, ir.AffineConstantExpr):
                terms = _linear_terms(a)
                return None if terms is None else {d: c * b.value for d, c in terms.items()}
        return None
    if isinstance(expr, ir.AffineAddExpr):
        lhs, rhs = _linear_terms(expr.lhs), _linear_terms(expr.rhs)
        if lhs is None or rhs is None:
            return None
        for d, c in rhs.items():
            lhs[d] = lhs.get(d, 0) + c
        return lhs
    return None


def _producer_name(v: ir.Value) -> str:
    owner = v.owner
    return "" if isinstance(owner, ir.Block) else owner.operation.name


def _is_pure_contraction(body: ir.Block, n_inputs: int) -> bool:
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
class _LoopInfo:
    maps: list
    operands: list
    reduction: list[bool]
    ranges: list[int]
    shaped: list  # ShapedType or None, per operand
    windows: list[dict[int, int]]  # the compound (sliding-window) input indices
    bool_dims: set[int]  # loops a bool (i1) operand is indexed by
    body_ops: list[str]

    @property
    def n_loops(self) -> int:
        return len(self.ranges)

    def is_contraction(self) -> bool:
        names = self.body_ops
        return (any(self.reduction) and len(self.operands) >= 3
                and any(n in ("arith.mulf", "arith.muli") for n in names)
                and any(n in ("arith.addf", "arith.addi") for n in names))

    def columns_and_rows(self) -> tuple[int, int | None]:
        """The output loops a contraction's register tile spans: columns (vector lanes), rows."""
        out_dims = [d for d in (_dim(e) for e in self.maps[-1].results) if d is not None]
        wide = [d for d in out_dims if self.ranges[d] > 1]
        n_dim = (wide or out_dims)[-1]
        inputs = self.maps[:-1]
        with_n = [m for m in inputs if n_dim in {_dim(e) for e in m.results}]
        b_dims = set()
        if len(with_n) < len(inputs):  # some input (A) lacks the columns: rows are A's own loops
            for m in with_n:
                b_dims.update(_dim(e) for e in m.results)
        rows = [d for d in out_dims if d != n_dim and d not in b_dims]
        rows = [d for d in rows if self.ranges[d] > 1] or rows
        return n_dim, (rows[-1] if rows else None)


def _analyze(op) -> _LoopInfo | None:
    """Loops, ranges and accesses of a linalg op with static shapes, or None."""
    attrs = op.attributes
    if "indexing_maps" not in attrs or len(op.regions) != 1:
        return None
    maps = [ir.AffineMapAttr(a).value for a in attrs["indexing_maps"]]
    operands = list(op.operands)
    if len(maps) != len(operands) or not maps or maps[0].n_dims == 0:
        return None
    n_loops = maps[0].n_dims
    out_dims = [_dim(e) for e in maps[-1].results]
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
    for i, (m, v) in enumerate(zip(maps, operands)):
        t = v.type
        if not isinstance(t, ir.ShapedType):
            shaped.append(None)
            continue
        if not t.has_static_shape:
            return None
        shaped.append(t)
        for j, e in enumerate(m.results):
            d = _dim(e)
            if d is not None:
                if ranges[d] is None:
                    ranges[d] = t.shape[j]
                continue
            terms = _linear_terms(e)
            if terms is None or i == len(operands) - 1:
                return None  # floordiv/mod (im2col-like) or a windowed output: left to loops
            if len([d for d, c in terms.items() if c]) > 1:
                windows.append(terms)
        if isinstance(t.element_type, ir.IntegerType) and t.element_type.width == 1:
            # LLVM packs a vector of i1 into bits in memory; a memref of i1
            # holds one byte per element. Bool results stay scalar loops, and
            # bool operands are only ever read one element at a time.
            if i == len(operands) - 1:
                return None
            bool_dims.update(d for d in (_dim(e) for e in m.results) if d is not None)
            for e in m.results:
                terms = _linear_terms(e) or {}
                bool_dims.update(terms)
    if any(r is None for r in ranges):
        return None
    body_ops = [o.name for o in op.regions[0].blocks[0].operations]
    if not all(n.startswith(_BODY_OK) for n in body_ops):
        return None  # linalg.index, tensor.extract (gathers), ...: left to loops
    return _LoopInfo(maps, operands, reduction, ranges, shaped, windows, bool_dims, body_ops)


def _plan(op) -> TilePlan | None:
    info = _analyze(op)
    if info is None:
        return None
    n_loops, ranges, reduction, operands = info.n_loops, info.ranges, info.reduction, info.operands
    window_dims = {d for w in info.windows for d in w}
    tiles = [1] * n_loops
    if info.is_contraction():
        n_dim, m_dim = info.columns_and_rows()
        if n_dim not in window_dims and n_dim not in info.bool_dims:
            tiles[n_dim] = _largest_divisor(ranges[n_dim], _NR)
        if m_dim is not None and m_dim not in info.bool_dims and all(
                # rows may slide (ow + kw) only with unit stride, the rest of the window kept at 1
                w.get(m_dim, 0) in (0, 1) for w in info.windows):
            tiles[m_dim] = _largest_divisor(ranges[m_dim], _MR)
        # Columns outermost: the B panel (K x NR) is reused across all row tiles.
        first = [d for d in (n_dim, m_dim) if d is not None]
        order = ([d for d in range(n_loops) if not reduction[d] and d not in first]
                 + first + [d for d in range(n_loops) if reduction[d]])
        kind = "contraction" if _is_pure_contraction(op.regions[0].blocks[0], len(operands) - 1) \
            else "contraction-like"
        # `structured.fuse` fuses every tileable producer, so only when the
        # fill is the one there is (a fused transpose would be recomputed per tile).
        fuse_fill = not info.windows and _producer_name(operands[-1]) == "linalg.fill" and not any(
            _producer_name(v).startswith(("linalg.", "tensor.pad")) for v in operands[:-1])
        return TilePlan(kind, tuple(tiles), tuple(order), fuse_fill, tuple(reduction), bool(info.windows))
    # Elementwise and reductions: vectorize along the contiguous dimension of
    # the largest operand, one step at a time along every other loop.
    best = None
    for m, t in zip(info.maps, info.shaped):
        if t is None or not m.results:
            continue
        # Its innermost dimension, looking past unit ones (contiguous all the same).
        inner = list(m.results)
        while len(inner) > 1 and _dim(inner[-1]) is not None and ranges[_dim(inner[-1])] == 1:
            inner.pop()
        d = _dim(inner[-1])
        if d is None:
            continue
        size = 1
        for s in t.shape:
            size *= s
        if best is None or size > best[0]:
            best = (size, d)
    if best is None:
        return None
    d = best[1]
    if d in info.bool_dims or d in window_dims:
        return None
    tiles[d] = _largest_divisor(ranges[d], _VEC_REDUCTION if reduction[d] else _VEC_ELEMENTWISE)
    return TilePlan("elementwise", tuple(tiles), window=bool(info.windows))


def make_columns_contiguous(module: ir.Module) -> int:
    """Transpose contraction operands whose column loop is not their innermost dimension.

    The register tile reads NR consecutive columns of B per reduction step;
    with B stored column-major (a convolution's f x kh x kw x c weights, a
    transposed matmul operand folded into a generic) those would be NR
    scalar loads. A `linalg.transpose` in front (usually of constant weights,
    small next to the contraction) makes them one vector load. Returns how
    many operands were transposed.
    """
    found = []

    def visit(op):
        if op.name == "linalg.generic":
            found.append(op)
            return ir.WalkResult.SKIP
        return ir.WalkResult.ADVANCE

    module.operation.walk(visit)
    count = 0
    with module.context:
        for op in found:
            info = _analyze(op)
            if info is None or not info.is_contraction():
                continue
            n_dim, _ = info.columns_and_rows()
            maps = list(info.maps)
            changed = False
            for i, (m, v) in enumerate(zip(info.maps[:-1], info.operands[:-1])):
                dims = [_dim(e) for e in m.results]
                t = info.shaped[i]
                if t is None or None in dims or n_dim not in dims or dims[-1] == n_dim:
                    continue
                if all(info.ranges[d] == 1 for d in dims[dims.index(n_dim) + 1:]):
                    continue  # only unit dimensions after it: already contiguous
                pos = dims.index(n_dim)
                perm = [j for j in range(len(dims)) if j != pos] + [pos]
                with ir.InsertionPoint(op), op.location:
                    empty = tensor_d.empty([t.shape[j] for j in perm], t.element_type)
                    transposed = linalg_d.transpose(v, outs=[empty], permutation=perm)
                op.operands[i] = transposed.results[0] if hasattr(transposed, "results") else transposed
                maps[i] = ir.AffineMap.get(m.n_dims, m.n_symbols, [m.results[j] for j in perm])
                changed = True
                count += 1
            if changed:
                op.attributes["indexing_maps"] = ir.ArrayAttr.get([ir.AffineMapAttr.get(m) for m in maps])
    return count


def plan_tiling(module: ir.Module) -> list[tuple[ir.Operation, TilePlan]]:
    """Every linalg op on tensors that `lower` tiles and vectorizes, with its plan."""
    found = []

    def visit(op):
        name = op.name
        if name.startswith("linalg.") and name not in ("linalg.yield", "linalg.index"):
            plan = _plan(op)
            if plan is not None:
                found.append((op, plan))
            return ir.WalkResult.SKIP
        return ir.WalkResult.ADVANCE

    module.operation.walk(visit)
    return found


_PLAN_ATTR = "tosa_custom.tile_plan"


def _tiling_script(plans: dict[TilePlan, int]) -> str:
    any_op = "!transform.any_op"

    def handles(n: int) -> str:
        return ", ".join([any_op] * n)

    def sizes(values) -> str:
        return ", ".join(map(str, values))

    lines = []
    for plan, k in plans.items():
        named = " {create_named_contraction}" if plan.kind == "contraction" else ""
        lines.append(
            f"    %m{k} = transform.structured.match attributes{{{_PLAN_ATTR} = {k} : i64}} in %root"
            f" : ({any_op}) -> {any_op}")
        # One op at a time: `structured.fuse` takes a single target.
        lines.append(f"    transform.foreach %m{k} : {any_op} {{")
        lines.append(f"    ^bb0(%op: {any_op}):")
        if plan.fuse_fill:
            parallel = [0 if r else t for t, r in zip(plan.tile_sizes, plan.reduction)]
            reduction = [t if r else 0 for t, r in zip(plan.tile_sizes, plan.reduction)]
            n_par, n_red = sum(1 for t in parallel if t), sum(1 for t in reduction if t)
            lines.append(
                f"      %f, %fl:{n_par} = transform.structured.fuse %op tile_sizes [{sizes(parallel)}]"
                f" interchange [{sizes(plan.interchange)}] : ({any_op}) -> ({handles(n_par + 1)})")
            lines.append(
                f"      %t, %l:{n_red} = transform.structured.tile_using_for %f tile_sizes [{sizes(reduction)}]"
                f" : ({any_op}) -> ({handles(n_red + 1)})")
            lines.append(f'      %z = transform.structured.match ops{{["linalg.fill"]}} in %fl#0'
                         f" : ({any_op}) -> {any_op}")
            lines.append(f"      transform.structured.vectorize %z : {any_op}")
        else:
            n_loops = sum(1 for t in plan.tile_sizes if t)
            inter = f" interchange = [{sizes(plan.interchange)}]" if plan.interchange else ""
            lines.append(
                f"      %t, %l:{n_loops} = transform.structured.tile_using_for %op"
                f" tile_sizes [{sizes(plan.tile_sizes)}]{inter} : ({any_op}) -> ({handles(n_loops + 1)})")
        if plan.window:
            # Drop the tile's unit loops (the window's kh, kw, oh, ...) so every
            # access is a plain dimension, then find the (new) op again.
            inner = f"%l#{(n_red if plan.fuse_fill else n_loops) - 1}"
            lines.append(f"      transform.apply_patterns to {inner} {{")
            lines.append("        transform.apply_patterns.linalg.fold_unit_extent_dims_via_slices")
            lines.append(f"      }} : {any_op}")
            lines.append(f'      %tw = transform.structured.match ops{{["linalg.generic"]}} in {inner}'
                         f" : ({any_op}) -> {any_op}")
        target = "%tw" if plan.window else "%t"
        lines.append(f"      transform.structured.vectorize {target}{named} : {any_op}")
        lines.append("    }")
    return _SEQUENCE_HEAD + "\n".join(lines) + "\n" + _SEQUENCE_TAIL


def _apply(module: ir.Module, script: str) -> None:
    transform_module = ir.Module.parse(script, module.context)
    entry = transform_module.body.operations[0]
    interpreter.apply_named_sequence(module.operation, entry, transform_module)


# Pack B into column panels when a contraction is big enough to pay for it:
# (M rows reuse each panel, the copy is K x N once per call).
_PACK_MIN_ROWS, _PACK_MIN_DEPTH, _PACK_MIN_COLUMNS_STRIDE = 64, 128, 1024


def _reassociation(groups: list[list[int]]) -> ir.ArrayAttr:
    i64 = ir.IntegerType.get_signless(64)
    return ir.ArrayAttr.get([ir.ArrayAttr.get([ir.IntegerAttr.get(i64, d) for d in g]) for g in groups])


def _split_last(v: ir.Value, t: ir.RankedTensorType, inner: int) -> ir.Value:
    """v viewed with its last dimension split in (n / inner, inner)."""
    shape = list(t.shape)
    new_shape = shape[:-1] + [shape[-1] // inner, inner]
    groups = [[i] for i in range(len(shape) - 1)] + [[len(shape) - 1, len(shape)]]
    return tensor_d.expand_shape(ir.RankedTensorType.get(new_shape, t.element_type), v, _reassociation(groups),
                                 [], new_shape)


def pack_columns(module: ir.Module) -> int:
    """Give big contractions a B packed in column panels: [.., N, ..] -> [N/NR, .., K, NR].

    The register tile walks B one row of NR columns per reduction step; in
    B's own layout those rows are N floats apart, and with N a power of two
    (512 x 2048 weights) every row falls in the same L1 set: measured 2.3-2.9x
    slower than eager PyTorch. Packed, a panel is K x NR contiguous floats. The
    contraction becomes a linalg.generic over (.., NB, .., NR) writing C viewed
    as [.., N/NR, NR] (the same memory). The packing copy runs in a private
    function, which `structured.fuse` (fusing C's fill) cannot pull into the
    tile loops to recompute per tile; the function is inlined after tiling.
    Returns how many contractions were packed.
    """
    found = []

    def visit(op):
        if op.name.startswith("linalg.") and "indexing_maps" in op.attributes:
            found.append(op)
            return ir.WalkResult.SKIP
        return ir.WalkResult.ADVANCE

    module.operation.walk(visit)
    packed = 0
    with module.context:
        for op in found:
            info = _analyze(op)
            if info is None or not info.is_contraction() or info.windows or len(op.results) != 1:
                continue
            n_dim, m_dim = info.columns_and_rows()
            if m_dim is None:
                continue
            n, rows = info.ranges[n_dim], info.ranges[m_dim]
            depth = 1
            for d, r in enumerate(info.reduction):
                if r:
                    depth *= info.ranges[d]
            if n % _NR or n < 2 * _NR or rows < _PACK_MIN_ROWS or (
                    depth < _PACK_MIN_DEPTH and n * 4 < _PACK_MIN_COLUMNS_STRIDE):
                continue
            maps = info.maps
            dims = [[_dim(e) for e in m.results] for m in maps]
            with_n = [i for i, ds in enumerate(dims[:-1]) if n_dim in ds]
            if len(with_n) != 1 or any(None in ds for ds in dims) or dims[-1][-1] != n_dim:
                continue
            b = with_n[0]
            if dims[b][-1] != n_dim:
                continue
            b_type, c_type = info.shaped[b], info.shaped[-1]
            if b_type is None or c_type is None or not isinstance(b_type, ir.RankedTensorType):
                continue
            rank_b = len(dims[b])
            # Packed B: [NB, (B's other dims in order), NR].
            perm = [rank_b - 1] + list(range(rank_b - 1)) + [rank_b]
            b_split_shape = list(b_type.shape[:-1]) + [n // _NR, _NR]
            packed_shape = [b_split_shape[p] for p in perm]
            packed_type = ir.RankedTensorType.get(packed_shape, b_type.element_type)
            name = f"__tosa_custom_pack_{packed}"
            parent = op.operation
            while parent.name != "func.func":
                parent = parent.parent
            with ir.InsertionPoint(parent), op.location:
                fn = func_d.FuncOp(name, ir.FunctionType.get([b_type], [packed_type]), visibility="private")
                entry = fn.add_entry_block()
                with ir.InsertionPoint(entry):
                    split = _split_last(entry.arguments[0], b_type, _NR)
                    empty = tensor_d.empty(packed_shape, b_type.element_type)
                    t = linalg_d.transpose(split, outs=[empty], permutation=perm)
                    func_d.ReturnOp([t.results[0] if hasattr(t, "results") else t])
            with ir.InsertionPoint(op), op.location:
                b_packed = func_d.CallOp([packed_type], name, [info.operands[b]]).result
                init = info.operands[-1]
                owner = init.owner
                split_c_type = ir.RankedTensorType.get(list(c_type.shape[:-1]) + [n // _NR, _NR],
                                                       c_type.element_type)
                if (not isinstance(owner, ir.Block) and owner.operation.name == "linalg.fill"
                        and _single_use(init)):
                    c_init = linalg_d.fill(owner.operation.operands[0],
                                           outs=[tensor_d.empty(split_c_type.shape, c_type.element_type)])
                    c_init = c_init.results[0] if hasattr(c_init, "results") else c_init
                else:
                    c_init = _split_last(init, c_type, _NR)
                # Loops: the old ones (n_dim now counts panels) ordered
                # (others, panels, rows, NR, reductions): the vectorizer builds
                # vectors in loop order, and the tile's unit loops (one panel)
                # must lead, not sit between rows and columns.
                n_loops = info.n_loops
                order = ([d for d in range(n_loops) if not info.reduction[d] and d not in (n_dim, m_dim)]
                         + [n_dim, m_dim, "nr"] + [d for d in range(n_loops) if info.reduction[d]])
                position = {d: i for i, d in enumerate(order)}
                nr = ir.AffineExpr.get_dim(position["nr"])

                def expr(d):
                    return ir.AffineExpr.get_dim(position[d])

                new_maps = []
                for i, ds in enumerate(dims):
                    if i == b:
                        results = [expr(d) for d in ds[:-1]] + [expr(n_dim), nr]
                        results = [results[p] for p in perm]
                    elif i == len(dims) - 1:
                        results = [expr(d) for d in ds[:-1]] + [expr(n_dim), nr]
                    else:
                        results = [expr(d) for d in ds]
                    new_maps.append(ir.AffineMapAttr.get(ir.AffineMap.get(n_loops + 1, 0, results)))
                iterators = [ir.Attribute.parse(
                    "#linalg.iterator_type<reduction>" if d != "nr" and info.reduction[d]
                    else "#linalg.iterator_type<parallel>") for d in order]
                inputs = [b_packed if i == b else v for i, v in enumerate(info.operands[:-1])]
                generic = linalg_d.GenericOp([split_c_type], inputs, [c_init], ir.ArrayAttr.get(new_maps),
                                             ir.ArrayAttr.get(iterators))
                op.regions[0].blocks[0].append_to(generic.regions[0])
                result = tensor_d.collapse_shape(c_type, generic.results[0], _reassociation(
                    [[i] for i in range(len(c_type.shape) - 1)] + [[len(c_type.shape) - 1, len(c_type.shape)]]))
            op.results[0].replace_all_uses_with(result)
            op.erase()
            if not isinstance(owner, ir.Block) and owner.operation.name == "linalg.fill" and not list(init.uses):
                owner.operation.erase()
            packed += 1
    return packed


def _generalize_script(names) -> str:
    generalize = ", ".join(f'"{n}"' for n in sorted(names))
    return (_SEQUENCE_HEAD
            + f"    %g = transform.structured.match ops{{[{generalize}]}} in %root"
            " : (!transform.any_op) -> !transform.any_op\n"
            "    %h = transform.structured.generalize %g : (!transform.any_op) -> !transform.any_op\n"
            + _SEQUENCE_TAIL)


def _generalize(module: ir.Module) -> None:
    names = set()

    def visit(op):
        name = op.name
        if name in _GENERALIZE or name.startswith(_GENERALIZE_PREFIXES):
            names.add(name)
        return ir.WalkResult.ADVANCE

    module.operation.walk(visit)
    if names:
        _apply(module, _generalize_script(names))


def tile_and_vectorize(module: ir.Module) -> dict[TilePlan, int]:
    """Tile and vectorize, on tensors, every linalg op `plan_tiling` finds."""
    with module.context, ir.Location.unknown():
        _generalize(module)
        if make_columns_contiguous(module) + pack_columns(module):
            _generalize(module)  # the transposes they added
        plans: dict[TilePlan, int] = {}
        i64 = ir.IntegerType.get_signless(64)
        for op, plan in plan_tiling(module):
            k = plans.setdefault(plan, len(plans))
            op.attributes[_PLAN_ATTR] = ir.IntegerAttr.get(i64, k)
        if plans:
            _apply(module, _tiling_script(plans))
    return plans


# --- Polynomial math ---------------------------------------------------------
#
# LLVM turns math.exp / math.tanh / math.powf into libm calls, one per lane of
# a vector: a GELU over a 512 x 1024 activation took 14 ms that way (and
# math.erf has no LLVM lowering at all). The wheel has no
# math-polynomial-approximation pass, so f32 exp, tanh and erf are expanded
# here into arithmetic that vectorizes (max error about 1.5 ulp for exp, 4e-7
# relative for tanh and erf), and powf by the constant 2 or 3 into products.
# What is left (f64, other functions) goes to LLVM intrinsics or, failing
# those, libm calls (convert-math-to-libm).


class _Builder:
    """Arithmetic on one float type (f32 or a vector of f32), at one place."""

    def __init__(self, ftype: ir.Type):
        self.ftype = ftype
        if isinstance(ftype, ir.VectorType):
            self.itype = ir.VectorType.get(ftype.shape, ir.IntegerType.get_signless(32))
        else:
            self.itype = ir.IntegerType.get_signless(32)

    def const(self, value: float) -> ir.Value:
        return self._splat(self.ftype, ir.FloatAttr.get(ir.F32Type.get(), value))

    def iconst(self, value: int) -> ir.Value:
        return self._splat(self.itype, ir.IntegerAttr.get(ir.IntegerType.get_signless(32), value))

    @staticmethod
    def _splat(t: ir.Type, scalar: ir.Attribute) -> ir.Value:
        attr = ir.DenseElementsAttr.get_splat(t, scalar) if isinstance(t, ir.VectorType) else scalar
        return arith.constant(t, attr)

    def poly(self, x: ir.Value, coefficients) -> ir.Value:
        """c[0] + c[1] x + ... by Horner's rule with FMAs."""
        acc = self.const(coefficients[-1])
        for c in reversed(coefficients[:-1]):
            acc = math_d.fma(acc, x, self.const(c))
        return acc

    def clamp(self, x: ir.Value, lo: float, hi: float) -> ir.Value:
        return arith.minimumf(arith.maximumf(x, self.const(lo)), self.const(hi))

    def pow2(self, n: ir.Value) -> ir.Value:
        """2**n for an integer-valued float n in [-126, 127]."""
        bits = arith.shli(arith.addi(arith.fptosi(self.itype, n), self.iconst(127)), self.iconst(23))
        return arith.bitcast(self.ftype, bits)


def _exp_f32(b: _Builder, x: ir.Value) -> ir.Value:
    # exp(x) = 2**n * exp(r), n = round(x / ln 2), r = x - n ln 2 (Cody-Waite),
    # exp(r) by the Cephes polynomial. 2**n in two halves keeps the
    # subnormal results near -100 and the largest ones near 88.7.
    xc = b.clamp(x, -104.0, 88.8)
    n = math_d.floor(math_d.fma(xc, b.const(1.44269504088896341), b.const(0.5)))
    r = math_d.fma(n, b.const(-0.693359375), xc)
    r = math_d.fma(n, b.const(2.12194440e-4), r)
    p = b.poly(r, [5.0000001201e-1, 1.6666665459e-1, 4.1665795894e-2, 8.3334519073e-3,
                   1.3981999507e-3, 1.9875691500e-4])
    y = arith.addf(math_d.fma(arith.mulf(p, r), r, r), b.const(1.0))
    n2 = math_d.floor(arith.mulf(n, b.const(0.5)))
    n1 = arith.subf(n, n2)
    y = arith.mulf(arith.mulf(y, b.pow2(n1)), b.pow2(n2))
    y = arith.select(arith.cmpf(arith.CmpFPredicate.OLT, x, b.const(-104.0)), b.const(0.0), y)
    y = arith.select(arith.cmpf(arith.CmpFPredicate.OGT, x, b.const(88.8)), b.const(float("inf")), y)
    return arith.select(arith.cmpf(arith.CmpFPredicate.UNO, x, x), x, y)


def _tanh_f32(b: _Builder, x: ir.Value) -> ir.Value:
    # Odd rational approximation on [-7.9, 7.9] (tanh is 1 to f32 precision
    # beyond), x itself where |x| < 4e-4.
    xc = b.clamp(x, -7.90531110763549805, 7.90531110763549805)
    x2 = arith.mulf(xc, xc)
    p = arith.mulf(xc, b.poly(x2, [4.89352455891786e-03, 6.37261928875436e-04, 1.48572235717979e-05,
                                   5.12229709037114e-08, -8.60467152213735e-11, 2.00018790482477e-13,
                                   -2.76076847742355e-16]))
    q = b.poly(x2, [4.89352518554385e-03, 2.26843463243900e-03, 1.18534705686654e-04, 1.19825839466702e-06])
    small = arith.cmpf(arith.CmpFPredicate.OLT, math_d.absf(x), b.const(0.0004))
    return arith.select(small, x, arith.divf(p, q))


def _erf_f32(b: _Builder, x: ir.Value) -> ir.Value:
    # |x| < 0.5: the odd Taylor polynomial; beyond: 1 - erfc(|x|) with the
    # Numerical Recipes erfc (relative error 1.2e-7) on our exp. Sign restored
    # last. Max error about 4e-7 relative, 2e-7 absolute.
    a = math_d.absf(x)
    small = arith.mulf(a, b.poly(arith.mulf(a, a), [
        1.1283791670955126, -0.37612638903183754, 0.11283791670955126, -0.026866170645131252,
        0.005223977625442188, -0.0008548327023450852, 0.00012055332981789664]))
    t = arith.divf(b.const(1.0), math_d.fma(a, b.const(0.5), b.const(1.0)))
    q = b.poly(t, [-1.26551223, 1.00002368, 0.37409196, 0.09678418, -0.18628806, 0.27886807,
                   -1.13520398, 1.48851587, -0.82215223, 0.17087277])
    erfc = arith.mulf(t, _exp_f32(b, arith.subf(q, arith.mulf(a, a))))
    large = arith.subf(b.const(1.0), erfc)
    r = arith.select(arith.cmpf(arith.CmpFPredicate.OLT, a, b.const(0.5)), small, large)
    return math_d.copysign(r, x)


def _constant_exponent(v: ir.Value) -> float | None:
    owner = v.owner
    if isinstance(owner, ir.Block):
        return None
    op = owner.operation
    if op.name == "vector.broadcast":
        return _constant_exponent(op.operands[0])
    if op.name != "arith.constant":
        return None
    attr = op.attributes["value"]
    if isinstance(attr, ir.FloatAttr):
        return attr.value
    if isinstance(attr, ir.DenseFPElementsAttr) and attr.is_splat:
        return ir.FloatAttr(attr.get_splat_value()).value
    return None


_EXPANDED = {"math.exp": _exp_f32, "math.tanh": _tanh_f32, "math.erf": _erf_f32, "math.powf": None}


def expand_math(module: ir.Module) -> int:
    """Replace f32 math.exp / tanh / erf, and powf by 2 or 3, with arithmetic. Returns how many."""
    found = []

    def visit(op):
        if op.name in _EXPANDED:
            found.append(op)
        return ir.WalkResult.ADVANCE

    module.operation.walk(visit)
    replaced = 0
    with module.context:
        for op in found:
            t = op.results[0].type
            element = t.element_type if isinstance(t, ir.VectorType) else t
            with ir.InsertionPoint(op), op.location:
                if op.name == "math.powf":
                    e = _constant_exponent(op.operands[1])
                    if e not in (2.0, 3.0):
                        continue
                    x = op.operands[0]
                    y = arith.mulf(x, x)
                    new = arith.mulf(y, x) if e == 3.0 else y
                elif not isinstance(element, ir.F32Type):
                    continue
                else:
                    new = _EXPANDED[op.name](_Builder(t), op.operands[0])
            op.results[0].replace_all_uses_with(new)
            op.erase()
            replaced += 1
    return replaced


def write_results_in_place(module: ir.Module) -> int:
    """`memref.copy(reshape(%alloc), %out)` at the end of a function -> compute into %out directly.

    buffer-results-to-out-params makes a returned allocation the caller's
    output buffer only when it is returned as is; a result computed in a
    reshaped buffer (pack_columns' [.., N/NR, NR] view of C) is copied out
    instead. If the output argument is used by nothing else, the allocation
    becomes the matching reshape of the argument and the copy goes away.
    Returns how many copies were removed.
    """
    copies = []

    def visit(op):
        if op.name == "memref.copy":
            copies.append(op)
        return ir.WalkResult.ADVANCE

    module.operation.walk(visit)
    removed = 0
    with module.context:
        for copy in copies:
            src, dst = copy.operands
            if not isinstance(dst.owner, ir.Block) or not _single_use(dst) or not _single_use(src):
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


def _single_use(v: ir.Value) -> bool:
    uses = iter(v.uses)
    return next(uses, None) is not None and next(uses, None) is None


def _producer(v: ir.Value, name: str):
    owner = v.owner
    if isinstance(owner, ir.Block) or owner.operation.name != name or not _single_use(v):
        return None
    return owner.operation


def fuse_multiply_add(module: ir.Module) -> int:
    """`addf(acc, mulf(a, b))` on vectors -> `math.fma(a, b, acc)`. Returns how many.

    The vectorizer turns a contraction written as a linalg.generic into a
    multiply and an add per reduction step (only named contractions become
    vector.contract, which lowers to FMAs); LLVM does not fuse them without
    fast-math flags, which doubles the arithmetic of the inner loop. A
    `vector.shape_cast` between the two (dropping a unit reduction dimension)
    is looked through.
    """
    found = []

    def visit(op):
        if op.name == "arith.addf" and isinstance(op.results[0].type, ir.VectorType):
            found.append(op)
        return ir.WalkResult.ADVANCE

    module.operation.walk(visit)
    fused = 0
    with module.context:
        for add in found:
            for i in (0, 1):
                v, acc = add.operands[i], add.operands[1 - i]
                cast = _producer(v, "vector.shape_cast")
                mul = _producer(cast.operands[0] if cast else v, "arith.mulf")
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
    _apply(module, VECTOR_LOWERING_SCRIPT)
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
