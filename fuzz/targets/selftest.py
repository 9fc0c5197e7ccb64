"""Target `selftest`: cases that abort, segfault, hang, raise or pass, to
prove the supervisor counts each (used by test/fuzz/test_fuzz_smoke.py)."""

from __future__ import annotations

import ctypes
import os
import time

from hypothesis import strategies as st

from ..outcome import CLEAN, CORRECT, Defect, Outcome

ACTIONS = ["correct", "clean", "abort", "segfault", "hang", "exit", "bare-exception", "wrong"]


def strategy():
    return st.sampled_from(ACTIONS).map(lambda a: {"action": a})


def check(case: dict) -> Outcome:
    action = case["action"]
    if action == "correct":
        return Outcome(CORRECT)
    if action == "clean":
        return Outcome(CLEAN, "refused")
    if action == "abort":
        os.abort()
    if action == "segfault":
        ctypes.string_at(0)
    if action == "hang":
        while True:
            time.sleep(1)
    if action == "exit":
        os._exit(3)
    if action == "bare-exception":
        raise KeyError("boom")
    raise Defect("wrong", "a silent wrong answer")
