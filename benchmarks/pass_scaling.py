"""How the tosa.custom pass scales, alone and as a share of the TOSA lowering.

Generates torch-dialect IR at the backend contract (value tensors, every
tensor `!torch.vtensor<[4,16],f32>`): a seeded, deterministic DAG of `N` ops,
exactly half of them selected for conversion (`aten.gelu` with
approximate="tanh", `aten.softmax.int`, `aten.layer_norm` with weight and bias
as function arguments) and half left to TorchToTosa (`aten.add.Tensor`,
`aten.mul.Tensor`, `aten.tanh`). Each op reads the previous one, binary ops
also one of the eight values before it, so nothing is dead.

For every size, in the same run and on freshly parsed copies of the module
(parsing is never timed):

  (a) pass   - `convert_module()` alone, i.e. the
               `convert-torch-backend-legal-to-tosa-custom{ops=...}` pass;
  (b) full   - the full torch-to-TOSA lowering of the same module, as
               `compile()` runs it after import: our pass, torch-mlir's
               `torchdynamo-export-to-torch-backend-pipeline` (to the backend
               contract, selected ops backend-legal), then
               `torch-backend-to-tosa-backend-pipeline`, in one PassManager. The pass's own share of that run is timed
               too, so `tosa` = full - pass-in-(b) is what the C++ pipelines take.

Times are the best (minimum) of `--repeat` runs, wall clock
(time.perf_counter); the CPU time of the process (time.process_time) is shown
too, because on a shared machine wall time also counts waiting for a core.
Targets:

  * pass fraction = pass / full < 10%   (the pass must not dominate lowering)
  * scaling exponent of the pass time ~ 1.0 (log-log slope between sizes;
    > 1.2 suggests super-linear work per op)

Every run is checked (every selected op converted, no op skipped, the lowered
module holds exactly that many `tosa.custom`); the exit code is 0 unless such
a check or the lowering itself fails. Missing a target is reported, not an
error. Usage:

    python benchmarks/pass_scaling.py [--sizes 1000,10000,50000] [--repeat N]
                                      [--encoding json|const] [--profile 10000]
"""

from __future__ import annotations

import argparse
import gc
import math
import os
import random
import sys
import time
import warnings

from torch_mlir import ir, passmanager

from tosa_custom.core import ir as _ir
from tosa_custom.core import passes
from tosa_custom.tunnel.conversion import convert_module
from tosa_custom.tunnel.options import PASS_ARGUMENT, PassOptions
from tosa_custom.core.diagnostics import DiagnosticLog

SELECTED = ("aten.gelu", "aten.softmax.int", "aten.layer_norm")
UNSELECTED = ("aten.add.Tensor", "aten.mul.Tensor", "aten.tanh")
BACKEND_PIPELINE = "torchdynamo-export-to-torch-backend-pipeline"
LEGAL = SELECTED  # backend-legal for torch-mlir, as compile() passes them
TOSA_PIPELINE = "torch-backend-to-tosa-backend-pipeline"
FRACTION_TARGET = 0.10
SLOPE_TOLERANCE = 0.2  # "~linear": slope within 1.0 +- this
SLOW_FULL_SECONDS = 30.0  # one full lowering slower than this gets a note
DEFAULT_SIZES = (1000, 10000, 50000)

T = "!torch.vtensor<[4,16],f32>"
V16 = "!torch.vtensor<[16],f32>"


# --------------------------------------------------------------------------
# IR generation.
# --------------------------------------------------------------------------


def generate(n_ops: int, seed: int = 0) -> tuple[str, int]:
    """A module of `n_ops` compute ops, half selected; returns (text, selected)."""
    rng = random.Random(seed)
    n_selected = n_ops - n_ops // 2
    kinds = [SELECTED[i % 3] for i in range(n_selected)] + [UNSELECTED[i % 3] for i in range(n_ops // 2)]
    rng.shuffle(kinds)
    lines = [
        "module {",
        f"  func.func @forward(%arg0: {T}, %weight: {V16}, %bias: {V16}) -> {T} {{",
        "    %false = torch.constant.bool false",
        "    %eps = torch.constant.float 1.000000e-05",
        "    %int16 = torch.constant.int 16",
        "    %none = torch.constant.none",
        "    %int-1 = torch.constant.int -1",
        "    %int1 = torch.constant.int 1",
        '    %str_tanh = torch.constant.str "tanh"',
        "    %shape = torch.prim.ListConstruct %int16 : (!torch.int) -> !torch.list<int>",
    ]
    values = ["%arg0"]
    for i, kind in enumerate(kinds):
        x, r = values[-1], f"%v{i}"
        other = values[-1 - rng.randrange(min(8, len(values)))]
        if kind == "aten.gelu":
            lines.append(f"    {r} = torch.aten.gelu {x}, %str_tanh : {T}, !torch.str -> {T}")
        elif kind == "aten.softmax.int":
            lines.append(f"    {r} = torch.aten.softmax.int {x}, %int-1, %none : {T}, !torch.int, !torch.none -> {T}")
        elif kind == "aten.layer_norm":
            lines.append(
                f"    {r} = torch.aten.layer_norm {x}, %shape, %weight, %bias, %eps, %false : "
                f"{T}, !torch.list<int>, {V16}, {V16}, !torch.float, !torch.bool -> {T}"
            )
        elif kind == "aten.add.Tensor":
            lines.append(f"    {r} = torch.aten.add.Tensor {x}, {other}, %int1 : {T}, {T}, !torch.int -> {T}")
        elif kind == "aten.mul.Tensor":
            lines.append(f"    {r} = torch.aten.mul.Tensor {x}, {other} : {T}, {T} -> {T}")
        else:
            lines.append(f"    {r} = torch.aten.tanh {x} : {T} -> {T}")
        values.append(r)
    lines += [f"    return {values[-1]} : {T}", "  }", "}", ""]
    return "\n".join(lines), n_selected


# --------------------------------------------------------------------------
# Measurements.
# --------------------------------------------------------------------------


class CheckFailed(Exception):
    pass


def _count_customs(module: ir.Module) -> int:
    count = 0

    def visit(op):
        nonlocal count
        count += op.name == "tosa.custom"
        return ir.WalkResult.ADVANCE

    module.operation.walk(visit)
    return count


def _parse(ctx: ir.Context, text: str) -> tuple[ir.Module, float]:
    with ctx, ir.Location.unknown():
        t0 = time.perf_counter()
        module = ir.Module.parse(text)
        return module, time.perf_counter() - t0


def time_pass(ctx: ir.Context, text: str, options: PassOptions, expected: int) -> tuple[float, float, float]:
    """(a): returns (pass seconds, pass CPU seconds, parse seconds)."""
    module, parse_s = _parse(ctx, text)
    gc.collect()
    with ctx, ir.Location.unknown(), warnings.catch_warnings():
        warnings.simplefilter("error")  # a skipped op would warn: fail loudly
        t0, c0 = time.perf_counter(), time.process_time()
        result = convert_module(module.operation, options)
        elapsed, cpu = time.perf_counter() - t0, time.process_time() - c0
    converted = sum(result.converted.values())
    if converted != expected or result.skipped:
        raise CheckFailed(f"pass converted {converted} of {expected} selected ops, skipped {len(result.skipped)}")
    return elapsed, cpu, parse_s


def time_full(ctx: ir.Context, text: str, options_text: str, expected: int) -> tuple[float, float, float]:
    """(b): returns (full lowering seconds, its CPU seconds, seconds of our pass inside it)."""
    module, _ = _parse(ctx, text)
    log = DiagnosticLog()
    inner_s: list[float] = []
    with ctx, ir.Location.unknown():
        entry = passes.lookup_pass(PASS_ARGUMENT)
        inner = entry.create(options_text, log)

        def timed(op, pass_):
            t0 = time.perf_counter()
            try:
                inner(op, pass_)
            finally:
                inner_s.append(time.perf_counter() - t0)

        pm = passmanager.PassManager.parse("builtin.module()")
        pm.add(timed, name=entry.name, argument=entry.argument)
        pm.add(BACKEND_PIPELINE + "{backend-legal-ops=" + ",".join(LEGAL) + "}")
        pm.add(TOSA_PIPELINE)
        gc.collect()
        t0, c0 = time.perf_counter(), time.process_time()
        pm.run(module.operation)
        elapsed, cpu = time.perf_counter() - t0, time.process_time() - c0
    if log.of("warning"):
        raise CheckFailed(f"pass warned: {log.of('warning')[0]}")
    customs = _count_customs(module)
    if customs != expected:
        raise CheckFailed(f"lowered module has {customs} tosa.custom ops, expected {expected}")
    return elapsed, cpu, inner_s[0]


def slope(n0: int, t0: float, n1: int, t1: float) -> float:
    return math.log(t1 / t0) / math.log(n1 / n0)


def fitted_slope(ns: list[int], ts: list[float]) -> float:
    """Least-squares slope of log t against log n."""
    xs, ys = [math.log(n) for n in ns], [math.log(t) for t in ts]
    mx, my = sum(xs) / len(xs), sum(ys) / len(ys)
    return sum((x - mx) * (y - my) for x, y in zip(xs, ys)) / sum((x - mx) ** 2 for x in xs)


def default_repeat(n_ops: int) -> int:
    return 1 if n_ops >= 50000 else 3


# --------------------------------------------------------------------------
# Main.
# --------------------------------------------------------------------------


def _load() -> str:
    try:
        return f"{os.getloadavg()[0]:.2f}"
    except OSError:  # pragma: no cover - not on every platform
        return "n/a"


def _sizes(text: str) -> list[int]:
    try:
        sizes = sorted({int(s.replace("_", "").replace("k", "000")) for s in text.split(",") if s.strip()})
    except ValueError:
        raise argparse.ArgumentTypeError(f"--sizes takes comma-separated integers, not '{text}'") from None
    if not sizes or sizes[0] < 2:
        raise argparse.ArgumentTypeError("--sizes needs at least one size >= 2")
    return sizes


def profile_pass(n_ops: int, options: PassOptions, seed: int, top: int = 15) -> None:
    import cProfile
    import pstats

    text, expected = generate(n_ops, seed)
    ctx = _ir.make_context()
    module, _ = _parse(ctx, text)
    with ctx, ir.Location.unknown():
        profiler = cProfile.Profile()
        profiler.enable()
        result = convert_module(module.operation, options)
        profiler.disable()
    if sum(result.converted.values()) != expected:
        raise CheckFailed("profiled pass did not convert every selected op")
    print(f"\ncProfile of the pass alone at {n_ops} ops (top {top} by cumulative time):")
    pstats.Stats(profiler, stream=sys.stdout).strip_dirs().sort_stats("cumulative").print_stats(top)


def _arguments(argv) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", type=_sizes, default=list(DEFAULT_SIZES),
                        help="comma-separated op counts (default 1000,10000,50000)")
    parser.add_argument("--repeat", type=int, default=None,
                        help="runs per size and measurement, best one reported "
                             "(default 3, and 1 from 50000 ops)")
    parser.add_argument("--encoding", choices=["json", "const"], default="json")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--profile", type=int, default=None, metavar="N_OPS",
                        help="also print a cProfile of the pass alone at this size")
    args = parser.parse_args(argv)
    if args.repeat is not None and args.repeat < 1:
        parser.error("--repeat must be >= 1")
    return args


def _measure(n: int, repeat: int, seed: int, options, options_text: str) -> dict:
    """The best of `repeat` runs of the pass alone and of the whole lowering, on one module of n ops."""
    text, expected = generate(n, seed)
    ctx = _ir.make_context()
    pass_runs, pass_cpu, parse_runs, full_runs, full_cpu, inner_runs = [], [], [], [], [], []
    for _ in range(repeat):
        p, pc, parse_s = time_pass(ctx, text, options, expected)
        pass_runs.append(p)
        pass_cpu.append(pc)
        parse_runs.append(parse_s)
        f, fc, inner = time_full(ctx, text, options_text, expected)
        full_runs.append(f)
        full_cpu.append(fc)
        inner_runs.append(inner)
    return dict(n=n, expected=expected, repeat=repeat, parse=min(parse_runs),
                pass_=min(pass_runs), full=min(full_runs),
                pass_cpu=min(pass_cpu), full_cpu=min(full_cpu),
                tosa=min(f - i for f, i in zip(full_runs, inner_runs)))


def _print_table(rows: list[dict]) -> None:
    header = (f"{'ops':>7} {'converted':>9} {'runs':>4} {'parse s':>8} {'pass s':>8} {'full s':>8} "
              f"{'tosa s':>8} {'pass/full':>9} {'pass cpu':>8} {'full cpu':>8} {'us/op':>6} "
              f"{'pass slope':>10} {'full slope':>10}")
    print()
    print(header)
    print("-" * len(header))
    for i, r in enumerate(rows):
        if i:
            prev = rows[i - 1]
            ps = f"{slope(prev['n'], prev['pass_'], r['n'], r['pass_']):.2f}"
            fs = f"{slope(prev['n'], prev['full'], r['n'], r['full']):.2f}"
        else:
            ps = fs = "-"
        print(f"{r['n']:>7} {r['expected']:>9} {r['repeat']:>4} {r['parse']:>8.3f} {r['pass_']:>8.3f} "
              f"{r['full']:>8.3f} {r['tosa']:>8.3f} {r['pass_'] / r['full']:>9.1%} "
              f"{r['pass_cpu']:>8.3f} {r['full_cpu']:>8.3f} "
              f"{r['pass_'] / r['expected'] * 1e6:>6.0f} {ps:>10} {fs:>10}")
    print()
    print("pass s: (a) our pass alone; full s: (b) our pass + backend-contract and TOSA pipelines; tosa s: (b) minus the pass's "
          "share of (b);\ncpu: process CPU seconds of (a) and (b); us/op: pass time per converted op; "
          "slopes: log-log, from the previous size.")


def _print_verdicts(rows: list[dict]) -> None:
    worst = max(r["pass_"] / r["full"] for r in rows)
    verdict = "meets" if worst < FRACTION_TARGET else "MISSES"
    print(f"\npass fraction: worst {worst:.1%} -> {verdict} the < {FRACTION_TARGET:.0%} target")
    if len(rows) < 2:
        print("pass scaling exponent: needs two or more sizes")
        return
    fit = fitted_slope([r["n"] for r in rows], [r["pass_"] for r in rows])
    verdict = "meets" if abs(fit - 1.0) <= SLOPE_TOLERANCE else "MISSES"
    print(f"pass scaling exponent (least-squares over {len(rows)} sizes): {fit:.2f} -> {verdict} "
          f"the ~1.0 (linear) target (tolerance +-{SLOPE_TOLERANCE})")
    fit_full = fitted_slope([r["n"] for r in rows], [r["full"] for r in rows])
    print(f"full lowering scaling exponent: {fit_full:.2f}")


def main(argv=None) -> int:
    args = _arguments(argv)
    ops_text = ",".join(SELECTED)
    options_text = f"ops={ops_text} encoding={args.encoding}"
    options = PassOptions.parse(options_text)
    print(f"pass: {PASS_ARGUMENT}{{{options_text}}}")
    print(f"full: that pass + {BACKEND_PIPELINE} + {TOSA_PIPELINE}")
    print(f"module: seeded DAG (seed {args.seed}), half the ops in {{{ops_text}}}, "
          f"half in {{{','.join(UNSELECTED)}}}, tensors [4,16] f32")

    # Warm-up: schema lookups, dialect loading and first-pipeline costs are
    # paid once here, not by the first size.
    warm_text, warm_expected = generate(60, args.seed)
    warm_ctx = _ir.make_context()
    time_pass(warm_ctx, warm_text, options, warm_expected)
    time_full(warm_ctx, warm_text, options_text, warm_expected)

    rows, notes = [], []
    load_before = _load()
    started = time.perf_counter()
    try:
        for n in args.sizes:
            repeat = args.repeat or default_repeat(n)
            rows.append(_measure(n, repeat, args.seed, options, options_text))
            if rows[-1]["full"] > SLOW_FULL_SECONDS:
                notes.append(f"{n} ops: the full TOSA lowering is slow ({rows[-1]['full']:.1f} s per run); "
                             f"measured {repeat}x anyway")
            print(f"  measured {n} ops ({repeat}x) in {time.perf_counter() - started:.1f} s so far",
                  file=sys.stderr, flush=True)
    except (CheckFailed, ir.MLIRError, Warning) as e:
        print(f"FAILED: {type(e).__name__}: {e}", file=sys.stderr)
        return 1

    _print_table(rows)
    _print_verdicts(rows)
    for note in notes:
        print(f"note: {note}")
    print(f"total benchmark time {time.perf_counter() - started:.1f} s; 1-min load average "
          f"{load_before} before, {_load()} after, on {os.cpu_count()} CPUs")

    if args.profile:
        try:
            profile_pass(args.profile, options, args.seed)
        except CheckFailed as e:
            print(f"FAILED: {e}", file=sys.stderr)
            return 1
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
