"""prologues.py: a layer norm and a GELU fusion put into linear layers come back out, and the block still computes what eager does."""

from __future__ import annotations

import pytest
import torch
from torch_mlir import ir

from tosa_custom.core import ir as _ir
from tosa_custom import runtime
from tosa_custom.core.ir import collect_ops
from tosa_custom.core.passes import run_pipeline, split_pipeline
from tosa_custom.runtime.lower import lowering
from tosa_custom.runtime.lower.prologues import split_contraction_prologues
from _tolerance import assert_reduction_close


class _ChannelsLastMlp(torch.nn.Module):
    """ConvNeXt's block without its depthwise convolution: layer_norm over channels, Linear, GELU, Linear."""

    def __init__(self, c: int = 24):
        super().__init__()
        self.norm, self.fc1, self.fc2 = torch.nn.LayerNorm(c), torch.nn.Linear(c, 4 * c), torch.nn.Linear(4 * c, c)

    def forward(self, x):
        y = self.fc2(torch.nn.functional.gelu(self.fc1(self.norm(x.permute(0, 2, 3, 1)))))
        return x + y.permute(0, 3, 1, 2)


def _module(model, x) -> str:
    import tosa_custom
    return tosa_custom.compile(model, (x,)).operation.get_asm()


@pytest.mark.parametrize("isa", ["avx2", "avx512"])
def test_layer_norm_and_gelu_leave_the_linear_layers_and_match_eager(isa):
    torch.manual_seed(0)
    model, x = _ChannelsLastMlp().eval(), torch.randn(1, 24, 5, 6)
    text = _module(model, x)
    module = ir.Module.parse(text, _ir.make_context())
    run_pipeline(module, split_pipeline(lowering.FRONTEND_PIPELINE), "the frontend")
    assert split_contraction_prologues(module) == 2  # the normalisation from fc1, the GELU from fc2
    reductions = collect_ops(module, lambda op: op.name == "linalg.generic" and "reduction" in str(
        op.attributes["iterator_types"]))
    bodies = [o.name for op in reductions for o in op.regions[0].blocks[0].operations]
    assert "math.rsqrt" not in bodies and "math.erf" not in bodies  # computed once per element, not per column
    program = runtime.load(text, cpu=isa)
    with torch.no_grad():
        expected = model(x)
    assert_reduction_close(program(x), expected, k=4 * 24, depth=2)
