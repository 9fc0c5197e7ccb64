"""The runtime fuzzer's `extremes` family: max and min reductions and max
pooling of rows of infinities, NaN and the type's largest finite values run as
eager does. Every-sample OpInfo's masked.amax of a fully masked row gave
-3.4e38 for -inf (tosa-to-linalg starts a float max from the lowest finite
value); the family found min, max pooling and its padding too."""

from __future__ import annotations

import pytest

from fuzz.draw import case_random, draw
from fuzz.targets import _extremes


def test_extremes_cases_cover_every_op_and_row():
    cases = [draw(_extremes.strategy(), case_random("extremes", 0, i)) for i in range(200)]
    assert {c["op"] for c in cases} == set(_extremes.OPS)
    assert {r for c in cases for r in c["rows"]} == set(_extremes.ROWS)
    assert {c["mode"] for c in cases} == {"stock", "auto"}


@pytest.mark.parametrize("op,row", [("amax", "-inf"), ("amin", "+inf"), ("max.dim", "-inf"),
                                    ("max_pool2d", "-inf"), ("max_pool1d", "-inf"), ("max_pool2d", "largest")])
def test_rows_of_infinities_reduce_to_infinity(op, row):
    for dtype, mode in (("float32", "stock"), ("bfloat16", "auto")):
        _extremes.check({"kind": "extremes", "op": op, "rows": [row, "ordinary"], "type": dtype, "mode": mode})


def test_drawn_cases_run_right():
    for i in range(8):
        _extremes.check(draw(_extremes.strategy(), case_random("extremes", 1, i)))  # raises Defect when wrong
