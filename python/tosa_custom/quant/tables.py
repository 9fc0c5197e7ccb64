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

__all__ = ["TABLE_ATEN_OPS", "TOSA_TWINS", "tabulated", "entries", "aten_name", "no_int16_table"]

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


def aten_name(op: ir.Operation) -> str:
    """The ATen op a tabulated `op` computes (`aten.sigmoid`)."""
    if op.name != "tosa.custom":
        return "aten." + op.name.split(".", 1)[1]
    return custom_op_strings(op)[0].removeprefix("torch.")


def no_int16_table(op: ir.Operation) -> str:
    """Why an elementwise function of an int16 input is refused, and the fixes.

    TOSA's int16 TABLE is 513 i16 entries, each 128 inputs apart, linearly
    interpolated into an i32 result: not PT2E's quantize(f(dequantize(x)))
    for each of the 65536 inputs. Measured on sigmoid, tanh, gelu, silu,
    hardswish and exp at int16 scales: 1-2 LSB where f stays inside the
    output's range, up to hundreds of LSB in the segment where f crosses
    its end (the interpolation cannot follow the clamp's corner)."""
    name = aten_name(op)
    return (f"{name} of an int16 value: TOSA's int16 TABLE interpolates 513 entries linearly, which is not "
            f"PT2E's quantize({name.split('.')[-1]}(dequantize(x))) (off by up to hundreds of LSB where the function "
            f"leaves the output's range), so it is not lowered. Keep it as a tosa.custom on the integers "
            f"(backend_legal_ops=[\"{name}\"], CONTRACT.md §18), or quantize its input and output to int8 "
            f"(a 256-entry TABLE, exact)")
