"""PT2E-quantized models as integer TOSA, against their float originals and
PT2E eager, on our runtime and IREE, side by side in one run (issue 38 part 7).

Models: an MLP (32 -> 256 -> 256 -> 10, batch 64) and torchvision's
MobileNetV2 (random weights, 1 x 3 x 64 x 64; left out when torchvision
cannot be had, see test/_torchvision.py), quantized with torchao's
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
from tosa_custom import iree  # noqa: E402
from tosa_custom import runtime as tc_runtime  # noqa: E402
from tosa_custom.runtime.compiled.cpu import cpu_target  # noqa: E402


def _describe_host(cpus):
    """benchmarks/runtime.py's: the host's CPU and each plan's measured FP32 peak."""
    spec = importlib.util.spec_from_file_location("benchmarks_runtime", os.path.join(_HERE, "runtime.py"))
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module.describe_host(cpus)


def _torchvision():
    test_dir = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "test")
    if test_dir not in sys.path:
        sys.path.append(test_dir)
    import _torchvision

    try:
        return _torchvision.torchvision()
    except BaseException as e:  # noqa: BLE001 - the helper skips (pytest's Skipped) when it cannot be had
        if type(e).__name__ != "Skipped":
            raise
        return None


def _mlp():
    torch.manual_seed(0)
    net = torch.nn.Sequential(torch.nn.Linear(32, 256), torch.nn.ReLU(), torch.nn.Linear(256, 256),
                              torch.nn.ReLU(), torch.nn.Linear(256, 10))
    return net.eval(), (torch.randn(64, 32),)


def _mobilenet_v2():
    tv = _torchvision()
    if tv is None:
        return None
    torch.manual_seed(0)
    return tv.models.mobilenet_v2(weights=None).eval(), (torch.randn(1, 3, 64, 64),)


MODELS = {"mlp": _mlp, "mobilenet_v2": _mobilenet_v2}


def quantize(model, args):
    from torchao.quantization.pt2e import quantize_pt2e
    from torchao.testing.pt2e import _xnnpack_quantizer as xnn

    torch.manual_seed(0)
    m = torch.export.export(model, args).module(check_guards=False)
    quantizer = xnn.XNNPACKQuantizer().set_global(xnn.get_symmetric_quantization_config(is_per_channel=True))
    m = quantize_pt2e.prepare_pt2e(m, quantizer)
    for _ in range(8):
        m(*[torch.randn_like(a) * 2 for a in args])
    return quantize_pt2e.convert_pt2e(m)


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
    from tosa_custom.core.ir import public_functions
    from tosa_custom.core.quantization import read_quantization
    with int8.context:
        scale = float(next(iter(read_quantization(public_functions(int8)[0], "res_attrs").values())).scale)
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
        qm = quantize(model, args)
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


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--models", default="mlp,mobilenet_v2")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--calls", type=int, default=20, help="counted calls per engine per round")
    args = parser.parse_args(argv)
    torch.set_num_threads(1)
    peak = _describe_host([cpu_target("host")]).get(cpu_target("host").name)
    print(f"load average before: {os.getloadavg()[0]:.2f}")
    ok = all([bench(m.strip(), args.rounds, args.calls, peak) for m in args.models.split(",") if m.strip()])
    print(f"load average after: {os.getloadavg()[0]:.2f}")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
