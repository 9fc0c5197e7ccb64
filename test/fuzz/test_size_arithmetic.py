"""The runtime fuzzer's `sizes` family: sizes of a `?` dim used as values
and causal attention on it, compiled once with dynamic shapes, run at the
range's ends against eager (issue 41: sdpa's causal mask reached TorchToTosa
as aten.size.int)."""

from __future__ import annotations

import pytest

from fuzz.draw import case_random, draw
from fuzz.targets import _sizes


def test_sizes_cases_cover_every_program_range_start_and_mode():
    cases = [draw(_sizes.strategy(), case_random("sizes", 0, i)) for i in range(300)]
    assert {c["program"] for c in cases} == set(_sizes.PROGRAMS)
    assert {c["mode"] for c in cases} == {"stock", "auto"}
    assert {c["min"] for c in cases} == {1, 2}
    assert {c["c"] for c in cases} == {1, 2}


@pytest.mark.parametrize("program", _sizes.PROGRAMS)
def test_every_program_runs_like_eager_in_stock_mode(program):
    _sizes.check({"kind": "sizes", "program": program, "c": 2, "min": 1, "max": 9, "mode": "stock",
                  "inside": 3, "seed": 0})  # raises Defect when wrong


@pytest.mark.slow
def test_drawn_cases_run_right():
    for i in range(6):
        _sizes.check(draw(_sizes.strategy(), case_random("sizes", 1, i)))
