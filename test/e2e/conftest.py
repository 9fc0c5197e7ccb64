"""Helpers for the audit tests: run the CLI in a subprocess, read its report.

The CLI runs in its own process so the cases it loads never enter this
process's case registry (the suite's own tests import the same files).
"""

import json
import subprocess
import sys
from pathlib import Path

import pytest

FIXTURES = Path(__file__).parent / "fixtures"


class AuditRun:
    def __init__(self, proc: subprocess.CompletedProcess, report: Path | None):
        self.returncode, self.stdout, self.stderr = proc.returncode, proc.stdout, proc.stderr
        self.report = report
        self.summary = json.loads((report / "audit.json").read_text()) if report and (report / "audit.json").exists() else None

    def case(self, name: str) -> dict:
        return next(c for c in self.summary["cases"] if c["name"] == name)

    def op(self, identifier: str) -> dict:
        return next(o for o in self.summary["ops"] if o["identifier"] == identifier)


@pytest.fixture
def audit(tmp_path):
    def run(*args: str, report: bool = True, timeout: float = 600) -> AuditRun:
        out = tmp_path / f"report{len(list(tmp_path.iterdir()))}" if report else None
        cmd = [sys.executable, "-m", "tosa_custom.e2e.audit", "--no-progress", *args]
        if out is not None:
            cmd += ["--report", str(out)]
        proc = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout)
        return AuditRun(proc, out)

    return run


def interrupt_and_resume(command: list[str], report: Path, marks: Path, env: dict | None = None) -> tuple:
    """Run an audit of the four SlowModule cases (fixtures/cases_slow.py), each
    leaving a mark (its worker's pid) as it starts; Ctrl-C it (SIGINT) once
    all four have started (the first two done where the cases ran two at a time); then resume it with
    --rerun-unpassed. Returns the interrupted run, the resumed run and the
    pids of the workers that held the interrupted cases."""
    import os
    import signal
    import time

    proc = subprocess.Popen(command + ["--report", str(report)], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            text=True, env=env)
    deadline = time.monotonic() + 600
    while len(list(marks.iterdir())) < 4:
        assert proc.poll() is None and time.monotonic() < deadline, proc.communicate()
        time.sleep(0.2)
    time.sleep(1.0)  # the two last cases are running
    proc.send_signal(signal.SIGINT)
    stopped = time.monotonic()
    out, err = proc.communicate(timeout=120)
    assert time.monotonic() - stopped < 60, "the audit took a minute to stop after Ctrl-C"
    interrupted = AuditRun(subprocess.CompletedProcess(proc.args, proc.returncode, out, err), report)
    pids = {int(p.read_text()) for p in marks.iterdir()}
    resumed_report = report.with_name(report.name + "-resumed")
    resumed = subprocess.run(command + ["--rerun-unpassed", str(report), "--report", str(resumed_report)],
                             capture_output=True, text=True, timeout=900, env=env)
    return interrupted, AuditRun(resumed, resumed_report), pids
