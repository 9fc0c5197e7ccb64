"""The supervisor: feeds cases to a long-lived worker, survives its death.

A case whose worker dies (a signal, an abort) is a `crash`; one that exceeds
the per-case timeout is a `hang` (the worker is killed). Either way the case's
reproducer (target, seed, index and the drawn case itself, plus the tail of the
worker's stderr, where faulthandler writes the native stack) is saved under
the findings folder, and a fresh worker continues with the next case.
"""

from __future__ import annotations

import dataclasses
import json
import os
import select
import signal
import subprocess
import sys
import tempfile
import time
from typing import Callable

from .outcome import CLEAN, CORRECT, DEFECT_KINDS

__all__ = ["Stats", "Supervisor", "run", "format_table"]

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
STARTUP_TIMEOUT = 300.0


@dataclasses.dataclass
class Stats:
    target: str
    tried: int = 0
    correct: int = 0
    clean: int = 0
    defects: dict = dataclasses.field(default_factory=lambda: {k: 0 for k in DEFECT_KINDS})
    seconds: float = 0.0
    findings: list = dataclasses.field(default_factory=list)

    @property
    def defect_count(self) -> int:
        return sum(self.defects.values())


class _WorkerGone(Exception):
    def __init__(self, kind: str, detail: str):
        super().__init__(detail)
        self.kind = kind  # "crash" | "hang"
        self.detail = detail


class _Worker:
    def __init__(self, log_dir: str):
        self.log_path = os.path.join(log_dir, f"worker-{time.time_ns()}.stderr")
        self._log = open(self.log_path, "w+b")
        env = dict(os.environ)
        env["PYTHONFAULTHANDLER"] = "1"
        env["PYTHONPATH"] = ROOT + (os.pathsep + env["PYTHONPATH"] if env.get("PYTHONPATH") else "")
        env.setdefault("OMP_NUM_THREADS", "1")
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "fuzz.worker"], cwd=ROOT, env=env,
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=self._log, start_new_session=True,
        )
        self._buffer = b""
        self.read(STARTUP_TIMEOUT)  # {"ready": true}

    def log_offset(self) -> int:
        return os.fstat(self._log.fileno()).st_size

    def log_tail(self, since: int, limit: int = 6000) -> str:
        with open(self.log_path, "rb") as f:
            f.seek(since)
            return f.read()[-limit:].decode("utf-8", "replace")

    def send(self, message: dict) -> None:
        try:
            self.proc.stdin.write((json.dumps(message) + "\n").encode())
            self.proc.stdin.flush()
        except (BrokenPipeError, OSError):
            raise _WorkerGone("crash", self._death()) from None

    def read(self, timeout: float) -> dict:
        deadline = time.monotonic() + timeout
        fd = self.proc.stdout.fileno()
        while b"\n" not in self._buffer:
            left = deadline - time.monotonic()
            if left <= 0:
                self.kill()
                raise _WorkerGone("hang", f"no answer within {timeout:g} s; worker killed")
            ready, _, _ = select.select([fd], [], [], left)
            if ready:
                chunk = os.read(fd, 1 << 20)
                if not chunk:
                    raise _WorkerGone("crash", self._death())
                self._buffer += chunk
        line, self._buffer = self._buffer.split(b"\n", 1)
        return json.loads(line)

    def _death(self) -> str:
        try:
            code = self.proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.kill()
            code = self.proc.returncode
        if code is not None and code < 0:
            try:
                name = signal.Signals(-code).name
            except ValueError:
                name = str(-code)
            return f"worker killed by signal {name}"
        return f"worker exited with code {code}"

    def kill(self) -> None:
        if self.proc.poll() is None:
            try:
                os.killpg(self.proc.pid, signal.SIGKILL)  # the worker's own session only
            except ProcessLookupError:
                pass
            self.proc.wait()

    def close(self) -> None:
        if self.proc.poll() is None:
            try:
                self.proc.stdin.close()
                self.proc.wait(timeout=30)
            except (OSError, subprocess.TimeoutExpired):
                self.kill()
        self._log.close()


class Supervisor:
    def __init__(self, *, timeout: float = 30.0, findings_dir: str | None = None,
                 progress: Callable[[str], None] | None = None, keep_logs: bool = False):
        self.timeout = timeout
        self.findings_dir = findings_dir
        self.progress = progress
        self._log_dir = tempfile.mkdtemp(prefix="tosa-custom-fuzz-")
        self._worker: _Worker | None = None
        self.keep_logs = keep_logs

    def _ensure_worker(self) -> _Worker:
        if self._worker is None or self._worker.proc.poll() is not None:
            self._worker = _Worker(self._log_dir)
        return self._worker

    def run_case(self, target: str, seed: int, index: int, case=None) -> tuple[str, str, object]:
        """(outcome kind, detail, the case) of one case."""
        worker = self._ensure_worker()
        since = worker.log_offset()
        drawn = case
        try:
            worker.send({"target": target, "seed": seed, "index": index, "case": case})
            drawn = worker.read(self.timeout)["case"]
            reply = worker.read(self.timeout)
            return reply["outcome"], reply.get("detail", ""), drawn
        except _WorkerGone as gone:
            tail = worker.log_tail(since)
            worker.close()
            self._worker = None
            return gone.kind, f"{gone.detail}\n--- worker stderr ---\n{tail}", drawn

    def run_target(self, target: str, cases: int, seed: int) -> Stats:
        stats = Stats(target)
        start = time.monotonic()
        for index in range(cases):
            kind, detail, case = self.run_case(target, seed, index)
            stats.tried += 1
            if kind == CORRECT:
                stats.correct += 1
            elif kind == CLEAN:
                stats.clean += 1
            else:
                stats.defects[kind] += 1
                stats.findings.append(self._save(target, seed, index, kind, detail, case))
            if self.progress and (index + 1) % 500 == 0:
                self.progress(f"{target}: {index + 1}/{cases} cases: {stats.correct} correct, {stats.clean} clean, "
                              f"defects {stats.defects}, {time.monotonic() - start:.0f} s")
        stats.seconds = time.monotonic() - start
        return stats

    def _save(self, target, seed, index, kind, detail, case) -> str:
        record = {"target": target, "seed": seed, "index": index, "kind": kind, "detail": detail, "case": case,
                  "replay": f"python -m fuzz --replay <this file>   (or --target {target} --seed {seed} --only {index})"}
        if self.findings_dir is None:
            return json.dumps(record)[:2000]
        os.makedirs(self.findings_dir, exist_ok=True)
        path = os.path.join(self.findings_dir, f"{target}-{seed}-{index}-{kind}.json")
        with open(path, "w", encoding="utf-8") as f:
            json.dump(record, f, indent=1)
        return path

    def close(self) -> None:
        if self._worker is not None:
            self._worker.close()
            self._worker = None
        if not self.keep_logs:
            for name in os.listdir(self._log_dir):
                os.unlink(os.path.join(self._log_dir, name))
            os.rmdir(self._log_dir)


def run(targets: list[str], cases: int, seed: int = 0, timeout: float = 30.0,
        findings_dir: str | None = None, progress=None) -> list[Stats]:
    supervisor = Supervisor(timeout=timeout, findings_dir=findings_dir, progress=progress)
    try:
        return [supervisor.run_target(t, cases, seed) for t in targets]
    finally:
        supervisor.close()


def format_table(stats: list[Stats]) -> str:
    header = ["target", "tried", "correct", "clean error", *DEFECT_KINDS, "seconds"]
    rows = [[s.target, s.tried, s.correct, s.clean, *(s.defects[k] for k in DEFECT_KINDS), f"{s.seconds:.0f}"]
            for s in stats]
    widths = [max(len(str(r[i])) for r in [header, *rows]) for i in range(len(header))]
    lines = ["  ".join(str(c).rjust(w) for c, w in zip(r, widths)) for r in [header, *rows]]
    lines.insert(1, "  ".join("-" * w for w in widths))
    return "\n".join(lines)
