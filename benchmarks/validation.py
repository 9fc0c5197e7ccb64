"""What declaring and validating the TOSA target costs compile().

Compiles the example block and a small BERT (stock mode) with the default
`tosa_target="auto"` and times, inside each compile, the stage that fits the
target, attaches it and runs `tosa-validate` (`Attempt.check_target`),
against the whole compile(): on a shared machine two separate compiles differ
by more than the check costs, so the share is measured within one run. Also
prints the best whole-compile time with `tosa_target=None`, for reference.
Target: validation costs under 5% of compile(). The narrowing passes run
either way (they make the output; the check only checks).

    python benchmarks/validation.py [--repeat 5]
"""

from __future__ import annotations

import argparse
import time
import warnings

import torch
from _models import bert

import tosa_custom
from tosa_custom.tools.example import TransformerBlock


def _time(model, args, target) -> float:
    start = time.perf_counter()
    tosa_custom.compile(model, args, tosa_target=target)
    return time.perf_counter() - start


def main() -> None:
    from tosa_custom.frontend.attempt import Attempt

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=5)
    repeat = parser.parse_args().repeat
    warnings.simplefilter("ignore")
    checks: list[float] = []
    check_target = Attempt.check_target

    def timed(self, module):
        start = time.perf_counter()
        check_target(self, module)
        checks.append(time.perf_counter() - start)

    Attempt.check_target = timed
    torch.manual_seed(0)
    cases = {"example block": (TransformerBlock().eval(), (torch.randn(2, 8, 32),)), "BERT 2 layers": bert()}
    print(f"{'model':<16}{'compile (s)':>12}{'check (s)':>10}{'share':>8}{'without check (s)':>19}")
    for name, (model, args) in cases.items():
        _time(model, args, "auto")  # warm up
        shares, totals = [], []
        for _ in range(repeat):
            totals.append(_time(model, args, "auto"))
            shares.append(checks[-1] / totals[-1])
        check = min(checks[-repeat:])
        without = min(_time(model, args, None) for _ in range(repeat))
        shares.sort()
        print(f"{name:<16}{min(totals):>12.3f}{check:>10.3f}"
              f"{shares[len(shares) // 2] * 100:>7.1f}%{without:>19.3f}")


if __name__ == "__main__":
    main()
