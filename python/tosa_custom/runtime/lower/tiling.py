"""Tiling and vectorization of linalg ops with the transform dialect.

`plan_tiling` picks, per op, a register tile for a contraction (MR rows x NR
columns of f32 accumulators, one reduction step at a time) and a vector length
along the contiguous dimension otherwise; a generated script applies
`tile_using_for` / `structured.fuse` + `structured.vectorize`. Big
contractions get their B operand packed in column panels first. What the
planner does not take (gathers, windows it cannot vectorize, ops on i1
buffers) is left for loops.

The sizes come from the CPU the program is planned for (`TileConfig.for_cpu`,
cpu.py): NR is two vector registers of columns, MR the most rows whose
accumulators, the B row and a broadcast of A fit the register file (AVX-512:
8 x 32 in 19 of 32 zmm; AVX2 / SSE: 6 x 16 / 6 x 8 in 15 of 16; NEON 8 x 8),
and per op the tile itself, peeled where it does not divide the loop
(transform_scripts.py), or a divisor of the loop that is nearly as big.
"""

from __future__ import annotations

import dataclasses
import math
import types

from torch_mlir import ir

from torch_mlir.dialects import arith as arith_d
from torch_mlir.dialects import func as func_d
from torch_mlir.dialects import linalg as linalg_d
from torch_mlir.dialects import tensor as tensor_d

from ...core.ir import collect_ops
from ...core.passes import Option, PassContext, register_pass
from ..compiled.cpu import CpuTarget, cpu_target
from .constants import is_dense_constant, packed_constant, transposed_constant
from .loop_analysis import DYNAMIC_RANGE, LoopInfo, analyze, dim, is_pure_contraction, producer_name
from .remainders import rewrite_remainders
from .transform_scripts import PLAN_ATTR, TilePlan, apply_script, generalize_script, tiling_script, vectorize_script

__all__ = ["TilePlan", "TileConfig", "tile_config", "apply_script", "make_columns_contiguous", "pack_columns",
           "plan_tiling", "producer", "single_use", "tile_and_vectorize", "generalize", "apply_tile_plans",
           "GENERALIZE", "MAKE_COLUMNS_CONTIGUOUS", "PACK_COLUMNS", "TILE_AND_VECTORIZE"]

GENERALIZE = "tosa-custom-generalize"
MAKE_COLUMNS_CONTIGUOUS = "tosa-custom-make-columns-contiguous"
PACK_COLUMNS = "tosa-custom-pack-columns"
TILE_AND_VECTORIZE = "tosa-custom-tile-and-vectorize"


@dataclasses.dataclass(frozen=True)
class TileConfig:
    """Register tile and vector lengths for one CPU (f32 elements)."""

    cpu: str  # the ISA name (cpu.ISAS)
    lanes: int  # f32 lanes per vector register
    registers: int
    # Contraction tile: MR rows x NR columns of the output, the reduction one
    # step at a time with the MR x NR accumulators in registers; per step one
    # B row (NR / lanes registers) and one broadcast A element.
    mr: int
    nr: int
    # Vector length for elementwise ops, and for a reduction along the
    # contiguous dimension (LLVM splits either into registers).
    elementwise: int
    reduction: int
    # Vector registers of columns in the contraction tile.
    COLUMN_VECTORS = 2
    MAX_ROWS = 8

    @classmethod
    def for_cpu(cls, cpu: CpuTarget) -> "TileConfig":
        lanes, regs = cpu.lanes, cpu.registers
        nv = cls.COLUMN_VECTORS
        mr = min(cls.MAX_ROWS, (regs - nv - 1) // nv)
        # Elementwise: a few registers per value (polynomials keep ~6 values
        # live); reductions: as many lanes as the file has, reduced as a tree.
        return cls(cpu.name, lanes, regs, mr, nv * lanes, lanes * max(1, regs // 8), lanes * regs)

    def registers_used(self, rows: int | None = None, columns: int | None = None) -> int:
        """Vector registers one reduction step of a rows x columns tile keeps live:
        accumulators, the B row, the broadcast A element."""
        rows = self.mr if rows is None else rows
        vectors = -(-(self.nr if columns is None else columns) // self.lanes)
        return rows * vectors + vectors + 1

    def describe(self) -> str:
        return (f"contraction tile {self.mr} x {self.nr} ({self.registers_used()} of {self.registers} registers), "
                f"elementwise {self.elementwise} lanes, reductions {self.reduction}")


def tile_config(cpu: "str | CpuTarget | TileConfig | None" = None) -> TileConfig:
    """The config for an ISA name, a CpuTarget, or (None) $TOSA_CUSTOM_CPU / the host."""
    return cpu if isinstance(cpu, TileConfig) else TileConfig.for_cpu(cpu_target(cpu))


def _cpu_option() -> Option:
    return Option("cpu", "the ISA to size tiles for (sse, avx, avx2, avx512, neon); default: "
                  "$TOSA_CUSTOM_CPU, else the host's", "", metavar="host|sse|avx|avx2|avx512|neon")


def _config(ctx: PassContext | None) -> TileConfig:
    return tile_config(ctx.options.cpu if ctx is not None else None)

# Named ops without indexing maps that become linalg.generic before planning
# (convolutions and pooling too, by prefix: `generalize_script`).
_GENERALIZE = ("linalg.transpose", "linalg.copy", "linalg.broadcast", "linalg.map", "linalg.reduce",
               "linalg.elementwise")
_GENERALIZE_PREFIXES = ("linalg.conv_", "linalg.depthwise_conv_", "linalg.pooling_")


def _largest_divisor(n: int, cap: int) -> int:
    for c in range(min(n, cap), 0, -1):
        if n % c == 0:
            return c
    return 1


# An elementwise op's (or reduction's) `?` remainder: vectors of the CPU's
# lanes with masks (off: one element at a time, the old way; for comparison).
MASK_REMAINDERS = True
# A contraction's `?` remainder: tiles of halving sizes (TilePlan.split_sizes;
# off: one row at a time, the old way; for comparison).
SPLIT_REMAINDERS = True
# A reduction along a `?` loop: per-lane partial results, reduced across lanes
# once per row (TilePlan.partial_reduction; off: once per tile, for comparison).
PARTIAL_REDUCTIONS = True


def _tile(n: int, cap: int, multiple: int = 1, peel: bool = True) -> tuple[int, bool]:
    """The tile of a loop of `n` iterations, at most `cap`, and whether its
    remainder is peeled: `n` if it fits; else a divisor of `n` of at least
    3/4 of `cap` and whole vectors (`multiple`); else `cap` and a peeled
    remainder (unless `peel` is off: then the largest divisor). A `?` loop
    (DYNAMIC_RANGE): `cap`, peeled."""
    if n == DYNAMIC_RANGE:
        return cap, True
    if n <= cap:
        return n, False
    d = _largest_divisor(n, cap)
    if not peel or (4 * d >= 3 * cap and d % multiple == 0):
        return d, False
    return cap, True


def _column_tile(n: int, cap: int, lanes: int, peel: bool) -> tuple[int, bool]:
    """A contraction's column tile: whole vectors, or less than one. A tile
    of whole vectors and a part (24, 28 or 40 columns of 16 lanes) ran
    conv and linear layers 6-18x slower on an AVX-512 host than whole
    vectors did (mobilenet_v3's 1x1 convolutions of 112, 80 and 72
    channels; Linear(672, 24)); whole vectors plus a peeled part ran as fast
    as the whole vectors alone. So: `_tile`'s choice when it is such; else
    its whole vectors with the rest peeled (below one vector); unpeelable (a
    window), the largest divisor of `n` of whole vectors or below one."""
    tile, peeled = _tile(n, cap, lanes, peel)
    if tile % lanes == 0 or tile < lanes:
        return tile, peeled
    if peel and n != DYNAMIC_RANGE:
        return tile - tile % lanes, True
    return next(c for c in range(min(n, cap), 0, -1) if n % c == 0 and (c % lanes == 0 or c < lanes)), False


def _plan(op, config: TileConfig) -> TilePlan | None:
    info = analyze(op, dynamic=True)
    if info is None:
        return None
    n_loops, ranges, reduction, operands = info.n_loops, info.ranges, info.reduction, info.operands
    window_dims = {d for w in info.windows for d in w}
    tiles, peel = [1] * n_loops, []
    if info.is_contraction():
        n_dim, m_dim = info.columns_and_rows()
        # A window's tile folds its unit loops in place: no peeled copies.
        peelable = not info.windows
        if n_dim not in window_dims and n_dim not in info.bool_dims:
            tiles[n_dim], p = _column_tile(ranges[n_dim], config.nr, config.lanes, peelable)
            peel += [n_dim] if p else []
        if m_dim is not None and m_dim not in info.bool_dims and all(
                # rows may slide (ow + kw) only with unit stride, the rest of the window kept at 1
                w.get(m_dim, 0) in (0, 1) for w in info.windows):
            tiles[m_dim], p = _tile(ranges[m_dim], config.mr, 1, peelable)
            peel += [m_dim] if p else []
        order = _contraction_order(info, n_dim, m_dim, config.nr)
        kind = "contraction" if is_pure_contraction(op.regions[0].blocks[0], len(operands) - 1) \
            else "contraction-like"
        # `structured.fuse` fuses every tileable producer, so only when the
        # fill is the one there is (a fused transpose would be recomputed per tile).
        fuse_fill = not info.windows and producer_name(operands[-1]) == "linalg.fill" and not any(
            producer_name(v).startswith(("linalg.", "tensor.pad")) for v in operands[:-1])
        dynamic = tuple(d for d in peel if d in info.dynamic)
        return TilePlan(kind, tuple(tiles), tuple(order), fuse_fill, tuple(reduction), bool(info.windows),
                        tuple(peel), dynamic, split_remainders=bool(dynamic) and SPLIT_REMAINDERS)
    # Elementwise and reductions: vectorize along the contiguous dimension of
    # the largest operand, one step at a time along every other loop.
    layouts = info.contiguous_loops()
    best = max(layouts, key=lambda layout: layout[0], default=None)  # the first of the largest
    if best is None:
        return None
    d = best[1]
    if d in info.bool_dims or d in window_dims:
        return None
    cap = config.reduction if reduction[d] else config.elementwise
    if any(e != d and 4 * n >= best[0] for n, e in layouts):
        # Another operand about as large with another contiguous loop (a
        # transpose): its lanes are loaded or stored one at a time, so a
        # longer vector only unrolls more of that (one register: loads
        # 8.05 -> 7.18 s for mobilenet_v3_small, 21.5 -> 19.9 s for
        # efficientnet_b0, the code no slower; scalar loops made LLVM's
        # time grow instead).
        cap = min(cap, config.lanes)
    if d in info.dynamic:  # its remainder is vectors with masks (or the partial results' width): keep it short
        cap = min(cap, config.elementwise)
    tiles[d], p = _tile(ranges[d], cap, config.lanes, not info.windows)
    dynamic = (d,) if p and d in info.dynamic else ()
    masked = config.lanes if dynamic and MASK_REMAINDERS else 0
    partial = bool(masked) and PARTIAL_REDUCTIONS and _partial_reducible(op, info, d)
    return TilePlan("elementwise", tuple(tiles), window=bool(info.windows), peel=(d,) if p else (),
                    dynamic=dynamic, masked=tiles[d] if partial else masked, partial_reduction=partial)


def _contraction_order(info: LoopInfo, n_dim: int, m_dim: int | None, nr: int) -> list[int]:
    """The tile loops of a contraction, outermost first: the B panel (K x NR)
    is reused across all row tiles inside its column loop. A convolution's
    output rows (n, oh) index no filter element: they go inside the column
    loop too, so each filter panel is read once per call, not once per
    image row (a 512-channel 3x3 filter is 9.4 MB, read from memory every
    time), and so do a constant B's (a linear layer's weights over a few
    rows), unless A, read once per column tile then, is the bigger cost (a
    transformer's 512 rows x 256: A is re-read from L3 by every panel); loops
    B does index (a batch of matrices) stay outside it."""
    first = [d for d in (n_dim, m_dim) if d is not None]
    parallel = [d for d in range(info.n_loops) if not info.reduction[d] and d not in first]
    reductions = [d for d in range(info.n_loops) if info.reduction[d]]
    b_dims = {dim(e) for m in info.maps[:-1] if n_dim in {dim(e) for e in m.results} for e in m.results}
    rows = [d for d in parallel if d not in b_dims]
    outer = [d for d in parallel if d in b_dims]
    if not rows or not (info.windows or any(is_dense_constant(v) for v in info.operands[:-1])):
        return parallel + first + reductions
    # A read once per column tile against B once per outer row (an image row, a batch of rows).
    column_tiles = -(-info.ranges[n_dim] // nr) * math.prod(info.ranges[d] for d in outer)
    if _elements(info, n_dim, False) * column_tiles > _elements(info, n_dim, True) * math.prod(
            info.ranges[d] for d in rows):
        return parallel + first + reductions
    return outer + [n_dim] + rows + first[1:] + reductions


def _elements(info: LoopInfo, n_dim: int, with_columns: bool) -> int:
    """Elements of the inputs that do (B) or do not (A) index the column loop."""
    return sum(math.prod(t.shape) for m, t in zip(info.maps[:-1], info.shaped[:-1])
               if t is not None and (n_dim in {dim(e) for e in m.results}) == with_columns)


# Combiners `tile_reduction_using_for` fills a vector of partial results for
# (it knows their neutral element).
_COMBINERS = ("arith.addf", "arith.mulf", "arith.maximumf", "arith.minimumf", "arith.addi", "arith.muli",
              "arith.maxsi", "arith.minsi", "arith.maxui", "arith.minui", "arith.andi", "arith.ori", "arith.xori")


def _partial_reducible(op, info: LoopInfo, d: int) -> bool:
    """A reduction along loop d alone, into one result, whose body combines
    the result's running value once with one of _COMBINERS."""
    if not info.reduction[d] or sum(info.reduction) != 1 or len(op.results) != 1:
        return False
    body = op.regions[0].blocks[0]
    acc = body.arguments[len(body.arguments) - 1]
    yielded = list(body.operations)[-1].operands[0]
    combiner = yielded.owner
    uses = list(acc.uses)
    return (not isinstance(combiner, ir.Block) and combiner.name in _COMBINERS and len(uses) == 1
            and uses[0].owner == combiner and acc in list(combiner.operands))


@register_pass(MAKE_COLUMNS_CONTIGUOUS,
               "Transpose contraction operands whose column loop is not their innermost dimension, so the "
               "register tile reads its columns with one vector load")
def make_columns_contiguous(module, ctx: PassContext | None = None) -> int:
    """Transpose contraction operands whose column loop is not their innermost dimension.

    The register tile reads NR consecutive columns of B per reduction step;
    with B stored column-major (a convolution's f x kh x kw x c weights, a
    transposed matmul operand folded into a generic) those would be NR
    scalar loads. A `linalg.transpose` in front makes them one vector load;
    a constant operand (weights, mostly) is transposed now instead, once
    (constants.py). Returns how many operands were transposed.
    """
    found = collect_ops(module, lambda op: op.name == "linalg.generic", enter_matches=False)
    count = 0
    with module.context, ir.Location.unknown():
        for op in found:
            info = analyze(op)
            if info is None or not info.is_contraction():
                continue
            n_dim, _ = info.columns_and_rows()
            maps = list(info.maps)
            changed = False
            for i, (m, v) in enumerate(zip(info.maps[:-1], info.operands[:-1])):
                dims = [dim(e) for e in m.results]
                t = info.shaped[i]
                if t is None or None in dims or n_dim not in dims or dims[-1] == n_dim:
                    continue
                if all(info.ranges[d] == 1 for d in dims[dims.index(n_dim) + 1:]):
                    continue  # only unit dimensions after it: already contiguous
                pos = dims.index(n_dim)
                perm = [j for j in range(len(dims)) if j != pos] + [pos]
                with ir.InsertionPoint(op), op.location:
                    transposed = transposed_constant(v, perm)
                    if transposed is None:
                        empty = tensor_d.empty([t.shape[j] for j in perm], t.element_type)
                        transposed = linalg_d.transpose(v, outs=[empty], permutation=perm)
                op.operands[i] = transposed.results[0] if hasattr(transposed, "results") else transposed
                maps[i] = ir.AffineMap.get(m.n_dims, m.n_symbols, [m.results[j] for j in perm])
                changed = True
                count += 1
            if changed:
                op.attributes["indexing_maps"] = ir.ArrayAttr.get([ir.AffineMapAttr.get(m) for m in maps])
    return count


def plan_tiling(module: ir.Module, cpu: "str | CpuTarget | TileConfig | None" = None
                ) -> list[tuple[ir.Operation, TilePlan]]:
    """Every linalg op on tensors that `lower` tiles and vectorizes, with its
    plan, sized for `cpu` (`tile_config`)."""
    config = tile_config(cpu)
    found = []

    def visit(op):
        name = op.name
        if name.startswith("linalg.") and name not in ("linalg.yield", "linalg.index"):
            plan = _plan(op, config)
            if plan is not None:
                found.append((op, plan))
            return ir.WalkResult.SKIP
        return ir.WalkResult.ADVANCE

    module.operation.walk(visit)
    return found


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


@register_pass(PACK_COLUMNS,
               "Give big contractions a B operand packed in column panels ([.., N, ..] -> [N/NR, .., K, NR], NR "
               "the register tile's columns for the CPU) by a private function inlined after tiling",
               options=(_cpu_option(),))
def pack_columns(module, ctx: PassContext | None = None) -> int:
    """Give big contractions a B packed in column panels: [.., N, ..] -> [N/NR, .., K, NR].

    The register tile walks B one row of NR columns per reduction step; in
    B's own layout those rows are N floats apart, and with N a power of two
    (512 x 2048 weights) every row falls in the same L1 set: measured 2.3-2.9x
    slower than eager PyTorch. Packed, a panel is K x NR contiguous floats. The
    contraction becomes a linalg.generic over (.., NB, .., NR) writing C viewed
    as [.., N/NR, NR] (the same memory). The packing copy runs in a private
    function, which `structured.fuse` (fusing C's fill) cannot pull into the
    tile loops to recompute per tile; the function is inlined after tiling.
    A constant B (weights) is packed now instead, once (constants.py); so
    is a convolution's constant filter ([kh, kw, c, F] -> [F/NR, kh, kw, c, NR]:
    its rows F floats apart, 2 KB at 512 channels, fall in two L1 sets and
    a new page every other step), a copy per call would not pay for.
    Returns how many contractions were packed.
    """
    found = collect_ops(
        module, lambda op: op.name.startswith("linalg.") and "indexing_maps" in op.attributes, enter_matches=False
    )
    packed = 0
    nr = _config(ctx).nr
    with module.context, ir.Location.unknown():
        for op in found:
            plan = _pack_plan(op, nr)
            if plan is None:
                continue
            with ir.InsertionPoint(op), op.location:
                b_packed = packed_constant(plan.info.operands[plan.b], plan.nr, plan.perm)
            if b_packed is None:
                name = f"__tosa_custom_pack_{packed}"
                _packing_function(op, plan, name)
                with ir.InsertionPoint(op), op.location:
                    b_packed = func_d.CallOp([plan.packed_type], name, [plan.info.operands[plan.b]]).result
            with ir.InsertionPoint(op), op.location:
                init = plan.info.operands[-1]
                owner = init.owner
                result = _packed_contraction(op, plan, b_packed, _split_init(plan, init))
            op.results[0].replace_all_uses_with(result)
            op.erase()
            if not isinstance(owner, ir.Block) and owner.operation.name == "linalg.fill" and not list(init.uses):
                owner.operation.erase()
            packed += 1
    return packed


@dataclasses.dataclass
class _PackPlan:
    """A contraction pack_columns rewrites, and B's packed layout."""

    info: "LoopInfo"
    n_dim: int
    m_dim: int
    n: int
    nr: int  # columns per panel: the register tile's NR
    padded: int  # N rounded up to whole panels (B padded with zeros, C sliced back)
    dims: list  # per operand, the loop dim of each of its indexing results
    b: int  # B's operand index
    b_type: ir.RankedTensorType
    c_type: ir.Type
    perm: list[int]  # packed B: [NB, (B's other dims in order), NR]
    packed_type: ir.RankedTensorType


def _worth_packing(info: "LoopInfo", n_dim: int, m_dim: int, nr: int) -> bool:
    n, rows = info.ranges[n_dim], info.ranges[m_dim]
    depth = 1
    for d, r in enumerate(info.reduction):
        if r:
            depth *= info.ranges[d]
    return not (n < 2 * nr or rows < _PACK_MIN_ROWS or (
        depth < _PACK_MIN_DEPTH and n * 4 < _PACK_MIN_COLUMNS_STRIDE))


def _pack_plan(op, nr: int) -> _PackPlan | None:
    """The plan for a big contraction whose B has N as its last dim, else None."""
    info = analyze(op)
    if info is None or not info.is_contraction() or len(op.results) != 1:
        return None
    n_dim, m_dim = info.columns_and_rows()
    dims = [[dim(e) for e in m.results] for m in info.maps]
    with_n = [i for i, ds in enumerate(dims[:-1]) if n_dim in ds]
    if m_dim is None or len(with_n) != 1 or None in dims[-1] or dims[-1][-1] != n_dim:
        return None
    b = with_n[0]
    if None in dims[b] or dims[b][-1] != n_dim or (None in sum(dims, []) and not info.windows):
        return None
    n = info.ranges[n_dim]
    # A constant B is packed for nothing at run time: whenever the padding is an eighth of N at most.
    free = is_dense_constant(info.operands[b]) and n >= 2 * nr and 8 * (-n % nr) <= n
    if not free and (info.windows or not _worth_packing(info, n_dim, m_dim, nr)):
        return None
    b_type, c_type = info.shaped[b], info.shaped[-1]
    if b_type is None or c_type is None or not isinstance(b_type, ir.RankedTensorType):
        return None
    n, rank_b = info.ranges[n_dim], len(dims[b])
    padded = -(-n // nr) * nr
    perm = [rank_b - 1] + list(range(rank_b - 1)) + [rank_b]
    b_split_shape = list(b_type.shape[:-1]) + [padded // nr, nr]
    packed_type = ir.RankedTensorType.get([b_split_shape[p] for p in perm], b_type.element_type)
    return _PackPlan(info, n_dim, m_dim, n, nr, padded, dims, b, b_type, c_type, perm, packed_type)


def _packing_function(op, plan: _PackPlan, name: str) -> None:
    """A private function B -> packed B, beside the contraction's function."""
    parent = op.operation
    while parent.name != "func.func":
        parent = parent.parent
    with ir.InsertionPoint(parent), op.location:
        fn = func_d.FuncOp(name, ir.FunctionType.get([plan.b_type], [plan.packed_type]), visibility="private")
        entry = fn.add_entry_block()
        with ir.InsertionPoint(entry):
            b = _padded(entry.arguments[0], plan.b_type, plan.padded)
            split = _split_last(b, _padded_type(plan.b_type, plan.padded), plan.nr)
            empty = tensor_d.empty(list(plan.packed_type.shape), plan.b_type.element_type)
            t = linalg_d.transpose(split, outs=[empty], permutation=plan.perm)
            func_d.ReturnOp([t.results[0] if hasattr(t, "results") else t])


def _split_c_type(plan: _PackPlan) -> ir.RankedTensorType:
    c_type = plan.c_type
    return ir.RankedTensorType.get(list(c_type.shape[:-1]) + [plan.padded // plan.nr, plan.nr], c_type.element_type)


def _padded_type(t: ir.RankedTensorType, n: int) -> ir.RankedTensorType:
    return ir.RankedTensorType.get(list(t.shape[:-1]) + [n], t.element_type)


def _padded(v: ir.Value, t: ir.RankedTensorType, n: int) -> ir.Value:
    """v with its last dimension padded with zeros to n."""
    if t.shape[-1] == n:
        return v
    padded = _padded_type(t, n)
    zero = arith_d.constant(t.element_type, ir.FloatAttr.get(t.element_type, 0.0)
                            if isinstance(t.element_type, ir.FloatType) else ir.IntegerAttr.get(t.element_type, 0))
    filled = linalg_d.fill(zero, outs=[tensor_d.empty(list(padded.shape), t.element_type)])
    filled = filled.results[0] if hasattr(filled, "results") else filled
    return tensor_d.insert_slice(v, filled, [], [], [], [0] * t.rank, list(t.shape), [1] * t.rank)


def _split_init(plan: _PackPlan, init: ir.Value) -> ir.Value:
    """C's init viewed as [.., N/NR, NR]; a single-use fill is made anew at that shape."""
    owner = init.owner
    if not isinstance(owner, ir.Block) and owner.operation.name == "linalg.fill" and single_use(init):
        c_init = linalg_d.fill(owner.operation.operands[0],
                               outs=[tensor_d.empty(_split_c_type(plan).shape, plan.c_type.element_type)])
        return c_init.results[0] if hasattr(c_init, "results") else c_init
    return _split_last(_padded(init, plan.c_type, plan.padded), _padded_type(plan.c_type, plan.padded), plan.nr)


def _packed_contraction(op, plan: _PackPlan, b_packed: ir.Value, c_init: ir.Value) -> ir.Value:
    """The contraction as a linalg.generic over the packed B, collapsed back to C's type.

    Loops: the old ones (n_dim now counts panels) ordered (others, panels,
    rows, NR, reductions): the vectorizer builds vectors in loop order, and the
    tile's unit loops (one panel) must lead, not sit between rows and columns."""
    info, n_dim, m_dim, b = plan.info, plan.n_dim, plan.m_dim, plan.b
    n_loops = info.n_loops
    order = ([d for d in range(n_loops) if not info.reduction[d] and d not in (n_dim, m_dim)]
             + [n_dim, m_dim, "nr"] + [d for d in range(n_loops) if info.reduction[d]])
    position = {d: i for i, d in enumerate(order)}
    nr = ir.AffineExpr.get_dim(position["nr"])

    def expr(d):
        return ir.AffineExpr.get_dim(position[d])

    moved = ir.AffineMap.get(n_loops + 1, 0, [expr(d) for d in range(n_loops)])
    new_maps = []
    for i, ds in enumerate(plan.dims):
        if i == b:
            results = [expr(d) for d in ds[:-1]] + [expr(n_dim), nr]
            results = [results[p] for p in plan.perm]
        elif i == len(plan.dims) - 1:
            results = [expr(d) for d in ds[:-1]] + [expr(n_dim), nr]
        else:  # A: its dims renumbered (a convolution's oh + kh and ow + kw too)
            results = [e.compose(moved) for e in info.maps[i].results]
        new_maps.append(ir.AffineMapAttr.get(ir.AffineMap.get(n_loops + 1, 0, results)))
    iterators = [ir.Attribute.parse(
        "#linalg.iterator_type<reduction>" if d != "nr" and info.reduction[d]
        else "#linalg.iterator_type<parallel>") for d in order]
    inputs = [b_packed if i == b else v for i, v in enumerate(info.operands[:-1])]
    generic = linalg_d.GenericOp([_split_c_type(plan)], inputs, [c_init], ir.ArrayAttr.get(new_maps),
                                 ir.ArrayAttr.get(iterators))
    op.regions[0].blocks[0].append_to(generic.regions[0])
    c_type, rank = plan.c_type, len(plan.c_type.shape)
    c = tensor_d.collapse_shape(_padded_type(c_type, plan.padded), generic.results[0], _reassociation(
        [[i] for i in range(rank - 1)] + [[rank - 1, rank]]))
    if plan.padded == plan.n:
        return c
    return tensor_d.extract_slice(c_type, c, [], [], [], [0] * rank, list(c_type.shape), [1] * rank)


@register_pass(GENERALIZE,
               "Rewrite linalg named ops without indexing maps (transpose, copy, broadcast, map, reduce, "
               "elementwise) and convolutions and pooling as linalg.generic, for the tiling planner")
def generalize(module, ctx: PassContext | None = None) -> int:
    """Returns how many kinds of op were generalized."""
    names = set()

    def visit(op):
        name = op.name
        if name in _GENERALIZE or name.startswith(_GENERALIZE_PREFIXES):
            names.add(name)
        return ir.WalkResult.ADVANCE

    module.operation.walk(visit)
    if names:
        with module.context, ir.Location.unknown():
            apply_script(module, generalize_script(names))
    return len(names)


@register_pass(TILE_AND_VECTORIZE,
               "Tile and vectorize, on tensors, every linalg op the planner takes (register tiles for "
               "contractions with the fill fused, vector lanes along the contiguous dimension otherwise), with a "
               "generated transform script", options=(_cpu_option(),))
def apply_tile_plans(module, ctx: PassContext | None = None) -> dict[TilePlan, int]:
    """Mark each op `plan_tiling` takes with its plan's number and run the
    script made for those plans. Returns the plans used (and their numbers)."""
    with module.context, ir.Location.unknown():
        plans: dict[TilePlan, int] = {}
        i64 = ir.IntegerType.get_signless(64)
        for op, plan in plan_tiling(module, _config(ctx)):
            k = plans.setdefault(plan, len(plans))
            op.attributes[PLAN_ATTR] = ir.IntegerAttr.get(i64, k)
        if any(plan.split_remainders for plan in plans):
            apply_script(module, tiling_script(plans, vectorize=False))
            rewrite_remainders(module)
            apply_script(module, vectorize_script(plans))
        elif plans:
            apply_script(module, tiling_script(plans))
    return plans


def tile_and_vectorize(module, cpu: "str | CpuTarget | TileConfig | None" = None) -> dict[TilePlan, int]:
    """Tile and vectorize, on tensors, every linalg op `plan_tiling` finds,
    sized for `cpu`: the passes generalize, make-columns-contiguous,
    pack-columns, generalize (the transposes they add), tile-and-vectorize,
    in that order."""
    ctx = PassContext(TILE_AND_VECTORIZE, types.SimpleNamespace(cpu=tile_config(cpu)))
    generalize(module)
    if make_columns_contiguous(module) + pack_columns(module, ctx):
        generalize(module)
    return apply_tile_plans(module, ctx)


def single_use(v: ir.Value) -> bool:
    uses = iter(v.uses)
    return next(uses, None) is not None and next(uses, None) is None


def producer(v: ir.Value, name: str):
    owner = v.owner
    if isinstance(owner, ir.Block) or owner.operation.name != name or not single_use(v):
        return None
    return owner.operation
