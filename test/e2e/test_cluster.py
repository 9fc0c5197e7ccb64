"""tosa-custom-audit on Ray (--ray-address): a two-node cluster on this
machine gives the local pool's statuses, a segfault and a hang are the
cases' crash and timeout, a node killed mid-run loses no case, each node
keeps its worker from case to case, and a run stopped with Ctrl-C keeps what
finished and resumes."""

import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

ray = pytest.importorskip("ray", reason="the Ray tests need Ray: pip install -e '.[ray]'")
from ray.cluster_utils import Cluster  # noqa: E402

from conftest import AuditRun, interrupt_and_resume  # noqa: E402

FIXTURES = Path(__file__).parent / "fixtures"
OUTCOMES = str(FIXTURES / "cases_outcomes.py")
CRASHES = str(FIXTURES / "cases_crash.py")
SLOW = str(FIXTURES / "cases_slow.py")

pytestmark = pytest.mark.slow


def _cluster(nodes: int) -> tuple[Cluster, list]:
    """A head that runs no task, and `nodes` nodes of one CPU each."""
    cluster = Cluster(initialize_head=True, head_node_args={"num_cpus": 0, "include_dashboard": False})
    workers = [cluster.add_node(num_cpus=1) for _ in range(nodes)]
    cluster.wait_for_nodes()
    return cluster, workers


@pytest.fixture(scope="module")
def two_nodes():
    cluster, _ = _cluster(2)
    yield cluster
    cluster.shutdown()


def _command(report: Path, *args: str) -> list[str]:
    return [sys.executable, "-m", "tosa_custom.e2e.audit", "--no-progress", "--report", str(report), *args]


def _audit(tmp_path: Path, *args: str) -> AuditRun:
    report = tmp_path / f"report{len(list(tmp_path.iterdir()))}"
    proc = subprocess.run(_command(report, *args), capture_output=True, text=True, timeout=900)
    return AuditRun(proc, report)


def _statuses(run: AuditRun) -> dict:
    assert run.summary is not None, run.stderr[-3000:]
    return {c["name"]: (c["status"], c["category"]) for c in run.summary["cases"]}


def test_cases_crash_and_hang_as_in_the_local_pool(two_nodes, tmp_path):
    args = ("--mode", "stock", "--cases", OUTCOMES, "--cases", CRASHES, "--timeout", "40",
            "--filter", "AddTensorModule_basic|RaisesModule_xfail|CountCalls|BrokenInputs|Abort|Sleep")
    on_ray = _audit(tmp_path, *args, "--ray-address", two_nodes.address)
    local = _audit(tmp_path, *args, "-j", "2")
    assert _statuses(on_ray) == _statuses(local) == {
        "AddTensorModule_basic": ("pass", None),
        "RaisesModule_xfail": ("xfail", "eager-failed"),
        "CountCallsModule_mismatch": ("fail", "numeric-mismatch"),
        "BrokenInputsModule_basic": ("fail", "case-error"),
        "AbortModule_crash": ("crash", "crash"),
        "SleepModule_hang": ("timeout", "timeout"),
        "AbortModule_xfail": ("xfail", "crash"),
    }
    assert on_ray.returncode == local.returncode == 1
    assert on_ray.case("AbortModule_crash")["message"].startswith("worker died with SIGABRT")
    assert "no result after 40 s" in on_ray.case("SleepModule_hang")["message"]
    assert on_ray.summary["counts"] == local.summary["counts"]
    # Which node ran which case, and what each node is.
    meta = on_ray.summary["meta"]
    assert set(meta["ran_on"]) == set(_statuses(on_ray)) and set(meta["ran_on"].values()) == set(meta["nodes"])
    assert len(meta["nodes"]) == 2
    for facts in meta["nodes"].values():
        assert facts["versions"] == meta["versions"] and facts["cpu"] and facts["hostname"]
    assert local.summary["meta"]["nodes"] is None
    assert "## Nodes" in (on_ray.report / "audit.md").read_text()


def test_an_opinfo_slice_as_in_the_local_pool(two_nodes, tmp_path):
    args = ("--suite", "opinfo", "--opinfo-ops", "^(add|acos|logcumsumexp)$", "--dtypes", "float32",
            "--mode", "stock", "--timeout", "300")
    on_ray = _audit(tmp_path, *args, "--ray-address", two_nodes.address)
    local = _audit(tmp_path, *args, "-j", "2")
    assert _statuses(on_ray) == _statuses(local)
    assert _statuses(on_ray)["OpInfoModule_add_float32_0"] == ("pass", None)
    assert _statuses(on_ray)["OpInfoModule_acos_float32_0"] == ("xfail", "lowering-failed")
    assert on_ray.returncode == local.returncode == 0


def test_a_node_killed_mid_run_loses_no_case(tmp_path, monkeypatch):
    marks = tmp_path / "marks"
    marks.mkdir()
    # The nodes' Ray workers, and so the cases, inherit these.
    monkeypatch.setenv("TOSA_CUSTOM_TEST_MARKS", str(marks))
    monkeypatch.setenv("TOSA_CUSTOM_TEST_SLEEP", "20")
    cluster, (first, second) = _cluster(2)
    try:
        report = tmp_path / "report"
        proc = subprocess.Popen(_command(report, "--mode", "stock", "--cases", SLOW, "--timeout", "300",
                                         "--ray-address", cluster.address),
                                stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        deadline = time.monotonic() + 600
        while len(list(marks.iterdir())) < 2:  # a case running on each node
            assert proc.poll() is None and time.monotonic() < deadline, proc.communicate()
            time.sleep(0.5)
        cluster.remove_node(second, allow_graceful=False)
        out, err = proc.communicate(timeout=900)
    finally:
        cluster.shutdown()
    run = AuditRun(subprocess.CompletedProcess(proc.args, proc.returncode, out, err), report)
    assert run.returncode == 0, err[-3000:]
    assert _statuses(run) == {f"SlowModule_{i}": ("pass", None) for i in range(1, 5)}
    started = sorted(p.name.split(".")[0] for p in marks.iterdir())
    assert len(started) == 5, started  # the case the killed node held started again elsewhere
    assert set(run.summary["meta"]["ran_on"].values()) == {first.node_id}


def test_ctrl_c_keeps_what_finished_and_workers_are_kept(tmp_path, monkeypatch):
    marks = tmp_path / "marks"
    marks.mkdir()
    monkeypatch.setenv("TOSA_CUSTOM_TEST_MARKS", str(marks))
    monkeypatch.setenv("TOSA_CUSTOM_TEST_SLEEP", "6")
    cluster, nodes = _cluster(2)
    try:
        command = [sys.executable, "-m", "tosa_custom.e2e.audit", "--no-progress", "--mode", "stock", "--cases",
                   SLOW, "--timeout", "300", "--ray-address", cluster.address]
        interrupted, resumed, pids = interrupt_and_resume(command, tmp_path / "report", marks)
    finally:
        cluster.shutdown()
    assert interrupted.returncode == 130, interrupted.stderr[-3000:]
    finished = {c["name"]: c["status"] for c in interrupted.summary["cases"]}
    unfinished = set(interrupted.summary["meta"]["unfinished"])
    assert set(finished.values()) == {"pass"} and unfinished  # the run was cut short
    assert set(finished) | unfinished == {f"SlowModule_{i}" for i in range(1, 5)}
    # One worker per node ran its cases one after another: no worker started per case.
    assert len(pids) == 2
    assert resumed.returncode == 0, resumed.stderr[-3000:]
    assert {c["name"]: c["status"] for c in resumed.summary["cases"]} == dict.fromkeys(unfinished, "pass")
    assert set(resumed.summary["meta"]["ran_on"].values()) <= {n.node_id for n in nodes}
