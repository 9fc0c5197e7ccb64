"""TorchToTosa's refusals of static ops, said plainly (frontend/refusals.py).

regnet_y_400mf failed in stock mode with MLIR's "failed to legalize
operation 'torch.aten.convolution'", a generic op dump and a chain of call
sites: a grouped convolution (55 groups of 8 channels) TorchToTosa does not
lower. Stock and selective mode now name the op, what about it TorchToTosa
does not take, the model's line and the two ways out; auto mode runs it.
(A grouped 2-d convolution is now a batched matmul before TorchToTosa
sees it, frontend/capture.py; a grouped 3-d one is still refused.)
"""

from __future__ import annotations

import re
import warnings

import pytest
import torch

import tosa_custom
from tosa_custom import CompileError, runtime


class Blocks(torch.nn.Module):
    """3-d convolutions made by one line in a loop (as regnet's blocks are),
    the last a grouped one of many groups."""

    def __init__(self):
        super().__init__()
        self.convs = torch.nn.ModuleList(torch.nn.Conv3d(110, 110, 3, padding=1, groups=g) for g in (1, 55))

    def forward(self, x):
        for conv in self.convs:
            x = conv(x)  # the refused one's line
        return x


def _compile(model, x, legal):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return tosa_custom.compile(model.eval(), (x,), backend_legal_ops=legal)


@pytest.mark.parametrize("legal", [None, ["aten.relu"]], ids=["stock", "selective"])
def test_a_grouped_convolution_torch_to_tosa_refuses_is_named_with_its_line_and_the_fixes(legal):
    with pytest.raises(CompileError) as info:
        _compile(Blocks(), torch.randn(1, 110, 3, 3, 3), legal)
    first = str(info.value).splitlines()[0]
    assert first.startswith("TorchToTosa does not lower torch.aten.convolution with groups=55 (a grouped "
                            "convolution: 110 input channels in groups of 2), at ")
    assert re.search(r"test_refusals\.py:\d+ \(in .*torch/nn/modules/conv\.py:\d+\)", first)
    assert "backend_legal_ops=['aten.convolution']" in first and "backend_legal_ops='auto'" in first
    assert "failed to legalize operation 'torch.aten.convolution'" in str(info.value)  # MLIR's own words stay
    assert (info.value.category, info.value.ops) == ("lowering-failed", ("torch.aten.convolution",))


def test_auto_mode_tunnels_the_grouped_convolution_and_matches_eager():
    model, x = Blocks().eval(), torch.randn(1, 110, 3, 3, 3)
    got = runtime.load(_compile(model, x, "auto"))(x)
    torch.testing.assert_close(got, model(x), rtol=1e-4, atol=1e-4)


def test_any_op_torch_to_tosa_refuses_is_named_with_its_operands():
    class Asin(torch.nn.Module):
        def forward(self, x):
            return torch.asin(x)

    with pytest.raises(CompileError, match=r"^TorchToTosa does not lower torch\.aten\.asin of these operands "
                                           r"\(\(!torch\.vtensor<\[2,4\],f32>\) -> !torch\.vtensor<\[2,4\],f32>\), "
                                           r"at .*test_refusals\.py:\d+\. Keep the op as tosa\.custom "
                                           r"\(backend_legal_ops=\['aten\.asin'\]\)"):
        _compile(Asin(), torch.rand(2, 4), None)
