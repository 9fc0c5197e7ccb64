"""A large program's LLVM code compiled in several processes at once
(issue 42).

LLVM compiles a module on one thread, and the Python binding holds the GIL
while it does, so only processes help. The lowering cut a large entry into
about K pieces (split_functions.py, `pieces=K`); here the lowered module's
functions go into K groups of about equal size (`plan`), each group is
compiled to an object file (compile_worker.py: the module parsed from
bytecode, what other groups define turned into declarations), group 0 by
the loading process and each other one by a worker process started while
the module was lowered (`Workers`), and the objects are linked with the
import stubs into one shared object (compiled_code.link_objects), which the
program loads as it loads a cached one; the cache stores it as it stores
serial code.

A symbol one group defines and another uses (a piece called from the
entry, a constant the pieces of two groups read) is given external linkage
and hidden visibility in the module before it is written, so it is defined
in one object and resolved there at link time, never duplicated (the
constants are the weights). A failed or hung worker (a timeout derived from
the module's size) fails the whole attempt with its reason, and the program
is compiled in the loading process alone, as a small one is.

`TOSA_CUSTOM_COMPILE_JOBS` sets K (unset, `0` or `auto`: the CPUs this
process may run on, at most MAX_JOBS; `1`: in the loading process). It was 1
by default while a piece cost LLVM more than the same ops inside the entry
(mobilenet_v3_small in two: 23.5 s against 14 s): every buffer of the entry
lived to its end, so each piece took ~170 of them as arguments. With each
freed after its last use and a piece allocating its own
(runtime/lower/early_frees.py, split_functions.py), its pieces take 5, and
two processes load it in 5.4-5.6 s against 7.3-7.5 s in one (resnet18
3.5-3.7 against 3.9-4.3 s), the code as fast (AVX-512 host, 2 cores).
"""

from __future__ import annotations

import dataclasses
import json
import os
import subprocess
import sys
import tempfile
import time
import weakref

from torch_mlir import ir

from ...core.ir import count_ops
from . import compile_worker as _worker


__all__ = ["ENV_JOBS", "MAX_JOBS", "MIN_OPS", "OPT_LEVEL", "PRESTART_OPS", "Plan", "Workers", "jobs",
           "likely_large", "plan", "compile_objects"]

OPT_LEVEL = 2
"""LLVM's optimisation level for the compiled code, in the loading process
and in the workers alike (MLIR's ExecutionEngine default). Against -O3,
measured in fresh processes (AVX-512 host, 1x3x64x64, one thread), the load
took 8.4 s instead of 10.4 for mobilenet_v3_small, 4.5 instead of 5.2 for
resnet18 and 20.1 instead of 23.0 for efficientnet_b0, and the code ran as
fast (1.69 / 5.94 / 8.63 ms against 1.70 / 5.83 / 8.52); -O1 ran
efficientnet_b0 8% slower for no shorter load."""

ENV_JOBS = "TOSA_CUSTOM_COMPILE_JOBS"
MAX_JOBS = 4
MIN_OPS = 6000
"""LLVM-dialect ops (after the lowering's last canonicalization) below which
a module is compiled in-process. The loading process compiles one group and
its workers, started while it lowered (`Workers`), the others; what is left
to pay is a parse of the module per worker and the link, ~0.05 s for 10k ops.
Measured on an AVX-512 host (2 cores, 4 alternated rounds, load with the
cache storing): the example block (3.2k ops) 0.35-0.41 s in two against
0.33-0.37 in one; a 2-layer BERT (11.8k) 0.90-0.99 s against 1.07-1.14.
(Before the canonicalization and the early start, two processes paid back
from ~60k of its ops, ~15k of today's.)"""
PRESTART_OPS = 150
"""Ops of a module before its lowering from which the workers are started
as the lowering begins. Measured, its LLVM ops were 25-55 per op (the
example block 126 -> 3.2k, a 2-layer BERT 324 -> 11.8k, resnet18 384 ->
12.2k, mobilenet_v3_small 866 -> 47.5k): from 150, a module near MIN_OPS or
past it; a worker started for one that stays under costs ~0.2 s of another CPU."""
_WORKER = os.path.join(os.path.dirname(os.path.abspath(__file__)), "compile_worker.py")
_SYMBOLS = ("llvm.func", "llvm.mlir.global")
# Where an op names another symbol.
_REFERENCES = {"llvm.call": "callee", "llvm.mlir.addressof": "global_name"}


def jobs(supported: str = "") -> int:
    """How many processes compile a large program: $TOSA_CUSTOM_COMPILE_JOBS
    (unset, 0 or `auto`: the usable CPUs, at most MAX_JOBS); 1 when object
    code cannot be linked here (`supported`: compiled_code's reason, or "")."""
    text = os.environ.get(ENV_JOBS, "").strip().lower()
    if supported:
        return 1
    if text not in ("", "0", "auto"):
        try:
            return max(1, int(text))
        except ValueError:
            raise ValueError(f"{ENV_JOBS}={text!r}: expected a number of processes, or auto") from None
    usable = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else (os.cpu_count() or 1)
    return max(1, min(usable, MAX_JOBS))


@dataclasses.dataclass
class Plan:
    """The groups of symbols each worker defines, and their sizes (ops)."""

    groups: list[list[str]]
    sizes: list[int]
    total: int

    def describe(self) -> str:
        return f"{len(self.groups)} processes ({'+'.join(str(s) for s in self.sizes)} of {self.total} LLVM ops)"


def _size(fn) -> int:
    """The ops of an LLVM function, by its blocks' lengths, without a Python
    object per op (count_ops took 30 ms for BERT's 45k): the LLVM dialect
    nests no region in a function's body."""
    return sum(len(block.operations) for block in fn.regions[0].blocks)


def _name(op) -> str:
    return ir.StringAttr(op.attributes["sym_name"]).value


def _references(fn) -> set:
    """The symbols a function's ops name."""
    found = set()

    def visit(op):
        attr = _REFERENCES.get(op.name)
        if attr is not None and attr in op.attributes:
            found.add(ir.FlatSymbolRefAttr(op.attributes[attr]).value)
        return ir.WalkResult.ADVANCE

    fn.walk(visit)
    return found


def likely_large(module: ir.Module) -> bool:
    """Whether `module`, not yet lowered, is likely to be compiled in several processes."""
    return count_ops(module, limit=PRESTART_OPS) > PRESTART_OPS


def _balance(functions: list, k: int) -> tuple[list[list], list[int]]:
    """Functions (name, op, size) into k groups, largest first into the
    lightest group."""
    groups, sizes = [[] for _ in range(k)], [0] * k
    for f in sorted(functions, key=lambda f: -f[2]):
        i = sizes.index(min(sizes))
        groups[i].append(f)
        sizes[i] += f[2]
    return groups, sizes


def plan(module: ir.Module, k: int, min_ops: int | None = None) -> tuple[Plan | None, str]:
    """The groups to compile apart, or None and why not. Symbols used across
    groups become external and hidden in `module` (defined once)."""
    min_ops = MIN_OPS if min_ops is None else min_ops
    ops = [op.operation for op in module.body.operations]
    functions = [(_name(op), op, _size(op)) for op in ops
                 if op.name == "llvm.func" and len(op.regions[0].blocks)]
    total = sum(f[2] for f in functions)
    if total < min_ops:
        return None, f"{total} LLVM ops, under {min_ops}"
    groups, sizes = _balance(functions, min(k, len(functions)))
    if max(sizes) > 0.75 * total:
        return None, f"one function holds {max(sizes)} of the {total} LLVM ops (not cut into pieces)"
    owner = {f[0]: i for i, group in enumerate(groups) for f in group}
    users: dict[str, set] = {}
    for i, group in enumerate(groups):
        for f in group:
            for name in _references(f[1]):
                users.setdefault(name, set()).add(i)
    for op in ops:
        if op.name == "llvm.mlir.global" and _name(op) not in owner:
            owner[_name(op)] = min(users.get(_name(op), {0}))
    shared = {name for name, used in users.items() if name in owner and used - {owner[name]}}
    for op in ops:
        if op.name in _SYMBOLS and _name(op) in shared:
            op.attributes["linkage"] = ir.Attribute.parse("#llvm.linkage<external>")
            op.attributes["visibility_"] = ir.IntegerAttr.get(ir.IntegerType.get_signless(64), 1)
    names = [[name for name, i in owner.items() if i == g] for g in range(len(groups))]
    return Plan(names, sizes, total), ""


def _timeout(total: int) -> float:
    """Seconds a worker may take: generous (a loaded host), bounded."""
    return max(300.0, total * 0.005)


class Workers:
    """Worker processes (`compile_worker.py --serve`) started before their
    jobs are known, so that a process's start and torch-mlir's import (~0.2 s)
    overlap the lowering instead of the LLVM time. One never given a job
    exits at the end of its input (`stop`, or this process's end)."""

    def __init__(self, count: int):
        self._workers: list[tuple[subprocess.Popen, object]] = []
        for _ in range(count):
            err = tempfile.TemporaryFile()  # a file: a full pipe would block a worker not yet waited for
            try:
                worker = subprocess.Popen([sys.executable, _WORKER, "--serve"], stdin=subprocess.PIPE,
                                          stdout=subprocess.DEVNULL, stderr=err)
            except OSError:
                err.close()
                break  # fewer workers: compile_objects says so
            self._workers.append((worker, err))
        self._finalizer = weakref.finalize(self, _stop, self._workers)

    def __len__(self) -> int:
        return len(self._workers)

    def give(self, i: int, argv: list[str]) -> None:
        """Worker `i`'s one job: compile_worker's four arguments."""
        worker = self._workers[i][0]
        try:
            worker.stdin.write((json.dumps(argv) + "\n").encode())
            worker.stdin.close()
        except OSError:  # it has exited already: `wait` says how
            pass

    def wait(self, i: int, timeout: float) -> tuple[int | None, str]:
        """Worker `i`'s exit status (None: still running after `timeout` s)
        and the end of what it wrote to stderr."""
        worker, err = self._workers[i]
        try:
            worker.wait(timeout=max(timeout, 0.1))
        except subprocess.TimeoutExpired:
            return None, ""
        err.seek(0)
        return worker.returncode, err.read().decode(errors="replace").strip()[-2000:]

    def stop(self) -> None:
        self._finalizer()


def _stop(workers: list) -> None:
    """Workers without a job: their input ends (they exit). Those still compiling: killed."""
    for worker, err in workers:
        if not worker.stdin.closed:
            try:
                worker.stdin.close()
            except OSError:
                pass
        elif worker.poll() is None:
            worker.kill()
            worker.wait()
        err.close()


def compile_objects(module: ir.Module, the_plan: Plan, import_names: list[str], directory: str,
                    workers: Workers | None = None) -> tuple[list[str] | None, str]:
    """Each group's object file in `directory`: group 0 compiled in this
    process, each other one by a worker process (`workers`, started while
    the module was lowered, or now) at the same time; or None and why not
    (every worker stopped)."""
    path, plan_path = os.path.join(directory, "module.mlirbc"), os.path.join(directory, "plan.json")
    with open(path, "wb") as f:
        module.operation.write_bytecode(f)
    with open(plan_path, "w") as f:
        json.dump({"groups": the_plan.groups, "imports": import_names, "opt_level": OPT_LEVEL}, f)
    objects = [os.path.join(directory, f"group{i}.o") for i in range(len(the_plan.groups))]
    workers = workers if workers is not None else Workers(len(objects) - 1)
    try:
        if len(workers) < len(objects) - 1:
            return None, f"starting a compile worker failed ({len(workers)} of {len(objects) - 1} started)"
        for i in range(1, len(objects)):
            workers.give(i - 1, [path, plan_path, str(i), objects[i]])
        try:
            _worker.compile_file(path, plan_path, 0, objects[0])
        except Exception as e:  # what the in-process compile will say again, or not
            return None, f"compiling group 0 in this process failed: {e}"
        deadline = time.monotonic() + _timeout(the_plan.total)
        for i in range(1, len(objects)):
            status, message = workers.wait(i - 1, deadline - time.monotonic())
            if status is None:
                return None, f"compile worker {i} took more than {_timeout(the_plan.total):.0f} s"
            if status != 0:
                return None, f"compile worker {i} failed (exit {status}): {message}"
    finally:
        workers.stop()
    return objects, ""
