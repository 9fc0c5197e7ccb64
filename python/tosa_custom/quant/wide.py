"""int16 activations (EXT-INT16): what an i16 operand changes in the integer
forms of convolutions, matmul and pooling.

TOSA 1.0 multiplies i16 by i8 weights (CONV2D, DEPTHWISE_CONV2D,
TRANSPOSE_CONV2D) or i16 by i16 (MATMUL) into an i48 accumulator, with the
i16 operands' zero points 0. The lowering narrows each i48 accumulator to
i32 right away, by a RESCALE whose ratio is a power of two (1, exact, while
the sum's bound is under 2^30: up to 258 products of int16 by int8 per
output, a 3x3 convolution of 28 channels; each doubling of the terms beyond
rounds one more bit away, far below the output's LSB, which is a sum's
unit times about sqrt(terms) x 127): the i32 value then stands for its float
as an int8 model's accumulator does, so adds, clamps, sums and the final
RESCALE to the output's parameters (with scale32's 31-bit multiplier; one
straight from i48 could only have scale32=false's 15 bits, about 1 LSB
of an int16 output near its range's end) are the int8 rules unchanged.
"""

from __future__ import annotations

import math

import numpy as np
from torch_mlir import ir

from ..core import builders as _b
from ..core.passes import PassFailure
from . import build as _build
from .values import QValue

__all__ = ["ACCUMULATOR", "accumulator", "as_element", "narrowed", "magnitude", "zero_point_zero"]

# The accumulator of a product of an input of this element type (and int8 weights).
ACCUMULATOR = {"i8": "i32", "i16": "i48"}
# An i32 value from a narrowed i48 keeps this many bits of headroom below 2^31 (for the adds that follow).
_I32_BOUND = 2.0 ** 30


def accumulator(element: str, op) -> str:
    """The accumulator type of a product of `element` inputs."""
    if element not in ACCUMULATOR:
        raise PassFailure(f"{op.name}: an input of {element} (int8 and int16 inputs are lowered)", op)
    return ACCUMULATOR[element]


def zero_point_zero(x: QValue, op, what: str) -> None:
    """TOSA refuses a non-zero zero point on an i16 operand of a convolution, matmul or pool."""
    if x.element == "i16" and x.zero_point != 0:
        raise PassFailure(f"{op.name}: {what} is int16 with zero point {x.zero_point}; TOSA's int16 products "
                          "take zero point 0 only: quantize int16 activations symmetrically "
                          "(qscheme=torch.per_tensor_symmetric, as ExecuTorch's a16w8 config does)", op)


def as_element(x: QValue, element: str) -> QValue:
    """`x` in a wider integer type (CAST, exact): an int8 operand of an i16 x i16 MATMUL."""
    if x.element == element:
        return x
    ty = ir.IntegerType.get_signless(int(element[1:]))
    return x.replace(value=_b.tosa_cast(x.value, ty))


def magnitude(x: QValue) -> int:
    """The largest |q - zero point| `x` can hold (its quantize's range)."""
    return max(abs(x.low - x.zero_point), abs(x.high - x.zero_point))


def narrowed(acc: QValue, bound: float) -> QValue:
    """An i48 accumulator at most `bound` in magnitude as i32: RESCALE by
    2^-p, the smallest p that brings `bound` under 2^30 (p = 0: exact).
    Anything else is returned as it is."""
    if acc.element != "i48":
        return acc
    p = max(0, math.ceil(math.log2(max(bound, 1.0) / _I32_BOUND)))
    value = _build.rescale(acc.value, np.asarray(2.0 ** -p), 0, 0, "i32")
    return acc.replace(value=value, scale=acc.scale * 2.0 ** p)
