"""Quantized transposed convolutions (issue 38): TRANSPOSE_CONV2D on int8
with zero points into i32, then RESCALE, within 1 LSB of PT2E eager, the
reference model equal to our runtime. XNNPACK's quantizer annotates
conv_transpose only with a relu or batch norm after it, and quantizes its
weights per input channel (ch_axis=0), which integer arithmetic cannot
take: that is refused, naming the fix; per output channel (ch_axis=1, as
ExecuTorch's Arm quantizer does) and per tensor are lowered."""

from __future__ import annotations

import dataclasses

import pytest
import torch
from torch import nn
from torch.nn import functional as F

from _pt2e import compile_and_check, lsb_error, quantize, xnn

from tosa_custom.core.diagnostics import CompileError


class _Up(nn.Module):
    def __init__(self, bn: bool = False, **kw):
        super().__init__()
        self.up = nn.ConvTranspose2d(8, 6, 3, **kw)
        self.bn = nn.BatchNorm2d(6) if bn else nn.Identity()

    def forward(self, x):
        return F.relu(self.bn(self.up(x)))


def _quantizer(per_channel: bool, output_axis: bool = True):
    """XNNPACK's config, its weights per output channel of conv_transpose
    (ch_axis=1) when asked: globally, since the models here have no other
    weights (a module-type config would leave the relu, outside the
    ConvTranspose2d module, out of the conv_transpose + relu pattern)."""
    config = xnn.get_symmetric_quantization_config(is_per_channel=per_channel)
    if per_channel and output_axis:
        config = dataclasses.replace(config, weight=dataclasses.replace(config.weight, ch_axis=1))
    return xnn.XNNPACKQuantizer().set_global(config)


_SHAPE = (1, 8, 6, 6)
_CASES = {"stride2_pad1": dict(stride=2, padding=1), "stride1": dict(stride=1), "output_padding": dict(
    stride=2, padding=1, output_padding=1)}


@pytest.mark.parametrize("per_channel", [True, False], ids=["per-output-channel", "per-tensor"])
@pytest.mark.parametrize("bn", [False, True], ids=["relu", "bn_relu"])
@pytest.mark.parametrize("case", list(_CASES))
def test_conv_transpose(case, bn, per_channel):
    torch.manual_seed(0)
    model = _Up(bn, **_CASES[case])
    if bn:
        model.bn.running_mean.uniform_(-0.5, 0.5)
        model.bn.running_var.uniform_(0.5, 2.0)
    args = (torch.randn(_SHAPE),)
    qm = quantize(model, args, _quantizer(per_channel))
    inputs = [(torch.randn(_SHAPE) * 2,) for _ in range(3)]
    out, scales, module = compile_and_check(qm, args, inputs)
    assert "tosa.transpose_conv2d" in str(module)
    for x, got, ref in zip(inputs, out["runtime"], out["refmodel"]):
        assert torch.equal(got, ref), "the reference model and the runtime differ"
        assert lsb_error(got, qm(*x), scales[0]) <= 1.0


def test_weights_per_input_channel_are_refused():
    torch.manual_seed(0)
    args = (torch.randn(_SHAPE),)
    qm = quantize(_Up(stride=2), args, _quantizer(True, output_axis=False))
    with pytest.raises(CompileError, match=r"the input channels: .*quantize them per output channel \(ch_axis=1\)"):
        compile_and_check(qm, args, [args])
