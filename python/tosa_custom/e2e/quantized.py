"""The audit's quantized family and the PT2E helpers every quantized check
shares (test/quant, benchmarks/quantized.py, e2e/quantized.py).

A case quantizes its float module with PT2E inside its factory (`pt2e`), so
eager is PT2E eager and compile() gets the convert_pt2e GraphModule, as a
user's would. Its results are compared within 1 LSB of each output's scale
(compare="quantized"), the tolerance of the specification's users
(ExecuTorch's Arm tests), read from the model's own last dequantize
(`output_scales`). `quantize` is the same with a named config or any
quantizer; `check_integer` is the strict pro_int check of every quantized
test output; `in_float64` is PT2E's graph without float32's rounding."""

from __future__ import annotations

import warnings
from typing import Sequence

import torch

__all__ = ["CONFIGS", "pt2e", "quantize", "check_integer", "output_scale", "in_float64", "output_scales",
           "quantized_mismatch"]


def _xnn():
    try:
        from torchao.testing.pt2e import _xnnpack_quantizer as xnn
    except ImportError as e:
        raise RuntimeError(f"a quantized model needs torchao (pip install --no-deps torchao==0.18.0): {e}") from None
    return xnn


def _symmetric_activations():
    """XNNPACK's per-channel config with symmetric activations (zero point 0)."""
    from torchao.quantization.pt2e.observer import HistogramObserver
    from torchao.quantization.pt2e.quantizer import QuantizationSpec
    xnn = _xnn()
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
    from torchao.quantization.pt2e.observer import HistogramObserver
    from torchao.quantization.pt2e.quantizer import QuantizationSpec
    xnn = _xnn()
    base = xnn.get_symmetric_quantization_config(is_per_channel=True)
    act = QuantizationSpec(dtype=torch.int16, quant_min=-32768, quant_max=32767, qscheme=torch.per_tensor_symmetric,
                           observer_or_fake_quant_ctr=HistogramObserver.with_args(eps=eps))
    return xnn.QuantizationConfig(act, act, base.weight, base.bias, base.is_qat)


# name -> a quantization config of torchao's XNNPACK-style quantizer. XNNPACK's "symmetric" config is
# symmetric in the weights and affine (asymmetric) in the activations.
CONFIGS = {
    "per-channel": lambda: _xnn().get_symmetric_quantization_config(is_per_channel=True),
    "per-tensor": lambda: _xnn().get_symmetric_quantization_config(is_per_channel=False),
    "symmetric-activations": _symmetric_activations,
    "a16w8": _a16w8,
    "a16w8-fine": lambda: _a16w8(2 ** -24),
}


def _quantizer(config):
    """A quantizer: XNNPACK's with the config named `config`, or `config` itself."""
    if not isinstance(config, str):
        return config
    if config not in CONFIGS:
        raise ValueError(f"quantization config {config!r}: expected one of {sorted(CONFIGS)}")
    return _xnn().XNNPACKQuantizer().set_global(CONFIGS[config]())


def _convert(module: torch.nn.Module, example: tuple, quantizer, batches: int) -> torch.nn.Module:
    """export, prepare_pt2e, calibrate on `batches` random batches like
    `example` (twice the standard normal, as the inputs' range), convert_pt2e."""
    from torchao.quantization.pt2e import quantize_pt2e

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        model = torch.export.export(module.eval(), example).module(check_guards=False)
        model = quantize_pt2e.prepare_pt2e(model, quantizer)
        for _ in range(batches):
            model(*[torch.randn_like(a) * 2 for a in example])
        return quantize_pt2e.convert_pt2e(model)


def pt2e(module: torch.nn.Module, shapes: Sequence[Sequence[int]], config: str = "per-channel",
         batches: int = 8) -> torch.nn.Module:
    """`module` quantized on random inputs of `shapes`: the model a PT2E user compiles."""
    quantizer = _quantizer(config)
    return _convert(module, tuple(torch.randn(*s) for s in shapes), quantizer, batches)


def quantize(model: torch.nn.Module, args: tuple, config="per-channel", seed: int = 0) -> torch.nn.Module:
    """`model` quantized on `args` (the seed fixed first, so the
    calibration repeats). `config`: a name in CONFIGS, or a quantizer."""
    torch.manual_seed(seed)
    return _convert(model, args, _quantizer(config), 8)


def check_integer(module) -> None:
    """Strictly pro_int, and no float tensor anywhere inside the function
    (a kept op's float constant travels as int32 bits: CONTRACT.md §18.4);
    AssertionError says what is not."""
    from torch_mlir import ir
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


def output_scale(module) -> list[float]:
    """The scale of each result of a compiled quantized module, from its result attributes."""
    from ..core.ir import public_functions
    from ..core.quantization import read_quantization
    func = public_functions(module)[0]
    with module.context:
        return [float(q.scale) for _, q in sorted(read_quantization(func, "res_attrs").items())]


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


def output_scales(model) -> list[float | None]:
    """Per output of a PT2E GraphModule, the scale of the dequantize that
    makes it (None for an output computed in float)."""
    graph = getattr(model, "graph", None)
    if graph is None:
        raise ValueError("compare='quantized' needs a PT2E GraphModule (a case built with e2e.quantized.pt2e)")
    output = next(n for n in graph.nodes if n.op == "output")
    leaves = torch.utils._pytree.tree_leaves(output.args[0])
    dequantize = torch.ops.quantized_decomposed.dequantize_per_tensor
    return [float(n.args[1]) if getattr(n, "target", None) in (dequantize.default, dequantize.tensor)
            and not isinstance(n.args[1], torch.fx.Node) else None for n in leaves]


def quantized_mismatch(actual: Sequence, expected: Sequence, scales: Sequence[float | None],
                       atol: float) -> str | None:
    """Why the results are not within 1 LSB of eager's (an output computed in
    float: within `atol`), or None."""
    if len(scales) != len(expected):
        return f"the model has {len(scales)} outputs, eager returned {len(expected)}"
    for i, (a, e, scale) in enumerate(zip(actual, expected, scales)):
        a, e = torch.as_tensor(a), torch.as_tensor(e)
        if a.shape != e.shape or a.dtype != e.dtype:
            return f"result #{i} is {list(a.shape)} {a.dtype}, eager's is {list(e.shape)} {e.dtype}"
        error = (a.double() - e.double()).abs().max().item() if a.numel() else 0.0
        bound = scale * (1 + 1e-6) if scale is not None else atol
        if error > bound:
            unit = f"{error / scale:.3g} LSB of scale {scale:.4g}" if scale is not None else f"{error:.3g}"
            return f"result #{i}: off by up to {unit} (1 LSB allowed)"
    return None
