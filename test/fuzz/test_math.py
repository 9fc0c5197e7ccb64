"""The runtime fuzzer's `math` family draws every TOSA math op in every float
type, vectorized and not, and each runs right (OpInfo special.ndtr bfloat16
once failed to load: erf's per-lane libm calls on half vectors)."""

from __future__ import annotations

from fuzz.draw import case_random, draw
from fuzz.targets import _math


def test_math_cases_cover_every_op_and_type_and_run_right():
    cases = [draw(_math.strategy(), case_random("math", 0, i)) for i in range(80)]
    assert {c["op"] for c in cases} == set(_math._OPS)
    assert {c["type"] for c in cases} == set(_math._TYPES)
    # The shape that failed: a libm function on half-precision vectors.
    assert any(c["op"] == "erf" and c["type"] != "f32" and c["vectorize"] for c in cases)
    for case in cases:
        _math.check(case)  # raises Defect on a wrong answer or a failure
