"""Ctrl-C on a local audit: what finished is reported, the run exits 130,
--rerun-unpassed runs just the rest, and no worker outlives the audit."""

import os
import sys
import time

from conftest import FIXTURES, interrupt_and_resume

SLOW = str(FIXTURES / "cases_slow.py")


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    return True


def test_ctrl_c_keeps_what_finished_and_resumes(tmp_path):
    marks = tmp_path / "marks"
    marks.mkdir()
    env = {**os.environ, "TOSA_CUSTOM_TEST_MARKS": str(marks), "TOSA_CUSTOM_TEST_SLEEP": "6"}
    command = [sys.executable, "-m", "tosa_custom.e2e.audit", "--no-progress", "--mode", "stock", "--cases", SLOW,
               "-j", "2", "--timeout", "300"]
    interrupted, resumed, pids = interrupt_and_resume(command, tmp_path / "report", marks, env)
    assert interrupted.returncode == 130, interrupted.stderr[-3000:]
    assert "cases unfinished: resume with --rerun-unpassed" in interrupted.stderr
    finished = {c["name"]: c["status"] for c in interrupted.summary["cases"]}
    unfinished = set(interrupted.summary["meta"]["unfinished"])
    assert finished == {"SlowModule_1": "pass", "SlowModule_2": "pass"} and unfinished == {"SlowModule_3",
                                                                                           "SlowModule_4"}
    # Two workers ran the four cases (the pool keeps its workers), and both
    # were stopped with the audit, mid-case: none is left sleeping.
    assert len(pids) == 2
    time.sleep(1.0)
    assert not any(_alive(p) for p in pids)
    assert resumed.returncode == 0, resumed.stderr[-3000:]
    assert {c["name"]: c["status"] for c in resumed.summary["cases"]} == {"SlowModule_3": "pass",
                                                                          "SlowModule_4": "pass"}
    assert len(list(marks.iterdir())) == 6
