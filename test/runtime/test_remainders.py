"""remainders.py: a contraction's `?` rows beyond whole register tiles run
as full tiles (the last tile moved back, overlapping) or, below one tile, as
tiles of halving sizes; every row must come out right, under both x86 plans
(AVX2: 6-row tiles, AVX-512: 8), whatever the host."""

from __future__ import annotations

import pytest
import torch
from _runtime_ir import _names, _parse
from _tolerance import reduction_tolerance

from tosa_custom import runtime
from tosa_custom.core.passes import run_pipeline
from tosa_custom.runtime.lower import lowering, tiling

pytestmark = pytest.mark.filterwarnings("error:tosa_custom.runtime. tiling/vectorization failed:RuntimeWarning")

K, N = 40, 64  # N a multiple of both plans' column tiles: one row loop per contraction
# x @ w (the fill fused into each tile: the overlapping tile starts from it) and
# tanh(x) @ w (a linalg producer: the fill is not fused, and is filled again in
# the overlapping tile), both over `?` rows.
_PROGRAM = f"""
func.func @main(%x: tensor<1x?x{K}xf32> {{tosa_custom.shape = [1, "s0", {K}]}}, %w: tensor<1x{K}x{N}xf32>)
    -> (tensor<1x?x{N}xf32>, tensor<1x?x{N}xf32>) attributes {{tosa_custom.symbols = {{s0 = array<i64: 1, 4096>}}}} {{
  %z = "tosa.const"() <{{values = dense<0.0> : tensor<1xf32>}}> : () -> tensor<1xf32>
  %0 = tosa.matmul %x, %w, %z, %z : (tensor<1x?x{K}xf32>, tensor<1x{K}x{N}xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<1x?x{N}xf32>
  %t = tosa.tanh %x : (tensor<1x?x{K}xf32>) -> tensor<1x?x{K}xf32>
  %1 = tosa.matmul %t, %w, %z, %z : (tensor<1x?x{K}xf32>, tensor<1x{K}x{N}xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<1x?x{N}xf32>
  return %0, %1 : tensor<1x?x{N}xf32>, tensor<1x?x{N}xf32>
}}"""


def _rows(cpu: str) -> list[int]:
    """Empty remainder, one row, a tile but one, a tile, a tile and one, two
    tiles but one, each size below a tile (the halving tiles), and primes."""
    mr = tiling.tile_config(cpu).mr
    return sorted({1, mr - 1, mr, mr + 1, 2 * mr - 1, 3 * mr, *range(2, mr), 37, 101})


@pytest.mark.parametrize("cpu", ["avx2", "avx512"])
def test_matmul_rows_at_every_remainder(cpu):
    program = runtime.load(_PROGRAM, cpu=cpu)
    g = torch.Generator().manual_seed(0)
    w = torch.randn(1, K, N, generator=g)
    for m in _rows(cpu):
        x = torch.randn(1, m, K, generator=g)
        y, yt = program(x, w)
        torch.testing.assert_close(y, x @ w, **reduction_tolerance(K), msg=lambda s: f"x @ w, {m} rows: {s}")
        torch.testing.assert_close(yt, torch.tanh(x) @ w, **reduction_tolerance(K),
                                   msg=lambda s: f"tanh(x) @ w, {m} rows: {s}")


def _tiled(text: str, cpu: str):
    module = _parse(text)
    with module.context:
        run_pipeline(module, lowering.FRONTEND_PIPELINE, "the runtime front end")
        plans = lowering.tile_and_vectorize(module, cpu)
    return module, plans


@pytest.mark.parametrize("cpu", ["avx2", "avx512"])
def test_remainder_tiles_are_whole_and_unmasked(cpu):
    """Both contractions: the tile loop clamped (one `affine.min` offset each),
    the remainder split in tiles of the powers of two below the row tile,
    every one a static vector.contract; no mask, no linalg op left."""
    module, plans = _tiled(_PROGRAM, cpu)
    mr, nr = tiling.tile_config(cpu).mr, tiling.tile_config(cpu).nr
    contractions = [p for p in plans if p.kind == "contraction"]
    assert contractions and all(p.split_remainders and p.split_sizes(1) == [4, 2, 1] for p in contractions)
    text = str(module)
    for rows in (mr, 4, 2, 1):
        assert text.count(f"vector<1x{rows}x1xf32>, vector<1x1x{nr}xf32> into vector<1x{rows}x{nr}xf32>") == 2, rows
    names = _names(module)
    assert names["vector.mask"] == 0 and names["linalg.batch_matmul"] == 0
    assert names["linalg.fill"] == 1  # the C of tanh(x) @ w, filled whole before its tiles (unfused, as before)
    assert names["arith.select"] == 2  # the bound of each tile loop: every row, or none beyond whole tiles


def test_static_contractions_are_planned_as_before():
    module, plans = _tiled(_PROGRAM.replace("?", "37").replace('"s0"', "37"), "avx2")
    assert not any(p.split_remainders for p in plans)
    assert _names(module)["arith.select"] == 0


# Reductions along a `?` row keep per-lane partial results over the row
# (TilePlan.partial_reduction); the remainder's masked-off lanes must leave
# them as they were, whatever the combiner's neutral element.
_ROW_REDUCTIONS = """
func.func @main(%x: tensor<?x?xf32> {tosa_custom.shape = ["s0", "s1"]}, %i: tensor<?x?xi32> {tosa_custom.shape = ["s0", "s1"]})
    -> (tensor<?x1xf32>, tensor<?x1xi32>, tensor<?x1xi32>)
    attributes {tosa_custom.symbols = {s0 = array<i64: 1, 4096>, s1 = array<i64: 1, 4096>}} {
  %p = tosa.reduce_product %x {axis = 1 : i32} : (tensor<?x?xf32>) -> tensor<?x1xf32>
  %s = tosa.reduce_sum %i {axis = 1 : i32} : (tensor<?x?xi32>) -> tensor<?x1xi32>
  %m = tosa.reduce_max %i {axis = 1 : i32} : (tensor<?x?xi32>) -> tensor<?x1xi32>
  return %p, %s, %m : tensor<?x1xf32>, tensor<?x1xi32>, tensor<?x1xi32>
}"""


@pytest.mark.parametrize("cpu", ["avx2", "avx512"])
def test_row_reductions_keep_partial_results_at_every_remainder(cpu):
    config = tiling.tile_config(cpu)
    program = runtime.load(_ROW_REDUCTIONS, cpu=cpu)
    g = torch.Generator().manual_seed(1)
    for n in sorted({1, config.lanes - 1, config.elementwise - 1, config.elementwise, config.elementwise + 1,
                     2 * config.elementwise + config.lanes + 3}):
        x = 1 + (torch.rand(3, n, generator=g) - 0.5) / n  # products near 1: no overflow, every factor counts
        i = -torch.randint(1, 1000, (3, n), generator=g, dtype=torch.int32)  # negative: a 0 lane would show in a max
        p, s, m = program(x, i)
        torch.testing.assert_close(p, x.prod(1, keepdim=True), **reduction_tolerance(n), msg=lambda e: f"{n}: {e}")
        assert torch.equal(s, i.sum(1, keepdim=True, dtype=torch.int32)), n
        assert torch.equal(m, i.amax(1, keepdim=True)), n


def test_row_reductions_plan_partial_results():
    module, plans = _tiled(_ROW_REDUCTIONS, "avx2")
    assert plans and all(p.partial_reduction for p in plans if p.dynamic)
    # One per row each, after the loops over the row (per tile, with its
    # masked remainder: twice as many).
    assert _names(module)["vector.multi_reduction"] == 3


# Attention's scores: rows and columns both `?` (one symbol). Only the
# columns' remainder (the vector lanes) is split in halving tiles; the rows'
# remainder runs a row at a time (TilePlan.split_sizes: the splits multiply).
_SCORES = f"""
func.func @main(%q: tensor<1x?x{K}xf32> {{tosa_custom.shape = [1, "s0", {K}]}},
                %k: tensor<1x{K}x?xf32> {{tosa_custom.shape = [1, {K}, "s0"]}})
    -> tensor<1x?x?xf32> attributes {{tosa_custom.symbols = {{s0 = array<i64: 1, 4096>}}}} {{
  %z = "tosa.const"() <{{values = dense<0.0> : tensor<1xf32>}}> : () -> tensor<1xf32>
  %0 = tosa.matmul %q, %k, %z, %z : (tensor<1x?x{K}xf32>, tensor<1x{K}x?xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<1x?x?xf32>
  return %0 : tensor<1x?x?xf32>
}}"""


@pytest.mark.parametrize("cpu", ["avx2", "avx512"])
def test_scores_split_only_the_columns_remainder(cpu):
    _, plans = _tiled(_SCORES, cpu)
    (plan,) = [p for p in plans if p.kind == "contraction"]
    nr = tiling.tile_config(cpu).nr
    assert sorted(plan.dynamic) == [1, 2], plan
    assert plan.split_sizes(1) == [1]
    assert plan.split_sizes(2) == [2 ** i for i in range(nr.bit_length() - 1)][::-1], plan.split_sizes(2)
    program = runtime.load(_SCORES, cpu=cpu)
    g = torch.Generator().manual_seed(1)
    mr = tiling.tile_config(cpu).mr
    for t in sorted({1, 3, mr - 1, mr + 1, nr - 1, nr, nr + 5, 2 * nr + 7}):
        q, k = torch.randn(1, t, K, generator=g), torch.randn(1, K, t, generator=g)
        torch.testing.assert_close(program(q, k), q @ k, **reduction_tolerance(K), msg=lambda s: f"{t} x {t}: {s}")
