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
