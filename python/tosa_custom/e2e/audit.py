"""`tosa-custom-audit`: run the e2e suite in one mode and report coverage.

The supervisor (this process) loads the case files to know the cases, then
hands them one at a time to N worker processes, each of which imports the
case files once and runs cases with `runner.run_case`. A worker that dies
(a segfault in compiled code, os.abort) or outlives the per-case timeout is
recorded as a crash or timeout for the case it held, and replaced: every case
gets a row, whatever happens. Workers are spawned, not forked, because MLIR
contexts and torch's thread pools do not survive a fork.
"""

from __future__ import annotations

import argparse
import collections
import dataclasses
import faulthandler
import importlib.util
import multiprocessing
import multiprocessing.connection
import os
import re
import signal
import sys
import tempfile
import time
from pathlib import Path
from typing import Iterable, Sequence

import torch
from tqdm import tqdm

import tosa_custom

from ..core.schema import OpSelection
from . import compare, opinfo, report
from .registry import EXECUTORS, MODES, Case, cases as registered_cases, get_case
from .report import failure_line, status_counts
from .runner import CaseResult, expected_reason, final_status, run_case

__all__ = ["AuditError", "AuditRun", "default_suite", "load_case_files", "main", "run_audit", "select", "suite_files"]

DEFAULT_TIMEOUT = 120.0
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


def _worker_main(conn, files: list[str], mode: str, ops: list[str] | None, torch_fallback: bool, threads: int,
                 log_path: str, kernels: str = "all", executor: str = "reference",
                 opinfo_pairs: frozenset[tuple[str, str]] | None = None) -> None:
    """A worker: load the cases once, then run what the supervisor sends."""
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


@dataclasses.dataclass
class AuditRun:
    mode: str
    ops: list[str] | None
    results: list[CaseResult]
    seconds: float
    jobs: int
    timeout: float
    files: list[str]
    filter: str | None = None
    torch_fallback: bool = True
    kernels: str = "all"
    executor: str = "reference"
    shard: str | None = None  # "K/N": the K-th of N interleaved slices of the selected cases

    @property
    def unexpected(self) -> list[CaseResult]:
        return [r for r in self.results if r.failed]


class _Supervisor:
    def __init__(self, cases: Sequence[Case], files: list[str], mode: str, ops: list[str] | None,
                 jobs: int, timeout: float, on_result, log_dir: Path, torch_fallback: bool = True,
                 kernels: str = "all", executor: str = "reference"):
        self.cases = {c.name: c for c in cases}
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

    def _start(self, index: int) -> _Worker:
        parent, child = self.ctx.Pipe()
        log = self.log_dir / f"worker-{index}.log"
        process = self.ctx.Process(
            target=_worker_main,
            args=(child, self.files, self.mode, self.ops, self.torch_fallback, self.threads, str(log), self.kernels,
                  self.executor, self.opinfo_pairs),
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
        case = self.cases[w.case]
        result = CaseResult(case.name, self.mode, case.family, case.source, executor=self.executor,
                            xfail_reason=expected_reason(case, self.mode, self.executor))
        result.status = final_status(case, self.mode, measured, self.executor)
        result.category = measured
        result.message = message
        result.timings["total"] = round(self.timeout if measured == "timeout" else 0.0, 4)
        self._record(result)

    def _replace(self, w: _Worker, why: str) -> _Worker:
        self._stop(w)
        if w.case is None and not w.ready:
            self.failed_starts += 1
            if self.failed_starts >= 3:
                raise AuditError(f"audit workers keep dying before their first case ({why}); see {w.log}")
        return self._start(w.index)

    def run(self, order: Sequence[str]) -> list[CaseResult]:
        pending = collections.deque(order)
        workers = [self._start(i) for i in range(self.jobs)]
        try:
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
        finally:
            for w in workers:
                try:
                    w.conn.send(None)
                except (OSError, ValueError):
                    pass
            for w in workers:
                self._stop(w, grace=10.0 if w.case is None else 0.0)
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


def select(cases: Sequence[Case], name_filter: str | None = None, shard: tuple[int, int] | None = None,
           only: frozenset[str] | None = None) -> list[Case]:
    """The cases a run takes: those matching `name_filter`, then the shard's
    slice of them, then those of them named in `only`. The slice is taken
    before `only`, so a shard's run and its re-run of another mode's
    unpassed cases cover the same ground."""
    if name_filter:
        try:
            pattern = re.compile(name_filter)
        except re.error as e:
            raise AuditError(f"--filter {name_filter!r} is not a regular expression: {e}") from None
        cases = [c for c in cases if pattern.search(c.name)]
    if shard is not None:
        cases = cases[shard[0] - 1::shard[1]]
    return list(cases) if only is None else [c for c in cases if c.name in only]


def run_audit(mode: str, *, files: Sequence[Path], ops: Sequence[str] | None = None, jobs: int | None = None,
              timeout: float = DEFAULT_TIMEOUT, name_filter: str | None = None, on_result=None,
              on_start=None, torch_fallback: bool = True, kernels: str = "all",
              executor: str = "reference", shard: tuple[int, int] | None = None,
              only: frozenset[str] | None = None) -> AuditRun:
    """Run every case of `files` (matching `name_filter`) in `mode`; without
    `torch_fallback`, custom ops run only by registered kernels; `kernels="user"`:
    only by the user's own (not the package's built-in ones); `executor`:
    what runs the compiled program (registry.EXECUTORS); `shard=(k, n)`: only
    every n-th selected case from the k-th (1-based), so n machines (or runs)
    cover a suite too long for one, each with a sample spread over all of it;
    `only`: of those, only the cases of these names."""
    if mode not in MODES:
        raise AuditError(f"unknown mode {mode!r}: expected one of {', '.join(MODES)}")
    if executor not in EXECUTORS:
        raise AuditError(f"unknown executor {executor!r}: expected one of {', '.join(EXECUTORS)}")
    if executor in ("iree", "vgf") and kernels == "user":
        raise AuditError("--only-user-kernels applies to the reference runtime: IREE binds each kept op to the "
                         "newest native kernel for it, Vulkan to its shader, yours or the package's")
    files = [str(f) if opinfo.is_spec(f) else str(Path(f).resolve()) for f in files]
    loading = time.monotonic()
    cases = load_case_files(Path(f) for f in files)
    loading = time.monotonic() - loading
    cases = select(cases, name_filter, shard, only)
    if not cases:
        raise AuditError("no case to run" + (f": none matches --filter {name_filter!r}" if name_filter else "")
                         + (" among the cases given by --rerun-unpassed" if only is not None else ""))
    if on_start:
        on_start(cases)
    start = time.monotonic()
    jobs = jobs or os.cpu_count() or 1
    with tempfile.TemporaryDirectory(prefix="tosa-custom-audit-") as tmp:
        supervisor = _Supervisor(cases, files, mode, list(ops) if ops else None, jobs, timeout,
                                 on_result or (lambda r: None), Path(tmp), torch_fallback, kernels, executor)
        # Each worker loads at most the cases this process did, jobs at a time: no longer than it took (every
        # OpInfo sample and dtype: 30 s on a quiet host, over 300 s on a loaded one, where a fixed limit killed them).
        supervisor.startup_timeout = max(_STARTUP_TIMEOUT, 4 * loading * supervisor.jobs)
        results = supervisor.run([c.name for c in cases])
    return AuditRun(mode, list(ops) if ops else None, results, round(time.monotonic() - start, 2),
                    supervisor.jobs, timeout, files, name_filter, torch_fallback, kernels, executor,
                    f"{shard[0]}/{shard[1]}" if shard else None)


# --------------------------------------------------------------------------
# The command line.
# --------------------------------------------------------------------------


def _parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="tosa-custom-audit",
        description="Run the e2e suite (or your own case files) in one mode, compare every case with eager "
                    "PyTorch, and report which ATen ops were converted to tosa.custom and why not.",
    )
    p.add_argument("--version", action="version", version=f"%(prog)s (tosa-custom {tosa_custom.__version__})")
    p.add_argument("--mode", required=True, choices=MODES,
                   help="stock: torch-mlir's own lowering; selective: keep --ops (or each case's "
                        "selective_ops); dummy: keep every op; auto: keep what torch-mlir cannot lower to TOSA, "
                        "lowers wrongly or lowers to TOSA the target forbids (the report ranks those ops)")
    p.add_argument("--ops", action="append", default=[], metavar="OPS",
                   help="selective mode's ops, comma-separated or repeated (e.g. aten.layer_norm,aten.gelu)")
    p.add_argument("-j", "--jobs", type=int, default=os.cpu_count() or 1, help="worker processes (default: all cores)")
    p.add_argument("--filter", metavar="REGEX", help="run only cases whose name matches (re.search)")
    p.add_argument("--shard", type=_shard, metavar="K/N",
                   help="run the K-th of N interleaved slices of the selected cases (e.g. 3/50), so a suite too "
                        "long for one run (every OpInfo sample and dtype) is split across runs or machines")
    p.add_argument("--rerun-unpassed", type=Path, metavar="REPORT",
                   help="run only the cases that did not run right (pass or xpass) in that earlier run's report "
                        "folder (or a folder of such folders, one per shard): other modes need to run only "
                        "those to show whether auto mode is ever worse (tosa-custom-audit-compare)")
    p.add_argument("--timeout", type=float, default=DEFAULT_TIMEOUT, metavar="SECONDS",
                   help=f"per-case time limit (default {DEFAULT_TIMEOUT:g})")
    p.add_argument("--report", type=Path, metavar="DIR", help="write audit.json, audit.md and audit.html there")
    p.add_argument("--suite", type=Path, metavar="DIR",
                   help="suite folder (default: the repository's e2e/; not loaded when only --cases is given), "
                        "or 'opinfo' for PyTorch's OpInfo database (see --dtypes, --samples)")
    p.add_argument("--dtypes", metavar="LIST", default=",".join(opinfo.DEFAULT_DTYPES),
                   help="--suite opinfo: the dtypes whose samples to run (default %(default)s; 'all': "
                        + ",".join(opinfo.ALL_DTYPES) + ")")
    p.add_argument("--samples", type=opinfo.parse_samples, default=1, metavar="N|all",
                   help="--suite opinfo: the first N samples of each op and dtype, or all of them "
                        "(default %(default)s)")
    p.add_argument("--opinfo-ops", metavar="REGEX",
                   help="--suite opinfo: only the OpInfo entries whose name matches (re.search on e.g. "
                        "'nn.functional.relu'); unlike --filter, the others are never loaded, which is faster")
    p.add_argument("--cases", type=Path, action="append", default=[], metavar="FILE",
                   help="your own case file (registers cases with @tosa_custom.e2e.case); repeatable")
    p.add_argument("--list", action="store_true", help="list the selected cases and exit")
    p.add_argument("--no-progress", action="store_true", help="no progress bar")
    p.add_argument("--no-torch-fallback", action="store_true",
                   help="run custom ops only by registered kernels (numpy, native, and those the case files "
                        "register), never the generic torch kernel: the ops without one fail as no-kernel")
    p.add_argument("--executor", choices=EXECUTORS, default="reference",
                   help="what runs each compiled case: the reference runtime (default), IREE (tosa_custom.iree: "
                        "IREE's code, each kept op by its native kernel; a case with a kept op no native kernel "
                        "takes is an expected refusal, counted apart), or TOSA's reference model "
                        "(tosa_custom.refmodel: the TOSA between kept ops on the specification's interpreter, "
                        "each kept op by its kernel; a dynamic shape or TOSA that does not conform is an "
                        "expected refusal), or Vulkan (tosa_custom.vgf: a VGF of Arm's ML SDK, each kept op "
                        "by its compute shader; an op no shader takes is an expected refusal)")
    p.add_argument("--only-user-kernels", action="store_true",
                   help="run custom ops only by the kernels your case files register or load (not the package's "
                        "built-in numpy, native or generic torch ones): shows which ops lack a kernel of yours")
    return p


def _shard(text: str) -> tuple[int, int]:
    k, slash, n = text.partition("/")
    if not (slash and k.isdigit() and n.isdigit() and 1 <= int(k) <= int(n)):
        raise argparse.ArgumentTypeError(f"{text!r}: give K/N with 1 <= K <= N, e.g. 3/50")
    return int(k), int(n)


def _select_files(args) -> list[Path]:
    files: list[Path] = []
    if args.suite == Path("opinfo"):
        dtypes = opinfo.ALL_DTYPES if args.dtypes == "all" else args.dtypes.split(",")
        return [opinfo.spec(dtypes, args.samples, args.opinfo_ops)] + list(args.cases)
    if args.suite is not None or not args.cases:
        files += suite_files(args.suite if args.suite is not None else default_suite())
    return files + list(args.cases)


class _Progress:
    """Cases done, passing and failing, on stderr; unexpected results printed as they come."""

    def __init__(self, enabled: bool):
        self.enabled, self.bar = enabled, None
        self.counts = collections.Counter()

    def start(self, cases: Sequence[Case]) -> None:
        if self.enabled:
            tty = sys.stderr.isatty()  # in a CI log, a line every 30 s instead of a redraw per case
            self.bar = tqdm(total=len(cases), unit="case", file=sys.stderr, dynamic_ncols=True,
                            mininterval=0.1 if tty else 30.0, maxinterval=30.0 if tty else 60.0)

    def __call__(self, r: CaseResult) -> None:
        self.counts[r.status] += 1
        line = failure_line(r.to_json())
        if self.bar is not None:
            self.bar.update(1)
            self.bar.set_postfix_str(status_counts(self.counts), refresh=True)  # the summary's wording
            if r.failed:
                self.bar.write(line, file=sys.stderr)
        elif r.failed:
            print(line, file=sys.stderr)

    def close(self) -> None:
        if self.bar is not None:
            self.bar.close()


def main(argv: Sequence[str] | None = None) -> int:
    args = _parser().parse_args(argv)
    ops = [o.strip() for spec in args.ops for o in spec.split(",") if o.strip()] or None
    if ops and args.mode != "selective":
        print(f"tosa-custom-audit: --ops applies to --mode selective only, not {args.mode}", file=sys.stderr)
        return 2
    if args.jobs < 1:
        print(f"tosa-custom-audit: -j {args.jobs}: give at least 1 worker process (-j 1 runs the cases one by one)",
              file=sys.stderr)
        return 2
    if args.timeout <= 0:
        print(f"tosa-custom-audit: --timeout {args.timeout:g}: give a time limit in seconds above 0 "
              f"(default {DEFAULT_TIMEOUT:g})", file=sys.stderr)
        return 2
    try:
        re.compile(args.filter or "")
        if ops:
            OpSelection(ops)  # an unknown name fails here once, with suggestions, not in every case
    except (re.error, ValueError) as e:
        print(f"tosa-custom-audit: error: {'--filter' if isinstance(e, re.error) else '--ops'}: {e}", file=sys.stderr)
        return 2
    progress = _Progress(not args.no_progress and not args.list)
    try:
        only = compare.unpassed(args.rerun_unpassed) if args.rerun_unpassed else None
        files = _select_files(args)
        if args.list:
            for c in select(load_case_files(files), args.filter, args.shard, only):
                print(f"{c.name}\t{c.family}\t{c.source}")
            return 0
        run = run_audit(args.mode, files=files, ops=ops, jobs=args.jobs, timeout=args.timeout,
                        name_filter=args.filter, on_result=progress, on_start=progress.start,
                        torch_fallback=not args.no_torch_fallback,
                        kernels="user" if args.only_user_kernels else "all", executor=args.executor,
                        shard=args.shard, only=only)
    except (AuditError, compare.ReportError) as e:
        progress.close()
        print(f"tosa-custom-audit: error: {e}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        progress.close()
        print("tosa-custom-audit: interrupted", file=sys.stderr)
        return 130
    progress.close()
    summary = report.build(run)
    print(report.text_summary(summary))
    if args.report:
        for path in report.write_all(summary, args.report):
            print(f"wrote {path}")
    return 1 if run.unexpected else 0


if __name__ == "__main__":
    sys.exit(main())
