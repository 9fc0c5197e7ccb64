"""The runtime fuzzer's `folds` family draws an op with a constant operand,
compiled from PyTorch, on NaN, infinities and signed zeros; each runs as
eager does. Every-sample OpInfo's addr with alpha=0 returned 0 for NaN
(TOSA folds x * 0 to 0); the family found x / inf too."""

from __future__ import annotations

import itertools

import pytest

from fuzz.draw import case_random, draw
from fuzz.targets import _folds


def test_folds_cases_cover_every_op_constant_and_mode():
    cases = [draw(_folds.strategy(), case_random("folds", 0, i)) for i in range(300)]
    assert {c["op"] for c in cases} == set(_folds.OPS)
    assert {c["constant"] for c in cases if c["constant"] == c["constant"]} == \
        {c for c in _folds.CONSTANTS if c == c}
    assert {c["mode"] for c in cases} == {"stock", "auto"}


@pytest.mark.parametrize("op,constant,mode", list(itertools.product(
    ["mul", "div"], [0.0, -0.0, float("inf"), -float("inf")], ["stock", "auto"])))
def test_products_by_zero_and_quotients_by_infinity_keep_nan(op, constant, mode):
    for swap, dtype in ((False, "float32"), (True, "bfloat16")):
        _folds.check({"kind": "folds", "op": op, "constant": constant, "swap": swap, "type": dtype, "mode": mode})


def test_drawn_cases_run_right():
    for i in range(12):
        _folds.check(draw(_folds.strategy(), case_random("folds", 1, i)))  # raises Defect when wrong
