"""The quantized tests' helpers: PT2E quantization, the strict pro_int check
and PT2E in float64 (tosa_custom.e2e.quantized's, shared with the benchmark
and the audit), the LSB error and compiling to run on several executors;
the tests skip without torchao."""

from __future__ import annotations

import pytest
import torch

pytest.importorskip("torchao")
from torchao.testing.pt2e import _xnnpack_quantizer as xnn  # noqa: E402

import tosa_custom  # noqa: E402
from tosa_custom.e2e.quantized import CONFIGS, check_integer, in_float64, output_scale, quantize  # noqa: E402

__all__ = ["CONFIGS", "xnn", "quantize", "check_integer", "output_scale", "lsb_error", "compile_and_check", "in_float64"]


def lsb_error(got, want, scale: float) -> float:
    """The largest difference in units of the output's scale, less what
    float32 itself leaves uncertain in the two values (half an ulp each: a
    dequantized 127 x scale is itself within 2^-24 x 127 of its value)."""
    got, want = got.to(torch.float64), want.to(torch.float64)
    slack = (got.abs() + want.abs()) * 2.0 ** -24
    return float((((got - want).abs() - slack).clamp(min=0).max() / scale).item())


def compile_and_check(qm, args: tuple, inputs: list[tuple], executors=("runtime", "refmodel"), **kw):
    """Compile `qm`, check it is integer TOSA, run it on each executor and
    return {executor: [outputs per input]} with the output scales."""
    module = tosa_custom.compile(qm, args, **kw)
    check_integer(module)
    scales = output_scale(module)
    text = module.operation.get_asm(binary=True)
    out = {}
    for name in executors:
        from tosa_custom.core.ir import make_context, parse_module
        load = {"runtime": tosa_custom.runtime.load, "refmodel": tosa_custom.refmodel.load,
                "iree": tosa_custom.iree.load}[name]
        program = load(parse_module(text, make_context()))
        out[name] = [program(*x) for x in inputs]
    return out, scales, module
