"""What auto mode costs compile().

Auto mode finds what to tunnel by lowering trial copies (CONTRACT.md §14).
Its target: at most 1.5x stock's lowering on a model with nothing to tunnel,
at most 3x on one with several ops to tunnel. Measured side by side in one
run, best of `--repeat`, on the example block and a small BERT (nothing to
tunnel: against stock mode), and on that BERT with one, then three, ops
TorchToTosa cannot lower added after it (stock mode fails there: against the
same ops listed by hand, the list a user would otherwise have to guess).
"lowering" is compile()'s stages after import (tunnel, torch-mlir's
pipelines, TOSA, validation); "compile" is the whole call, export included.

    python benchmarks/auto_mode.py [--repeat 3]
"""

from __future__ import annotations

import argparse
import time
import warnings

import torch
from _models import bert

import tosa_custom
from tosa_custom.frontend.attempt import Attempt
from tosa_custom.tools.example import TransformerBlock

_STAGES = ("to_contract", "check_kept", "to_tosa", "check_target")
_spent: list[float] = []


def _instrument() -> None:
    """Add the time of the lowering stages of each compile() to `_spent[-1]`."""
    for name in _STAGES:
        original = getattr(Attempt, name)

        def timed(self, *args, _original=original, **kw):
            start = time.perf_counter()
            try:
                return _original(self, *args, **kw)
            finally:
                _spent[-1] += time.perf_counter() - start

        setattr(Attempt, name, timed)


def _measure(model, args, ops, repeat: int) -> tuple[float, float]:
    """Best (whole compile, lowering stages) of `repeat` compiles, after a warm-up."""
    best_total = best_lowering = float("inf")
    for i in range(repeat + 1):
        _spent.append(0.0)
        start = time.perf_counter()
        tosa_custom.compile(model, args, backend_legal_ops=ops)
        total = time.perf_counter() - start
        if i:
            best_total, best_lowering = min(best_total, total), min(best_lowering, _spent[-1])
    return best_total, best_lowering


def _cases():
    torch.manual_seed(0)
    several = ["aten.atan2", "aten.cumprod", "aten.erfinv"]
    return [
        ("example block", (TransformerBlock().eval(), (torch.randn(2, 8, 32),)), None),
        ("BERT 2 layers", bert(), None),
        ("BERT + atan2", bert(extra=lambda h: torch.atan2(h, h + 2)), ["aten.atan2"]),
        ("BERT + 3 ops", bert(extra=lambda h: torch.atan2(torch.cumprod(h, -1), torch.erfinv(h.tanh() * 0.5))),
         several),
    ]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=3)
    repeat = parser.parse_args().repeat
    warnings.simplefilter("ignore")
    _instrument()
    print(f"{'model':<16}{'baseline':>10}{'lowering (s)':>14}{'auto (s)':>10}{'ratio':>7}"
          f"{'compile (s)':>13}{'auto (s)':>10}{'ratio':>7}")
    for name, (model, args), listed in _cases():
        base_total, base_lowering = _measure(model, args, listed, repeat)
        auto_total, auto_lowering = _measure(model, args, "auto", repeat)
        print(f"{name:<16}{'listed' if listed else 'stock':>10}{base_lowering:>14.3f}{auto_lowering:>10.3f}"
              f"{auto_lowering / base_lowering:>7.2f}{base_total:>13.3f}{auto_total:>10.3f}"
              f"{auto_total / base_total:>7.2f}")


if __name__ == "__main__":
    main()
