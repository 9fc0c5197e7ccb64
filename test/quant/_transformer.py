"""The transformer block the kept-op tests quantize (tosa_custom.e2e.quantized_models'):
Linear, layer_norm, softmax attention, gelu MLP, residuals, with layer_norm,
softmax and gelu quantized around so each can be kept on its integers."""

from __future__ import annotations

from tosa_custom.e2e.quantized_models import KEPT_OPS, Block, block_quantizer as quantizer

__all__ = ["Block", "KEPT_OPS", "quantizer"]
