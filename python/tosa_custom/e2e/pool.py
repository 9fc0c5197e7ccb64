"""The audit's local pool: load case files, and run cases in worker processes.

The supervisor (the audit's process, or a Ray task on a node: cluster.py)
loads the case files to know the cases, then hands them one at a time to N
worker processes, each of which imports the case files once and runs cases
with `runner.run_case`. A worker that dies (a segfault in compiled code,
os.abort) or outlives the per-case timeout is recorded as a crash or timeout
for the case it held, and replaced: every case gets a row, whatever happens.
Workers are spawned, not forked, because MLIR contexts and torch's thread
pools do not survive a fork.
"""

from __future__ import annotations

import collections
import dataclasses
import faulthandler
import importlib.util
import multiprocessing
import multiprocessing.connection
import os
import re
import resource
import signal
import sys
import time
from pathlib import Path
from typing import Iterable, Mapping, Sequence

import torch

import tosa_custom

from . import opinfo
from .registry import Case, cases as registered_cases, get_case
from .runner import CaseResult, expected_reason, final_status, run_case

__all__ = ["AuditError", "default_suite", "load_case_files", "suite_files"]

# A fresh worker imports torch, torch-mlir and the case files before its first case.
_STARTUP_TIMEOUT = 300.0
_CRASH_LOG_CHARS = 1500

class AuditError(Exception):
    """The audit itself cannot go on (bad arguments, unloadable case files)."""


# --------------------------------------------------------------------------
# Finding and loading case files.
# --------------------------------------------------------------------------


def default_suite() -> Path:
    """The repository's e2e/ folder, next to python/ in a source checkout."""
    return Path(tosa_custom.__file__).resolve().parents[2] / "e2e"


def suite_files(suite: Path) -> list[Path]:
    """The case files of a suite folder: its *.py files, not _private ones."""
    if not suite.is_dir():
        raise AuditError(
            f"e2e suite folder {suite} not found (the suite ships with the source checkout, not the "
            f"installed package): pass --suite DIR, or --cases FILE for your own case files"
        )
    return sorted(p for p in suite.glob("*.py") if not p.name.startswith("_"))


def _module_name(path: Path) -> str:
    safe = re.sub(r"\W", "_", str(path.resolve().with_suffix("")))
    return f"tosa_custom_e2e_cases.{safe}"


def load_case_files(files: Iterable[Path], opinfo_pairs: frozenset[tuple[str, str]] | None = None) -> list[Case]:
    """Import each file by path (each registers its cases); return their cases
    in file order. A case declared twice is an error naming both files.
    `opinfo_pairs`: of an OpInfo spec, only these (op id, dtype) pairs."""
    loaded: list[str] = []
    for path in files:
        if opinfo.is_spec(path):  # a built-in suite named by a spec string, not a file
            loaded += [c.name for c in _load_opinfo(str(path), opinfo_pairs)]
            continue
        path = Path(path).resolve()
        if not path.is_file():
            raise AuditError(f"case file {path} does not exist")
        name = _module_name(path)
        if name in sys.modules:
            continue
        before = {c.name for c in registered_cases()}
        spec = importlib.util.spec_from_file_location(name, path)
        module = importlib.util.module_from_spec(spec)
        sys.modules[name] = module
        try:
            spec.loader.exec_module(module)
        except ValueError as e:
            m = re.search(r"e2e case '([^']+)' is registered twice", str(e))
            if m:
                other = get_case(m[1]).source or "an earlier file"
                raise AuditError(f"e2e case {m[1]} is declared in {other} and again in {path}; rename one") from None
            raise AuditError(f"loading case file {path} failed: {type(e).__name__}: {e}") from e
        except Exception as e:
            raise AuditError(f"loading case file {path} failed: {type(e).__name__}: {e}") from e
        loaded += [c.name for c in registered_cases() if c.name not in before]
    return [get_case(n) for n in loaded]


def _load_opinfo(spec: str, pairs: frozenset[tuple[str, str]] | None = None) -> list[Case]:
    try:
        return opinfo.load(spec, pairs)
    except ImportError as e:
        raise AuditError(f"the OpInfo suite needs PyTorch's test helpers and `expecttest` "
                         f"(pip install -e '.[test]'): {e}") from e
    except ValueError as e:
        raise AuditError(str(e)) from e


# --------------------------------------------------------------------------
# Workers.
# --------------------------------------------------------------------------


def _die_with_parent() -> None:
    """On Linux, have the kernel kill this process when its parent dies."""
    if not sys.platform.startswith("linux"):
        return
    try:
        import ctypes

        ctypes.CDLL(None, use_errno=True).prctl(1, signal.SIGKILL)  # PR_SET_PDEATHSIG
    except (OSError, AttributeError):
        pass


def _worker_main(conn, files: list[str], mode: str, ops: list[str] | None, torch_fallback: bool, threads: int,
                 log_path: str, kernels: str = "all", executor: str = "reference",
                 opinfo_pairs: frozenset[tuple[str, str]] | None = None, memory_limit: int | None = None) -> None:
    """A worker: load the cases once, then run what the supervisor sends.
    `memory_limit`: bytes of address space (RLIMIT_AS), so a case that
    allocates without bound fails alone instead of starving its host."""
    if memory_limit:
        resource.setrlimit(resource.RLIMIT_AS, (memory_limit, memory_limit))
    # Ctrl-C is the supervisor's to handle (it stops the workers and reports
    # what finished), and a worker outlives no supervisor: a hung case left
    # behind by a killed supervisor (a lost Ray node) would run for ever.
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    _die_with_parent()
    # Everything the case, torch or MLIR prints goes to the worker's log: the
    # progress bar stays readable, and a crash's last words are kept.
    fd = os.open(log_path, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o644)
    os.dup2(fd, 1)
    os.dup2(fd, 2)
    sys.stdout = os.fdopen(1, "w", buffering=1, closefd=False)
    sys.stderr = os.fdopen(2, "w", buffering=1, closefd=False)
    faulthandler.enable()  # a segfault prints the Python stack to the log
    torch.set_num_threads(threads)
    load_case_files((Path(f) for f in files), opinfo_pairs)
    conn.send(("ready", None))
    while True:
        try:
            name = conn.recv()
        except EOFError:
            return
        if name is None:
            return
        print(f"\n=== case {name}", flush=True)
        try:
            result = run_case(get_case(name), mode, ops, torch_fallback=torch_fallback, kernels=kernels,
                              executor=executor)
        except Exception as e:  # the harness itself is broken: stop the audit
            conn.send(("error", f"{type(e).__name__}: {e}"))
            return
        conn.send(("done", result.to_json()))


@dataclasses.dataclass
class _Worker:
    index: int
    process: multiprocessing.Process
    conn: multiprocessing.connection.Connection
    log: Path
    ready: bool = False
    case: str | None = None
    deadline: float = 0.0

    @property
    def timed(self) -> bool:
        """Starting up or running a case: its deadline applies."""
        return self.case is not None or not self.ready


def _signal_name(exitcode: int | None) -> str:
    if exitcode is None:
        return "an unknown status"
    if exitcode < 0:
        try:
            return signal.Signals(-exitcode).name
        except ValueError:
            return f"signal {-exitcode}"
    return f"exit code {exitcode}"


def _log_tail(log: Path, case: str) -> str:
    try:
        text = log.read_text(errors="replace")
    except OSError:
        return ""
    marker = f"=== case {case}\n"
    text = text[text.rfind(marker) + len(marker):] if marker in text else ""
    text = text.strip()
    return text[-_CRASH_LOG_CHARS:]


def _lost_result(case: Case, mode: str, executor: str, measured: str, message: str, seconds: float) -> CaseResult:
    """The row of a case whose worker was lost (`measured`: crash or timeout)."""
    result = CaseResult(case.name, mode, case.family, case.source, executor=executor,
                        xfail_reason=expected_reason(case, mode, executor))
    result.status = final_status(case, mode, measured, executor)
    result.category = measured
    result.message = message
    result.timings["total"] = round(seconds, 4)
    return result


class _Supervisor:
    def __init__(self, cases: "Sequence[Case] | Mapping[str, Case]", files: list[str], mode: str,
                 ops: list[str] | None, jobs: int, timeout: float, on_result, log_dir: Path,
                 torch_fallback: bool = True, kernels: str = "all", executor: str = "reference"):
        # A mapping may load its cases on demand: only a lost case's row reads one here.
        self.cases = cases if isinstance(cases, Mapping) else {c.name: c for c in cases}
        # A worker loads only the OpInfo ops and dtypes of these cases: a shard of every
        # sample needs a fifth of them, a re-run of its unpassed cases one in seventy.
        self.opinfo_pairs = opinfo.pairs_of(self.cases)
        self.files, self.mode, self.ops, self.torch_fallback = files, mode, ops, torch_fallback
        self.kernels, self.executor = kernels, executor
        self.jobs = max(1, min(jobs, len(cases)))
        self.timeout, self.on_result, self.log_dir = timeout, on_result, log_dir
        self.threads = max(1, (os.cpu_count() or 1) // self.jobs)
        self.ctx = multiprocessing.get_context("spawn")
        self.results: dict[str, CaseResult] = {}
        self.failed_starts = 0
        self.startup_timeout = _STARTUP_TIMEOUT
        self.memory_limit: int | None = None  # bytes of address space per worker (RLIMIT_AS)
        self.workers: list[_Worker] = []
        self.unfinished: list[str] = []

    def _start(self, index: int) -> _Worker:
        parent, child = self.ctx.Pipe()
        log = self.log_dir / f"worker-{index}.log"
        process = self.ctx.Process(
            target=_worker_main,
            args=(child, self.files, self.mode, self.ops, self.torch_fallback, self.threads, str(log), self.kernels,
                  self.executor, self.opinfo_pairs, self.memory_limit),
            daemon=True
        )
        process.start()
        child.close()
        return _Worker(index, process, parent, log, deadline=time.monotonic() + max(self.startup_timeout, self.timeout))

    def _stop(self, w: _Worker, grace: float = 0.0) -> None:
        w.process.join(grace)  # a worker told to stop exits by itself, releasing what it holds
        if w.process.is_alive():
            w.process.kill()
        w.process.join(10)
        w.conn.close()

    def _record(self, result: CaseResult) -> None:
        self.results[result.name] = result
        self.on_result(result)

    def _lost(self, w: _Worker, measured: str, message: str) -> None:
        self._record(_lost_result(self.cases[w.case], self.mode, self.executor, measured, message,
                                  self.timeout if measured == "timeout" else 0.0))

    def _replace(self, w: _Worker, why: str) -> _Worker:
        self._stop(w)
        if w.case is None and not w.ready:
            self.failed_starts += 1
            if self.failed_starts >= 3:
                raise AuditError(f"audit workers keep dying before their first case ({why}); see {w.log}")
        return self._start(w.index)

    def allow_loading(self, seconds: float) -> None:
        """Loading the cases took `seconds` in this process: each worker loads
        at most as much, `jobs` at a time, so allow its start no less (every
        OpInfo sample and dtype: 30 s on a quiet host, over 300 s on a loaded
        one, where a fixed limit killed them)."""
        self.startup_timeout = max(_STARTUP_TIMEOUT, 4 * seconds * self.jobs)

    def start(self) -> None:
        """Start the workers (once): they then run every batch given until `close`."""
        if not self.workers:
            self.workers = [self._start(i) for i in range(self.jobs)]

    def close(self) -> None:
        """Stop the workers: idle ones exit by themselves, a busy one is killed."""
        for w in self.workers:
            try:
                w.conn.send(None)
            except (OSError, ValueError):
                pass
        for w in self.workers:
            self._stop(w, grace=10.0 if w.case is None else 0.0)
        self.workers = []

    def run(self, order: Sequence[str]) -> list[CaseResult]:
        """Run `order` on fresh workers; after a Ctrl-C, the results of the
        cases that finished, and `unfinished` names the rest."""
        self.start()
        try:
            self.run_batch(order)
        except KeyboardInterrupt:
            self.unfinished = [n for n in order if n not in self.results]
        finally:
            self.close()
        return [self.results[n] for n in order if n in self.results]

    def run_batch(self, order: Sequence[str]) -> list[CaseResult]:
        """Run `order` on the started workers, which stay up for the next batch."""
        pending = collections.deque(order)
        workers = self.workers
        while pending or any(w.case for w in workers):
            for w in workers:
                if w.ready and w.case is None and pending:
                    w.case = pending.popleft()
                    w.conn.send(w.case)
                    w.deadline = time.monotonic() + self.timeout
            if not pending and not any(w.case for w in workers):
                break
            wait = max(0.0, min(w.deadline if w.timed else float("inf") for w in workers) - time.monotonic())
            wait = None if wait == float("inf") else wait
            ready = multiprocessing.connection.wait(
                [w.conn for w in workers] + [w.process.sentinel for w in workers], timeout=wait
            )
            for i, w in enumerate(workers):
                workers[i] = self._service(w, ready)
        return [self.results[n] for n in order]

    def _service(self, w: _Worker, ready) -> _Worker:
        if w.conn in ready:
            try:
                kind, payload = w.conn.recv()
            except (EOFError, OSError):
                kind, payload = "eof", None
            if kind == "ready":
                w.ready, self.failed_starts = True, 0
                return w
            if kind == "done":
                self._record(CaseResult.from_json(payload))
                w.case = None
                return w
            if kind == "error":
                raise AuditError(f"the audit's runner failed on {w.case}: {payload}")
        if w.conn in ready or w.process.sentinel in ready:
            w.process.join(5)
            why = f"worker died with {_signal_name(w.process.exitcode)}"
            if w.case is not None:
                tail = _log_tail(w.log, w.case)
                self._lost(w, "crash", why + (f"; last output:\n{tail}" if tail else ""))
            return self._replace(w, why)
        if w.timed and time.monotonic() >= w.deadline:
            if w.case is not None:
                self._lost(w, "timeout", f"no result after {self.timeout:g} s; the worker was killed")
                return self._replace(w, "timeout")
            return self._replace(w, f"no worker ready after {max(self.startup_timeout, self.timeout):g} s")
        return w
