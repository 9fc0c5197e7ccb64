"""tiling.py: the planner's choices, and that tiled, packed and generalized ops compute what eager PyTorch does."""

from __future__ import annotations

import types

import pytest
import torch
from torch_mlir import ir

from tosa_custom.core import ir as _ir
from tosa_custom import runtime
from tosa_custom.core.passes import PassContext, run_pipeline, split_pipeline
from tosa_custom.runtime.lower import lowering, tiling
from tosa_custom.runtime.compiled.cpu import cpu_target
from _runtime_ir import _matmul, _names, _ops, _parse  # noqa: F401  (shared IR helpers)
from _tolerance import assert_reduction_close


def test_matmul_plan_is_a_register_tile_with_the_fill_fused():
    module = _parse(_matmul(1, 64, 32, 96))
    with module.context:
        run_pipeline(module, lowering.FRONTEND_PIPELINE, "the runtime front end")
    plans = lowering.plan_tiling(module, "avx512")
    contractions = [(op.name, plan) for op, plan in plans if plan.kind.startswith("contraction")]
    assert len(contractions) == 1
    name, plan = contractions[0]
    assert name == "linalg.batch_matmul"
    # (batch, m, n, k): 8 rows x 32 columns (AVX-512), the reduction one step at a time, columns outermost
    assert plan.kind == "contraction" and plan.tile_sizes == (1, 8, 32, 1)
    assert plan.interchange == (0, 2, 1, 3)
    assert plan.fuse_fill


def test_matmul_tiles_and_vectorizes():
    module = _parse(_matmul(2, 64, 32, 96))
    with module.context:
        run_pipeline(module, lowering.FRONTEND_PIPELINE, "the runtime front end")
        lowering.tile_and_vectorize(module, cpu="avx512")  # IR only: the same tiles on any host
    names = _names(module)
    assert names["linalg.batch_matmul"] == 0 and names["linalg.fill"] == 0  # both vectorized
    assert names["vector.contract"] == 1 and names["scf.for"] >= 3


def test_bool_buffers_are_not_vectorized():
    """vector<N x i1> is bit-packed in LLVM memory, a memref of i1 has a byte per element."""
    text = """
func.func @f(%a: tensor<4x64xf32>, %b: tensor<4x64xf32>) -> (tensor<4x64xi1>, tensor<4x64xf32>) {
  %c = tosa.greater %a, %b : (tensor<4x64xf32>, tensor<4x64xf32>) -> tensor<4x64xi1>
  %s = tosa.select %c, %a, %b : (tensor<4x64xi1>, tensor<4x64xf32>, tensor<4x64xf32>) -> tensor<4x64xf32>
  return %c, %s : tensor<4x64xi1>, tensor<4x64xf32>
}"""
    module = _parse(text)
    with module.context:
        run_pipeline(module, lowering.FRONTEND_PIPELINE, "the runtime front end")
    for op, plan in lowering.plan_tiling(module):
        for v in list(op.operands):
            t = v.type
            if isinstance(t, ir.ShapedType) and str(t.element_type) == "i1":
                assert v is not op.operands[-1], "an op writing i1 was planned"
    a, b = torch.randn(4, 64), torch.randn(4, 64)
    c, s = runtime.load(text)(a, b)
    assert torch.equal(c, a > b) and torch.equal(s, torch.where(a > b, a, b))


def test_big_matmul_packs_its_columns():
    """B in column panels (K x 32 contiguous), C written in place, the packing copy vectorized too."""
    module = _parse(_matmul(1, 128, 256, 512))
    with module.context, ir.Location.unknown():
        run_pipeline(module, lowering.FRONTEND_PIPELINE, "the runtime front end")
        assert lowering.pack_columns(module) == 1
    names = _names(module)
    assert names["linalg.batch_matmul"] == 0 and names["func.call"] == 1 and names["linalg.transpose"] == 1
    module = _parse(_matmul(1, 128, 256, 512))
    lowering.lower_to_vectors(module)
    names = _names(module)
    assert names["func.call"] == 0 and names["memref.copy"] == 0 and names["linalg.generic"] == 0
    assert not [n for n in names if n.startswith("linalg.")], names
    funcs = [op for op in module.body.operations if op.operation.name == "func.func"]
    assert len(funcs) == 1  # the packing function was inlined


@pytest.mark.parametrize("b,m,k,n", [(1, 128, 256, 512), (2, 64, 128, 96), (1, 72, 40, 1024)])
def test_packed_matmul_matches_eager(b, m, k, n):
    g = torch.Generator().manual_seed(m + k + n)
    a, w = torch.randn(b, m, k, generator=g), torch.randn(b, k, n, generator=g)
    module = _parse(_matmul(b, m, k, n))
    with module.context, ir.Location.unknown():
        run_pipeline(module, lowering.FRONTEND_PIPELINE, "the runtime front end")
        assert lowering.pack_columns(module) == 1
    program = runtime.load(_matmul(b, m, k, n))
    assert_reduction_close(program(a, w), torch.bmm(a, w), k)


class _Convs(torch.nn.Module):
    def __init__(self, stride: int, dilation: int):
        super().__init__()
        self.conv = torch.nn.Conv2d(8, 32, 3, stride=stride, padding=1, dilation=dilation)
        self.depthwise = torch.nn.Conv2d(32, 32, 3, padding=1, groups=32)
        self.pool = torch.nn.MaxPool2d(2)

    def forward(self, x):
        return self.pool(self.depthwise(torch.relu(self.conv(x))))


@pytest.mark.parametrize("stride,dilation", [(1, 1), (2, 1), (1, 2)])
def test_convolutions_are_vectorized_and_match_eager(stride, dilation):
    import tosa_custom

    torch.manual_seed(0)
    model, x = _Convs(stride, dilation).eval(), torch.randn(2, 8, 16, 16)
    module = tosa_custom.compile(model, (x,))
    text = module.operation.get_asm()
    plans = lowering.lower_to_vectors(ir.Module.parse(text, _ir.make_context()))
    windows = [p for p in plans if p.window]
    assert len([p for p in windows if p.kind.startswith("contraction")]) == 2  # the conv and the depthwise conv
    program = runtime.load(text)
    with torch.no_grad():
        expected = model(x)
    assert_reduction_close(program(x), expected, k=8 * 9, depth=2)  # the conv, then the depthwise one


# --- The planner per CPU (cpu.py): every ISA planned on any host -------------

ISAS = ["sse", "avx", "avx2", "avx512", "neon"]


@pytest.mark.parametrize("isa", ISAS)
def test_register_tile_fits_the_register_file(isa):
    config = tiling.tile_config(isa)
    cpu = cpu_target(isa)
    assert config.lanes == cpu.vector_bits // 32 and config.registers == cpu.registers
    assert config.nr % config.lanes == 0  # whole registers of columns
    # accumulators + the B row + the broadcast A element, in registers
    assert config.mr * (config.nr // config.lanes) + config.nr // config.lanes + 1 <= cpu.registers
    assert config.registers_used() <= cpu.registers
    assert config.mr >= 4  # enough independent FMAs to cover the FMA latency
    assert config.elementwise % config.lanes == 0 and config.reduction % config.lanes == 0


def test_tiles_per_isa():
    assert {isa: (tiling.tile_config(isa).mr, tiling.tile_config(isa).nr) for isa in ISAS} == {
        "sse": (6, 8), "avx": (6, 16), "avx2": (6, 16), "avx512": (8, 32), "neon": (8, 8)}


@pytest.mark.parametrize("isa", ISAS)
@pytest.mark.parametrize("m,n", [(7, 33), (96, 64), (64, 100), (197, 251), (9, 24), (5, 12)])
def test_every_contraction_tile_fits_and_handles_its_remainder(isa, m, n):
    """Per op: rows up to MR and whole vectors of columns up to NR (or fewer
    columns than one vector), in registers; a tile that does not divide its
    loop is the full tile, or the whole vectors of a loop shorter than it,
    and its remainder is peeled (no tile shrinks to one row on a prime size)."""
    config = tiling.tile_config(isa)
    module = _parse(_matmul(2, m, 13, n))
    with module.context:
        run_pipeline(module, lowering.FRONTEND_PIPELINE, "the runtime front end")
    (op, plan), = [(op, p) for op, p in lowering.plan_tiling(module, isa) if p.kind.startswith("contraction")]
    _, rows, columns, depth = plan.tile_sizes
    assert rows <= config.mr and columns <= config.nr and depth == 1
    assert columns % config.lanes == 0 or columns == n < config.lanes
    assert config.registers_used(rows, columns) <= config.registers
    for dim, size, tile, cap in ((1, m, rows, config.mr), (2, n, columns, config.nr)):
        assert (size % tile != 0) == (dim in plan.peel)
        assert dim not in plan.peel or tile == cap or (dim == 2 and tile == size - size % config.lanes)
        assert size < cap or 4 * tile >= 3 * cap  # never a sliver of the tile


@pytest.mark.parametrize("isa", ["sse", "avx2", "avx512"])
def test_peeled_and_padded_contraction_matches_eager(isa):
    """Prime sizes big enough to pack B: the panels are padded with zeros, C
    is sliced back, and the peeled row and column remainders are computed."""
    g = torch.Generator().manual_seed(2)
    a, w = torch.randn(1, 131, 140, generator=g), torch.randn(1, 140, 101, generator=g)
    plans = lowering.lower_to_vectors(_parse(_matmul(1, 131, 140, 101)), isa)
    assert any(plan.peel for plan in plans)
    program = runtime.load(_matmul(1, 131, 140, 101), cpu=isa)
    assert_reduction_close(program(a, w), torch.bmm(a, w), 140)


@pytest.mark.parametrize("isa", ISAS)
def test_odd_sizes_match_eager(isa):
    """Sizes no tile divides (primes), planned for each ISA, run here: the JIT
    is kept to the ISA when the host has a wider one (SSE: no FMA, split)."""
    g = torch.Generator().manual_seed(1)
    a, w = torch.randn(3, 7, 13, generator=g), torch.randn(3, 13, 37, generator=g)
    program = runtime.load(_matmul(3, 7, 13, 37), cpu=isa)
    assert program.tiling.isa == isa
    assert_reduction_close(program(a, w), torch.bmm(a, w), 13)


class _Rows(torch.nn.Module):
    """Softmax and GELU along a prime-length row, longer than any vector length."""

    def forward(self, x):
        return torch.nn.functional.gelu(torch.softmax(x, -1)) + x.sum(-1, keepdim=True)


@pytest.mark.parametrize("isa", ["sse", "avx2", "avx512"])
def test_peeled_elementwise_and_reductions_match_eager(isa):
    import tosa_custom

    x = torch.randn(3, 1031, generator=torch.Generator().manual_seed(3))
    module = tosa_custom.compile(_Rows().eval(), (x,))
    front = _parse(str(module))
    with front.context:
        run_pipeline(front, lowering.FRONTEND_PIPELINE, "the runtime front end")
    plans = [p for _, p in lowering.plan_tiling(front, isa) if p.kind == "elementwise"]
    config = tiling.tile_config(isa)
    assert plans and all(p.peel for p in plans)  # 1031 is prime: every row tile leaves a remainder
    assert {max(p.tile_sizes) for p in plans} == {config.reduction, config.elementwise}
    program = runtime.load(module, cpu=isa)
    assert_reduction_close(program(x), _Rows()(x), 1031)


class _Mixed(torch.nn.Module):
    """A linear layer, softmax, layer norm and GELU at odd sizes."""

    def __init__(self):
        super().__init__()
        self.fc = torch.nn.Linear(19, 37)
        self.norm = torch.nn.LayerNorm(37)

    def forward(self, x):
        return torch.nn.functional.gelu(self.norm(torch.softmax(self.fc(x), -1) * x.sum(-1, keepdim=True)))


@pytest.mark.parametrize("isa", ISAS)
def test_odd_sized_block_matches_eager_on_every_isa(isa):
    import tosa_custom

    torch.manual_seed(0)
    model, x = _Mixed().eval(), torch.randn(5, 11, 19)
    program = runtime.load(tosa_custom.compile(model, (x,)), cpu=isa)
    with torch.no_grad():
        assert torch.allclose(program(x), model(x), rtol=1e-4, atol=1e-4)


@pytest.mark.parametrize("isa", ["sse", "avx2", "avx512"])
def test_convolutions_match_eager_on_every_isa(isa):
    import tosa_custom

    torch.manual_seed(0)
    model, x = _Convs(1, 1).eval(), torch.randn(1, 8, 15, 13)
    program = runtime.load(tosa_custom.compile(model, (x,)), cpu=isa)
    with torch.no_grad():
        expected = model(x)
    assert_reduction_close(program(x), expected, k=8 * 9, depth=2)


@pytest.mark.parametrize("n,cap,lanes,peel,expected", [
    (112, 32, 16, False, (16, False)),  # not 28 (1.75 vectors): a window's loop is not peeled
    (80, 32, 16, False, (16, False)),   # not 20
    (72, 32, 16, False, (12, False)),   # not 24: no whole vectors divide 72; 12 is below one
    (72, 16, 8, False, (8, False)),     # not 12
    (24, 32, 16, True, (16, True)),     # 1.5 vectors: the whole one, the rest peeled
    (24, 16, 8, True, (16, True)),      # unchanged: _tile's full tile, peeled
    (12, 32, 16, False, (12, False)),   # below one vector
    (96, 32, 16, False, (32, False)),
    (100, 32, 16, True, (32, True)),
])
def test_column_tiles_are_whole_vectors(n, cap, lanes, peel, expected):
    """A contraction's column tile is whole vectors or less than one: a part
    past whole vectors ran mobilenet_v3's 1x1 convolutions 6-18x slower on
    AVX-512 (tiling._column_tile)."""
    assert tiling._column_tile(n, cap, lanes, peel) == expected


@pytest.mark.parametrize("isa", ["sse", "avx2", "avx512"])
def test_convolutions_of_odd_filter_counts_match_eager(isa):
    import tosa_custom

    torch.manual_seed(0)
    model = torch.nn.Sequential(torch.nn.Conv2d(24, 72, 1), torch.nn.Conv2d(72, 72, 3, padding=1, groups=72),
                                torch.nn.Conv2d(72, 112, 3, padding=1), torch.nn.Conv2d(112, 24, 1)).eval()
    x = torch.randn(1, 24, 5, 6)
    program = runtime.load(tosa_custom.compile(model, (x,)), cpu=isa)
    with torch.no_grad():
        expected = model(x)
    assert_reduction_close(program(x), expected, k=112, depth=4)


class _WideConvs(torch.nn.Module):
    """resnet-like: a 3x3 and a 1x1 convolution of constant filters, 64 and 72 filters."""

    def __init__(self):
        super().__init__()
        self.conv = torch.nn.Conv2d(16, 64, 3, padding=1)
        self.project = torch.nn.Conv2d(64, 72, 1, bias=False)

    def forward(self, x):
        return self.project(torch.relu(self.conv(x)))


@pytest.mark.parametrize("isa", ["sse", "avx2", "avx512"])
def test_constant_filters_are_packed_and_match_eager_on_every_isa(isa):
    """Filters transposed and packed in column panels at compile time (numpy),
    no linalg copy of them left; 72 filters pad to whole panels of 8 or 16
    (AVX2; AVX-512's 32 would waste a third: left unpacked)."""
    import tosa_custom

    torch.manual_seed(0)
    model, x = _WideConvs().eval(), torch.randn(1, 16, 6, 7)
    text = tosa_custom.compile(model, (x,)).operation.get_asm()
    module = ir.Module.parse(text, _ir.make_context())
    run_pipeline(module, split_pipeline(lowering.FRONTEND_PIPELINE), "the frontend")
    tiling.generalize(module)
    transposed = tiling.make_columns_contiguous(module)
    packed = tiling.pack_columns(module, PassContext(tiling.PACK_COLUMNS, types.SimpleNamespace(cpu=isa)))
    assert transposed == 2 and packed == (1 if isa == "avx512" else 2)
    assert "linalg.transpose" not in str(module)  # the layout's own were generalized before: these are ours
    program = runtime.load(text, cpu=isa)
    with torch.no_grad():
        expected = model(x)
    assert_reduction_close(program(x), expected, k=16 * 9 + 64, depth=2)


def test_without_fma_every_fma_is_split():
    """On SSE (and AVX) llvm.fma is a libm call per lane: the tail splits it into mul + add."""
    sse, avx2 = _parse(_matmul(1, 64, 32, 96)), _parse(_matmul(1, 64, 32, 96))
    lowering.lower_to_vectors(sse, "sse")
    lowering.lower_to_vectors(avx2, "avx2")
    assert _names(avx2)["vector.fma"] > 0
    assert _names(sse)["vector.fma"] == 0 and _names(sse)["math.fma"] == 0 and _names(sse)["arith.mulf"] > 0


def test_program_reports_its_tiling_and_replays_it():
    program = runtime.load(_matmul(1, 8, 8, 16), cpu="avx2")
    assert (program.tiling.isa, program.tiling.vector_bits, program.tiling.registers) == ("avx2", 256, 16)
    assert program.tiling.tile == (6, 16)
    assert "tosa-custom-tile-and-vectorize{cpu=avx2}" in program.pipeline
    assert "tosa-custom-pack-columns{cpu=avx2}" in program.pipeline
    if cpu_target("host").name == "avx512":  # the JIT kept to AVX2
        assert f"tosa-custom-jit-features{{features={','.join(cpu_target('avx2').jit_features)}}}" in program.pipeline
        assert cpu_target("avx2").jit_features[0] == "-avx512f"


def test_environment_variable_chooses_the_cpu(monkeypatch):
    monkeypatch.setenv("TOSA_CUSTOM_CPU", "sse")
    program = runtime.load(_matmul(1, 8, 8, 16))
    assert program.tiling.isa == "sse" and program.tiling.cpu.source == "TOSA_CUSTOM_CPU"
    assert program.tiling.tile == (6, 8)
    monkeypatch.setenv("TOSA_CUSTOM_CPU", "avx3")
    with pytest.raises(ValueError, match="unknown CPU 'avx3'"):
        runtime.load(_matmul(1, 8, 8, 16))


def test_jit_features_are_set_on_every_function():
    module = _parse(_matmul(1, 8, 8, 16))
    run_pipeline(module, split_pipeline(lowering.pipeline(True, outline=False, cpu="avx512"))
                 + ["tosa-custom-jit-features{features=-avx512f,-avx512vl}"], "the runtime lowering")
    funcs = [op for op in _ops(module) if op.name == "llvm.func" and len(op.regions[0].blocks)]
    assert funcs and all('"-avx512f", "-avx512vl"' in str(f.attributes["target_features"]) for f in funcs)


class _Transposes(torch.nn.Module):
    """A transpose of an odd size, one fused with elementwise work, and a
    broadcast of a per-row vector (small: not a transpose)."""

    def forward(self, x, v):
        return x.transpose(1, 2).contiguous() * 2.0, torch.relu(x.transpose(0, 2)) + 1.0, x + v


@pytest.mark.parametrize("isa", ["sse", "avx2", "avx512"])
def test_transposes_take_one_register_of_lanes_and_match_eager(isa):
    import tosa_custom

    g = torch.Generator().manual_seed(5)
    x, v = torch.randn(3, 67, 130, generator=g), torch.randn(3, 67, 1, generator=g)
    module = tosa_custom.compile(_Transposes().eval(), (x, v))
    front = _parse(str(module))
    with front.context:  # the transposes as generics, as tiling meets them
        run_pipeline(front, [*split_pipeline(lowering.FRONTEND_PIPELINE), tiling.GENERALIZE], "the front end")
    config = tiling.tile_config(isa)
    plans = lowering.plan_tiling(front, isa)
    permuted = [max(p.tile_sizes) for op, p in plans if "(d0, d1, d2) -> (d0, d1, d2)" not in
                str(ir.ArrayAttr(op.attributes["indexing_maps"])[0])]
    # The two transposes at one register's lanes; the rest (a broadcast add
    # among them) as wide as elementwise ops go, or their whole row (3).
    assert permuted == [config.lanes, config.lanes]
    assert sorted(max(p.tile_sizes) for _, p in plans) == sorted([3, config.lanes, config.lanes] + [
        config.elementwise] * 2)
    program = runtime.load(module, cpu=isa)
    for got, want in zip(program(x, v), _Transposes()(x, v)):
        assert torch.equal(got, want)
