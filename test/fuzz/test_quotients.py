"""The runtime fuzzer's `quotients` family: floor, trunc and true division,
remainder and fmod where the quotient is an integer, against the exact
answer. TOSA divides as x * (1/y): 49.0 // 49.0 was 0 in float32, and
every-sample OpInfo div.floor_rounding bfloat16/6 was one off."""

from __future__ import annotations

import pytest

from fuzz.draw import case_random, draw
from fuzz.targets import _quotients


def test_quotients_cases_cover_every_op_divisor_and_mode():
    cases = [draw(_quotients.strategy(), case_random("quotients", 0, i)) for i in range(200)]
    assert {c["op"] for c in cases} == set(_quotients.OPS)
    assert {c["divisor"] for c in cases} == {"tensor", "number", "negative-tensor", "negative-number"}
    assert {c["mode"] for c in cases} == {"stock", "auto"}


@pytest.mark.parametrize("op", ["floor", "trunc", "true", "remainder"])
@pytest.mark.parametrize("dtype", ["float32", "float16", "bfloat16"])
def test_integer_quotients_are_exact(op, dtype):
    for divisor, mode in (("tensor", "stock"), ("negative-number", "auto")):
        _quotients.check({"kind": "quotients", "op": op, "type": dtype, "mode": mode, "divisor": divisor,
                          "fraction": 0.0, "seed": 3})


def test_drawn_cases_run_right():
    for i in range(8):
        _quotients.check(draw(_quotients.strategy(), case_random("quotients", 1, i)))  # raises Defect when wrong


@pytest.mark.parametrize("dtype", ["int8", "int16", "int32"])
@pytest.mark.parametrize("op", ["lt", "eq"])
def test_comparisons_with_a_number_wrap_it_as_eager_does(op, dtype):
    # an odd seed adds 2**bits to the number: eager compares with it wrapped to the type
    for divisor, mode in (("number", "stock"), ("negative-number", "auto")):
        _quotients.check({"kind": "quotients", "op": op, "type": dtype, "mode": mode, "divisor": divisor,
                          "fraction": 0.0, "seed": 1})
