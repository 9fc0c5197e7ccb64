"""`tosa-custom-audit`: run the e2e suite in one mode and report coverage.

The cases run in the local pool (pool.py: each in a worker process, a crash
or hang recorded for the case it held), or as Ray tasks that each run such a
pool on a node of a cluster (cluster.py, `--ray` / `--ray-address`).
"""

from __future__ import annotations

import argparse
import collections
import dataclasses
import os
import re
import sys
import tempfile
import time
from pathlib import Path
from typing import Sequence

from tqdm import tqdm

import tosa_custom

from ..core.schema import OpSelection
from . import compare, opinfo, report, report_html
from .pool import AuditError, _Supervisor, default_suite, load_case_files, suite_files
from .registry import EXECUTORS, MODES, Case
from .report import failure_line, status_counts
from .runner import CaseResult

__all__ = ["AuditError", "AuditRun", "default_suite", "load_case_files", "main", "run_audit", "select", "suite_files"]

DEFAULT_TIMEOUT = 120.0
_RAY_INSTALL = "pip install 'tosa-custom[ray]'"
_RAY_MEMORY_GB = 8.0  # a case's worker on a Ray node, whose other tasks it must not starve


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
    nodes: dict[str, dict] | None = None  # on Ray: node id -> its host facts (cluster.host_facts)
    ran_on: dict[str, str] | None = None  # on Ray: case -> the node id that ran it
    unfinished: list[str] = dataclasses.field(default_factory=list)  # cases a Ctrl-C left without a result

    @property
    def unexpected(self) -> list[CaseResult]:
        return [r for r in self.results if r.failed]


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
              only: frozenset[str] | None = None, ray: str | None = None,
              memory_limit: int | None = None) -> AuditRun:
    """Run every case of `files` (matching `name_filter`) in `mode`; without
    `torch_fallback`, custom ops run only by registered kernels; `kernels="user"`:
    only by the user's own (not the package's built-in ones); `executor`:
    what runs the compiled program (registry.EXECUTORS); `shard=(k, n)`: only
    every n-th selected case from the k-th (1-based), so n machines (or runs)
    cover a suite too long for one, each with a sample spread over all of it;
    `only`: of those, only the cases of these names; `ray`: run them as Ray
    tasks (cluster.py) on the cluster at that address, or a local Ray for
    ""; `memory_limit`: bytes of address space each case's worker may use."""
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
    ops = list(ops) if ops else None
    on_result = on_result or (lambda r: None)
    run = AuditRun(mode, ops, [], 0.0, jobs or os.cpu_count() or 1, timeout, files, name_filter, torch_fallback,
                   kernels, executor, f"{shard[0]}/{shard[1]}" if shard else None)
    if ray is not None:
        from .cluster import RayPool  # lazily: Ray is an optional extra

        options = {"timeout": timeout, "torch_fallback": torch_fallback, "kernels": kernels, "executor": executor,
                   "threads": 1, "memory_limit": memory_limit, "loading": loading}
        pool = RayPool(ray or None, files, mode, ops, options, on_result)
        run.results = pool.run([c.name for c in cases])
        run.nodes, run.ran_on, run.unfinished = pool.nodes, pool.ran_on, pool.unfinished
        run.jobs = sum(int(n["cpus"]) for n in pool.nodes.values()) or 1
    else:
        with tempfile.TemporaryDirectory(prefix="tosa-custom-audit-") as tmp:
            supervisor = _Supervisor(cases, files, mode, ops, run.jobs, timeout, on_result, Path(tmp),
                                     torch_fallback, kernels, executor)
            supervisor.allow_loading(loading)
            supervisor.memory_limit = memory_limit
            run.results, run.jobs = supervisor.run([c.name for c in cases]), supervisor.jobs
            run.unfinished = supervisor.unfinished
    run.seconds = round(time.monotonic() - start, 2)
    return run


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
                        "IREE's code, each kept op by the kernel the reference runtime chooses: native where one "
                        "takes it, else its Python kernel, called back in-process; a case with a kept op no "
                        "kernel takes is an expected refusal, counted apart), or TOSA's reference model "
                        "(tosa_custom.refmodel: the TOSA between kept ops on the specification's interpreter, "
                        "each kept op by its kernel; a dynamic shape or TOSA that does not conform is an "
                        "expected refusal), or Vulkan (tosa_custom.vgf: a VGF of Arm's ML SDK, each kept op "
                        "by its compute shader; an op no shader takes is an expected refusal)")
    _cluster_arguments(p)
    p.add_argument("--only-user-kernels", action="store_true",
                   help="run custom ops only by the kernels your case files register or load (not the package's "
                        "built-in numpy, native or generic torch ones): shows which ops lack a kernel of yours")
    return p


def _cluster_arguments(p: argparse.ArgumentParser) -> None:
    """--ray, --ray-address and --memory-limit: where the cases run, and with how much memory."""
    p.add_argument("--ray", action="store_true",
                   help="run the cases as tasks on a local Ray (started for the run) instead of -j local workers; "
                        f"each case still in a child process of its own (needs {_RAY_INSTALL})")
    p.add_argument("--ray-address", metavar="ADDR",
                   help="run the cases as tasks on the Ray cluster at ADDR (e.g. 10.0.0.1:6379, from `ray start "
                        "--head`); every node needs the same tosa-custom, torch and torch-mlir, and the case files "
                        "at the same path")
    p.add_argument("--memory-limit", type=float, metavar="GB",
                   help="address space each case's worker process may use (RLIMIT_AS); a case over it fails alone "
                        f"(default: none locally, {_RAY_MEMORY_GB:g} on Ray)")


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
    if args.memory_limit is not None and args.memory_limit <= 0:
        print(f"tosa-custom-audit: --memory-limit {args.memory_limit:g}: give gigabytes above 0", file=sys.stderr)
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
        ray = args.ray_address if args.ray_address else ("" if args.ray else None)
        memory = args.memory_limit or (_RAY_MEMORY_GB if ray is not None else None)
        run = run_audit(args.mode, files=files, ops=ops, jobs=args.jobs, timeout=args.timeout,
                        name_filter=args.filter, on_result=progress, on_start=progress.start,
                        torch_fallback=not args.no_torch_fallback,
                        kernels="user" if args.only_user_kernels else "all", executor=args.executor,
                        shard=args.shard, only=only, ray=ray, memory_limit=int(memory * 2**30) if memory else None)
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
        for path in report_html.write_all(summary, args.report):
            print(f"wrote {path}")
    if run.unfinished:  # Ctrl-C: what finished is reported; --rerun-unpassed runs the rest
        print(f"tosa-custom-audit: interrupted, {len(run.unfinished)} cases unfinished"
              + (f": resume with --rerun-unpassed {args.report}" if args.report else ""), file=sys.stderr)
        return 130
    return 1 if run.unexpected else 0


if __name__ == "__main__":
    sys.exit(main())
