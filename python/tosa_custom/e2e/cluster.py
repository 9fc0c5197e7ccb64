"""The audit's cases on Ray (`tosa-custom-audit --ray` / `--ray-address`).

Ray only places the work: each Ray task takes a few cases and runs them with
the local pool's supervisor (`pool._Supervisor`, one worker), so each case
still runs in a child process of its own with the per-case timeout and
memory limit, and a segfault or hang is recorded exactly as locally (crash,
timeout) instead of failing the task. Ray's retries are for lost nodes and
Ray workers only (`max_retries`); an exception in a task (the harness itself
broken) is never retried. Each task also returns the facts of the host that
ran it, and results from hosts whose package versions differ from the
driver's are refused: they would not be one run.

Ray is imported only here, and this module only when a Ray flag is given.
"""

from __future__ import annotations

import math
import os
import platform
import socket
import tempfile
import time
from pathlib import Path
from typing import Callable, Sequence

from . import opinfo
from .registry import get_case
from .runner import CaseResult

__all__ = ["INSTALL", "LOST_TASK_RETRIES", "RayPool", "host_facts", "import_ray"]

INSTALL = "pip install 'tosa-custom[ray]' (ray==2.60.0)"
# A task whose node (or Ray worker) died is run again up to this many times elsewhere.
LOST_TASK_RETRIES = 3
# Cases per task: a task pays one worker's start (torch, torch-mlir, the case
# files), so it takes several cases, but few enough that results stream in and
# a lost node costs little: about two tasks per CPU, at most this many cases.
_MAX_CHUNK = 16


def import_ray():
    """The `ray` module, or an error saying how to install it."""
    from .pool import AuditError

    try:
        import ray
    except ImportError:
        raise AuditError(f"--ray and --ray-address need Ray, which is not installed: {INSTALL}") from None
    return ray


def _cpu_model() -> str:
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or platform.machine()


def host_facts(node_id: str = "") -> dict:
    """What a report says of the host that ran cases: which node, which CPU,
    which versions of the packages that decide a case's result."""
    from .report import versions

    return {"node_id": node_id, "hostname": socket.gethostname(), "cpu": _cpu_model(),
            "cpus": os.cpu_count() or 1, "versions": versions()}


def _run_chunk(names: list[str], pairs, files: list[str], mode: str, ops, options: dict) -> tuple[list[dict], dict]:
    """A Ray task: run `names` with the local pool's supervisor on this node;
    their results as JSON, and this host's facts. `pairs`: the OpInfo (op,
    dtype) pairs of `names`, which only the driver, having loaded them, knows."""
    import ray

    from .pool import _Supervisor, load_case_files

    load_case_files((Path(f) for f in files), pairs)  # once per Ray worker process and pairs: then a no-op
    cases = [get_case(n) for n in names]
    results: list[dict] = []
    with tempfile.TemporaryDirectory(prefix="tosa-custom-audit-ray-") as tmp:
        supervisor = _Supervisor(cases, files, mode, ops, 1, options["timeout"], lambda r: results.append(r.to_json()),
                                 Path(tmp), options["torch_fallback"], options["kernels"], options["executor"])
        supervisor.threads = options["threads"]
        supervisor.memory_limit = options["memory_limit"]
        supervisor.run(names)
    return results, host_facts(ray.get_runtime_context().get_node_id())


def _chunks(names: Sequence[str], cpus: int) -> list[list[str]]:
    size = max(1, min(_MAX_CHUNK, math.ceil(len(names) / (2 * max(1, cpus)))))
    return [list(names[i:i + size]) for i in range(0, len(names), size)]


class RayPool:
    """Runs cases as Ray tasks; `run` gives the results in the order asked,
    the nodes that ran them, and the cases left unfinished by a Ctrl-C."""

    def __init__(self, address: str | None, files: list[str], mode: str, ops: list[str] | None, options: dict,
                 on_result: Callable[[CaseResult], None]):
        self.ray = import_ray()
        self.address, self.files, self.mode, self.ops = address, files, mode, ops
        self.options, self.on_result = options, on_result
        self.nodes: dict[str, dict] = {}
        self.ran_on: dict[str, str] = {}
        self.results: dict[str, CaseResult] = {}
        self.unfinished: list[str] = []

    def _connect(self) -> bool:
        """Start (or join) Ray unless this process already did; whether to shut it down after."""
        if self.ray.is_initialized():
            return False
        self.ray.init(address=self.address, include_dashboard=False, log_to_driver=False,
                      configure_logging=False)
        return True

    def _check(self, facts: dict) -> None:
        from .pool import AuditError
        from .report import versions

        mine = versions()
        if facts["versions"] != mine:
            raise AuditError(
                f"node {facts['hostname']} ({facts['node_id'][:12]}) has {_versions_text(facts['versions'])}, this "
                f"driver {_versions_text(mine)}: results from different package versions are not one run; install "
                f"the same versions on every node (pip install tosa-custom[ray]=={mine.get('tosa-custom', '?')})")
        self.nodes.setdefault(facts["node_id"], facts)

    def _collect(self, names: list[str], payload) -> None:
        rows, facts = payload
        self._check(facts)
        for row in rows:
            result = CaseResult.from_json(row)
            self.results[result.name] = result
            self.ran_on[result.name] = facts["node_id"]
            self.on_result(result)

    def _lost(self, names: list[str], error: Exception) -> None:
        """Ray gave up on a task (its node died more than LOST_TASK_RETRIES
        times): its cases get a crash row naming Ray's error, as a dead worker's do."""
        from .pool import _lost_result

        for name in names:
            result = _lost_result(get_case(name), self.mode, self.options["executor"], "crash",
                                  f"Ray lost the task running it {LOST_TASK_RETRIES + 1} times: "
                                  f"{type(error).__name__}: {str(error).splitlines()[0] if str(error) else ''}", 0.0)
            self.results[name] = result
            self.on_result(result)

    def run(self, order: Sequence[str]) -> list[CaseResult]:
        from .pool import AuditError

        shutdown = self._connect()
        ray = self.ray
        task = ray.remote(_run_chunk).options(num_cpus=1, max_retries=LOST_TASK_RETRIES, retry_exceptions=False)
        cpus = int(ray.cluster_resources().get("CPU", 1))
        pending = {task.remote(chunk, opinfo.pairs_of(chunk), self.files, self.mode, self.ops, self.options): chunk
                   for chunk in _chunks(order, cpus)}
        try:
            while pending:
                done, _ = ray.wait(list(pending), num_returns=1, timeout=1.0)
                for ref in done:
                    names = pending.pop(ref)
                    try:
                        self._collect(names, ray.get(ref))
                    except ray.exceptions.RayTaskError as e:  # the harness itself failed: stop, as locally
                        raise AuditError(f"the audit's Ray task failed on {', '.join(names)}: {e}") from None
                    except (ray.exceptions.WorkerCrashedError, ray.exceptions.NodeDiedError,
                            ray.exceptions.ObjectLostError) as e:
                        self._lost(names, e)
        except KeyboardInterrupt:
            self.unfinished = [n for n in order if n not in self.results]
        finally:
            for ref in pending:
                ray.cancel(ref, force=True)
            if shutdown:
                time.sleep(0.1)
                ray.shutdown()
        return [self.results[n] for n in order if n in self.results]


def _versions_text(versions: dict) -> str:
    return ", ".join(f"{k} {v}" for k, v in sorted(versions.items())) or "no known versions"
