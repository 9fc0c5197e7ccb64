"""The runtime fuzzer's `mixed` family draws ops whose operands mix dtypes
and `out=` tensors of another shape, compiled from PyTorch; each runs as
eager does (issue 41: threshold_backward's int64 grad with a float32 self
returned int64; arange into a [3, 4] out= failed writing it back)."""

from __future__ import annotations

import pytest

from fuzz.draw import case_random, draw
from fuzz.targets import _mixed


def test_mixed_cases_cover_every_op_type_out_and_mode():
    cases = [draw(_mixed.strategy(), case_random("mixed", 0, i)) for i in range(300)]
    assert {c["op"] for c in cases} == set(_mixed.OPS)
    assert {t for c in cases for t in c["types"]} == set(_mixed.TYPES)
    assert {c["out"] for c in cases} == set(_mixed.OUTS)
    assert {c["mode"] for c in cases} == {"stock", "auto"}
    assert any(len(set(c["types"])) > 1 for c in cases)


@pytest.mark.parametrize("mode", ["stock", "auto"])
def test_the_two_shapes_of_input_found_run_like_eager(mode):
    _mixed.check({"kind": "mixed", "op": "threshold_backward", "types": ["int64", "float32"],
                  "shapes": [[3, 4], [3, 4]], "out": "none", "mode": mode, "seed": 0})
    for out in ("reshaped", "other_count", "empty"):
        _mixed.check({"kind": "mixed", "op": "arange", "types": [], "shapes": [[3, 4]], "out": out,
                      "mode": mode, "seed": 0})
    _mixed.check({"kind": "mixed", "op": "add", "types": ["int32", "float32"], "shapes": [[3, 4], [4]],
                  "out": "reshaped", "mode": mode, "seed": 0})


def test_drawn_cases_run_right():
    for i in range(10):
        _mixed.check(draw(_mixed.strategy(), case_random("mixed", 1, i)))  # raises Defect when wrong
