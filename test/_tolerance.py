"""The one rule for comparing a float32 reduction with eager PyTorch.

Two correct implementations of a sum of K terms differ by their summation
order: blocking, vector width (AVX2 or AVX-512), FMA contraction. That
difference grows with K, so a fixed tolerance that passes on one CPU fails on
another. Measured: sequential summation against torch.bmm differs by up to
1.5 K eps x the terms' RMS size (K = 40 .. 1024), and each side is within
about that of the exact sum. The bound below is 4 K eps x magnitude per chain
of `depth` reductions (a model's layers add their errors), with K at least 16:
below that the few-ulp differences of polynomial exp/tanh dominate. A wrong
result is off by O(magnitude), thousands of times more.
"""

from __future__ import annotations

import torch

__all__ = ["reduction_tolerance", "assert_reduction_close"]

_SAFETY = 4  # x the measured 1.5 K eps, for vector widths and orders we have not seen
_MIN_TERMS = 16  # elementwise approximations: a few ulp, whatever K is


def reduction_tolerance(k: int, magnitude: float = 1.0, depth: int = 1, dtype=torch.float32) -> dict:
    """`rtol`/`atol` for results that sum `k` terms of RMS size `magnitude`,
    through `depth` chained reductions (layers), in `dtype`."""
    if k < 1 or depth < 1 or magnitude <= 0:
        raise ValueError(f"k={k}, depth={depth} and magnitude={magnitude} must be positive")
    tol = _SAFETY * max(k, _MIN_TERMS) * depth * torch.finfo(dtype).eps * magnitude
    return {"rtol": tol, "atol": tol}


def assert_reduction_close(actual, expected, k: int, magnitude: float = 1.0, depth: int = 1) -> None:
    """torch.testing.assert_close with `reduction_tolerance`."""
    torch.testing.assert_close(actual, expected, **reduction_tolerance(k, magnitude, depth, expected.dtype))
