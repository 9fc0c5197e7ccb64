"""How fast the reference runtime runs, next to eager PyTorch, in one run.

Everything is measured in this process, side by side, with
`torch.set_num_threads(1)` (the compiled code is single-threaded):

  (a) call overhead - a module whose only op is one `tosa.custom` on a [4]
      tensor, its kernel a no-op, against eager PyTorch dispatching the same
      tiny op (`torch.ops.aten.gelu(x)`, and `torch.neg(x)` as the cheapest
      op there is). The custom call's own cost is the program's time minus
      that of a program of the same shape with no custom op (entry overhead:
      input checks, result allocation, the jump into compiled code).
  (b) a BERT-like encoder block (`tosa_custom.tools.example.TransformerBlock`,
      pre-norm attention + GELU MLP, hidden 256, 4 heads, batch 8 x seq 64)
      against eager PyTorch: with no op kept (everything compiled), with
      layer_norm / softmax / gelu kept as custom ops, and, on a block built on
      `scaled_dot_product_attention`, with layer_norm / gelu / attention kept;
      and, no op kept, at hidden 512 / 8 heads / batch 4 x seq 128.
      Kept ops run twice: by the built-in reference kernels (numpy, float64:
      accuracy first) and by the generic eager-torch kernel, which isolates
      the runtime's own cost from the kernels' speed.
  (c) the same block lowered naively (every linalg op as scalar loops, the
      runtime before tiling and vectorization): the floor.
  (e) per CPU plan (cpu.py): the example block (hidden 256 and 512) and a
      small conv net, planned for the host's ISA and for each ISA of
      `--cpus` (default host,avx2; a narrower ISA than the host's also keeps
      the JIT to it, so "avx2" on an AVX-512 host runs the code an AVX2 host
      runs), each with GFLOP/s (FLOPs counted by torch's FlopCounterMode on
      the eager model) and the fraction of that ISA's FP32 peak. The peak is
      measured: a JIT'd loop of 12 independent FMA chains on full vectors
      (mul + add chains without FMA), under the same target features; the
      header also gives FMA pipes x lanes x 2 x the clock /proc/cpuinfo
      reports (a VM's is often the nominal one, below the boost clock the
      measured peak reflects).
  (f) torchvision's resnet18 (3x3 convolutions, 64-512 channels on small
      maps), convnext_tiny (7x7 depthwise convolutions, channels-last
      layer_norm) and deeplabv3_mobilenet_v3_large (1x1, depthwise and
      dilated convolutions): random weights (tosa_custom.e2e.vision), 1x3x64x64,
      stock mode, one program per plan of `--cpus`, against eager, in GFLOP/s
      and the fraction of each plan's measured peak as in (e). Left out of
      --quick (each model compiles for a minute or more).
  (d) native kernels (C ABI, CONTRACT.md §11): the cost of one native kernel
      call from the compiled code (a chain of 64 no-op kernels from a kernel
      library built from test/native/fixture_kernels.c, against a chain of 1),
      against a Python kernel call and eager PyTorch dispatch; the built-in
      native gelu on a [4] tensor; and the block of (b) with layer_norm /
      softmax / gelu native (the default) against the same ops in Python.

Timing: candidates are interleaved (a batch of calls each, in turn, for
several rounds) so that load from other processes hits them alike; the table
gives the best and the median of the per-call round means. The load average is
printed before and after. Targets (reported, not enforced): a custom call costs
no more than an eager op dispatch; the block within 1.5x of eager PyTorch.
Native target: a native call under 1 us (eager dispatch cannot get there).
Exit code 0 unless a result is wrong. Usage:

    python benchmarks/runtime.py [--rounds N] [--quick] [--cpus host,avx2,sse]
                                 [--only-cpus | --only-vision] [--vision resnet18,convnext_tiny]
"""

from __future__ import annotations

import argparse
import contextlib
import ctypes
import os
import platform
import statistics
import sys
import tempfile
import time
import warnings
from pathlib import Path

import torch

import tosa_custom
from tosa_custom import runtime
from tosa_custom.tools.example import KEPT_OPS, TransformerBlock
from tosa_custom.runtime.kernels import registry as kernels, native
from tosa_custom.runtime.compiled.cpu import CpuTarget, cpu_target

DIM, HEADS, BATCH, SEQ = 256, 4, 8, 64


class SDPABlock(TransformerBlock):
    """The example block with attention by `scaled_dot_product_attention` (one op to keep)."""

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        b, t, d = x.shape
        h = self.heads
        q, k, v = self.qkv(self.norm1(x)).split(d, dim=-1)
        q, k, v = (y.reshape(b, t, h, d // h).transpose(1, 2) for y in (q, k, v))
        y = torch.nn.functional.scaled_dot_product_attention(q, k, v)
        x = x + self.proj(y.transpose(1, 2).reshape(b, t, d))
        return x + self.fc2(torch.nn.functional.gelu(self.fc1(self.norm2(x)), approximate="tanh"))


SDPA_KEPT = ["aten.layer_norm", "aten.gelu", "aten.scaled_dot_product_attention"]


@contextlib.contextmanager
def torch_kernels(ops: list[str]):
    """Run the kept ops by the generic eager-torch kernel instead of the built-in ones."""
    entries = kernels._KERNELS._entries
    kernels.registered_kernels()  # load the built-ins first
    saved = {}
    for op in ops:
        key = f"torch_mlir::torch.{op}"
        saved[key] = entries.get(key)
        entries[key] = kernels.torch_kernel
    try:
        yield
    finally:
        for key, value in saved.items():
            if value is None:
                entries.pop(key, None)
            else:
                entries[key] = value


def interleaved(candidates: dict[str, callable], rounds: int, budget: float) -> dict[str, tuple[float, float]]:
    """{name: (best, median)} seconds per call; each round runs every candidate ~budget/rounds seconds."""
    per_call = {}
    for name, fn in candidates.items():  # warm up, and size the batches
        fn()
        t = time.perf_counter()
        fn()
        per_call[name] = max(time.perf_counter() - t, 1e-7)
    batch = {name: max(1, int(budget / rounds / len(candidates) / c)) for name, c in per_call.items()}
    samples: dict[str, list[float]] = {name: [] for name in candidates}
    for _ in range(rounds):
        for name, fn in candidates.items():
            n = batch[name]
            t = time.perf_counter()
            for _ in range(n):
                fn()
            samples[name].append((time.perf_counter() - t) / n)
    return {name: (min(s), statistics.median(s)) for name, s in samples.items()}


def fmt(seconds: float) -> str:
    if seconds < 1e-3:
        return f"{seconds * 1e6:8.2f} us"
    return f"{seconds * 1e3:8.3f} ms"


def table(title: str, results: dict, baseline: str, notes: dict[str, str] | None = None) -> None:
    print(f"\n{title}")
    print(f"  {'':48s} {'best':>11s} {'median':>11s}   vs {baseline} (best, median)")
    base_best, base_median = results[baseline]
    for name, (best, median) in results.items():
        note = (notes or {}).get(name, "")
        print(f"  {name:48s} {fmt(best)} {fmt(median)}   {best / base_best:6.2f}x {median / base_median:6.2f}x  {note}")


def check(name: str, got: torch.Tensor, expected: torch.Tensor, rtol=1e-4, atol=1e-4) -> bool:
    err = (got - expected).abs().max().item()
    ok = torch.allclose(got, expected, rtol=rtol, atol=atol)
    print(f"  check {name}: max |difference| from eager {err:.2e} {'ok' if ok else 'WRONG'}")
    return ok


# ---------------------------------------------------------------------------
# (a) one custom call
# ---------------------------------------------------------------------------

NOOP = """
func.func @f(%a: tensor<4xf32>) -> tensor<4xf32> {
  %0 = tosa.custom %a {domain_name = "benchmark", implementation_attrs = "", operator_name = "noop"} : (tensor<4xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}"""
NO_CUSTOM = """
func.func @f(%a: tensor<4xf32>) -> tensor<4xf32> {
  %0 = tosa.abs %a : (tensor<4xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}"""
TWO_NOOPS = """
func.func @f(%a: tensor<4xf32>) -> tensor<4xf32> {
  %0 = tosa.custom %a {domain_name = "benchmark", implementation_attrs = "", operator_name = "noop"} : (tensor<4xf32>) -> tensor<4xf32>
  %1 = tosa.custom %0 {domain_name = "benchmark", implementation_attrs = "", operator_name = "noop"} : (tensor<4xf32>) -> tensor<4xf32>
  return %1 : tensor<4xf32>
}"""


def bench_call_overhead(rounds: int, budget: float) -> bool:
    @runtime.register_kernel("noop", domain_name="benchmark")
    def noop(call):  # the trivial kernel: the runtime's cost alone
        return None

    @runtime.register_kernel("torch.aten.gelu", domain_name="benchmark")
    def gelu_out(call):  # a kernel that does the op, writing the output in place
        torch.ops.aten.gelu.out(call.inputs[0], out=call.outputs[0])

    x = torch.randn(4)
    no_custom = runtime.load(NO_CUSTOM)
    one = runtime.load(NOOP)
    two = runtime.load(TWO_NOOPS)
    gelu = runtime.load(NOOP.replace('"noop"', '"torch.aten.gelu"'), native=False)

    class Gelu(torch.nn.Module):
        def forward(self, x):
            return torch.nn.functional.gelu(x)

    kept_gelu = runtime.load(tosa_custom.compile(Gelu(), (x,), backend_legal_ops=["aten.gelu"]), native=False)
    ok = check("custom gelu kernel", gelu(x), torch.nn.functional.gelu(x), 1e-6, 1e-6)
    ok &= check("kept aten.gelu (built-in kernel)", kept_gelu(x), torch.nn.functional.gelu(x), 1e-6, 1e-6)
    results = interleaved({
        "eager torch.ops.aten.gelu(x)": lambda: torch.ops.aten.gelu(x),
        "eager torch.neg(x)": lambda: torch.neg(x),
        "program, no custom op (tosa.abs)": lambda: no_custom(x),
        "program, 1 custom op (no-op kernel)": lambda: one(x),
        "program, 2 custom ops (no-op kernels)": lambda: two(x),
        "program, 1 custom gelu (torch gelu.out kernel)": lambda: gelu(x),
        "program, kept aten.gelu (built-in numpy kernel)": lambda: kept_gelu(x),
    }, rounds, budget)
    table("(a) one custom call on a [4] f32 tensor, against eager dispatch", results,
          "eager torch.ops.aten.gelu(x)")
    base = results["program, no custom op (tosa.abs)"]
    one_r, two_r = results["program, 1 custom op (no-op kernel)"], results["program, 2 custom ops (no-op kernels)"]
    eager = results["eager torch.ops.aten.gelu(x)"]
    neg = results["eager torch.neg(x)"]
    overhead = (one_r[0] - base[0], one_r[1] - base[1])
    marginal = (two_r[0] - one_r[0], two_r[1] - one_r[1])
    print(f"  custom call overhead (1 no-op - no custom op): best {fmt(overhead[0])}, median {fmt(overhead[1])}")
    print(f"  marginal custom call (2 no-ops - 1 no-op):     best {fmt(marginal[0])}, median {fmt(marginal[1])}")
    print(f"  whole-program call with one custom op vs eager aten.gelu dispatch: "
          f"{one_r[0] / eager[0]:.2f}x best, {one_r[1] / eager[1]:.2f}x median")
    print(f"  custom call overhead vs eager aten.gelu dispatch: {overhead[0] / eager[0]:.2f}x best, "
          f"{overhead[1] / eager[1]:.2f}x median; vs eager torch.neg: {overhead[0] / neg[0]:.2f}x best, "
          f"{overhead[1] / neg[1]:.2f}x median")
    target = overhead[1] <= eager[1]
    print(f"  target (custom call <= eager op dispatch, vs aten.gelu): {'met' if target else 'NOT met'}")
    return ok


# ---------------------------------------------------------------------------
# (b), (c) the encoder block
# ---------------------------------------------------------------------------


def _block_programs(block, sdpa, x, expected, expected_sdpa) -> tuple[dict, dict, bool]:
    """The block and its SDPA twin compiled with each choice of kept ops and kernels, checked against eager."""
    def load(model, kept, **kw):
        t = time.perf_counter()
        module = tosa_custom.compile(model, (x,), backend_legal_ops=kept)
        program = runtime.load(module, **kw)
        return program, time.perf_counter() - t

    programs, load_times, ok = {}, {}, True
    for name, model, kept, ref in [
        ("compiled, no op kept", block, None, expected),
        ("compiled, no op kept (SDPA block)", sdpa, None, expected_sdpa),
        ("kept layer_norm/softmax/gelu, native kernels", block, KEPT_OPS, expected),
        ("kept layer_norm/softmax/gelu, numpy kernels", block, KEPT_OPS, expected),
        ("kept layer_norm/gelu/attention, native+torch kernels", sdpa, SDPA_KEPT, expected_sdpa),
        ("kept layer_norm/gelu/attention, numpy+torch kernels", sdpa, SDPA_KEPT, expected_sdpa),
    ]:
        programs[name], load_times[name] = load(model, kept, native="native" in name)
        ok &= check(name, programs[name](x), ref)
    with torch_kernels(KEPT_OPS + SDPA_KEPT):
        for name, model, kept, ref in [
            ("kept layer_norm/softmax/gelu, torch kernels", block, KEPT_OPS, expected),
            ("kept layer_norm/gelu/attention, torch kernels", sdpa, SDPA_KEPT, expected_sdpa),
        ]:
            programs[name], load_times[name] = load(model, kept, native=False)
            ok &= check(name, programs[name](x), ref)
    native_ops = programs["kept layer_norm/softmax/gelu, native kernels"].kernels
    if not all(k.startswith("native") for k in native_ops):
        print(f"  WRONG: the native block runs {native_ops}")
        ok = False
    return programs, load_times, ok


def _print_block_ratios(results: dict) -> None:
    eager = results["eager PyTorch (1 thread)"]
    stock = results["compiled, no op kept"]
    ratio = (stock[0] / eager[0], stock[1] / eager[1])
    print(f"  target (block within 1.5x of eager, no op kept): {ratio[0]:.2f}x best, {ratio[1]:.2f}x median: "
          f"{'met' if ratio[1] <= 1.5 else 'NOT met'}")
    for name in ("kept layer_norm/softmax/gelu, native kernels", "kept layer_norm/softmax/gelu, numpy kernels",
                 "kept layer_norm/softmax/gelu, torch kernels", "kept layer_norm/gelu/attention, native+torch kernels",
                 "kept layer_norm/gelu/attention, torch kernels"):
        base = "eager PyTorch (1 thread)" if "softmax" in name else "eager PyTorch, SDPA block (1 thread)"
        r = results[name][1] / results[base][1]
        print(f"  {name}: {r:.2f}x eager (median)")


def _bench_big_block(rounds: int, budget: float) -> bool:
    """(b') the same block at the top of the range the issue names, no op kept."""
    torch.manual_seed(0)
    big, xb = TransformerBlock(512, 8).eval(), torch.randn(4, 128, 512)
    t = time.perf_counter()
    big_program = runtime.load(tosa_custom.compile(big, (xb,)))
    t_big = time.perf_counter() - t
    with torch.no_grad():
        ok = check("hidden 512 block, no op kept", big_program(xb), big(xb))
        big_results = interleaved({"eager PyTorch (1 thread)": lambda: big(xb),
                                   "compiled, no op kept": lambda: big_program(xb)}, rounds, budget / 2)
    table("(b') the block at hidden 512, 8 heads, input (4, 128, 512) f32", big_results,
          "eager PyTorch (1 thread)", {"compiled, no op kept": f"(load {t_big:.1f} s)"})
    return ok


def _bench_naive_block(block, x, expected, eager: float, stock: float, quick: bool) -> bool:
    """(c) the naive floor: slow, so a few calls only."""
    t = time.perf_counter()
    naive = runtime.load(tosa_custom.compile(block, (x,)), vectorize=False)
    t_load = time.perf_counter() - t
    ok = check("naive loops, no op kept", naive(x), expected)
    n = 1 if quick else 3
    times = []
    for _ in range(n):
        t = time.perf_counter()
        naive(x)
        times.append(time.perf_counter() - t)
    best = min(times)
    print(f"\n(c) the same block lowered naively (convert-linalg-to-loops; load {t_load:.1f} s)")
    print(f"  naive loops, no op kept: best {fmt(best)} over {n} calls = {best / eager:.1f}x eager; "
          f"tiled + vectorized is {best / stock:.1f}x faster")
    return ok


def bench_block(rounds: int, budget: float, quick: bool) -> bool:
    torch.manual_seed(0)
    block = TransformerBlock(DIM, HEADS).eval()
    sdpa = SDPABlock(DIM, HEADS).eval()
    sdpa.load_state_dict(block.state_dict())
    x = torch.randn(BATCH, SEQ, DIM)
    with torch.no_grad():
        expected = block(x)
        expected_sdpa = sdpa(x)
    programs, load_times, ok = _block_programs(block, sdpa, x, expected, expected_sdpa)

    with torch.no_grad():
        candidates = {
            "eager PyTorch (1 thread)": lambda: block(x),
            "eager PyTorch, SDPA block (1 thread)": lambda: sdpa(x),
        }
        candidates.update({name: (lambda p=p: p(x)) for name, p in programs.items()})
        results = interleaved(candidates, rounds, budget)
    notes = {name: f"(load {t:.1f} s)" for name, t in load_times.items()}
    table(f"(b) encoder block: hidden {DIM}, {HEADS} heads, input ({BATCH}, {SEQ}, {DIM}) f32", results,
          "eager PyTorch (1 thread)", notes)
    _print_block_ratios(results)
    ok &= _bench_big_block(rounds, budget)
    ok &= _bench_naive_block(block, x, expected, results["eager PyTorch (1 thread)"][0],
                             results["compiled, no op kept"][0], quick)
    return ok


# ---------------------------------------------------------------------------
# (e) per CPU plan: GFLOP/s and the fraction of the FP32 peak
# ---------------------------------------------------------------------------


def _peak_module(lanes: int, fma: bool, chains: int, iters: int) -> str:
    vt = f"vector<{lanes}xf32>"
    step = (lambda i: f"    %n{i} = math.fma %a{i}, %x, %y : {vt}") if fma else (
        lambda i: f"    %p{i} = arith.mulf %a{i}, %x : {vt}\n    %n{i} = arith.addf %p{i}, %y : {vt}")
    types = ", ".join([vt] * chains)
    return "\n".join([
        f"func.func @peak(%out: memref<{lanes}xf32>) attributes {{llvm.emit_c_interface}} {{",
        "  %c0 = arith.constant 0 : index", "  %c1 = arith.constant 1 : index",
        f"  %n = arith.constant {iters} : index", f"  %z = arith.constant dense<0.0> : {vt}",
        f"  %x = arith.constant dense<0.999999> : {vt}", f"  %y = arith.constant dense<0.000001> : {vt}",
        f"  %r:{chains} = scf.for %i = %c0 to %n step %c1 iter_args("
        + ", ".join(f"%a{i} = %z" for i in range(chains)) + f") -> ({types}) {{",
        *[step(i) for i in range(chains)],
        "    scf.yield " + ", ".join(f"%n{i}" for i in range(chains)) + f" : {types}", "  }",
        f"  %s0 = arith.constant dense<0.0> : {vt}",
        *[f"  %s{i + 1} = arith.addf %s{i}, %r#{i} : {vt}" for i in range(chains)],
        f"  vector.store %s{chains}, %out[%c0] : memref<{lanes}xf32>, {vt}", "  return", "}"])


def measure_peak(cpu: CpuTarget, chains: int = 12, iters: int = 2_000_000) -> float | None:
    """FP32 FLOP/s of independent FMA (or mul + add) chains on the ISA's full
    vectors, JIT'd with its target features; None for another arch or an ISA
    wider than the host's (it cannot run here)."""
    if cpu.host_isa is None or cpu.isa.arch != cpu.host_isa.arch or not cpu.runs_natively:
        return None
    from torch_mlir import execution_engine, ir
    from tosa_custom.core import ir as _ir
    from tosa_custom.core.passes import run_pipeline
    lanes = cpu.lanes
    module = ir.Module.parse(_peak_module(lanes, cpu.fma, chains, iters), _ir.make_context())
    features = [f"tosa-custom-jit-features{{features={','.join(cpu.jit_features)}}}"] if cpu.jit_features else []
    run_pipeline(module, ["convert-scf-to-cf", "convert-vector-to-llvm", "finalize-memref-to-llvm",
                          "convert-math-to-llvm", "convert-arith-to-llvm", "convert-func-to-llvm",
                          "convert-cf-to-llvm", "reconcile-unrealized-casts", *features], "the peak kernel's lowering")
    engine = execution_engine.ExecutionEngine(module, opt_level=3)
    out = torch.zeros(lanes)

    class Descriptor(ctypes.Structure):
        _fields_ = [("allocated", ctypes.c_void_p), ("aligned", ctypes.c_void_p), ("offset", ctypes.c_int64),
                    ("sizes", ctypes.c_int64 * 1), ("strides", ctypes.c_int64 * 1)]

    d = Descriptor(out.data_ptr(), out.data_ptr(), 0, (ctypes.c_int64 * 1)(lanes), (ctypes.c_int64 * 1)(1))
    arg = ctypes.pointer(ctypes.pointer(d))
    engine.invoke("peak", arg)
    best = min(_timed(lambda: engine.invoke("peak", arg)) for _ in range(5))
    flops_per_step = 2 * lanes
    return chains * iters * flops_per_step / best


def _timed(fn) -> float:
    t = time.perf_counter()
    fn()
    return time.perf_counter() - t


def describe_host(cpus: list[CpuTarget]) -> dict[str, float | None]:
    """Print the host's CPU and each plan's peak; returns {isa: measured peak FLOP/s}."""
    host = cpu_target("host")
    info = host.host
    print(f"CPU: {info.model_name or info.arch} (vendor {info.vendor or '?'}, family {info.family}), "
          f"cpuinfo clock {info.mhz or 0:.0f} MHz")
    interesting = [f for f in ("sse2", "avx", "fma", "avx2", "avx512f", "avx512vl", "asimd", "sve")
                   if f in info.flags]
    print(f"  features: {' '.join(interesting)}; host plan: {host.describe()}")
    peaks = {}
    for cpu in cpus:
        measured = measure_peak(cpu)
        per_cycle = cpu.peak_flops_per_cycle()
        nominal = per_cycle * info.mhz * 1e6 if info.mhz else None
        peaks[cpu.name] = measured or nominal
        clock = f", i.e. {measured / per_cycle / 1e9:.2f} GHz effective" if measured else ""
        print(f"  plan {cpu.name}: {cpu.vector_bits}-bit vectors, {cpu.registers} registers, "
              f"{'FMA' if cpu.fma else 'no FMA'}; peak {per_cycle} FLOP/cycle "
              f"({'2 FMA pipes' if cpu.fma else '2 mul + 2 add pipes'} x {per_cycle // 4}"
              f" lanes x 2) = {nominal / 1e9 if nominal else float('nan'):.1f} GFLOP/s at the cpuinfo clock; "
              f"measured {measured / 1e9 if measured else float('nan'):.1f} GFLOP/s{clock}")
    return peaks


class ConvNet(torch.nn.Module):
    """A small CNN: three 3x3 convolutions (NCHW), ReLU, max pooling, global average pooling, a linear head."""

    def __init__(self):
        super().__init__()
        self.c1, self.c2, self.c3 = (torch.nn.Conv2d(3, 32, 3, padding=1), torch.nn.Conv2d(32, 64, 3, padding=1),
                                     torch.nn.Conv2d(64, 64, 3, padding=1))
        self.head = torch.nn.Linear(64, 10)

    def forward(self, x):
        x = torch.nn.functional.max_pool2d(torch.relu(self.c1(x)), 2)
        x = torch.nn.functional.max_pool2d(torch.relu(self.c2(x)), 2)
        return self.head(torch.relu(self.c3(x)).mean((2, 3)))


def _flops(model, x) -> int:
    from torch.utils.flop_counter import FlopCounterMode
    with torch.no_grad(), FlopCounterMode(display=False) as counter:
        model(x)
    return counter.get_total_flops()


def bench_cpu_plans(rounds: int, budget: float, cpus: list[CpuTarget], peaks: dict) -> bool:
    torch.manual_seed(0)
    cases = [("block hidden 256 (8, 64, 256)", TransformerBlock(DIM, HEADS).eval(), torch.randn(BATCH, SEQ, DIM)),
             ("block hidden 512 (4, 128, 512)", TransformerBlock(512, 8).eval(), torch.randn(4, 128, 512)),
             ("conv net (8, 3, 32, 32)", ConvNet().eval(), torch.randn(8, 3, 32, 32))]
    ok = True
    for title, model, x in cases:
        flops = _flops(model, x)
        with torch.no_grad():
            expected = model(x)
        candidates = {"eager PyTorch (1 thread)": lambda m=model, x=x: m(x)}
        notes = {}
        for cpu in cpus:
            t = time.perf_counter()
            program = runtime.load(tosa_custom.compile(model, (x,)), cpu=cpu)
            load_time = time.perf_counter() - t
            name = f"compiled, planned for {cpu.name} {program.tiling.tile[0]}x{program.tiling.tile[1]}"
            ok &= check(f"{title}, {name}", program(x), expected, 1e-4, 1e-4)
            candidates[name] = lambda p=program, x=x: p(x)
            notes[name] = (cpu.name, load_time)
        with torch.no_grad():
            results = interleaved(candidates, rounds, budget / len(cases))
        _print_rates(f"(e) {title}", flops, results, notes, peaks)
    return ok


def _print_rates(title: str, flops: int, results: dict, notes: dict, peaks: dict) -> None:
    """Each candidate's time, its ratio to eager's and its GFLOP/s against its ISA's peak."""
    print(f"\n{title}: {flops / 1e9:.3f} GFLOP per call")
    eager = results["eager PyTorch (1 thread)"]
    for name, (best, median) in results.items():
        isa, load_time = notes.get(name, (cpu_target("host").name, None))
        peak = peaks.get(isa)
        rate = flops / best
        frac = f"{rate / peak:6.1%} of {isa} peak" if peak else ""
        load = f"(load {load_time:.1f} s)" if load_time is not None else ""
        print(f"  {name:40s} {fmt(best)} {fmt(median)}  {best / eager[0]:5.2f}x {median / eager[1]:5.2f}x eager"
              f"  {rate / 1e9:6.1f} GFLOP/s {frac}  {load}")


# ---------------------------------------------------------------------------
# (f) torchvision convolutional networks (issue 42: at or below 1.0x eager)
# ---------------------------------------------------------------------------

VISION = ("resnet18", "convnext_tiny", "deeplabv3_mobilenet_v3_large")


def _output(y):
    """A segmentation model's result is its dict of outputs: its "out"."""
    return y["out"] if isinstance(y, dict) else y


def bench_vision(rounds: int, budget: float, cpus: list[CpuTarget], peaks: dict, names=VISION) -> bool:
    """The torchvision networks with 3x3 (resnet18), 7x7 depthwise and
    channels-last layer_norm (convnext_tiny) and 1x1 / depthwise / dilated
    (deeplabv3) convolutions, random weights, 1x3x64x64, stock mode, one
    program per plan of `cpus`, each against eager."""
    from tosa_custom.e2e import vision
    ok = True
    for arch in names:
        model, x = vision.build(arch), vision.image(arch)
        flops = _flops(model, x)
        with torch.no_grad():
            expected = _output(model(x))
        t = time.perf_counter()
        module = str(tosa_custom.compile(model, (x,)))  # text: each load lowers its own copy in place
        compile_time = time.perf_counter() - t
        candidates = {"eager PyTorch (1 thread)": lambda m=model: m(x)}
        notes = {}
        for cpu in cpus:
            t = time.perf_counter()
            program = runtime.load(module, cpu=cpu)
            name = f"compiled, planned for {cpu.name}"
            notes[name] = (cpu.name, time.perf_counter() - t)
            # float32 through 20-60 layers, summed in another order than eager's: as e2e's torchvision family
            ok &= check(f"{arch}, {name}", _output(program(x)), expected, 1e-4, 1e-4 * expected.abs().max().item())
            candidates[name] = lambda p=program: p(x)
        with torch.no_grad():
            results = interleaved(candidates, rounds, budget)
        _print_rates(f"(f) {arch} (1, 3, {x.shape[-1]}, {x.shape[-1]}), stock mode (compile {compile_time:.1f} s)",
                     flops, results, notes, peaks)
    return ok


# ---------------------------------------------------------------------------
# (d) native kernel calls
# ---------------------------------------------------------------------------

CHAIN = 64


def _chain(n: int, domain: str, op: str) -> str:
    t = "tensor<4xf32>"
    lines = [f"func.func @f(%v0: {t}) -> {t} {{"]
    for i in range(n):
        lines.append(f'  %v{i + 1} = tosa.custom %v{i} {{domain_name = "{domain}", implementation_attrs = "", '
                     f'operator_name = "{op}"}} : ({t}) -> {t}')
    lines += [f"  return %v{n} : {t}", "}"]
    return "\n".join(lines)


def bench_native_calls(rounds: int, budget: float) -> bool:
    fixture = Path(__file__).resolve().parent.parent / "test" / "native" / "fixture_kernels.c"
    with tempfile.TemporaryDirectory() as tmp:
        library = runtime.load_kernel_library(native.compile_kernel_library([fixture], Path(tmp) / "libfixture.so"))
    try:
        x = torch.randn(4)
        one_native, chain_native = runtime.load(_chain(1, "acme", "noop")), runtime.load(_chain(CHAIN, "acme", "noop"))
        one_python = runtime.load(_chain(1, "benchmark", "noop"))
        chain_python = runtime.load(_chain(CHAIN, "benchmark", "noop"))
    finally:
        native.unload_kernel_library(library)
    no_custom = runtime.load(NO_CUSTOM)
    gelu_native = runtime.load(tosa_custom.compile(torch.nn.GELU(), (x,), backend_legal_ops=["aten.gelu"]))
    ok = gelu_native.kernels[0].startswith("native") and one_native.kernels[0].startswith("native")
    ok &= check("native gelu on [4]", gelu_native(x), torch.nn.functional.gelu(x), 1e-5, 1e-6)
    results = interleaved({
        "eager torch.ops.aten.gelu(x)": lambda: torch.ops.aten.gelu(x),
        "eager torch.neg(x)": lambda: torch.neg(x),
        "program, no custom op (tosa.abs)": lambda: no_custom(x),
        "program, 1 native no-op": lambda: one_native(x),
        f"program, {CHAIN} native no-ops": lambda: chain_native(x),
        "program, 1 Python no-op": lambda: one_python(x),
        f"program, {CHAIN} Python no-ops": lambda: chain_python(x),
        "program, native gelu (built-in)": lambda: gelu_native(x),
    }, rounds, budget)
    table("(d) native kernel calls on a [4] f32 tensor", results, "eager torch.ops.aten.gelu(x)")
    per_native = [(results[f"program, {CHAIN} native no-ops"][i] - results["program, 1 native no-op"][i])
                  / (CHAIN - 1) for i in (0, 1)]
    per_python = [(results[f"program, {CHAIN} Python no-ops"][i] - results["program, 1 Python no-op"][i])
                  / (CHAIN - 1) for i in (0, 1)]
    eager = results["eager torch.ops.aten.gelu(x)"]
    base = results["program, no custom op (tosa.abs)"]
    gelu_cost = [results["program, native gelu (built-in)"][i] - base[i] for i in (0, 1)]
    print(f"  per native kernel call (({CHAIN} - 1 no-ops) / {CHAIN - 1}): best {fmt(per_native[0])}, "
          f"median {fmt(per_native[1])}")
    print(f"  per Python kernel call (same):                 best {fmt(per_python[0])}, median {fmt(per_python[1])}"
          f"  ({per_python[1] / max(per_native[1], 1e-12):.0f}x the native call)")
    print(f"  eager aten.gelu dispatch:                      best {fmt(eager[0])}, median {fmt(eager[1])}"
          f"  ({eager[1] / max(per_native[1], 1e-12):.0f}x the native call)")
    print(f"  native gelu on [4] inside a program (program - no custom op): best {fmt(gelu_cost[0])}, "
          f"median {fmt(gelu_cost[1])}")
    print(f"  target (native call < 1 us): {'met' if per_native[1] < 1e-6 else 'NOT met'}")
    return ok


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=15)
    parser.add_argument("--quick", action="store_true", help="shorter runs (a smoke test)")
    parser.add_argument("--cpus", default="host,avx2",
                        help="ISAs to plan for in (e), comma-separated (host, sse, avx, avx2, avx512, neon)")
    parser.add_argument("--only-cpus", action="store_true", help="run (e) and (f) only")
    parser.add_argument("--only-vision", action="store_true", help="run (f) only")
    parser.add_argument("--vision", default=",".join(VISION), help="the torchvision models of (f), comma-separated")
    args = parser.parse_args(argv)
    torch.set_num_threads(1)
    warnings.simplefilter("ignore")
    budget_a, budget_b = (1.0, 3.0) if args.quick else (6.0, 30.0)
    rounds = 5 if args.quick else args.rounds
    print(f"torch {torch.__version__}, {torch.get_num_threads()} thread, python {platform.python_version()}, "
          f"{platform.processor() or platform.machine()}, {os.cpu_count()} CPUs")
    print(f"load average before: {' '.join(f'{v:.2f}' for v in os.getloadavg())}")
    cpus = list({c.name: c for c in (cpu_target(n.strip()) for n in args.cpus.split(",") if n.strip())}.values())
    ok = True
    if not (args.only_cpus or args.only_vision):
        ok &= bench_call_overhead(rounds, budget_a)
        ok &= bench_native_calls(rounds, budget_a)
        ok &= bench_block(rounds, budget_b, args.quick)
    peaks = describe_host(cpus)
    if not args.only_vision:
        ok &= bench_cpu_plans(rounds, budget_b, cpus, peaks)
    if args.only_vision or not args.quick:
        ok &= bench_vision(rounds, budget_b / 2, cpus, peaks, [n for n in args.vision.split(",") if n])
    print(f"\nload average after: {' '.join(f'{v:.2f}' for v in os.getloadavg())}")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
