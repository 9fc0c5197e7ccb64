"""The discardable attributes our passes leave on ops and function signatures,
by name: one home, so that the pass that writes a mark and every pass that
reads it cannot disagree on its spelling."""

from __future__ import annotations

__all__ = ["CARRIER", "TUNNEL", "TUNNEL_REASON", "TUNNEL_STAGE", "TUNNELED", "SCALAR", "DTYPE", "TOSA_TARGET", "SYMBOLS", "SHAPE", "RANGE", "QUANTIZATION",
           "BAKED"]

# On a torch op that carries a value TOSA cannot type into one it can, and
# back (CONTRACT.md 3.5): "argument" or "result". Never tunneled itself.
CARRIER = "tosa_custom.carrier"
# On a torch op auto mode chose to tunnel: its category (CONTRACT.md 7.1), and why.
TUNNEL = "tosa_custom.tunnel"
TUNNEL_REASON = "tosa_custom.tunnel_reason"
# ... and the stage of compile() that showed it must be (auto.STAGES).
TUNNEL_STAGE = "tosa_custom.tunnel_stage"
# On a tosa.custom: the category it was tunneled for.
TUNNELED = "tosa_custom.tunneled"
# On a function argument or result that travels as a 0-d tensor: the Python
# number kind it stands for (dtypes.SCALAR_KINDS), CONTRACT.md 4.5.
SCALAR = "tosa_custom.scalar"
# On a function argument for a Python number torch.export baked into the
# program (its graph reads the constant, not the argument): the number's JSON,
# CONTRACT.md 4.7. The executors refuse another value at the call.
BAKED = "tosa_custom.baked"
# On a function argument or result whose torch dtype TOSA cannot type (uint8,
# complex): the dtype's name (dtypes.DTYPES), CONTRACT.md 3.5.
DTYPE = "tosa_custom.dtype"
# On the module: the TOSA target it was validated for, as tosa-attach-target's
# option text (MLIR's own attribute does not read back; tosa/target.py).
TOSA_TARGET = "tosa_custom.tosa_target"
# On the entry function of a dynamic program (CONTRACT.md §15.1): each size
# symbol's inclusive range, `{s0 = array<i64: MIN, MAX>}`.
SYMBOLS = "tosa_custom.symbols"
# On an argument or result with a `?` dim: one entry per dim, an i64 (static)
# or the size's expression over the symbols (CONTRACT.md §15.1).
SHAPE = "tosa_custom.shape"
# On an integer argument of the entry that the program computes with in f32
# (CONTRACT.md §13.4e): `array<i64: MIN, MAX>`, the inclusive range every
# element must be in; the executors refuse an input outside it.
RANGE = "tosa_custom.range"
# On an integer argument or result of a quantized model's entry (CONTRACT.md
# §17): the quantization it carries, `{scale, zero_point, quant_min,
# quant_max, dtype}` as PT2E's quantize ops name them; the executors quantize
# the float input and dequantize the result with it.
QUANTIZATION = "tosa_custom.quantization"
