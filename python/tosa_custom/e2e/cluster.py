"""The audit's cases on Ray (`tosa-custom-audit --ray` / `--ray-address`).

Ray only places the work. Each CPU of the cluster gets a Ray actor that
keeps the local pool's supervisor (`pool._Supervisor`, one worker) for the
whole run: each case still runs in a child process, with the per-case
timeout and memory limit, and a segfault or hang is recorded exactly as
locally (crash, timeout), but the worker that imported torch, torch-mlir
and the cases is kept from case to case, as the local pool keeps its own,
instead of being started again for each task. Cases go out one at a time,
two in flight per actor, so results and the progress bar move case by case.

A lost node loses its actors: the cases they held go to the others (at most
LOST_TASK_RETRIES times each; then they are reported as crashed), and a
node with a free CPU, a replacement or a new one, gets an actor. An
exception raised by the harness itself is never retried. Each actor reports
the facts of its host, and results from hosts whose package versions differ
from the driver's are refused: they would not be one run.

Ray is imported only here, and this module only when a Ray flag is given.
"""

from __future__ import annotations

import collections
import collections.abc
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
# A case whose node (or actor) died is run again up to this many times elsewhere.
LOST_TASK_RETRIES = 3
# Cases queued on an actor: one running, one ready to start the moment it ends.
_IN_FLIGHT = 2
# How often the driver looks for CPUs without an actor (a node that joined, or replaced a lost one).
_GROW_EVERY = 10.0
# Actors that die before they are ready, in a row, before the run gives up (their error is the harness's).
_FAILED_STARTS = 3


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


class _CaseRunner:
    """A Ray actor: one CPU of a node, with a supervisor whose worker runs
    every case sent here. `names`: every case of the run (a lost case is
    reported by name); `pairs`: their OpInfo (op, dtype) pairs, which only
    the driver, having loaded them, knows."""

    def __init__(self, names: list[str], pairs, files: list[str], mode: str, ops, options: dict):
        import ray

        from .pool import _Supervisor

        self.tmp = tempfile.TemporaryDirectory(prefix="tosa-custom-audit-ray-")
        self.supervisor = _Supervisor(_CasesOnDemand(names, files, pairs), files, mode, ops, 1, options["timeout"],
                                      lambda r: None, Path(self.tmp.name), options["torch_fallback"],
                                      options["kernels"], options["executor"])
        self.supervisor.opinfo_pairs = pairs  # what its worker loads: the driver's, as nothing is loaded here
        self.supervisor.threads = options["threads"]
        self.supervisor.memory_limit = options["memory_limit"]
        self.supervisor.allow_loading(options["loading"])  # the driver's: the actor loads nothing
        self.supervisor.start()
        self.facts = host_facts(ray.get_runtime_context().get_node_id())

    def host(self) -> dict:
        return self.facts

    def run(self, names: list[str]) -> list[dict]:
        return [r.to_json() for r in self.supervisor.run_batch(names)]

    def close(self) -> None:
        self.supervisor.close()
        self.tmp.cleanup()


class _CasesOnDemand(collections.abc.Mapping):
    """The run's cases by name, loaded in the actor only when one is read:
    the supervisor reads a case only to report one its worker lost (a crash,
    a timeout); every other result comes whole from the worker, which loads
    the cases itself. (The actor loading them too doubled each actor's
    start-up: 113 s of running against 61 s locally on a 190-case shard.)"""

    def __init__(self, names: list[str], files: list[str], pairs):
        self._names, self._files, self._pairs, self._loaded = names, files, pairs, False

    def __iter__(self):
        return iter(self._names)

    def __len__(self) -> int:
        return len(self._names)

    def __getitem__(self, name: str):
        if not self._loaded:
            from .pool import load_case_files

            load_case_files((Path(f) for f in self._files), self._pairs)
            self._loaded = True
        return get_case(name)


class RayPool:
    """Runs cases on Ray actors; `run` gives the results in the order asked,
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

    def _record(self, result: CaseResult, node_id: str) -> None:
        self.results[result.name] = result
        self.ran_on[result.name] = node_id
        self.on_result(result)

    def _lost(self, name: str, error: Exception) -> None:
        """Ray lost the case's actor more than LOST_TASK_RETRIES times: a crash
        row naming Ray's error, as a dead worker's is."""
        from .pool import _lost_result

        text = str(error).splitlines()[0] if str(error) else ""
        result = _lost_result(get_case(name), self.mode, self.options["executor"], "crash",
                              f"Ray lost the node running it {LOST_TASK_RETRIES + 1} times: "
                              f"{type(error).__name__}: {text}", 0.0)
        self.results[name] = result
        self.on_result(result)

    def run(self, order: Sequence[str]) -> list[CaseResult]:
        shutdown = self._connect()
        fleet = _Fleet(self, list(order))
        try:
            fleet.drive()
        except KeyboardInterrupt:
            self.unfinished = [n for n in order if n not in self.results]
        finally:
            fleet.close()
            if shutdown:
                time.sleep(0.1)
                self.ray.shutdown()
        return [self.results[n] for n in order if n in self.results]


class _Fleet:
    """The driver's side of a run: the actors, the cases queued and in flight."""

    def __init__(self, pool: RayPool, order: list[str]):
        self.pool, self.ray = pool, pool.ray
        self.queue = collections.deque(order)
        self.attempts: collections.Counter = collections.Counter()
        self.actor_class = self.ray.remote(_CaseRunner).options(num_cpus=1, max_restarts=0)
        # Put once, read by every actor: a run of every OpInfo sample names 75,000 cases.
        self.arguments = (self.ray.put(order), self.ray.put(opinfo.pairs_of(order)), pool.files, pool.mode,
                          pool.ops, pool.options)
        self.starting: dict = {}  # host() ref -> actor not yet ready
        self.ready: dict = {}  # actor -> its host facts
        self.in_flight: dict = {}  # run() ref -> (actor, case)
        self.failed_starts, self.grown = 0, 0.0

    def _grow(self) -> None:
        """An actor for each CPU of the cluster without one."""
        self.grown = time.monotonic()
        free = int(self.ray.available_resources().get("CPU", 0))
        if not (self.starting or self.ready):
            free = max(free, 1)  # nothing left: wait for a node rather than give up
        for _ in range(free):
            actor = self.actor_class.remote(*self.arguments)
            self.starting[actor.host.remote()] = actor

    def _feed(self, actor) -> None:
        held = sum(1 for a, _ in self.in_flight.values() if a is actor)
        while self.queue and held < _IN_FLIGHT:
            name = self.queue.popleft()
            self.in_flight[actor.run.remote([name])] = (actor, name)
            held += 1

    def drive(self) -> None:
        self._grow()
        while self.queue or self.in_flight:
            if time.monotonic() - self.grown > _GROW_EVERY:
                self._grow()
            done, _ = self.ray.wait([*self.in_flight, *self.starting], num_returns=1, timeout=1.0)
            for ref in done:
                if ref in self.starting:
                    self._started(ref)
                else:
                    self._finished(ref)
            for actor in list(self.ready):
                self._feed(actor)

    def _started(self, ref) -> None:
        from .pool import AuditError

        actor = self.starting.pop(ref)
        try:
            facts = self.ray.get(ref)
        except self.ray.exceptions.RayError as e:
            self.failed_starts += 1
            if self.failed_starts >= _FAILED_STARTS:
                raise AuditError(f"the audit's Ray actors keep failing to start: {e}") from None
            return
        self.failed_starts = 0
        self.pool._check(facts)
        self.ready[actor] = facts

    def _finished(self, ref) -> None:
        from .pool import AuditError

        ray = self.ray
        actor, name = self.in_flight.pop(ref)
        try:
            rows = ray.get(ref)
        except ray.exceptions.RayTaskError as e:  # the harness itself failed: stop, as locally
            raise AuditError(f"the audit's Ray task failed on {name}: {e}") from None
        except (ray.exceptions.RayActorError, ray.exceptions.WorkerCrashedError, ray.exceptions.NodeDiedError,
                ray.exceptions.ObjectLostError) as e:
            self._dead(actor, name, e)
            return
        for row in rows:
            self.pool._record(CaseResult.from_json(row), self.ready[actor]["node_id"])

    def _dead(self, actor, name: str, error: Exception) -> None:
        """The actor (its node, most often) is gone: its cases run elsewhere."""
        self.ready.pop(actor, None)
        held = [r for r, (a, _) in self.in_flight.items() if a is actor]
        lost = [name] + [self.in_flight.pop(r)[1] for r in held]
        for n in reversed(lost):
            self.attempts[n] += 1
            if self.attempts[n] > LOST_TASK_RETRIES:
                self.pool._lost(n, error)
            else:
                self.queue.appendleft(n)
        self._grow()

    def close(self) -> None:
        """Stop the actors: an idle one stops its worker first; a busy one (a
        Ctrl-C) is killed at once, and its worker dies with it (pool.py)."""
        busy = {a for a, _ in self.in_flight.values()}
        closing = [a.close.remote() for a in self.ready if a not in busy]
        if closing:
            self.ray.wait(closing, num_returns=len(closing), timeout=30)
        for actor in [*self.ready, *self.starting.values()]:
            self.ray.kill(actor)


def _versions_text(versions: dict) -> str:
    return ", ".join(f"{k} {v}" for k, v in sorted(versions.items())) or "no known versions"
