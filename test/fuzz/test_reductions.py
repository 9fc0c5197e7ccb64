"""The runtime fuzzer's `reductions` family: reductions over the dim lists at
the edges of their meaning (none, every, None, negative), of uint8, bool, int
and float tensors, against eager. torch-mlir folded `any` over no dims of a
uint8 tensor to the tensor itself (every-sample OpInfo any/uint8/3)."""

from __future__ import annotations

import pytest

from fuzz.draw import case_random, draw
from fuzz.targets import _reductions


def test_reductions_cases_cover_every_op_dim_list_and_mode():
    cases = [draw(_reductions.strategy(), case_random("reductions", 0, i)) for i in range(300)]
    assert {c["op"] for c in cases} == set(_reductions.OPS)
    assert {c["dims"] for c in cases} == set(_reductions.DIMS)
    assert {c["mode"] for c in cases} == {"stock", "auto"}
    assert {"uint8", "bool"} <= {c["type"] for c in cases}


@pytest.mark.parametrize("mode", ["stock", "auto"])
@pytest.mark.parametrize("rank", [0, 2])
def test_any_over_no_dims_of_uint8_is_nonzero(mode, rank):
    outcome = _reductions.check({"kind": "reductions", "op": "any", "dims": "empty", "keepdim": False,
                                 "type": "uint8", "rank": rank, "mode": mode, "seed": 9})
    assert outcome.kind == "correct", outcome  # raises Defect when wrong


def test_drawn_cases_run_right():
    for i in range(8):
        _reductions.check(draw(_reductions.strategy(), case_random("reductions", 1, i)))  # raises Defect when wrong


@pytest.mark.parametrize("mode", ["stock", "auto"])
def test_int32_sums_past_int32_are_int64(mode):
    # seed 2377257: [[2147483647, 546494580]], whose sum wrapped to -1600989069 when summed in i32
    for dims in ("negative", "none"):
        _reductions.check({"kind": "reductions", "op": "sum", "dims": dims, "keepdim": True, "type": "int32",
                           "rank": 3, "mode": mode, "seed": 2377257})  # raises Defect when wrong
