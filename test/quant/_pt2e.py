"""PT2E quantization of test models (torchao 0.18's XNNPACK-style quantizer)
and the checks every quantized test makes: strict pro_int, no float tensor
inside the function, within 1 LSB of PT2E eager, and the TOSA reference
model equal to our runtime bit for bit."""

from __future__ import annotations

import warnings

import pytest
import torch
from torch_mlir import ir

pytest.importorskip("torchao")
from torchao.quantization.pt2e import quantize_pt2e  # noqa: E402
from torchao.quantization.pt2e.quantizer import QuantizationSpec  # noqa: E402
from torchao.quantization.pt2e.observer import HistogramObserver  # noqa: E402
from torchao.testing.pt2e import _xnnpack_quantizer as xnn  # noqa: E402

import tosa_custom  # noqa: E402
from tosa_custom.core.quantization import read_quantization  # noqa: E402

__all__ = ["CONFIGS", "quantize", "check_integer", "output_scale", "lsb_error", "compile_and_check", "in_float64"]


def _symmetric_activations():
    """XNNPACK's per-channel config with symmetric activations (zero point 0)."""
    base = xnn.get_symmetric_quantization_config(is_per_channel=True)
    act = QuantizationSpec(dtype=torch.int8, quant_min=-128, quant_max=127, qscheme=torch.per_tensor_symmetric,
                           observer_or_fake_quant_ctr=HistogramObserver.with_args(eps=2 ** -12))
    return xnn.QuantizationConfig(act, act, base.weight, base.bias, base.is_qat)


def _a16w8(eps: float = 2 ** -12):
    """16-bit activations with 8-bit weights, as ExecuTorch's Arm backend
    declares its a16w8 config: activations int16, symmetric per tensor
    (zero point 0) from a histogram whose scale is at least `eps` (ExecuTorch's
    2^-12: outputs of a few units then use a tenth of int16's range, so
    "a16w8-fine" takes 2^-24 to use it all), weights int8 symmetric per output
    channel. ExecuTorch narrows quant_min to -32767; the full int16 range is
    kept here so the lowering's -32768 end is exercised too."""
    base = xnn.get_symmetric_quantization_config(is_per_channel=True)
    act = QuantizationSpec(dtype=torch.int16, quant_min=-32768, quant_max=32767, qscheme=torch.per_tensor_symmetric,
                           observer_or_fake_quant_ctr=HistogramObserver.with_args(eps=eps))
    return xnn.QuantizationConfig(act, act, base.weight, base.bias, base.is_qat)


# name -> a quantization config. XNNPACK's "symmetric" config is symmetric in the weights and
# affine (asymmetric) in the activations.
CONFIGS = {
    "per-channel": lambda: xnn.get_symmetric_quantization_config(is_per_channel=True),
    "per-tensor": lambda: xnn.get_symmetric_quantization_config(is_per_channel=False),
    "symmetric-activations": _symmetric_activations,
    "a16w8": _a16w8,
    "a16w8-fine": lambda: _a16w8(2 ** -24),
}


def quantize(model: torch.nn.Module, args: tuple, config="per-channel", seed: int = 0):
    """prepare_pt2e, calibrate on a few random batches like `args`, convert_pt2e.
    `config`: a name in CONFIGS (XNNPACK's quantizer with it), or a quantizer."""
    torch.manual_seed(seed)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        m = torch.export.export(model.eval(), args).module(check_guards=False)
        quantizer = xnn.XNNPACKQuantizer().set_global(CONFIGS[config]()) if isinstance(config, str) else config
        m = quantize_pt2e.prepare_pt2e(m, quantizer)
        for _ in range(8):
            m(*[torch.randn_like(a) * 2 for a in args])
        return quantize_pt2e.convert_pt2e(m)


def check_integer(module: ir.Module) -> None:
    """Strictly pro_int, and no float tensor anywhere inside the function
    (a kept op's float constant travels as int32 bits: CONTRACT.md §18.4)."""
    target = str(module.operation.attributes["tosa_custom.tosa_target"])
    assert "pro_int" in target and "pro_fp" not in target, target
    floats = []

    def visit(op):
        for v in list(op.results) + list(op.operands):
            if isinstance(v.type, ir.ShapedType) and isinstance(ir.ShapedType(v.type).element_type, ir.FloatType):
                floats.append(op.name)
        return ir.WalkResult.ADVANCE
    module.operation.walk(visit)
    assert not floats, f"float tensors left: {sorted(set(floats))}"


def output_scale(module: ir.Module) -> list[float]:
    from tosa_custom.core.ir import public_functions
    func = public_functions(module)[0]
    with module.context:
            return [float(q.scale) for _, q in sorted(read_quantization(func, "res_attrs").items())]


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


class _Float64(torch.fx.Interpreter):
    """PT2E's graph with every float computed in float64 and quantize as
    round(x / scale) (PT2E's kernels insist on float32 and multiply by a
    float32 1 / scale)."""

    def get_attr(self, target, args, kwargs):
        return _wide(super().get_attr(target, args, kwargs))

    def call_function(self, target, args, kwargs):
        q = torch.ops.quantized_decomposed
        if target == q.quantize_per_tensor.default:
            x, scale, zero_point, low, high, dtype = args
            return torch.clamp(torch.round(x.double() / scale) + zero_point, low, high).to(dtype)
        if target in (q.dequantize_per_tensor.default, q.dequantize_per_channel.default):
            x, scale, zero_point = args[:3]
            shape = [1] * x.dim()
            if target == q.dequantize_per_channel.default:
                shape[args[3]] = -1
            scale, zero_point = (torch.as_tensor(v).double().reshape(shape) for v in (scale, zero_point))
            return (x.double() - zero_point) * scale
        return super().call_function(target, tuple(_wide(a) for a in args), kwargs)


def _wide(value):
    return value.double() if isinstance(value, torch.Tensor) and value.is_floating_point() else value


def in_float64(qm, *args) -> torch.Tensor:
    """PT2E's quantized model evaluated in float64: the arithmetic its graph
    defines, without float32's rounding. Eager PT2E's convolutions round a
    near-tie either way, and a deep network amplifies those flips (ResNet18
    at random weights: eager is within 1 LSB of this in only ~92% of its
    outputs), so whole models are held to this, and to eager as closely
    as eager is to it."""
    with torch.no_grad():
        return _Float64(qm).run(*args).float()
