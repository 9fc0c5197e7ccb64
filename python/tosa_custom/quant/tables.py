"""TABLE entries generated from the op itself: every int8 input
dequantized, the op computed by PyTorch as the model computes it (the ATen
call a `tosa.custom` decodes to, or the TOSA elementwise op's PyTorch
twin), quantized to the output's parameters. The table is then exactly
PT2E eager's `quantize(op(dequantize(x)))` for each of the 256 inputs."""

from __future__ import annotations

import numpy as np
import torch
from torch_mlir import ir

from ..contract.decode import custom_op_strings, decode
from .scales import QParams, dequantize, quantize

__all__ = ["TABLE_ATEN_OPS", "TOSA_TWINS", "tabulated", "entries"]

# ATen ops compile() keeps whole in a quantized model, to be tabulated (one
# input, elementwise). Each is a TABLE when its input is int8 and its result
# is quantized right after.
TABLE_ATEN_OPS = ("aten.sigmoid", "aten.tanh", "aten.exp", "aten.gelu", "aten.silu", "aten.hardswish",
                  "aten.hardsigmoid", "aten.elu", "aten.mish", "aten.log_sigmoid", "aten.softplus", "aten.erf")
_TABLE_CUSTOMS = {f"torch.{name}" for name in TABLE_ATEN_OPS}

# Elementwise TOSA ops and PyTorch's function for each.
TOSA_TWINS = {"tosa.sigmoid": torch.sigmoid, "tosa.tanh": torch.tanh, "tosa.exp": torch.exp, "tosa.erf": torch.erf}


def tabulated(op: ir.Operation) -> bool:
    """Whether `op` is one the lowering tabulates."""
    if op.name == "tosa.custom":
        return custom_op_strings(op)[0] in _TABLE_CUSTOMS
    return op.name in TOSA_TWINS


def _function(op: ir.Operation):
    if op.name != "tosa.custom":
        return TOSA_TWINS[op.name]
    call = decode(op)

    def apply(x: torch.Tensor) -> torch.Tensor:
        args, kwargs = call.bind([x])
        return call.overload(*args, **kwargs)
    return apply


def entries(op: ir.Operation, given: QParams, wanted: QParams) -> np.ndarray:
    """The 256 int8 TABLE entries of `op` from input parameters `given` to `wanted`."""
    x = torch.arange(-128, 128, dtype=torch.int32).to(torch.int8)
    real = dequantize(x, given)
    with torch.no_grad():
        y = _function(op)(real)
    return quantize(y.to(torch.float32), wanted).numpy().astype(np.int8)
