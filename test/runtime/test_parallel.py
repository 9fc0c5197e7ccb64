"""A large program's LLVM code compiled in worker processes
(runtime/compiled/parallel.py, compile_worker.py): a symbol two groups use
is defined in one object only, and the linked library runs; a model large
enough to be cut computes bit for bit what the in-process compile computes,
native kernel call sites included; the library is cached for a fresh
process; a crashed or hung worker falls back to the in-process compile with
its reason."""

from __future__ import annotations

import ctypes
import json
import os
import shutil
import subprocess
import sys
import textwrap

import pytest
import torch
from _tolerance import assert_reduction_close
from torch_mlir import ir

import tosa_custom
from tosa_custom import runtime
from tosa_custom.core import ir as _ir
from tosa_custom.runtime.compiled import compiled_code, parallel
from tosa_custom.tools.example import TransformerBlock, example_inputs

pytestmark = pytest.mark.skipif(compiled_code._supported() != "", reason=compiled_code._supported() or "-")

# Two pieces and the function calling them, all reading one constant.
_LLVM = """
llvm.mlir.global private constant @w(dense<[1.0, 2.0, 3.0, 4.0]> : tensor<4xf32>) {addr_space = 0 : i32} : !llvm.array<4 x f32>
llvm.func internal @part0() -> f32 attributes {no_inline} {
  %p = llvm.mlir.addressof @w : !llvm.ptr
  %q = llvm.getelementptr %p[0, 1] : (!llvm.ptr) -> !llvm.ptr, !llvm.array<4 x f32>
  %a = llvm.load %p : !llvm.ptr -> f32
  %b = llvm.load %q : !llvm.ptr -> f32
  %s = llvm.fadd %a, %b : f32
  llvm.return %s : f32
}
llvm.func internal @part1() -> f32 attributes {no_inline} {
  %p = llvm.mlir.addressof @w : !llvm.ptr
  %q = llvm.getelementptr %p[0, 3] : (!llvm.ptr) -> !llvm.ptr, !llvm.array<4 x f32>
  %b = llvm.load %q : !llvm.ptr -> f32
  %s = llvm.fmul %b, %b : f32
  llvm.return %s : f32
}
llvm.func @total() -> f32 {
  %a = llvm.call @part0() : () -> f32
  %b = llvm.call @part1() : () -> f32
  %s = llvm.fadd %a, %b : f32
  llvm.return %s : f32
}
"""


def _defined(obj: str) -> set:
    out = subprocess.run(["nm", "--defined-only", obj], capture_output=True, text=True, check=True).stdout
    return {line.split()[-1] for line in out.splitlines() if line.split()[1] in "TtDdRrBb"}


@pytest.mark.skipif(shutil.which("nm") is None, reason="no nm")
def test_groups_define_each_symbol_once(tmp_path):
    with _ir.make_context(), ir.Location.unknown():
        module = ir.Module.parse(_LLVM)
        plan, reason = parallel.plan(module, 2, min_ops=0)
        assert plan is not None, reason
        assert sorted(sum(plan.groups, [])) == ["part0", "part1", "total", "w"]
        objects, reason = parallel.compile_objects(module, plan, [], str(tmp_path))
    assert objects is not None, reason
    defined = [_defined(o) & {"part0", "part1", "total", "w"} for o in objects]
    assert sorted(sum(map(sorted, defined), [])) == ["part0", "part1", "total", "w"]  # once each: w is not copied
    payload, reason = compiled_code.link_objects(objects, [])
    assert payload is not None, reason
    code = compiled_code.SharedObject(payload, [])
    assert ctypes.CFUNCTYPE(ctypes.c_float)(code.address("total"))() == 1.0 + 2.0 + 4.0 * 4.0


def test_jobs_from_the_environment(monkeypatch):
    usable = max(1, min(len(os.sched_getaffinity(0)), parallel.MAX_JOBS))
    monkeypatch.delenv(parallel.ENV_JOBS, raising=False)
    assert parallel.jobs() == usable  # unset: every usable CPU
    monkeypatch.setenv(parallel.ENV_JOBS, "auto")
    assert parallel.jobs() == usable
    monkeypatch.setenv(parallel.ENV_JOBS, "1")
    assert parallel.jobs() == 1
    monkeypatch.setenv(parallel.ENV_JOBS, "3")
    assert parallel.jobs() == 3
    assert parallel.jobs("no C compiler driver") == 1
    monkeypatch.setenv(parallel.ENV_JOBS, "many")
    with pytest.raises(ValueError, match="TOSA_CUSTOM_COMPILE_JOBS='many'"):
        parallel.jobs()


def test_small_module_not_planned():
    with _ir.make_context(), ir.Location.unknown():
        plan, reason = parallel.plan(ir.Module.parse(_LLVM), 2)
    assert plan is None and "under" in reason


@pytest.fixture(scope="module")
def model_text():
    """Three transformer blocks, GELU kept (a native kernel's call sites): an
    entry past split_functions' DEFAULT_PIECES_ABOVE before LLVM and past
    parallel.MIN_OPS after, with more ops than parallel.PRESTART_OPS (the
    workers start before the lowering)."""
    torch.manual_seed(0)
    model = torch.nn.Sequential(*(TransformerBlock() for _ in range(3))).eval()
    return str(tosa_custom.compile(model, example_inputs(), backend_legal_ops=["aten.gelu"]))


def _load(text: str, jobs: int, monkeypatch):
    monkeypatch.setenv(parallel.ENV_JOBS, str(jobs))
    return runtime.load(ir.Module.parse(text, _ir.make_context()))


@pytest.fixture(scope="module")
def serial(model_text):
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("TOSA_CUSTOM_CACHE", "0")
        program = _load(model_text, 1, mp)
    assert program.cache.compiled == "in this process"
    return program(*example_inputs_seeded())


def example_inputs_seeded():
    torch.manual_seed(1)
    return example_inputs()


def test_parallel_equals_serial(model_text, serial, monkeypatch):
    monkeypatch.setenv("TOSA_CUSTOM_CACHE", "0")
    program = _load(model_text, 2, monkeypatch)
    assert program.cache.compiled.startswith("in 2 processes"), program.cache.compiled
    assert any(k.startswith("native") for k in program.kernels)
    assert "tosa-custom-split-functions{pieces=2}" in program.pipeline
    assert torch.equal(program(*example_inputs_seeded()), serial)


_CHILD = textwrap.dedent("""
    import json, sys, torch
    from torch_mlir import ir
    from tosa_custom import runtime
    from tosa_custom.core import ir as _ir
    from tosa_custom.tools.example import example_inputs
    program = runtime.load(ir.Module.parse(open(sys.argv[1]).read(), _ir.make_context()))
    torch.manual_seed(1)
    torch.save(program(*example_inputs()), sys.argv[2])
    print(json.dumps([program.cache.status, program.cache.compiled]))
""")


def test_cached_for_a_fresh_process(model_text, serial, monkeypatch, tmp_path):
    monkeypatch.setenv("TOSA_CUSTOM_CACHE", "1")
    monkeypatch.setenv("TOSA_CUSTOM_CACHE_DIR", str(tmp_path / "cache"))
    program = _load(model_text, 2, monkeypatch)
    assert program.cache.status == "stored" and program.cache.compiled.startswith("in 2 processes")
    (tmp_path / "m.mlir").write_text(model_text)
    done = subprocess.run([sys.executable, "-c", _CHILD, str(tmp_path / "m.mlir"), str(tmp_path / "out.pt")],
                          capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr[-3000:]
    assert json.loads(done.stdout.strip().splitlines()[-1]) == ["hit", "cached"]
    assert torch.equal(torch.load(tmp_path / "out.pt"), serial)


@pytest.mark.parametrize("worker, timeout, reason", [
    ("import os; os.abort()", 600.0, "compile worker 1 failed (exit -6)"),
    ("import time; time.sleep(60)", 1.0, "compile worker 1 took more than 1 s"),
], ids=["crash", "hang"])
def test_failed_worker_falls_back(model_text, serial, monkeypatch, tmp_path, worker, timeout, reason):
    script = tmp_path / "worker.py"
    script.write_text(worker)
    monkeypatch.setattr(parallel, "_WORKER", str(script))
    monkeypatch.setattr(parallel, "_timeout", lambda total: timeout)
    monkeypatch.setenv("TOSA_CUSTOM_CACHE", "0")
    program = _load(model_text, 2, monkeypatch)
    assert program.cache.compiled.startswith("in this process: compiling in 2 processes"), program.cache.compiled
    assert reason in program.cache.compiled
    assert torch.equal(program(*example_inputs_seeded()), serial)


def test_workers_start_before_the_lowering(model_text, monkeypatch):
    from tosa_custom.runtime.execute import program as program_module

    events = []
    started, lower = parallel.Workers.__init__, program_module.lower

    def start(self, count):
        events.append(("workers", count))
        started(self, count)

    monkeypatch.setattr(parallel.Workers, "__init__", start)
    monkeypatch.setattr(program_module, "lower", lambda *a, **k: events.append("lower") or lower(*a, **k))
    monkeypatch.setenv("TOSA_CUSTOM_CACHE", "0")
    program = _load(model_text, 2, monkeypatch)
    assert events == [("workers", 1), "lower"]  # one worker: this process compiles a group itself
    assert program.cache.compiled.startswith("in 2 processes"), program.cache.compiled


def test_small_module_starts_no_worker(monkeypatch):
    monkeypatch.setattr(parallel.Workers, "__init__", lambda self, count: pytest.fail("a worker was started"))
    monkeypatch.setenv("TOSA_CUSTOM_CACHE", "0")
    torch.manual_seed(0)
    text = str(tosa_custom.compile(torch.nn.Linear(4, 3).eval(), (torch.randn(2, 4),)))
    assert _load(text, 2, monkeypatch).cache.compiled.startswith("in this process")


def test_a_worker_without_a_job_exits():
    workers = parallel.Workers(2)
    assert len(workers) == 2
    processes = [w for w, _ in workers._workers]
    workers.stop()  # their input ends
    assert [p.wait(timeout=60) for p in processes] == [0, 0]


def test_dynamic_entry_is_not_cut_and_starts_no_worker(monkeypatch):
    """A `?` size makes every piece take the sizes as arguments, which costs
    LLVM more than a second process saves: compiled in one, as eager computes."""
    monkeypatch.setattr(parallel.Workers, "__init__", lambda self, count: pytest.fail("a worker was started"))
    monkeypatch.setenv("TOSA_CUSTOM_CACHE", "0")
    torch.manual_seed(0)
    model = torch.nn.Sequential(*(TransformerBlock() for _ in range(3))).eval()
    seq = torch.export.Dim("seq", min=2, max=16)
    module = tosa_custom.compile(model, example_inputs(), backend_legal_ops=["aten.gelu"], dynamic_shapes=({1: seq},))
    program = _load(str(module), 2, monkeypatch)
    assert "pieces=" not in program.pipeline and program.cache.compiled.startswith("in this process")
    x = torch.randn(2, 5, 32)
    with torch.no_grad():
        assert_reduction_close(program(x), model(x), 4 * 32, depth=3)  # the blocks' MLPs over 4 x dim, 3 blocks
