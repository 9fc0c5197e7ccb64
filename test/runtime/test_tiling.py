"""tiling.py: the planner's choices, and that tiled, packed and generalized ops compute what eager PyTorch does."""

from __future__ import annotations

import collections

import pytest
import torch
from torch_mlir import ir

from tosa_custom.core import ir as _ir
from tosa_custom import runtime
from tosa_custom.core.passes import run_pipeline
from tosa_custom.runtime import lowering, tiling
from _runtime_ir import _matmul, _names, _ops, _parse  # noqa: F401  (shared IR helpers)
from _tolerance import assert_reduction_close


def test_matmul_plan_is_a_register_tile_with_the_fill_fused():
    module = _parse(_matmul(1, 64, 32, 96))
    with module.context:
        run_pipeline(module, lowering.FRONTEND_PIPELINE, "the runtime front end")
    plans = lowering.plan_tiling(module)
    contractions = [(op.name, plan) for op, plan in plans if plan.kind.startswith("contraction")]
    assert len(contractions) == 1
    name, plan = contractions[0]
    assert name == "linalg.batch_matmul"
    # (batch, m, n, k): 8 rows x 32 columns, the reduction one step at a time, columns outermost
    assert plan.kind == "contraction" and plan.tile_sizes == (1, 8, 32, 1)
    assert plan.interchange == (0, 2, 1, 3)
    assert plan.fuse_fill


def test_matmul_tiles_and_vectorizes():
    module = _parse(_matmul(2, 64, 32, 96))
    with module.context:
        run_pipeline(module, lowering.FRONTEND_PIPELINE, "the runtime front end")
        lowering.tile_and_vectorize(module)
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
