"""IREE with our native kernels against IREE on stock TOSA, the reference
runtime and eager PyTorch, at 1 and 2 threads, in one run.

Models: the example block (tosa_custom.tools.example, hidden 256, batch 4 x
64 tokens) and a 4-layer BERT from `transformers` built offline from a
random config (hidden 256, 4 heads, intermediate 1024, batch 2 x 128),
layer_norm, softmax and gelu kept as tosa.custom for the first and the
third engines, and compiled in stock mode for IREE stock.

  iree+kernels  tosa_custom.iree.load(threads=n): IREE's code for the TOSA,
                our native kernels for the kept ops, in IREE dispatches;
  iree stock    the stock-mode TOSA compiled by IREE alone, same device;
  reference     tosa_custom.runtime.load (single-threaded: one row);
  eager         PyTorch with torch.set_num_threads(n).

Each engine runs in a process of its own. Each time is from 60 calls,
eager's, ours and stock's taken in turns (25 of each, the first 5 not
counted, 3 times: they share the host's load as it drifts; `_interleaved`
says why so): the tenth-percentile and the median wall time, and the
median of the process's CPU time per call
(all threads; on a shared machine the wall time at 2 threads depends on
what else runs, the CPU time much less, and the tenth percentile is the
calls that ran while the other work paused). The
"busy" column counts the threads that used CPU during eager's and our
measured calls: it shows that eager and IREE do run on n threads (IREE's
workers, the caller waiting). The load average is printed before and after.
Goals (reported, not enforced): iree+kernels within 1.1x of iree stock at
the same thread count, and faster than eager at 2 threads.

What the 2-thread rows depend on (measured on a 2-core host): IREE runs n
workers (`--task_topology_group_count=n`, unpinned; pinned workers,
`--task_topology_max_group_count`, measured slower) and the caller, which
IREE 3.13 cannot make a worker. IREE's own wait, once woken, spins until
the signalling worker's callback returns, and woken on that worker's core
it preempts it: 1.1-1.6 ms of the caller's CPU per ~4.5 ms call of the
example block, taken from the two workers. So both engines here run
async-external functions and the caller polls the call's semaphore,
sleeping (`--wait poll`, tosa_custom.iree.load's default: 0.2-0.4 ms of
caller CPU); `--wait iree` runs both with IREE's wait instead. Workers that
spin for more work (`--task_worker_spin_us`) measured far slower on a
shared host (median 10.6 ms against 4.9): left at IREE's 0. A core taken
by another process leaves both workers one core (CPU time = wall time);
eager's OpenMP team then slows down far more (a waiting barrier).

One submission per call: 22 dispatches for the block, stock IREE 21 (data tiling packs a matmul operand in the producing
dispatch, which for a native kernel's result is a dispatch of its own: an
`_encoding_*` dispatch, ~45 us of the block's ~4.3 ms at 1 thread). Exit code 0
unless an answer differs from eager by more than 1e-3. Usage:
`python benchmarks/iree.py [--model block|bert] [--wait poll|iree]`;
`python benchmarks/iree.py --dispatches [--model bert|all]` prints instead
what our Python wrapper costs per call (a trivial program) and where a
model's time goes (the example block's by default), dispatch by dispatch,
ours and IREE stock at 1 and 2 threads (IREE's profiler, through
iree-benchmark-module: no Python in the call; a kept op of ours is a
dispatch per call site, IREE's own repeat one executable per layer).
"""

from __future__ import annotations

import argparse
import collections
import json
import os
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import warnings
from pathlib import Path

os.environ["HF_HUB_OFFLINE"] = "1"
os.environ["TRANSFORMERS_OFFLINE"] = "1"
# This file is called iree.py: its folder, first on sys.path, would shadow IREE's own package.
_HERE = os.path.dirname(os.path.abspath(__file__))
sys.path[:] = [p for p in sys.path if os.path.abspath(p or ".") != _HERE]

import numpy as np
import torch

import tosa_custom
from tosa_custom import iree, runtime
from tosa_custom.iree.program import WAITS
from tosa_custom.tools.example import KEPT_OPS, TransformerBlock

# `iree` is a namespace package: even last on sys.path, this folder's iree.py
# would hide it, so the shared models are imported from the folder and it is dropped again.
sys.path.append(_HERE)
from _models import bert  # noqa: E402
sys.path.remove(_HERE)

KEPT = ["aten.layer_norm", "aten.softmax.int", "aten.gelu"]


def _thread_ticks() -> dict[str, int]:
    """CPU ticks used so far by each thread of this process (Linux)."""
    ticks = {}
    for tid in os.listdir("/proc/self/task"):
        try:
            with open(f"/proc/self/task/{tid}/stat") as f:
                fields = f.read().rsplit(")", 1)[1].split()
        except OSError:
            continue
        ticks[tid] = int(fields[11]) + int(fields[12])  # utime + stime
    return ticks


def _caller_cpu() -> float:
    """CPU seconds the calling thread has used (Linux schedstat: ns)."""
    with open(f"/proc/self/task/{threading.get_native_id()}/schedstat") as f:
        return int(f.read().split()[0]) * 1e-9


def _turn(fn, calls: int) -> dict:
    """`calls` calls of `fn`: each one's wall and process CPU seconds, the
    threads of this process that used CPU meanwhile, and the calling
    thread's CPU seconds."""
    before, own = _thread_ticks(), _caller_cpu()
    walls, cpus = [], []
    for _ in range(calls):
        start, cpu = time.perf_counter(), time.process_time()
        fn()
        walls.append(time.perf_counter() - start)
        cpus.append(time.process_time() - cpu)
    busy = [tid for tid, t in _thread_ticks().items() if t - before.get(tid, 0) > 0]
    return {"walls": walls, "cpus": cpus, "busy": busy, "caller": _caller_cpu() - own}


def _median(fn, runs: int = 30, warmup: int = 5) -> tuple[float, float, int, float, float]:
    """Median wall and CPU seconds per call, how many threads worked, the
    tenth-percentile wall time (the calls least slowed by other work), and
    the calling thread's mean CPU seconds per call."""
    return _interleaved({"": lambda n: _turn(fn, n)}, rounds=1, per_round=runs, warmup=warmup, settle=0)[""]


def _interleaved(turns: dict, rounds: int = 3, per_round: int = 20, warmup: int = 5, settle: float = 0.2) -> dict:
    """`_median` of each engine (`turns`: name -> a turn of n calls, as
    `_turn`), their calls taken in turns (`per_round` of each after
    `warmup` uncounted ones, `rounds` times): on a shared host the others'
    load drifts over a run, and measured one after the other, one engine
    would get the quiet minute and the other the busy one; in turns they
    share it. A pause after each turn: eager's OpenMP team (libgomp) spins
    for a while after a call returns.

    The engines the comparison runs are each in a process of their own
    (`_Remote`), as a deployed program is: in one process, eager's team and
    IREE's workers took each other's cores (the example block at 2 threads,
    ours: 3.9 ms median in one process with eager, 2.5 ms alone). The first
    calls after a pause are slow on these virtual machines (an idle vCPU
    sleeps, and IREE's workers wake each other at every dispatch): ours at
    2 threads, 4.2-4.6 ms for each of 5 calls after a 0.2 s pause against
    2.5 ms back to back; so each turn's first `warmup` calls are not
    counted."""
    walls = {k: [] for k in turns}
    cpus = {k: [] for k in turns}
    busy = {k: set() for k in turns}
    caller = dict.fromkeys(turns, 0.0)  # over every call, the uncounted ones too
    for _ in range(rounds):
        for k, turn in turns.items():
            t = turn(warmup + per_round)
            walls[k] += t["walls"][warmup:]
            cpus[k] += t["cpus"][warmup:]
            busy[k] |= set(t["busy"])
            caller[k] += t["caller"]
            time.sleep(settle)
    return {k: (statistics.median(walls[k]), statistics.median(cpus[k]), len(busy[k]),
                sorted(walls[k])[len(walls[k]) // 10], caller[k] / (rounds * (warmup + per_round))) for k in turns}


def _bert():
    model, inputs = bert(layers=4, hidden=256, heads=4, intermediate=1024, seq=128)
    return model, inputs, KEPT


def _block():
    torch.manual_seed(0)
    return TransformerBlock(dim=256, heads=4).eval(), (torch.randn(4, 64, 256),), KEPT_OPS


def _compile(model, args, ops):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return tosa_custom.compile(model, args, backend_legal_ops=ops)


class _Stock:
    """The stock-mode TOSA run by IREE alone, on the device iree.load makes,
    called and waited for as iree.load's programs are (the same Marshal
    and wait: only the compiled module differs)."""

    def __init__(self, model, args, threads, wait):
        import iree.runtime as rt
        from iree.runtime import _binding

        from tosa_custom.iree.calls import DeviceWeights, Marshal, PolledWait
        from tosa_custom.iree.program import compile_to_vmfb, make_device, wait_flags

        module = _compile(model, args, None)
        vmfb = compile_to_vmfb(module.operation.get_asm(print_generic_op_form=True), wait_flags(wait))
        device = make_device(threads)
        config = rt.Config(device=device)
        self.context = rt.SystemContext(config=config)
        self.context.add_vm_module(rt.VmModule.copy_buffer(config.vm_instance, vmfb))
        function = self.context.modules.module["forward"].vm_function
        self.marshal = Marshal(rt, _binding, device, self.context.vm_context, function, 1,
                               PolledWait() if wait == "poll" else None)
        self.weights = DeviceWeights(self.marshal, len(args), 0)
        self.args = [a.numpy() for a in args]

    def __call__(self):
        return self.marshal.invoke(self.args, self.weights, None)[0]


def _engine(engine: str, model_key: str, threads: int, wait: str):
    """One engine's call of one model at `threads`, and its largest
    difference from eager (computed here, on the same model)."""
    torch.set_num_threads(threads)
    model, args, ops = MODELS[model_key][1]()
    with torch.no_grad():
        expected = model(*args)
    if engine == "eager":
        def fn():
            with torch.no_grad():
                return model(*args)
    elif engine == "ours":
        program = iree.load(_compile(model, args, ops), threads=threads, wait=wait)
        fn = lambda: program(*args)  # noqa: E731
    elif engine == "stock":
        fn = _Stock(model, args, threads, wait)
        return fn, float(np.abs(fn() - expected.numpy()).max())
    else:
        reference = runtime.load(_compile(model, args, ops))
        fn = lambda: reference(*args)  # noqa: E731
    return fn, float((fn() - expected).abs().max())


def serve(engine: str, model_key: str, threads: int, wait: str) -> None:
    """`--serve`: build one engine, then per line of stdin (a count) run that
    many calls and print their times as a JSON line."""
    fn, error = _engine(engine, model_key, threads, wait)
    print(json.dumps({"error": error}), flush=True)
    for line in sys.stdin:
        print(json.dumps(_turn(fn, int(line))), flush=True)


class _Remote:
    """An engine served by a process of its own (`serve`)."""

    def __init__(self, engine: str, model_key: str, threads: int, wait: str):
        self.process = subprocess.Popen([sys.executable, os.path.abspath(__file__), "--serve", engine, model_key,
                                         str(threads), wait], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                        text=True)
        self.error = json.loads(self._line())["error"]

    def _line(self) -> str:
        line = self.process.stdout.readline()
        if not line:
            raise RuntimeError(f"the engine's process failed (exit {self.process.wait()})")
        return line

    def turn(self, calls: int) -> dict:
        self.process.stdin.write(f"{calls}\n")
        self.process.stdin.flush()
        return json.loads(self._line())

    def close(self) -> None:
        self.process.stdin.close()
        self.process.wait()


def _rows(name, model_key, wait) -> tuple[list, bool]:
    reference = _Remote("reference", model_key, 1, wait)
    t_ref = _interleaved({"reference": reference.turn}, rounds=1, per_round=60)["reference"]
    reference.close()
    rows, failed = [], False
    for threads in (1, 2):
        remotes = {k: _Remote(k, model_key, threads, wait) for k in ("eager", "ours", "stock")}
        try:
            t = _interleaved({k: r.turn for k, r in remotes.items()})
        finally:
            for r in remotes.values():
                r.close()
        error = remotes["ours"].error
        failed |= error > 1e-3 or remotes["stock"].error > 1e-3
        rows.append((name, threads, t["ours"], t["stock"], t_ref, t["eager"], error))
    return rows, failed


def _ms(t) -> str:
    return f"{t[3] * 1e3:.2f}/{t[0] * 1e3:.2f}/{t[1] * 1e3:.2f}"


# --- Where the time goes: each dispatch's own time (--dispatches) ---------

def _tool(name: str) -> str:
    tool = Path(sys.executable).with_name(name)
    return str(tool) if tool.exists() else name


def _dispatch_times(command: list[str], env: dict, profile: Path, runs: int) -> tuple[dict, float]:
    """Median host time of each dispatch per call (us), in first-run order,
    and the median wall time of a call (us): IREE's own profiler
    (`--device_profiling_mode=host-execution`, read back by iree-profile)."""
    bench = [_tool("iree-benchmark-module"), *command[1:], "--device_profiling_mode=host-execution",
             f"--device_profiling_output={profile}", f"--benchmark_min_time={runs}x"]
    subprocess.run(bench, env={**os.environ, **env}, check=True, capture_output=True)
    out = subprocess.run([_tool("iree-profile"), "dispatch", "--format=jsonl", "--dispatch_events", str(profile)],
                         check=True, capture_output=True, text=True).stdout
    events, calls = collections.defaultdict(list), collections.defaultdict(list)
    for line in out.splitlines():
        e = json.loads(line)
        if e["type"] == "host_dispatch_event":
            events[e["key"]].append(e["duration_ns"] / 1e3)
            calls[e["submission_id"]].append((e["start_host_time_ns"], e["end_host_time_ns"]))
    n = len(calls)
    spans = [(max(b for _, b in c) - min(a for a, _ in c)) / 1e3 for c in calls.values()]
    return {k: statistics.median(v) * (len(v) // n) for k, v in events.items()}, statistics.median(spans)


def _kind(key: str) -> str:
    """IREE names a dispatch after its main op; ours (a ukernel call) get none."""
    name = key.split("_dispatch_", 1)[-1]
    if "_" not in name:
        return "native kernel" if key.startswith("_") else "other"
    for kind in ("matmul", "softmax", "reduction", "elementwise", "transpose", "memcpy", "encode"):
        if kind in key:
            return kind
    return "other"


def _print_split(name: str, times: dict, span: float) -> None:
    total = sum(times.values())
    print(f"{name}: {len(times)} dispatches, sum {total:.0f} us, call span {span:.0f} us (the rest: gaps between "
          "dispatches)")
    by_kind = collections.Counter()
    for key, t in times.items():
        by_kind[_kind(key)] += t
        print(f"  {t:8.1f} us  {key}")
    print("  by kind: " + ", ".join(f"{k} {t:.0f} us ({t / total:.0%})" for k, t in by_kind.most_common()))


def dispatches(name: str, make, threads: int, runs: int = 30) -> None:
    """A model's per-dispatch split, ours and IREE stock, through
    iree-benchmark-module (no Python in the call)."""
    model, args, ops = make()
    with tempfile.TemporaryDirectory(prefix="iree_split_") as tmp:
        tmp = Path(tmp)
        saved = iree.save(_compile(model, args, ops), tmp / "ours", inputs=list(args), threads=threads)
        ours = _dispatch_times(list(saved.command), saved.environment, tmp / "ours.ireeprof", runs)
        from tosa_custom.iree.program import compile_to_vmfb

        (tmp / "stock.vmfb").write_bytes(compile_to_vmfb(
            _compile(model, args, None).operation.get_asm(print_generic_op_form=True)))
        command = [c if not c.startswith("--module=") else f"--module={tmp / 'stock.vmfb'}" for c in saved.command
                   if not c.startswith("--executable_plugin=")]
        stock = _dispatch_times(command, {}, tmp / "stock.ireeprof", runs)
    print(f"{name}, {threads} thread(s), median of {runs} calls per dispatch (IREE's host-execution profile)")
    _print_split("iree+kernels", *ours)
    _print_split("iree stock", *stock)


class _Norm(torch.nn.Module):
    def forward(self, x):
        return torch.nn.functional.layer_norm(x, (x.shape[-1],))


def wrapper(runs: int = 2000) -> None:
    """What a call costs around IREE's own invocation, on a trivial program
    (one layer_norm of 4 x 8, 1 thread): `program(x)` against the VM call
    with its buffer views already made."""
    x = torch.randn(4, 8)
    polled = iree.load(_compile(_Norm(), (x,), ["aten.layer_norm"]), threads=1)
    program = iree.load(_compile(_Norm(), (x,), ["aten.layer_norm"]), threads=1, wait="iree")
    marshal, array = program._marshal, x.numpy()
    args = marshal._binding.VmVariantList(2)
    args.push_ref(marshal.view(array).ref)
    args.push_int(0)

    def bare():
        marshal._context.invoke(marshal._function, args, marshal._binding.VmVariantList(1))

    for name, fn in (("program(x), wait='poll'", lambda: polled(x)), ("program(x), wait='iree'", lambda: program(x)),
                     ("VM invoke alone (wait='iree')", bare)):
        t = _median(fn, runs=runs, warmup=200)
        print(f"trivial program, {name}: {t[3] * 1e6:.1f} us p10, {t[0] * 1e6:.1f} us median")


MODELS = {"block": ("example block", _block), "bert": ("BERT 4x256", _bert)}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--dispatches", action="store_true", help="where the time goes, dispatch by dispatch")
    parser.add_argument("--model", choices=[*MODELS, "all"], default=None,
                        help="the models to run (default: all; block only with --dispatches)")
    parser.add_argument("--wait", choices=list(WAITS), default="poll",
                        help="how the caller waits, ours and stock alike (tosa_custom.iree.load's wait=)")
    parser.add_argument("--serve", nargs=4, metavar=("ENGINE", "MODEL", "THREADS", "WAIT"),
                        help="(internal) serve one engine's calls to the run that started this process")
    options = parser.parse_args()
    if options.serve:
        engine, model_key, threads, wait = options.serve
        serve(engine, model_key, int(threads), wait)
        return 0
    models = list(MODELS) if options.model in (None, "all") else [options.model]
    if options.dispatches:
        wrapper()
        for model in (["block"] if options.model is None else models):
            for threads in (1, 2):
                dispatches(*MODELS[model], threads)
        return 0
    print(f"load average before: {' '.join(f'{x:.2f}' for x in os.getloadavg())} on {os.cpu_count()} CPUs; "
          f"wait={options.wait!r}")
    rows, failed = [], False
    for key in models:
        more, bad = _rows(MODELS[key][0], key, options.wait)
        rows += more
        failed |= bad
    print("times in ms per call of 60, wall p10/wall median/cpu median; busy: threads that worked (eager, ours); "
          "caller: the calling thread's CPU ms per call (ours, stock); ratios of median wall (p10 wall)")
    print(f"{'model':<14} {'thr':>3} {'iree+kernels':>17} {'iree stock':>17} {'reference':>17} {'eager':>17} "
          f"{'busy':>5} {'caller':>9} {'ours/stock':>11} {'ours/eager':>11} {'max err':>8}")
    for name, threads, ours, stock, ref, eager, error in rows:
        print(f"{name:<14} {threads:>3} {_ms(ours):>17} {_ms(stock):>17} {_ms(ref):>17} {_ms(eager):>17} "
              f"{eager[2]:>2},{ours[2]:<2} {ours[4] * 1e3:>4.2f},{stock[4] * 1e3:<4.2f} "
              f"{ours[0] / stock[0]:>4.2f} ({ours[3] / stock[3]:.2f}) "
              f"{ours[0] / eager[0]:>4.2f} ({ours[3] / eager[3]:.2f}) {error:>8.1e}")
    print(f"load average after: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
