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

__all__ = ["TABLE_ATEN_OPS", "TOSA_TWINS", "tabulated", "entries", "entries16", "STEP16", "aten_name", "function_of"]

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


def function_of(op: ir.Operation):
    """PyTorch's function a tabulated `op` computes, of one float tensor."""
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
        y = function_of(op)(real)
    return quantize(y.to(torch.float32), wanted).numpy().astype(np.int8)


# An int16 TABLE: 513 i16 entries, entry j for input -32768 + 128 j, each
# input's result (i32) entry * 128 + the slope to the next times the input's
# place between the two (its low 7 bits): a value at 1/128 of the entries' scale.
STEP16 = 128
_FRACTION_BITS = 7


def _interpolated(table: np.ndarray, x: np.ndarray) -> np.ndarray:
    """The specification's int16 TABLE of each input `x` (int64 arithmetic)."""
    i = x + 32768
    index, fraction = i >> _FRACTION_BITS, i & (STEP16 - 1)
    return table[index] * STEP16 + (table[index + 1] - table[index]) * fraction


def entries16(function, given: QParams, wanted: QParams) -> np.ndarray:
    """The 513 i16 entries of `function` (of a float tensor) from int16 `given` to `wanted`'s scale
    (zero point 0: the RESCALE by 1/128 after the TABLE adds wanted's),
    PyTorch's function at each entry's input, quantized as PT2E does.

    The interpolation between entries is not PT2E's function of each input,
    so the table is checked over every input `given` can hold: rounded as
    the RESCALE rounds (half up), each must be within 1 LSB of PT2E's
    quantize(f(dequantize(x))). ValueError, saying by how much, when not
    (a function whose output clamps at its range's end inside a segment,
    exp's steep end, a coarse input scale: measured up to hundreds of LSB)."""
    nodes = torch.arange(-32768, 32768 + 1, STEP16, dtype=torch.int32)
    wide = QParams(np.asarray(float(wanted.scale)), 0, -32768, 32767, torch.int32)
    with torch.no_grad():
        table = quantize(function(dequantize(nodes, given)).to(torch.float32), wide).numpy().astype(np.int64)
        x = torch.arange(given.quant_min, given.quant_max + 1, dtype=torch.int32)
        want = quantize(function(dequantize(x, given)).to(torch.float32), wanted).numpy().astype(np.int64)
    if np.any(np.abs(np.diff(table)) > 32767):
        raise ValueError("its table's slope between two entries exceeds int16 (the specification's REQUIRE)")
    got = (_interpolated(table, x.numpy().astype(np.int64)) + STEP16 // 2) >> _FRACTION_BITS
    got = np.clip(got + wanted.zero_point, wanted.quant_min, wanted.quant_max)
    worst = int(np.max(np.abs(got - want)))
    if worst > 1:
        raise ValueError(f"its interpolated int16 TABLE is up to {worst} LSB off PT2E's quantize(f(dequantize(x))) "
                         "(checked at every int16 input)")
    return table


def aten_name(op: ir.Operation) -> str:
    """The ATen op a tabulated `op` computes (`aten.sigmoid`)."""
    if op.name != "tosa.custom":
        return "aten." + op.name.split(".", 1)[1]
    return custom_op_strings(op)[0].removeprefix("torch.")
