"""How fast the built-in numpy gelu kernel is, next to eager PyTorch, in one run.

The reference kernels compute in float64 with vectorized numpy (erf by Cody's
rational approximations, `numpy_kernels._erf`). An earlier gelu called
`math.erf` once per element through `np.vectorize` and took seconds for a
million elements; this measures the kernel against that and against eager
PyTorch's gelu, on the same [1000, 1000] float32 tensor, side by side:

  numpy erf    the kernel, approximate="none"
  numpy tanh   the kernel, approximate="tanh"
  eager f32    torch.nn.functional.gelu on the float32 tensor
  eager f64    the same in float64 (the kernel's working precision)
  per element  np.vectorize(math.erf) on a 1/20 slice, scaled to the whole
               tensor (whole, it takes seconds a round)

Timing: the candidates are interleaved (one call each, in turn, for several
rounds) with `torch.set_num_threads(1)` (the kernel is single-threaded), so
load from other processes hits them alike; the table gives the best and the
median per call, and each row's median against the kernel's. Target
(reported, not enforced): faster than the per-element erf it replaced;
eager PyTorch (float32 SIMD, no float64) is the floor, not a target. Exit
code 0 unless a result is wrong.

    python benchmarks/numpy_kernels.py [--rounds 7] [--size 1000000]
"""

from __future__ import annotations

import argparse
import math
import os
import statistics
import sys
import time

import numpy as np
import torch

from tosa_custom.contract.encoding import DecodedCall, Operand
from tosa_custom.runtime.kernels import numpy_kernels
from tosa_custom.runtime.kernels.registry import KernelCall

_SLICE = 20  # the per-element erf runs on 1/_SLICE of the tensor


def _kernel(x: torch.Tensor, approximate: str):
    """A call of the numpy gelu kernel as the runtime makes it (destination passing)."""
    decoded = DecodedCall(torch.ops.aten.gelu.default, (Operand(0),), {"approximate": approximate}, ())
    out = torch.empty_like(x)

    def run():
        numpy_kernels.gelu(KernelCall(decoded, [x], [out]))
        return out
    return run


def _per_element(x: torch.Tensor):
    """The old kernel: math.erf per element, on a slice (scaled in the table)."""
    erf = np.vectorize(math.erf)
    part = x.numpy().reshape(-1)[: x.numel() // _SLICE].astype(np.float64)
    return lambda: 0.5 * part * (1.0 + erf(part * math.sqrt(0.5)))


def _candidates(x: torch.Tensor) -> dict:
    x64 = x.double()
    return {
        "numpy erf": (_kernel(x, "none"), 1),
        "numpy tanh": (_kernel(x, "tanh"), 1),
        "eager f32": (lambda: torch.nn.functional.gelu(x), 1),
        "eager f64": (lambda: torch.nn.functional.gelu(x64), 1),
        "per element": (_per_element(x), _SLICE),
    }


def _check(x: torch.Tensor) -> bool:
    """The kernel's results against eager float64 rounded to float32 (1 ulp)."""
    ok = True
    for approximate in ("none", "tanh"):
        got = _kernel(x, approximate)()
        want = torch.nn.functional.gelu(x.double(), approximate=approximate).float()
        diff = (got - want).abs().max().item()
        if not torch.allclose(got, want, rtol=2 * torch.finfo(torch.float32).eps, atol=1e-30):
            print(f"WRONG: gelu approximate={approximate!r} differs from eager by up to {diff:.3g}")
            ok = False
    return ok


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=7)
    parser.add_argument("--size", type=int, default=1_000_000)
    args = parser.parse_args()
    torch.set_num_threads(1)
    x = torch.randn(args.size, generator=torch.Generator().manual_seed(0)).reshape(-1, 1000)
    print(f"gelu on {x.numel():,} float32 elements, {args.rounds} rounds; load average {os.getloadavg()[0]:.2f}")
    candidates = _candidates(x)
    times: dict[str, list[float]] = {name: [] for name in candidates}
    for _ in range(args.rounds):
        for name, (run, scale) in candidates.items():
            start = time.perf_counter()
            run()
            times[name].append((time.perf_counter() - start) * scale)
    reference = statistics.median(times["numpy erf"])
    print(f"{'':<12}{'best (ms)':>11}{'median (ms)':>13}{'vs numpy erf':>14}")
    for name, t in times.items():
        median = statistics.median(t)
        print(f"{name:<12}{min(t) * 1e3:>11.1f}{median * 1e3:>13.1f}{median / reference:>13.2f}x")
    print(f"load average after: {os.getloadavg()[0]:.2f}")
    return 0 if _check(x) else 1


if __name__ == "__main__":
    sys.exit(main())
