"""The tolerance rule of test/_tolerance.py: loose enough for any summation
order of a float32 reduction, tight enough that a wrong result fails."""

from __future__ import annotations

import pytest
import torch
from _tolerance import assert_reduction_close, reduction_tolerance


@pytest.mark.parametrize("k", [40, 256, 1024])
def test_another_summation_order_passes(k):
    g = torch.Generator().manual_seed(k)
    a, w = torch.randn(64, k, generator=g), torch.randn(k, 256, generator=g)
    sequential = torch.zeros(64, 256)
    for i in range(k):  # the order of a naive loop: far from eager's blocked, vectorized one
        sequential = sequential + a[:, i:i + 1] * w[i:i + 1, :]
    assert_reduction_close(sequential, a @ w, k)


def test_one_term_wrong_fails():
    g = torch.Generator().manual_seed(0)
    a, w = torch.randn(8, 256, generator=g), torch.randn(256, 8, generator=g)
    wrong = a[:, 1:] @ w[1:, :]  # a dropped term: an off-by-one loop bound
    with pytest.raises(AssertionError, match="not close"):
        assert_reduction_close(wrong, a @ w, 256)


def test_bound_scales_with_terms_and_depth():
    eps = torch.finfo(torch.float32).eps
    assert reduction_tolerance(256)["atol"] == pytest.approx(4 * 256 * eps)
    assert reduction_tolerance(256, depth=2)["atol"] == 2 * reduction_tolerance(256)["atol"]
    assert reduction_tolerance(1) == reduction_tolerance(16)  # elementwise rounding floor
    with pytest.raises(ValueError, match="must be positive"):
        reduction_tolerance(0)
