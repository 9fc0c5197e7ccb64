"""Where the seconds of compile() and load() go, stage by stage, next to
torch-mlir's own path, cold and from the compiled-code cache (issue 42).

Per model (random weights; vision models at 1x3x64x64) and mode (stock: no
op kept; auto: what TorchToTosa cannot take is tunneled), each measurement
in a fresh process, with a compiled-code cache of its own for the run:
- ours, cold: `tosa_custom.compile` then `tosa_custom.runtime.load` (the
  load stores its code in the cache);
- ours, cached: a second process parses the same module (saved as bytecode
  by the first) and loads it: the cache's hit;
- torch-mlir: `torch_mlir.fx.export_and_import(..., output_type="tosa")`
  (with PyTorch's own torch.export functions: the two this package
  replaces on import, frontend/decomposition_cost.py, are put back first),
  then what its reference backend does (the wheel ships no
  torch_mlir_e2e_test): TOSA to linalg on tensors, bufferized, naive loops,
  LLVM dialect (upstream passes only), and MLIR's ExecutionEngine (-O2).

Stages, timed by wrapping the library entry points (whatever calls them):
export = `torch.export.export` + `run_decompositions`; import = the FX
importer; passes = our pass pipelines in compile() (core.passes'
PassManager runs; for torch-mlir, the rest of export_and_import); lowering =
the pass pipelines of load(); LLVM = the ExecutionEngine's creation,
initialization and first lookups, or the compiling processes and the link
of their objects (runtime/compiled/parallel.py); other = the rest (binding kernels,
linking and storing the cached code, checks). A run's "total" is compile +
load; "cached" is a cached load alone (parse of the saved bytecode not
included). The table also checks that each program computes what eager does.

    python benchmarks/latency.py [--models block,resnet18,mobilenet_v3_small] [--modes stock,auto]
                                 [--no-torch-mlir] [--no-cached] [--rounds N]

Models: block (the example TransformerBlock), bert (a 2-layer random BERT),
and torchvision's resnet18, mobilenet_v2, mobilenet_v3_small,
efficientnet_b0, densenet121, regnet_y_400mf (skipped, with a note, without
torchvision).
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import platform
import subprocess
import sys
import tempfile
import time
import warnings

DEFAULT_MODELS = ("block", "resnet18", "mobilenet_v3_small")
VISION = ("resnet18", "mobilenet_v2", "mobilenet_v3_small", "efficientnet_b0", "densenet121", "regnet_y_400mf")
STAGES = ("export", "import", "passes", "compile", "lowering", "llvm", "other", "load")

# torch-mlir's TOSA reference path: its TOSA backend's func passes, then a
# bufferize-and-loops lowering to the LLVM dialect as its reference backend
# does, with upstream passes (and refback-munge-memref-copy: the wheel has no
# runner-utils library for memrefCopy).
_TORCH_MLIR_LOWERING = "builtin.module(" + ",".join([
    "func.func(tosa-to-arith,tosa-to-scf,tosa-to-linalg-named,tosa-to-linalg,tosa-to-tensor,tosa-to-arith)",
    "func.func(linalg-generalize-named-ops)", "func.func(linalg-fuse-elementwise-ops)",
    "one-shot-bufferize{bufferize-function-boundaries function-boundary-type-conversion=identity-layout-map}",
    "buffer-results-to-out-params{hoist-static-allocs modify-public-functions}",
    "buffer-deallocation-pipeline", "func.func(refback-munge-memref-copy)", "func.func(convert-linalg-to-loops)",
    "func.func(llvm-request-c-wrappers)", "expand-strided-metadata", "lower-affine", "convert-scf-to-cf",
    "finalize-memref-to-llvm", "convert-math-to-llvm", "convert-math-to-libm", "convert-arith-to-llvm",
    "convert-index-to-llvm", "convert-ub-to-llvm", "convert-func-to-llvm", "convert-cf-to-llvm",
    "reconcile-unrealized-casts",
]) + ")"


# --- In the measuring process.


class Stopwatch:
    """Seconds per stage, taken by wrapping the entry points each stage
    goes through; a stage nested in another counts once (the outermost)."""

    def __init__(self):
        self.spent: dict[str, float] = {}
        self.phase = "compile"  # our pass pipelines count as "passes" in compile(), "lowering" in load()
        self._depth = 0

    def timed(self, stage, fn):
        def wrapper(*args, **kwargs):
            name = stage() if callable(stage) else stage
            if self._depth:
                return fn(*args, **kwargs)
            self._depth += 1
            start = time.perf_counter()
            try:
                return fn(*args, **kwargs)
            finally:
                self._depth -= 1
                self.spent[name] = self.spent.get(name, 0.0) + time.perf_counter() - start
        return wrapper

    def install(self) -> None:
        import torch
        from torch_mlir import execution_engine
        from torch_mlir.extras import fx_importer

        from tosa_custom.core import passes

        torch.export.export = self.timed("export", torch.export.export)
        cls = torch.export.ExportedProgram
        cls.run_decompositions = self.timed("export", cls.run_decompositions)
        for name in ("import_frozen_program", "import_program"):
            setattr(fx_importer.FxImporter, name, self.timed("import", getattr(fx_importer.FxImporter, name)))
        watch, build = self, passes.build_pass_manager

        class Timed:
            def __init__(self, pm):
                self._pm = pm

            def run(self, op):
                return watch.timed(lambda: "passes" if watch.phase == "compile" else "lowering", self._pm.run)(op)

            def __getattr__(self, name):  # enable_verifier and the rest, as they are
                return getattr(self._pm, name)

        passes.build_pass_manager = lambda *a, **k: Timed(build(*a, **k))

        class Engine(execution_engine.ExecutionEngine):
            def __init__(self, *args, **kwargs):
                watch.timed("llvm", super().__init__)(*args, **kwargs)

            def initialize(self):
                watch.timed("llvm", super().initialize)()

            def raw_lookup(self, name):
                return watch.timed("llvm", super().raw_lookup)(name)

        execution_engine.ExecutionEngine = Engine
        # A large program's LLVM code compiled by worker processes, and their objects linked.
        from tosa_custom.runtime.compiled import compiled_code, parallel

        parallel.compile_objects = self.timed("llvm", parallel.compile_objects)
        compiled_code.link_objects = self.timed("llvm", compiled_code.link_objects)

    def stage(self, name: str) -> float:
        return self.spent.get(name, 0.0)


def _torchvision():
    """torchvision, or None: installed into build/ and imported from there
    (tosa_custom.e2e.vision says why never into the venv)."""
    from tosa_custom.e2e import vision

    try:
        return vision.torchvision()
    except vision.TorchvisionUnavailable:
        return None


def _model(name: str):
    """The model and its example inputs, seeded."""
    import torch

    torch.manual_seed(0)
    if name == "block":
        from tosa_custom.tools.example import TransformerBlock, example_inputs

        return TransformerBlock().eval(), tuple(example_inputs())
    if name == "bert":
        from _models import bert

        return bert()
    return getattr(_torchvision().models, name)().eval(), (torch.randn(1, 3, 64, 64),)


def _max_diff(got, expected) -> float:
    import torch

    got = got if isinstance(got, (tuple, list)) else [got]
    expected = expected if isinstance(expected, (tuple, list)) else [expected]
    return max(float((torch.as_tensor(g) - e).abs().max()) for g, e in zip(got, expected))


def _ours(job: dict) -> dict:
    import torch

    import tosa_custom
    import tosa_custom.runtime  # noqa: F401 - imported before the clock, as torch-mlir's path imports its own

    watch = Stopwatch()
    watch.install()
    model, args = _model(job["model"])
    ops = "auto" if job["mode"] == "auto" else None
    start = time.perf_counter()
    module = tosa_custom.compile(model, args, backend_legal_ops=ops)
    compiled = time.perf_counter() - start
    tosa_custom.save(module, job["save"])
    watch.phase = "load"
    start = time.perf_counter()
    program = tosa_custom.runtime.load(module)
    loaded = time.perf_counter() - start
    with torch.no_grad():
        diff = _max_diff(program(*args), model(*args))
    return {**_split(watch, compiled, loaded), "cache": program.cache.status, "key": program.cache.key, "diff": diff}


def _split(watch: Stopwatch, compiled: float, loaded: float) -> dict:
    out = {name: watch.stage(name) for name in ("export", "import", "passes", "lowering", "llvm")}
    out["compile"], out["load"] = compiled, loaded
    out["other"] = loaded - out["lowering"] - out["llvm"]
    return out


def _cached(job: dict) -> dict:
    import torch
    from torch_mlir import ir

    import tosa_custom
    from tosa_custom.core import ir as _ir

    model, args = _model(job["model"])
    with open(job["save"], "rb") as f:
        module = ir.Module.parse(f.read(), _ir.make_context())
    start = time.perf_counter()
    program = tosa_custom.runtime.load(module)
    loaded = time.perf_counter() - start
    with torch.no_grad():
        diff = _max_diff(program(*args), model(*args))
    return {"load": loaded, "cache": program.cache.status, "reason": program.cache.reason, "key": program.cache.key,
            "diff": diff}


def _torch_mlir(job: dict) -> dict:
    from torch_mlir import execution_engine, fx, passmanager

    from tosa_custom.frontend import decomposition_cost

    watch = Stopwatch()
    watch.install()
    model, args = _model(job["model"])
    # Importing this package replaced two of torch.export's fixed costs
    # (frontend/decomposition_cost.py): torch-mlir's users run without them.
    decomposition_cost.uninstall()
    start = time.perf_counter()
    module = fx.export_and_import(model, *args, output_type="tosa", func_name="main")
    compiled = time.perf_counter() - start
    start = time.perf_counter()
    with module.context:
        lowering_start = time.perf_counter()
        passmanager.PassManager.parse(_TORCH_MLIR_LOWERING).run(module.operation)
        lowering = time.perf_counter() - lowering_start
        engine = execution_engine.ExecutionEngine(module, opt_level=2)
        engine.lookup("main")
    loaded = time.perf_counter() - start
    out = _split(watch, compiled, loaded)
    out["passes"] = compiled - out["export"] - out["import"]  # torch-mlir's own pipelines
    out["lowering"], out["other"] = lowering, loaded - lowering - out["llvm"]
    return out


def _child(job: dict) -> None:
    import torch

    warnings.simplefilter("ignore")
    torch.set_num_threads(1)  # the compiled code is single-threaded; eager (the check) and export alike
    runs = {"ours": _ours, "cached": _cached, "torch-mlir": _torch_mlir}
    try:
        result = runs[job["kind"]](job)
    except Exception as e:  # a failure is a row of the table, not the end of the run
        result = {"error": f"{type(e).__name__}: {str(e).splitlines()[0][:150] if str(e) else ''}"}
    print("RESULT " + json.dumps(result))


# --- The driver.


def _run(job: dict, cache_dir: str) -> dict:
    env = {**os.environ, "TOSA_CUSTOM_CACHE": "1", "TOSA_CUSTOM_CACHE_DIR": cache_dir}
    done = subprocess.run([sys.executable, __file__, "--child", json.dumps(job)], capture_output=True, text=True,
                          env=env, cwd=os.path.dirname(os.path.abspath(__file__)))
    lines = [line for line in done.stdout.splitlines() if line.startswith("RESULT ")]
    if not lines:
        return {"error": f"exit {done.returncode}: {done.stderr.strip().splitlines()[-1:] or ['?']}"[:200]}
    return json.loads(lines[-1][len("RESULT "):])


def _row(model: str, path: str, r: dict, cached: dict | None) -> str:
    head = f"{model:<20}{path:<12}"
    if "error" in r:
        return head + "failed: " + r["error"]
    cells = "".join(f"{r.get(s, 0.0):>9.2f}" for s in STAGES)
    total = r["compile"] + r["load"]
    hit = "" if cached is None else (
        f"{cached['load']:>9.2f} ({cached['cache']}{_why_not_hit(r, cached)})" if "error" not in cached
        else f"  failed: {cached['error']}")
    diff = f"{r['diff']:>9.1e}" if "diff" in r else f"{'':>9}"
    return head + cells + f"{total:>9.2f}{diff}" + hit


def _why_not_hit(cold: dict, cached: dict) -> str:
    """Why the cached load did not hit the entry the cold run stored: its reason, or that the keys differ."""
    if cached["cache"] == "hit":
        return ""
    if cached.get("reason"):
        return ": " + cached["reason"][:120]
    if cold.get("cache") != "stored":
        return f": the cold run's code was not stored ({cold.get('cache')})"
    return ": another key than the cold run's" if cold.get("key") != cached.get("key") else ": same key, not found"


def _host() -> str:
    from tosa_custom.runtime.compiled.cpu import host_cpu

    cpu = host_cpu()
    return f"{cpu.host.model_name or platform.processor()} ({cpu.describe()}), {os.cpu_count()} cores"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--models", default=",".join(DEFAULT_MODELS))
    parser.add_argument("--modes", default="stock,auto")
    parser.add_argument("--no-torch-mlir", action="store_true")
    parser.add_argument("--no-cached", action="store_true")
    parser.add_argument("--rounds", type=int, default=1,
                        help="measure each path this many times, alternating their order (row: the median)")
    parser.add_argument("--child", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        return _child(json.loads(args.child))
    print(f"host: {_host()}; load average {os.getloadavg()[0]:.1f}")
    print(f"{'model':<20}{'path':<12}" + "".join(f"{s:>9}" for s in STAGES) + f"{'total':>9}{'max diff':>9}"
          + f"{'cached':>9}")
    models = [m for m in args.models.split(",") if m]
    if any(m in VISION for m in models) and _torchvision() is None:
        print(f"(torchvision is not installed: {', '.join(m for m in models if m in VISION)} left out)")
        models = [m for m in models if m not in VISION]
    with tempfile.TemporaryDirectory(prefix="tosa_custom_latency_") as scratch:
        for model in models:
            _measure_model(model, args, scratch)
    print(f"load average {os.getloadavg()[0]:.1f}")


def _measure_model(model: str, args, scratch: str) -> None:
    """Each path `--rounds` times, alternating which goes first (a host's
    load drifts: the path measured first would take the drift). A path's
    row is its round of median total; with several rounds, a line gives
    every round's total and the median of the per-round ratios to torch-mlir."""
    modes = [m for m in args.modes.split(",") if m]
    paths = modes + ([] if args.no_torch_mlir else ["torch-mlir"])
    results: dict[str, list] = {path: [] for path in paths}
    for r in range(args.rounds):
        for path in paths if r % 2 == 0 else paths[::-1]:
            results[path].append(_measure_path(model, path, args, os.path.join(scratch, f"round{r}")))
    for path in paths:
        ok = [x for x in results[path] if "error" not in x[0]] or results[path]
        result, cached = sorted(ok, key=lambda x: _total(x[0]))[len(ok) // 2]
        print(_row(model, path, result, cached), flush=True)
    if args.rounds > 1:
        print(_rounds(model, results), flush=True)


def _measure_path(model: str, path: str, args, scratch: str) -> tuple[dict, dict | None]:
    """One cold run of a path (and, for ours, the cached load after it), each with a cache of its own."""
    os.makedirs(scratch, exist_ok=True)
    if path == "torch-mlir":
        return _run({"model": model, "kind": "torch-mlir"}, scratch), None
    cache_dir = os.path.join(scratch, f"{model}-{path}-cache")
    job = {"model": model, "mode": path, "save": os.path.join(scratch, f"{model}-{path}.mlirbc")}
    result = _run({**job, "kind": "ours"}, cache_dir)
    return result, (None if args.no_cached or "error" in result else _run({**job, "kind": "cached"}, cache_dir))


def _total(r: dict) -> float:
    return r["compile"] + r["load"] if "error" not in r else float("inf")


def _rounds(model: str, results: dict[str, list]) -> str:
    totals = {path: [_total(r) for r, _ in runs] for path, runs in results.items()}
    line = f"  {model} per round: " + "; ".join(
        f"{path} " + " ".join(f"{t:.2f}" for t in values) for path, values in totals.items())
    base = totals.get("torch-mlir")
    for path, values in totals.items():
        if base and path != "torch-mlir":
            ratios = sorted(v / b for v, b in zip(values, base) if b not in (0, float("inf")) and v != float("inf"))
            if ratios:
                line += f"; {path}/torch-mlir median {ratios[len(ratios) // 2]:.2f} (of {len(ratios)})"
    return line


if __name__ == "__main__":
    with contextlib.suppress(KeyboardInterrupt):
        main()
