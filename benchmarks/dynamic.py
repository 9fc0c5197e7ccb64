"""One compile for every size against one compile per size (issue 23).

Three programs, each written once with `?` dims (the boundary attributes
compile() writes included) and once per size with that size in its types:

  mlp      x [1, M, 256] @ W1 [256, 1024], tanh, @ W2 [1024, 256]; M = rows
  softmax  rows of a T x T score matrix, T = both `?` dims (one symbol)
  norm     a layer norm over [M, 768] (sum, mean, variance, rsqrt), M rows

For each, at 5 sizes: (1) the time to load (compile) the dynamic program
once and run it at the 5 sizes, against loading a static program per size
and running each; (2) per size, the dynamic program's run time against the
static one's at that exact size (the target: within 1.2x). Run times are the
best of interleaved rounds (both candidates in turn, so load from other
processes hits them alike), with torch.set_num_threads(1). The host's CPU
(`lscpu`) is printed first. Exit code 0 unless a result is wrong. Usage:

    python benchmarks/dynamic.py [--quick]
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import time

import torch

from tosa_custom import runtime
from tosa_custom.runtime.compiled.cpu import ENV_VAR, cpu_target

_ZERO = '%z = "tosa.const"() <{values = dense<0.0> : tensor<1xf32>}> : () -> tensor<1xf32>'
_SHIFT = '%sh = "tosa.const"() <{values = dense<0> : tensor<1xi8>}> : () -> tensor<1xi8>'


def _boundary(dims: list, size) -> str:
    """The argument attribute of a `?` argument: its dims over s0."""
    if size is not None:
        return ""
    return " {tosa_custom.shape = [" + ", ".join('"s0"' if d == "?" else str(d) for d in dims) + "]}"


def _symbols(size) -> str:
    return "" if size is not None else " attributes {tosa_custom.symbols = {s0 = array<i64: 1, 4096>}}"


def mlp(m) -> str:
    r = "?" if m is None else m
    x, h, y = f"tensor<1x{r}x256xf32>", f"tensor<1x{r}x1024xf32>", f"tensor<1x{r}x256xf32>"
    return f"""
func.func @main(%x: {x}{_boundary([1, "?", 256], m)}, %w1: tensor<1x256x1024xf32>, %w2: tensor<1x1024x256xf32>)
    -> {y}{_symbols(m)} {{
  {_ZERO}
  %0 = tosa.matmul %x, %w1, %z, %z : ({x}, tensor<1x256x1024xf32>, tensor<1xf32>, tensor<1xf32>) -> {h}
  %1 = tosa.tanh %0 : ({h}) -> {h}
  %2 = tosa.matmul %1, %w2, %z, %z : ({h}, tensor<1x1024x256xf32>, tensor<1xf32>, tensor<1xf32>) -> {y}
  return %2 : {y}
}}"""


def softmax(t) -> str:
    r = "?" if t is None else t
    s, c = f"tensor<{r}x{r}xf32>", f"tensor<{r}x1xf32>"
    return f"""
func.func @main(%x: {s}{_boundary(["?", "?"], t)}) -> {s}{_symbols(t)} {{
  {_SHIFT}
  %m = tosa.reduce_max %x {{axis = 1 : i32}} : ({s}) -> {c}
  %d = tosa.sub %x, %m : ({s}, {c}) -> {s}
  %e = tosa.exp %d : ({s}) -> {s}
  %n = tosa.reduce_sum %e {{axis = 1 : i32}} : ({s}) -> {c}
  %i = tosa.reciprocal %n : ({c}) -> {c}
  %y = tosa.mul %e, %i, %sh : ({s}, {c}, tensor<1xi8>) -> {s}
  return %y : {s}
}}"""


def norm(m) -> str:
    r = "?" if m is None else m
    s, c = f"tensor<{r}x768xf32>", f"tensor<{r}x1xf32>"
    return f"""
func.func @main(%x: {s}{_boundary(["?", 768], m)}) -> {s}{_symbols(m)} {{
  {_SHIFT}
  %k = "tosa.const"() <{{values = dense<0.00130208337> : tensor<1x1xf32>}}> : () -> tensor<1x1xf32>
  %eps = "tosa.const"() <{{values = dense<1.0e-5> : tensor<1x1xf32>}}> : () -> tensor<1x1xf32>
  %s0 = tosa.reduce_sum %x {{axis = 1 : i32}} : ({s}) -> {c}
  %mean = tosa.mul %s0, %k, %sh : ({c}, tensor<1x1xf32>, tensor<1xi8>) -> {c}
  %d = tosa.sub %x, %mean : ({s}, {c}) -> {s}
  %sq = tosa.mul %d, %d, %sh : ({s}, {s}, tensor<1xi8>) -> {s}
  %s1 = tosa.reduce_sum %sq {{axis = 1 : i32}} : ({s}) -> {c}
  %var = tosa.mul %s1, %k, %sh : ({c}, tensor<1x1xf32>, tensor<1xi8>) -> {c}
  %ve = tosa.add %var, %eps : ({c}, tensor<1x1xf32>) -> {c}
  %r = tosa.rsqrt %ve : ({c}) -> {c}
  %y = tosa.mul %d, %r, %sh : ({s}, {c}, tensor<1xi8>) -> {s}
  return %y : {s}
}}"""


def _inputs(name: str, n: int) -> tuple:
    g = torch.Generator().manual_seed(n)
    if name == "mlp":
        return (torch.randn(1, n, 256, generator=g), torch.randn(1, 256, 1024, generator=g) / 16,
                torch.randn(1, 1024, 256, generator=g) / 32)
    if name == "softmax":
        return (torch.randn(n, n, generator=g),)
    return (torch.randn(n, 768, generator=g),)


def _expected(name: str, inputs: tuple) -> torch.Tensor:
    if name == "mlp":
        x, w1, w2 = inputs
        return torch.tanh(x @ w1) @ w2
    if name == "softmax":
        return torch.softmax(inputs[0], dim=1)
    return torch.nn.functional.layer_norm(inputs[0], (768,), eps=1e-5)


PROGRAMS = {"mlp": (mlp, (1, 17, 64, 197, 512)), "softmax": (softmax, (1, 17, 64, 197, 512)),
            "norm": (norm, (1, 17, 64, 197, 512))}


def _best(candidates: dict, rounds: int, budget: float) -> dict:
    """{name: best seconds per call}, candidates interleaved round by round."""
    batch = {}
    for name, fn in candidates.items():
        fn()
        t = time.perf_counter()
        fn()
        batch[name] = max(1, int(budget / rounds / max(time.perf_counter() - t, 1e-7) / len(candidates)))
    best = dict.fromkeys(candidates, float("inf"))
    for _ in range(rounds):
        for name, fn in candidates.items():
            t = time.perf_counter()
            for _ in range(batch[name]):
                fn()
            best[name] = min(best[name], (time.perf_counter() - t) / batch[name])
    return best


def _timed_load(text: str):
    t = time.perf_counter()
    program = runtime.load(text)
    return program, time.perf_counter() - t


def _us(seconds: float) -> str:
    return f"{seconds * 1e6:10.1f} us" if seconds < 1e-2 else f"{seconds * 1e3:10.2f} ms"


def bench(name: str, rounds: int, budget: float) -> bool:
    make, sizes = PROGRAMS[name]
    dynamic, dynamic_load = _timed_load(make(None))
    print(f"\n{name}: sizes {', '.join(map(str, sizes))}")
    print(f"  {'size':>6} {'static load':>13} {'static run':>13} {'dynamic run':>13} {'dynamic/static':>15}")
    ok, static_loads, static_runs, dynamic_runs = True, 0.0, 0.0, 0.0
    for n in sizes:
        static, load_time = _timed_load(make(n))
        inputs = _inputs(name, n)
        expected = _expected(name, inputs)
        for program in (static, dynamic):
            got = program(*inputs)
            error = (got - expected).abs().max().item()
            if got.shape != expected.shape or error > 1e-3 * max(1.0, expected.abs().max().item()):
                print(f"  WRONG at {n}: max |difference| {error:.3g}")
                ok = False
        times = _best({"static": lambda: static(*inputs), "dynamic": lambda: dynamic(*inputs)}, rounds, budget)
        static_loads += load_time
        static_runs += times["static"]
        dynamic_runs += times["dynamic"]
        print(f"  {n:>6} {load_time * 1e3:10.0f} ms {_us(times['static'])} {_us(times['dynamic'])} "
              f"{times['dynamic'] / times['static']:14.2f}x")
    once = dynamic_load + dynamic_runs
    each = static_loads + static_runs
    print(f"  compile once + run at {len(sizes)} sizes: {once:.2f} s (load {dynamic_load:.2f} s); compile "
          f"{len(sizes)} times + run: {each:.2f} s (loads {static_loads:.2f} s): {each / once:.2f}x faster")
    return ok


def _cpu() -> str:
    try:
        out = subprocess.run(["lscpu"], capture_output=True, text=True, check=True).stdout
    except (OSError, subprocess.CalledProcessError):
        return "lscpu unavailable"
    keep = ("Architecture", "Model name", "CPU(s)", "Thread(s) per core", "L1d", "L2", "L3")
    lines = [line.strip() for line in out.splitlines() if line.strip().startswith(keep)]
    flags = next((line.split(":", 1)[1].split() for line in out.splitlines() if line.startswith("Flags")), [])
    vector = [f for f in ("sse4_2", "avx", "avx2", "fma", "avx512f") if f in flags]
    return "\n".join(lines + [f"Vector flags: {' '.join(vector)}"])


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="shorter runs (a smoke test)")
    parser.add_argument("--programs", default=",".join(PROGRAMS), help="comma-separated: " + ", ".join(PROGRAMS))
    args = parser.parse_args()
    torch.set_num_threads(1)
    print(_cpu())
    print(f"torch {torch.__version__}, 1 thread; run times: best of interleaved rounds")
    print(f"plan: {cpu_target().name} (${ENV_VAR} selects another); {_load()}")
    rounds, budget = (3, 0.3) if args.quick else (7, 2.0)
    ok = True
    for name in args.programs.split(","):
        ok &= bench(name, rounds, budget)
    print(f"\nafter: {_load()}")
    return 0 if ok else 1


def _load() -> str:
    """The host's load average: other processes slow both candidates, not alike."""
    try:
        return "load average " + ", ".join(f"{x:.2f}" for x in os.getloadavg())
    except OSError:
        return "load average unavailable"


if __name__ == "__main__":
    sys.exit(main())
