"""A dynamic transformer's load against the same program compiled static
(issue 41: within 3x).

For each architecture of the real-model list (tosa_custom.e2e.architectures)
and mode, one compile with a dynamic batch (1..4) and sequence length
(1..32) and one at the example's sizes (2x8); each module loaded by
`runtime.load` with the compiled-code cache off, the two loads alternated
over `--rounds` rounds in this one process (load from other processes hits
both alike), the best of each reported with its ratio; both programs are
checked against eager at 2x8 first. The host's CPU and load average are
printed. Usage:

    python benchmarks/dynamic_load.py [--architectures bert,gpt2,llama] [--modes selective,stock] [--rounds 2]

By default every architecture (about 6 minutes on 2 cores).
"""

from __future__ import annotations

import argparse
import os
import sys
import time
import warnings

os.environ["TOSA_CUSTOM_CACHE"] = "0"  # every load compiles: the cache would make the second round free

import torch
from torch.export import Dim
from torch_mlir import ir

import tosa_custom
from tosa_custom import runtime
from tosa_custom.core import ir as _ir
from tosa_custom.e2e.architectures import ARCHITECTURES, MAX_POSITIONS, architecture, token_inputs
from tosa_custom.runtime.compiled.cpu import host_cpu

TARGET = 3.0


def _modules(name: str, mode: str) -> tuple[dict[str, str], torch.nn.Module]:
    model, selective = architecture(name, "sdpa")
    legal = {"selective": selective, "stock": None, "auto": "auto"}[mode]
    dims = {0: Dim("batch", min=1, max=4), 1: Dim("seq", min=1, max=MAX_POSITIONS)}
    texts = {}
    for kind, spec in (("static", None), ("dynamic", {"input_ids": dims, "attention_mask": dims})):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            texts[kind] = str(tosa_custom.compile(model, token_inputs(2, 8), backend_legal_ops=legal,
                                                  dynamic_shapes=spec))
    return texts, model


def bench(name: str, mode: str, rounds: int) -> tuple[bool, float]:
    texts, model = _modules(name, mode)
    best = dict.fromkeys(texts, float("inf"))
    ok = True
    for r in range(rounds):
        for kind, text in texts.items():
            module = ir.Module.parse(text, _ir.make_context())
            t = time.perf_counter()
            program = runtime.load(module)
            best[kind] = min(best[kind], time.perf_counter() - t)
            if r == 0:
                args = token_inputs(2, 8)
                with torch.no_grad():
                    error = (program(*args) - model(*args)).abs().max().item()
                if error > 1e-4:
                    print(f"  WRONG: {name} {mode} {kind}: max |difference| from eager {error:.3g}")
                    ok = False
    ratio = best["dynamic"] / best["static"]
    print(f"{name:<14}{mode:<11}{best['static']:>9.1f} s{best['dynamic']:>9.1f} s{ratio:>9.2f}x "
          f"{'met' if ratio <= TARGET else 'NOT met'}", flush=True)
    return ok, ratio


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--architectures", default=",".join(ARCHITECTURES))
    parser.add_argument("--modes", default="selective,stock")
    parser.add_argument("--rounds", type=int, default=2)
    args = parser.parse_args()
    torch.set_num_threads(1)
    cpu = host_cpu()
    print(f"host: {cpu.host.model_name} ({cpu.describe()}), {os.cpu_count()} cores; "
          f"load average {os.getloadavg()[0]:.1f}")
    print(f"{'model':<14}{'mode':<11}{'static':>11}{'dynamic':>11}{'ratio':>10} (target <= {TARGET:.0f}x)")
    ok = True
    for name in args.architectures.split(","):
        for mode in args.modes.split(","):
            good, _ = bench(name, mode, args.rounds)
            ok &= good
    print(f"load average {os.getloadavg()[0]:.1f}")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
