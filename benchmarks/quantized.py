"""PT2E-quantized models as integer TOSA, against their float originals and
PT2E eager, on our runtime and IREE, side by side in one run (issue 38 part 7).

Models: an MLP (32 -> 256 -> 256 -> 10, batch 64) and torchvision's
MobileNetV2 (random weights, 1 x 3 x 64 x 64; left out when torchvision
cannot be had, see tosa_custom.e2e.vision), quantized with torchao's
XNNPACK-style config (weights per channel, calibrated on 8 random batches).
Engines, all single-threaded (`torch.set_num_threads(1)`, IREE threads=1):

  eager f32     the float model in eager PyTorch;
  eager pt2e    the convert_pt2e model in eager PyTorch (float kernels
                between quantize/dequantize: what PT2E users run on a CPU
                without a backend);
  runtime f32 / runtime int8   tosa_custom.runtime.load of compile() of each;
  iree f32 / iree int8         tosa_custom.iree.load(threads=1) of the same TOSA.

Calls are taken in turns (`rounds` rounds of `calls` calls per engine, the
first `warmup` of each turn not counted) so the engines share the host's
load as it drifts; the median wall time per call is reported, each engine's
ratio to eager f32 and int8's to f32 on the same engine, and GFLOP/s (the
float model's FLOPs, counted by torch's FlopCounterMode; the same count for
the int8 model, whose MACs are the same) against the host's measured FP32
peak (benchmarks/runtime.py's). The int8 answers are checked against PT2E
eager (within 1 LSB in >= 99% of the elements, as test/quant does); exit 1
otherwise. Usage: `python benchmarks/quantized.py [--models mlp,mobilenet_v2]`.

`--table` prints instead issue 38's models x modes x executors table: each
model of tosa_custom.e2e.quantized_models (an MLP, a small CNN, a transformer
block, MobileNetV2, ResNet18; `--models` picks) compiled in stock,
selective, auto and dummy mode and run on our runtime, IREE and the TOSA
reference model, on one input: the share of elements within 1 LSB of PT2E
eager and of PT2E's graph in float64, the same top-1 class or not ("match"
as test/quant/test_quantized_models.py holds it), strict pro_int with no
float tensor inside or not, and the reference model equal to the runtime
bit for bit or not. A refusal (compile() or an executor's) is shown with
its category and first line. Usage: `python benchmarks/quantized.py --table`.
"""

from __future__ import annotations

import argparse
import importlib.util
import os
import statistics
import sys
import time
import warnings

# benchmarks/iree.py, first on sys.path with this folder, would shadow IREE's own package.
_HERE = os.path.dirname(os.path.abspath(__file__))
sys.path[:] = [p for p in sys.path if os.path.abspath(p or ".") != _HERE]

import torch  # noqa: E402

import tosa_custom  # noqa: E402
from tosa_custom.e2e import vision  # noqa: E402
from tosa_custom.e2e.quantized import check_integer, in_float64, output_scale, quantize  # noqa: E402
from tosa_custom import iree  # noqa: E402
from tosa_custom import runtime as tc_runtime  # noqa: E402
from tosa_custom.runtime.compiled.cpu import cpu_target  # noqa: E402


def _describe_host(cpus):
    """benchmarks/runtime.py's: the host's CPU and each plan's measured FP32 peak."""
    spec = importlib.util.spec_from_file_location("benchmarks_runtime", os.path.join(_HERE, "runtime.py"))
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module.describe_host(cpus)


def _mlp():
    torch.manual_seed(0)
    net = torch.nn.Sequential(torch.nn.Linear(32, 256), torch.nn.ReLU(), torch.nn.Linear(256, 256),
                              torch.nn.ReLU(), torch.nn.Linear(256, 10))
    return net.eval(), (torch.randn(64, 32),)


def _mobilenet_v2():
    try:
        tv = vision.torchvision()
    except vision.TorchvisionUnavailable:
        return None
    torch.manual_seed(0)
    return tv.models.mobilenet_v2(weights=None).eval(), (torch.randn(1, 3, 64, 64),)


MODELS = {"mlp": _mlp, "mobilenet_v2": _mobilenet_v2}


def flops(model, args) -> int:
    from torch.utils.flop_counter import FlopCounterMode
    with torch.no_grad(), FlopCounterMode(display=False) as counter:
        model(*args)
    return counter.get_total_flops()


def _within_lsb(got, want, scale: float) -> float:
    return ((got - want).abs() <= scale * (1 + 1e-6)).float().mean().item()


def engines(model, qm, args) -> tuple[dict, float]:
    """name -> a no-argument call; and the int8 output's scale."""
    f32 = tosa_custom.compile(model, args)
    int8 = tosa_custom.compile(qm, args)
    scale = output_scale(int8)[0]
    from tosa_custom.core.ir import make_context, parse_module
    texts = {"f32": f32.operation.get_asm(binary=True), "int8": int8.operation.get_asm(binary=True)}
    fresh = lambda kind: parse_module(texts[kind], make_context())  # noqa: E731 - loading lowers the module in place
    programs = {"runtime f32": tc_runtime.load(fresh("f32")), "runtime int8": tc_runtime.load(fresh("int8")),
                "iree f32": iree.load(fresh("f32"), threads=1), "iree int8": iree.load(fresh("int8"), threads=1)}
    calls = {"eager f32": lambda: model(*args), "eager pt2e": lambda: qm(*args)}
    calls.update({name: (lambda p=p: p(*args)) for name, p in programs.items()})
    return calls, scale


def interleaved(calls: dict, rounds: int, per_turn: int, warmup: int) -> dict[str, float]:
    walls = {k: [] for k in calls}
    for _ in range(rounds):
        for name, call in calls.items():
            for i in range(warmup + per_turn):
                start = time.perf_counter()
                call()
                if i >= warmup:
                    walls[name].append(time.perf_counter() - start)
    return {k: statistics.median(v) for k, v in walls.items()}


def bench(name: str, rounds: int, per_turn: int, peak: float | None) -> bool:
    made = MODELS[name]()
    if made is None:
        print(f"{name}: torchvision cannot be had here, left out")
        return True
    model, args = made
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        qm = quantize(model, args, "per-channel")
        calls, scale = engines(model, qm, args)
    want = qm(*args)
    ok = True
    for engine in ("runtime int8", "iree int8"):
        within = _within_lsb(calls[engine](), want, scale)
        ok &= within >= 0.99
        print(f"{name}: {engine} within 1 LSB of PT2E eager in {within:.2%} of the elements")
    count = flops(model, args)
    with torch.no_grad():
        times = interleaved(calls, rounds, per_turn, warmup=3)
    print(f"{name}: {count / 1e6:.1f} MFLOP per call; median of {rounds} x {per_turn} calls per engine, in turns")
    print(f"  {'engine':<14}{'ms':>9}{'/eager f32':>12}{'/its f32':>10}{'GFLOP/s':>9}{'% peak':>8}")
    for engine, t in times.items():
        base = engine.replace("int8", "f32").replace("pt2e", "f32")
        rate = count / t / 1e9
        share = f"{100 * rate * 1e9 / peak:7.1f}%" if peak else "      -"
        print(f"  {engine:<14}{t * 1e3:9.3f}{t / times['eager f32']:11.2f}x{t / times[base]:9.2f}x"
              f"{rate:9.2f}{share}")
    return ok


MODES = ("stock", "selective", "auto", "dummy")
EXECUTORS = ("runtime", "iree", "refmodel")


def _legal_ops(spec, mode: str):
    return {"stock": None, "selective": list(spec.selective), "auto": "auto", "dummy": ["*"]}[mode]


def _refusal(e: BaseException) -> str:
    """An error's category (or type, for one we did not raise) and first line."""
    kind = getattr(e, "category", None) or type(e).__name__
    text = str(e).strip()
    text = text.rsplit("error: ", 1)[-1]  # a diagnostic's own words, after its location
    return f"{kind}: {(text.splitlines() or [''])[0][:160]}"


def _failed(e: BaseException) -> str:
    """"refused" for our errors (they carry a category), "error" for any other exception."""
    return "refused" if getattr(e, "category", None) else "error"


def _cell(got, want, exact, eager_itself: float, scale: float) -> tuple[str, str]:
    """(status, detail) of one executor's output: the same top-1 class as PT2E
    eager and >= 99% of the elements within 1 LSB of it, or, where eager's
    own float32 rounding leaves eager itself less close to PT2E's arithmetic
    in float64 (`eager_itself`; ResNet18: 92%), within 1 LSB of float64 in
    >= 99% and of eager as often as eager is of float64 (test_quantized_models'
    bound). Dummy mode computes each op in float32 as eager does, so it meets
    the first; the integer lowering computes exactly, so it meets the second."""
    eager, f64 = _within_lsb(got, want, scale), _within_lsb(got, exact, scale)
    top1 = torch.equal(got.argmax(-1), want.argmax(-1))
    ok = top1 and (eager >= 0.99 or (f64 >= 0.99 and eager >= eager_itself - 0.01))
    return ("match" if ok else "mismatch"), f"{eager:.2%} eager, {f64:.2%} f64, top-1 {'same' if top1 else 'DIFFERS'}"


def table_rows(name: str, spec, qm, x):
    """Yields (model, mode, executor, status, detail, strict pro_int, = runtime) per mode and executor."""
    from tosa_custom.core.ir import make_context, parse_module
    want, exact = qm(x), in_float64(qm, x)
    loaders = {"runtime": tc_runtime.load, "iree": iree.load, "refmodel": tosa_custom.refmodel.load}
    for mode in MODES:
        try:
            module = tosa_custom.compile(qm, (x,), backend_legal_ops=_legal_ops(spec, mode))
        except Exception as e:  # noqa: BLE001 - each refusal is a cell of the table
            yield from [(name, mode, ex, _failed(e), f"compile: {_refusal(e)}", "-", "-") for ex in EXECUTORS]
            continue
        try:
            check_integer(module)
            strict = "yes"
        except AssertionError as e:
            strict = f"no ({str(e)[:60]})"
        scale = output_scale(module)[0]
        eager_itself = _within_lsb(want, exact, scale)
        text, outs = module.operation.get_asm(binary=True), {}
        kept = f"{len(tosa_custom.custom_ops(module))} kept; "
        for ex in EXECUTORS:
            try:
                outs[ex] = loaders[ex](parse_module(text, make_context()))(x)
            except Exception as e:  # noqa: BLE001
                yield name, mode, ex, _failed(e), _refusal(e), strict, "-"
                continue
            status, detail = _cell(outs[ex], want, exact, eager_itself, scale)
            same = "-" if ex == "runtime" or "runtime" not in outs else \
                ("yes" if torch.equal(outs[ex], outs["runtime"]) else "NO")
            yield name, mode, ex, status, kept + detail, strict, same


def table(models: list[str]) -> bool:
    """Prints the table; True when every model ran (a refusal is a cell, not a failure of the script)."""
    from tosa_custom.e2e.quantized_models import MODELS
    from tosa_custom.e2e.vision import TorchvisionUnavailable
    print(f"{'model':<13}{'mode':<10}{'executor':<9}{'status':<9}{'strict':<7}{'=runtime':<9}detail")
    for name in models:
        spec = MODELS[name]
        torch.manual_seed(0)
        try:
            model = spec.make()
        except TorchvisionUnavailable as e:
            print(f"{name:<13}left out: {e}")
            continue
        args = (torch.randn(spec.shape),)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            qm = quantize(model, args, spec.quantizer())
            x = torch.randn(spec.shape) * 2
            for row in table_rows(name, spec, qm, x):
                print(f"{row[0]:<13}{row[1]:<10}{row[2]:<9}{row[3]:<9}{row[5]:<7}{row[6]:<9}{row[4]}", flush=True)
    return True


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--models", default=None, help="default: mlp,mobilenet_v2; with --table, all five")
    parser.add_argument("--table", action="store_true", help="the models x modes x executors table instead")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--calls", type=int, default=20, help="counted calls per engine per round")
    args = parser.parse_args(argv)
    torch.set_num_threads(1)
    if args.table:
        from tosa_custom.e2e.quantized_models import MODELS
        return 0 if table([m.strip() for m in (args.models or ",".join(MODELS)).split(",") if m.strip()]) else 1
    peak = _describe_host([cpu_target("host")]).get(cpu_target("host").name)
    print(f"load average before: {os.getloadavg()[0]:.2f}")
    ok = all([bench(m.strip(), args.rounds, args.calls, peak) for m in (args.models or "mlp,mobilenet_v2").split(",") if m.strip()])
    print(f"load average after: {os.getloadavg()[0]:.2f}")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
