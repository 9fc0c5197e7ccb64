"""A small transformer block (Linear, layer_norm, softmax attention, gelu
MLP, residuals) quantized with PT2E: XNNPACK's symmetric config, plus the
annotation XNNPACK's quantizer lacks for the ops without an integer TOSA
form (layer_norm, softmax, gelu: their inputs and outputs quantized, as
the quantizers of integer NPUs annotate them), so each sits in a
`dequantize -> op -> quantize` group a kept op can take on integers."""

from __future__ import annotations

import torch
from torch import nn

from torchao.quantization.pt2e.quantizer import ComposableQuantizer, QuantizationAnnotation, Quantizer
from torchao.testing.pt2e import _xnnpack_quantizer as xnn

from _pt2e import CONFIGS

__all__ = ["Block", "KEPT_OPS", "quantizer"]

# The ops the tests keep in selective mode.
KEPT_OPS = ["aten.layer_norm", "aten.softmax", "aten.gelu"]
_ANNOTATED = {torch.ops.aten.layer_norm.default, torch.ops.aten.softmax.int, torch.ops.aten.gelu.default}


class Block(nn.Module):
    def __init__(self, d: int = 32, heads: int = 2):
        super().__init__()
        self.heads = heads
        self.embed = nn.Linear(d, d)
        self.ln1, self.ln2 = nn.LayerNorm(d), nn.LayerNorm(d)
        self.qkv, self.proj = nn.Linear(d, 3 * d), nn.Linear(d, d)
        self.fc1, self.fc2 = nn.Linear(d, 2 * d), nn.Linear(2 * d, d)

    def forward(self, x):
        x = self.embed(x)
        b, t, d = x.shape
        q, k, v = (z.reshape(b, t, self.heads, d // self.heads).transpose(1, 2)
                   for z in self.qkv(self.ln1(x)).chunk(3, -1))
        a = torch.softmax(q @ k.transpose(-1, -2), -1)
        x = x + self.proj((a @ v).transpose(1, 2).reshape(b, t, d))
        return x + self.fc2(nn.functional.gelu(self.fc1(self.ln2(x))))


class _Unquantized(Quantizer):
    """Quantizes the input and output of each op in `_ANNOTATED` XNNPACK left alone."""

    def annotate(self, model: torch.fx.GraphModule) -> torch.fx.GraphModule:
        act = CONFIGS["per-channel"]().output_activation
        for node in model.graph.nodes:
            if node.op == "call_function" and node.target in _ANNOTATED \
                    and "quantization_annotation" not in node.meta:
                node.meta["quantization_annotation"] = QuantizationAnnotation(
                    input_qspec_map={node.args[0]: act}, output_qspec=act, _annotated=True)
        return model

    def validate(self, model: torch.fx.GraphModule) -> None:
        pass


def quantizer() -> Quantizer:
    return ComposableQuantizer([xnn.XNNPACKQuantizer().set_global(CONFIGS["per-channel"]()), _Unquantized()])
