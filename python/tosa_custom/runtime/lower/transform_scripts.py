"""Transform-dialect scripts: what the tiling planner decided, as IR the
transform interpreter applies.

The planner (tiling.py) decides per op; this module only renders those
decisions, so a script can be read, dumped and replayed without the planner.

Peeling: a loop whose tile does not divide its range is split by
`transform.loop.peel` into full tiles and one remainder iteration. With
static ranges both halves then have static tile shapes (after
canonicalization), so each is vectorized as it is; the alternative, tiles
shrunk to a divisor of the range, falls to one row or a few lanes on prime
or odd sizes (a 197-token sequence, 251 output features) and runs many
times slower. A loop of `?` iterations is tiled and peeled the same way; its
remainder, of a size known only at run time, is (elementwise ops and
reductions) tiled again by the CPU's vector lanes and each of those tiles
vectorized at that width with masks: whole vectors but the last, which
masks.py then takes out of their `vector.mask` regions before bufferization.
A reduction along its `?` loop keeps a vector of per-lane partial results
over the loop instead (`tile_reduction_using_for`), its remainder one masked
step into them, and reduces across lanes once after it, where a reduction
per tile would cross lanes once per tile.
A contraction's `?` loop (its rows, usually) is planned so that its
remainder runs as full register tiles where it can (remainders.py): with at
least a tile of rows, the last full tile is moved back to end at the last
row, overlapping the tile before it (those rows are computed twice, to the
same values), so a remainder costs one tile at full width, as in a static
program; with fewer rows than a tile, the remainder is split in tiles of
halving static sizes, each peeled in turn (5 rows on AVX2: a 4-row and a
1-row tile), each vectorized without masks with its accumulators in
registers. The transform dialect can say neither: the script marks the
loops (OVERLAP_ATTR, FULL_TILES_ATTR) and remainders.py rewrites them
between this script and `vectorize_script`.
"""

from __future__ import annotations

import dataclasses

from torch_mlir import ir
from torch_mlir.dialects.transform import interpreter

__all__ = ["TilePlan", "PLAN_ATTR", "MASKED_ATTR", "FULL_TILES_ATTR", "OVERLAP_ATTR", "PEELED_FILL_ATTR",
           "VECTOR_PREPARATION_SCRIPT", "VECTOR_LOWERING_SCRIPT", "apply_script", "generalize_script",
           "patterns_script", "tiling_script", "vectorize_script"]

_SEQUENCE_HEAD = """module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.consumed}) {
"""
_SEQUENCE_TAIL = """    transform.yield
  }
}
"""
_ANY = "!transform.any_op"

VECTOR_PREPARATION_SCRIPT = _SEQUENCE_HEAD + """\
    %f = transform.structured.match ops{["func.func"]} in %root : (!transform.any_op) -> !transform.any_op
    transform.apply_patterns to %f {
      transform.apply_patterns.vector.reduction_to_contract
      transform.apply_patterns.vector.transfer_permutation_patterns
      transform.apply_patterns.vector.cast_away_vector_leading_one_dim
    } : !transform.any_op
""" + _SEQUENCE_TAIL
"""Vector ops in the forms VECTOR_LOWERING_SCRIPT lowers: reductions of
products as contractions, transfers of permuted or broadcast dims as plain
transfers followed by a broadcast and a transpose, leading unit dims cast
away."""

VECTOR_LOWERING_SCRIPT = _SEQUENCE_HEAD + """\
    %f = transform.structured.match ops{["func.func"]} in %root : (!transform.any_op) -> !transform.any_op
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
"""Vector ops (after VECTOR_PREPARATION_SCRIPT) to what convert-vector-to-llvm
handles well: contractions become outer products and then FMAs on 1-D
vectors, multi-reductions horizontal reductions, n-D transfers 1-D loads and
stores. No canonicalization after it: that would fold the chains of row
inserts that build a 2-D accumulator into a `vector.from_elements` of every
scalar, which LLVM then builds lane by lane."""

PLAN_ATTR = "tosa_custom.tile_plan"
"""The attribute naming an op's plan (its number in the script); tiling
clones it onto every tile, peeled ones included."""
PEELED_FILL_ATTR = "tosa_custom.peeled_fill"
"""On the fills vectorized after peeling (fused into tiles, or added by remainders.py)."""
MASKED_ATTR = "tosa_custom.masked"
"""On the remainder tiles of plan k (= k) that are vectorized with masks."""
FULL_TILES_ATTR = "tosa_custom.full_tiles"
"""On a peeled loop (= s) of a contraction's `?` remainder whose tiles all
have s iterations along the split loop (remainders.fill_in_full_tiles)."""
OVERLAP_ATTR = "tosa_custom.overlap"
"""On the loop of full tiles of a contraction's `?` loop, peeled: its last
tile is to cover the remainder, overlapping the one before it
(remainders.overlap_remainders)."""


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
    # Loop dimensions whose tile does not divide their range: peeled.
    peel: tuple[int, ...] = ()
    # Those of them with a `?` range: the remainder, of dynamic size, is
    # tiled again along them (contractions: `split_sizes`), so every tile has
    # a static shape.
    dynamic: tuple[int, ...] = ()
    # Elementwise plans: the `?` remainder is tiled by this many lanes
    # instead, each tile vectorized at that width with masks (0: not).
    masked: int = 0
    # Contractions: split the `?` remainder in halving tiles (`split_sizes`).
    split_remainders: bool = False
    # A reduction along its `?` loop (elementwise plans): per-lane partial
    # results over the row, reduced across lanes once per row
    # (`_partial_reduction_lines`) instead of once per tile.
    partial_reduction: bool = False

    @property
    def deferred_reduction(self) -> bool:
        """A contraction with a `?` remainder tiles its reduction loops last,
        so the remainder's rows are cut to 1 outside them (its accumulators
        stay in registers over the whole reduction)."""
        return bool(self.dynamic) and any(self.reduction)

    def split_sizes(self, d: int) -> list[int]:
        """The tiles a contraction's `?` remainder along loop d is split in:
        the powers of two below its tile, largest first (6 -> 4, 2, 1), each
        peeled, so at most one tile of each size runs; 1 alone with
        `split_remainders` off (one row at a time, the old way).

        With several `?` loops, only the innermost (the vector lanes) is
        split; the others' remainders run a row at a time. The splits
        multiply: attention's scores (rows and columns of `?` length) were 4
        x 6 copies of the kernel, and dynamic GPT-2 loaded in 3.2x the time
        of the static program (2.6x after). What a row at a time costs is a
        pass over a B panel per row: attention at 31 rows (3 tiles and 7
        rows), 41 us against 31; at 100 rows and more, within 8%."""
        if not self.split_remainders or d != max(self.dynamic, default=d):
            return [1]
        sizes = [1]
        while sizes[-1] * 2 < self.tile_sizes[d]:
            sizes.append(sizes[-1] * 2)
        return sizes[::-1]

    def masked_sizes(self) -> list[int]:
        """The vector sizes of a masked remainder tile."""
        return [self.masked if d in self.dynamic else t for d, t in enumerate(self.tile_sizes)]

    def reduction_sizes(self) -> list[int]:
        return [t if r else 0 for t, r in zip(self.tile_sizes, self.reduction)]


def apply_script(module: ir.Module, script: str) -> None:
    transform_module = ir.Module.parse(script, module.context)
    entry = transform_module.body.operations[0]
    interpreter.apply_named_sequence(module.operation, entry, transform_module)


def patterns_script(patterns) -> str:
    """Apply the named pattern sets (`transform.apply_patterns.*`) to every function."""
    return (_SEQUENCE_HEAD.replace("transform.consumed", "transform.readonly")
            + f'    %f = transform.structured.match ops{{["func.func"]}} in %root : ({_ANY}) -> {_ANY}\n'
            + "    transform.apply_patterns to %f {\n"
            + "".join(f"      {p}\n" for p in patterns)
            + f"    }} : {_ANY}\n" + _SEQUENCE_TAIL)


def generalize_script(names) -> str:
    generalize = ", ".join(f'"{n}"' for n in sorted(names))
    return (_SEQUENCE_HEAD
            + f"    %g = transform.structured.match ops{{[{generalize}]}} in %root : ({_ANY}) -> {_ANY}\n"
            f"    %h = transform.structured.generalize %g : ({_ANY}) -> {_ANY}\n"
            + _SEQUENCE_TAIL)


def _handles(n: int) -> str:
    return ", ".join([_ANY] * n)


def _sizes(values) -> str:
    return ", ".join(map(str, values))


def _tile_lines(plan: TilePlan) -> tuple[list[str], dict[int, str]]:
    """Tile (fusing the fill if planned) the op `%op`: the lines, and the
    loop handle of each tiled dimension, outermost first."""
    loops: dict[int, str] = {}
    parallel = [0 if r else t for t, r in zip(plan.tile_sizes, plan.reduction or [False] * len(plan.tile_sizes))]
    if plan.fuse_fill:
        reduction = plan.reduction_sizes()
        outer = [d for d in plan.interchange if parallel[d]]
        inner = [d for d in range(len(reduction)) if reduction[d]] if not plan.deferred_reduction else []
        lines = [f"      %f, %fl:{len(outer)} = transform.structured.fuse %op tile_sizes [{_sizes(parallel)}]"
                 f" interchange [{_sizes(plan.interchange)}] : ({_ANY}) -> ({_handles(len(outer) + 1)})"]
        if inner:
            lines.append(f"      %t, %l:{len(inner)} = transform.structured.tile_using_for %f tile_sizes "
                         f"[{_sizes(reduction)}] : ({_ANY}) -> ({_handles(len(inner) + 1)})")
        lines.append(f'      %z = transform.structured.match ops{{["linalg.fill"]}} in %fl#0 : ({_ANY}) -> {_ANY}')
        loops.update({d: f"%fl#{i}" for i, d in enumerate(outer)})
        loops.update({d: f"%l#{i}" for i, d in enumerate(inner)})
        lines.append(f'      transform.annotate %z "{PEELED_FILL_ATTR}" : {_ANY}' if plan.peel else
                     f"      transform.structured.vectorize %z : {_ANY}")
        return lines, loops
    if plan.partial_reduction:
        return _partial_reduction_lines(plan)
    order = plan.interchange or range(len(plan.tile_sizes))
    sizes = parallel if plan.deferred_reduction else plan.tile_sizes
    tiled = [d for d in order if sizes[d]]
    inter = f" interchange = [{_sizes(plan.interchange)}]" if plan.interchange else ""
    lines = [f"      %t, %l:{len(tiled)} = transform.structured.tile_using_for %op"
             f" tile_sizes [{_sizes(sizes)}]{inter} : ({_ANY}) -> ({_handles(len(tiled) + 1)})"]
    loops.update({d: f"%l#{i}" for i, d in enumerate(tiled)})
    return lines, loops


def _partial_reduction_lines(plan: TilePlan) -> tuple[list[str], dict[int, str]]:
    """Tile `%op` by the plan's sizes along its parallel loops, then its `?`
    reduction loop with `tile_reduction_using_for`: a vector of partial
    results (neutral-filled, plan.tile_sizes[d] lanes) accumulated elementwise
    over the row and reduced across lanes once after the loop. The fill, the
    elementwise step and the final reduction are marked as plan k's ops
    (`%k`, by the caller's script), to be vectorized with the rest."""
    (d,) = plan.dynamic
    rank = len(plan.tile_sizes)
    lines, loops, target = [], {}, "%op"
    parallel = [0 if i == d else t for i, t in enumerate(plan.tile_sizes)]
    tiled = [i for i in range(rank) if parallel[i]]
    if tiled:
        lines.append(f"      %t, %l:{len(tiled)} = transform.structured.tile_using_for %op tile_sizes"
                     f" [{_sizes(parallel)}] : ({_ANY}) -> ({_handles(len(tiled) + 1)})")
        loops.update({i: f"%l#{j}" for j, i in enumerate(tiled)})
        target = "%t"
    sizes = _sizes(plan.tile_sizes[d] if i == d else 0 for i in range(rank))
    lines += [f"      %rf, %rs, %rc, %rl = transform.structured.tile_reduction_using_for {target} by tile_sizes"
              f" = [{sizes}] : ({_ANY}) -> ({_handles(4)})"]
    lines += [f'      transform.annotate {h} "{PLAN_ATTR}" = %k : {_ANY}, !transform.param<i64>'
              for h in ("%rf", "%rs", "%rc")]
    loops[d] = "%rl"
    return lines, loops


def _peel_lines(plan: TilePlan, loops: dict[int, str], k: int) -> list[str]:
    """Peel the planned loops, innermost first: peeling a loop invalidates
    the handles of loops nested in it, not of those around it. A `?` loop's
    remainder: its tiles of plan k (and the fill's) cut to 1 along it."""
    depth = list(loops)
    lines = []
    for d in sorted(plan.peel, key=depth.index, reverse=True):
        lines += [f'      %c{d} = transform.cast {loops[d]} : {_ANY} to !transform.op<"scf.for">',
                  f'      %p{d}:2 = transform.loop.peel %c{d} : (!transform.op<"scf.for">) -> ({_handles(2)})']
        if d in plan.dynamic and plan.masked:
            lines += _mask_lines(plan, k, d)
        elif d in plan.dynamic:
            if plan.split_remainders:
                lines += [f"      %o{d} = transform.param.constant {k} : i64 -> !transform.param<i64>",
                          f'      transform.annotate %p{d}#0 "{OVERLAP_ATTR}" = %o{d} : {_ANY}, !transform.param<i64>']
            lines += _split_lines(plan, k, d)
    return lines


def _mask_lines(plan: TilePlan, k: int, d: int) -> list[str]:
    """Mark plan k's ops in the remainder of loop d, to be vectorized with
    masks (`_vectorize_peeled_lines`), and tile them along d by the mask
    width: whole vectors but the last, so a short remainder costs no more
    vector steps than it has vectors of elements."""
    lines = [f"      %r{d} = transform.structured.match attributes{{{PLAN_ATTR} = {k} : i64}} in %p{d}#1"
             f" : ({_ANY}) -> {_ANY}",
             f"      %k{d} = transform.param.constant {k} : i64 -> !transform.param<i64>",
             f"      transform.annotate %r{d} \"{MASKED_ATTR}\" = %k{d} : {_ANY}, !transform.param<i64>"]
    if plan.masked == plan.tile_sizes[d]:
        return lines
    sizes = _sizes(plan.masked if i == d else 0 for i in range(len(plan.tile_sizes)))
    return lines + [f"      transform.foreach %r{d} : {_ANY} {{",
                    f"      ^bb0(%r{d}o: {_ANY}):",
                    f"        %r{d}t, %r{d}l = transform.structured.tile_using_for %r{d}o tile_sizes [{sizes}]"
                    f" : ({_ANY}) -> ({_handles(2)})",
                    "      }"]


def _split_lines(plan: TilePlan, k: int, d: int) -> list[str]:
    """Split plan k's ops in the remainder of loop d in tiles of
    `plan.split_sizes(d)` along d (fusing the fill, if the plan does): each
    size but the last tiled and peeled, its loop of full tiles marked with
    FULL_TILES_ATTR, the next size tiling what its peel leaves."""
    tile = "transform.structured.fuse" if plan.fuse_fill else "transform.structured.tile_using_for"
    lines = [f"      %r{d} = transform.structured.match attributes{{{PLAN_ATTR} = {k} : i64}} in %p{d}#1"
             f" : ({_ANY}) -> {_ANY}",
             f"      transform.foreach %r{d} : {_ANY} {{",
             f"      ^bb0(%r{d}s0: {_ANY}):"]
    sizes = plan.split_sizes(d)
    for i, size in enumerate(sizes):
        tiles = _sizes(size if j == d else 0 for j in range(len(plan.tile_sizes)))
        h = f"%r{d}s{i}"
        lines.append(f"        {h}t, {h}l = {tile} {h} tile_sizes [{tiles}] : ({_ANY}) -> ({_handles(2)})")
        if i == len(sizes) - 1:
            break
        lines += [f'        {h}c = transform.cast {h}l : {_ANY} to !transform.op<"scf.for">',
                  f'        {h}p:2 = transform.loop.peel {h}c : (!transform.op<"scf.for">) -> ({_handles(2)})',
                  f"        {h}k = transform.param.constant {size} : i64 -> !transform.param<i64>",
                  f'        transform.annotate {h}p#0 "{FULL_TILES_ATTR}" = {h}k : {_ANY}, !transform.param<i64>',
                  f"        %r{d}s{i + 1} = transform.structured.match attributes{{{PLAN_ATTR} = {k} : i64}}"
                  f" in {h}p#1 : ({_ANY}) -> {_ANY}"]
    return lines + ["      }"]


def _deferred_reduction_lines(plan: TilePlan, k: int) -> list[str]:
    """Tile every op of plan k (main tiles and remainders) along its reduction loops."""
    reduction = plan.reduction_sizes()
    n = sum(1 for t in reduction if t)
    return [f"    %q{k} = transform.structured.match attributes{{{PLAN_ATTR} = {k} : i64}} in %root"
            f" : ({_ANY}) -> {_ANY}",
            f"    transform.foreach %q{k} : {_ANY} {{",
            f"    ^bb0(%qo: {_ANY}):",
            f"      %qt, %ql:{n} = transform.structured.tile_using_for %qo tile_sizes [{_sizes(reduction)}]"
            f" : ({_ANY}) -> ({_handles(n + 1)})",
            "    }"]


def _vectorize_in_place_lines(plan: TilePlan, loops: dict[int, str]) -> list[str]:
    named = " {create_named_contraction}" if plan.kind == "contraction" else ""
    lines = []
    target = "%t"
    if plan.window:
        # Drop the tile's unit loops (the window's kh, kw, oh, ...) so every
        # access is a plain dimension, then find the (new) op again.
        inner = list(loops.values())[-1]
        lines += [f"      transform.apply_patterns to {inner} {{",
                  "        transform.apply_patterns.linalg.fold_unit_extent_dims_via_slices",
                  f"      }} : {_ANY}",
                  f'      %tw = transform.structured.match ops{{["linalg.generic"]}} in {inner} : ({_ANY}) -> {_ANY}']
        target = "%tw"
    return lines + [f"      transform.structured.vectorize {target}{named} : {_ANY}"]


def _vectorize_peeled_lines(plans: dict[TilePlan, int]) -> list[str]:
    """After every op is tiled and peeled: canonicalize, so every tile,
    remainders included, has a static shape, then vectorize them all."""
    lines = [f'    %fns = transform.structured.match ops{{["func.func"]}} in %root : ({_ANY}) -> {_ANY}',
             "    transform.apply_patterns to %fns {",
             "      transform.apply_patterns.canonicalization",
             "      transform.apply_patterns.linalg.tiling_canonicalization",
             f"    }} : {_ANY}",
             f"    %pf = transform.structured.match attributes{{{PEELED_FILL_ATTR}}} in %root : ({_ANY}) -> {_ANY}",
             f"    transform.structured.vectorize %pf : {_ANY}"]
    for plan, k in plans.items():
        if plan.masked:  # first: the main tiles' match below would take these too
            lines += [f"    %w{k} = transform.structured.match attributes{{{MASKED_ATTR} = {k} : i64}} in %root"
                      f" : ({_ANY}) -> {_ANY}",
                      f"    transform.structured.vectorize %w{k} vector_sizes [{_sizes(plan.masked_sizes())}]"
                      f" : {_ANY}"]
    for plan, k in plans.items():
        if plan.peel:
            named = " {create_named_contraction}" if plan.kind == "contraction" else ""
            lines += [f"    %v{k} = transform.structured.match attributes{{{PLAN_ATTR} = {k} : i64}} in %root"
                      f" : ({_ANY}) -> {_ANY}",
                      f"    transform.structured.vectorize %v{k}{named} : {_ANY}"]
    return lines


def tiling_script(plans: dict[TilePlan, int], vectorize: bool = True) -> str:
    """The script tiling (and peeling) each op marked with `PLAN_ATTR` = k by
    plan k, then vectorizing it; one op at a time (`structured.fuse` takes a
    single target). Without `vectorize`, the peeled tiles are left for
    `vectorize_script` (after remainders.py's rewrites)."""
    lines = []
    for plan, k in plans.items():
        lines += [f"    %m{k} = transform.structured.match attributes{{{PLAN_ATTR} = {k} : i64}} in %root"
                  f" : ({_ANY}) -> {_ANY}",
                  f"    transform.foreach %m{k} : {_ANY} {{",
                  f"    ^bb0(%op: {_ANY}):"]
        if plan.partial_reduction:
            lines.append(f"      %k = transform.param.constant {k} : i64 -> !transform.param<i64>")
        tile, loops = _tile_lines(plan)
        lines += tile
        lines += _peel_lines(plan, loops, k) if plan.peel else _vectorize_in_place_lines(plan, loops)
        lines.append("    }")
    for plan, k in plans.items():
        if plan.deferred_reduction:
            lines += _deferred_reduction_lines(plan, k)
    if vectorize and any(plan.peel for plan in plans):
        lines += _vectorize_peeled_lines(plans)
    return _SEQUENCE_HEAD + "\n".join(lines) + "\n" + _SEQUENCE_TAIL


def vectorize_script(plans: dict[TilePlan, int]) -> str:
    """What `tiling_script(plans, vectorize=False)` left: canonicalize, then
    vectorize the peeled tiles."""
    return _SEQUENCE_HEAD + "\n".join(_vectorize_peeled_lines(plans)) + "\n" + _SEQUENCE_TAIL
