"""The audit's quantized family: a case quantizes its float module with PT2E
inside its factory (`pt2e`), so eager is PT2E eager and compile() gets the
convert_pt2e GraphModule, as a user's would. Its results are compared within
1 LSB of each output's scale (compare="quantized"), the tolerance of the
specification's users (ExecuTorch's Arm tests), read from the model's own
last dequantize (`output_scales`)."""

from __future__ import annotations

import warnings
from typing import Sequence

import torch

__all__ = ["CONFIGS", "pt2e", "output_scales", "quantized_mismatch"]

CONFIGS = ("per-channel", "per-tensor")  # torchao's XNNPACK-style config: weights per channel or per tensor


def _quantizer(config: str):
    try:
        from torchao.testing.pt2e import _xnnpack_quantizer as xnn
    except ImportError as e:
        raise RuntimeError(f"a quantized case needs torchao (pip install --no-deps torchao==0.18.0): {e}") from None
    if config not in CONFIGS:
        raise ValueError(f"quantization config {config!r}: expected one of {CONFIGS}")
    spec = xnn.get_symmetric_quantization_config(is_per_channel=config == "per-channel")
    return xnn.XNNPACKQuantizer().set_global(spec)


def pt2e(module: torch.nn.Module, shapes: Sequence[Sequence[int]], config: str = "per-channel",
         batches: int = 8) -> torch.nn.Module:
    """`module` exported, prepared with PT2E, calibrated on `batches` random
    batches of `shapes` (twice the standard normal, as the cases' inputs'
    range) and converted: the model a PT2E user compiles."""
    from torchao.quantization.pt2e import quantize_pt2e

    quantizer = _quantizer(config)
    example = tuple(torch.randn(*s) for s in shapes)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        model = torch.export.export(module.eval(), example).module(check_guards=False)
        model = quantize_pt2e.prepare_pt2e(model, quantizer)
        for _ in range(batches):
            model(*[torch.randn(*s) * 2 for s in shapes])
        return quantize_pt2e.convert_pt2e(model)


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
