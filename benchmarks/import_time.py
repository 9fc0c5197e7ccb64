"""What a `compile()` costs before it compiles: importing tosa_custom, and what
the first compile() loads, each in a fresh process, side by side.

Prints, per run (median of N fresh processes): the time of `import
tosa_custom`, of the first `compile()` of a small module with gelu kept, the
number of tosa_custom modules loaded, and whether the runtime or MLIR's
ExecutionEngine was loaded (they should not be: compile() needs neither).

    python benchmarks/import_time.py [--runs N]
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys

_PROBE = r"""
import json, sys, time, warnings
warnings.simplefilter("ignore")
t0 = time.perf_counter()
import tosa_custom
t1 = time.perf_counter()
import torch
class M(torch.nn.Module):
    def forward(self, x):
        return torch.nn.functional.gelu(x) + 1
x = torch.randn(2, 3)
t2 = time.perf_counter()
tosa_custom.compile(M().eval(), (x,), backend_legal_ops=["aten.gelu"])
t3 = time.perf_counter()
print(json.dumps({"import": t1 - t0, "compile": t3 - t2,
                  "modules": sum(m.startswith("tosa_custom") for m in sys.modules),
                  "runtime": any(m.startswith("tosa_custom.runtime") for m in sys.modules),
                  "engine": "torch_mlir.execution_engine" in sys.modules}))
"""


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--python", default=sys.executable, help="the interpreter (and so the install) to measure")
    args = parser.parse_args()
    runs = [json.loads(subprocess.run([args.python, "-c", _PROBE], check=True, capture_output=True,
                                      text=True).stdout.splitlines()[-1]) for _ in range(args.runs)]
    print(f"import tosa_custom   {statistics.median(r['import'] for r in runs):.3f} s (median of {args.runs})")
    print(f"first compile()      {statistics.median(r['compile'] for r in runs):.3f} s")
    print(f"tosa_custom modules  {runs[-1]['modules']}")
    print(f"runtime loaded       {runs[-1]['runtime']}")
    print(f"ExecutionEngine      {runs[-1]['engine']}")


if __name__ == "__main__":
    main()
