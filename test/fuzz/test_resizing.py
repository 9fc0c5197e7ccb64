"""The runtime fuzzer's `resize` family (fuzz/targets/_resize.py): its cases
reach both one tosa.resize and PyTorch's decomposition, and a run of them
passes against eager."""

from __future__ import annotations

from fuzz.draw import case_random, draw
from fuzz.targets import _resize
from tosa_custom.tunnel import resize


def _fits(case) -> bool:
    scales = None if case["out"] else [case["factor"]] * 2
    shape = [case["n"], case["c"], case["h"], case["w"]]
    return resize.fits(shape, "f32" if case["type"] == "float32" else "f16", case["out"], case["align_corners"], scales)


def test_cases_fall_on_both_sides_of_the_resize():
    cases = [draw(_resize.strategy(), case_random("resize", 0, i)) for i in range(300)]
    assert {_fits(c) for c in cases} == {True, False}
    assert {c["mode"] for c in cases} == {"stock", "auto"} and {c["align_corners"] for c in cases} == {True, False}
    assert any(c["factor"] for c in cases) and any(c["out"] for c in cases)


def test_a_run_of_cases_matches_eager():
    for i in range(12):
        _resize.check(draw(_resize.strategy(), case_random("resize", 1, i)))
