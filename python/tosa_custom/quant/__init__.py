"""Quantized models (PT2E) as integer TOSA: the passes that turn the
dequantize -> op -> quantize groups of a lowered module into integer TOSA
(RESCALE, TABLE, integer convolutions with zero points), and mark the
entry's integer boundary with its quantization; kept ops take the integers
(kept.py)."""

from . import boundary, kept, lowering  # noqa: F401  (register their passes)
