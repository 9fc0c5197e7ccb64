"""The integer arithmetic of scales: the one home of how a ratio of scales
becomes a `tosa.rescale` multiplier and shift (the parameters themselves,
and PT2E's quantize, are core.quantization's; re-exported here for the
lowering).

PT2E's `quantize_per_tensor` rounds half to even; RESCALE rounds half
up (SINGLE_ROUND, the only mode pro_int has without the doubleround
extension): the two differ only on exact ties, within the 1 LSB the
specification's users (ExecuTorch's Arm tests) accept.
"""

from __future__ import annotations

import math

from ..core.quantization import QParams, dequantize, quantize

__all__ = ["QParams", "multiplier_shift", "quantize", "dequantize", "BITS"]

BITS = {"i8": 8, "i16": 16, "i32": 32, "i48": 48}
_LOWEST_SHIFT, _HIGHEST_SHIFT = 2, 62  # RESCALE's REQUIRE on shift (scale32)


def multiplier_shift(ratio: float, bits: int = 32) -> tuple[int, int]:
    """(multiplier, shift) with multiplier / 2^shift closest to `ratio`, the
    multiplier in [2^30, 2^31) as RESCALE's scale32 wants it (`bits=16`:
    in [2^14, 2^15), the i16 multiplier of scale32=false, which an i48 input
    requires). A ratio too small for the shift's range keeps shift 62 with a
    smaller multiplier (0 when it rounds away); one too large for shift 2
    has no form: ValueError."""
    if not ratio > 0 or not math.isfinite(ratio):
        raise ValueError(f"a rescale by {ratio} (scales must be positive and finite)")
    top = bits - 1
    fraction, exponent = math.frexp(ratio)  # ratio = fraction * 2^exponent, fraction in [0.5, 1)
    multiplier = round(fraction * (1 << top))
    if multiplier == 1 << top:
        multiplier, exponent = 1 << (top - 1), exponent + 1
    shift = top - exponent
    if shift < _LOWEST_SHIFT:
        raise ValueError(f"a rescale by {ratio} is beyond RESCALE's range (shift {shift} < {_LOWEST_SHIFT})")
    if shift > _HIGHEST_SHIFT:
        multiplier, shift = multiplier >> (shift - _HIGHEST_SHIFT), _HIGHEST_SHIFT
    return multiplier, shift
