"""Quantization parameters, PT2E's quantize and dequantize as it computes
them, and the `tosa_custom.quantization` attribute that carries them on a
quantized program's boundary (CONTRACT.md §17): one home for the lowering
(quant/), which writes them, and the executors, which apply them at the call.

A quantized value means `scale * (q - zero_point)`; per-channel scales lie
along `axis`. PT2E's `quantize_per_tensor` rounds half to even
(`torch.round`) after multiplying by the reciprocal of the scale, then clamps
to [quant_min, quant_max].
"""

from __future__ import annotations

import dataclasses

import numpy as np
import torch
from torch_mlir import ir

from .attrs import QUANTIZATION

__all__ = ["QParams", "quantize", "dequantize", "ELEMENT", "quantization_attr", "read_quantization"]

# Storage dtype -> TOSA element type.
ELEMENT = {torch.int8: "i8", torch.int16: "i16", torch.int32: "i32", torch.uint8: "i8"}
_DTYPES = {"int8": torch.int8, "int16": torch.int16, "int32": torch.int32, "uint8": torch.uint8}


@dataclasses.dataclass(frozen=True)
class QParams:
    """PT2E's quantization of one tensor, as its quantize op names them."""

    scale: np.ndarray  # float64: shape () per tensor, (C,) per channel
    zero_point: int
    quant_min: int
    quant_max: int
    dtype: torch.dtype
    axis: int | None = None  # per-channel: the dim the scales lie along

    @property
    def element(self) -> str:
        return ELEMENT[self.dtype]

    @property
    def per_channel(self) -> bool:
        return self.axis is not None

    def to_json(self) -> dict:
        """The fields as PT2E's quantize ops name their arguments (CONTRACT.md §17)."""
        out = {"scale": self.scale.tolist(), "zero_point": self.zero_point, "quant_min": self.quant_min,
               "quant_max": self.quant_max, "dtype": str(self.dtype).replace("torch.", "")}
        if self.axis is not None:
            out["axis"] = self.axis
        return out

    def same_as(self, other: "QParams") -> bool:
        return (self.axis == other.axis and self.zero_point == other.zero_point and self.dtype == other.dtype
                and self.scale.shape == other.scale.shape and bool(np.all(self.scale == other.scale))
                and (self.quant_min, self.quant_max) == (other.quant_min, other.quant_max))


def _along(values: np.ndarray, axis: int | None, x: torch.Tensor) -> torch.Tensor:
    t = torch.as_tensor(values, dtype=torch.float64)
    if axis is None or t.dim() == 0:
        return t
    shape = [1] * x.dim()
    shape[axis] = -1
    return t.reshape(shape)


def quantize(x: torch.Tensor, q: QParams) -> torch.Tensor:
    """PT2E's quantize of float `x`: round(x / scale) + zero_point (half to
    even, in float32 as its kernel computes), clamped, in q's dtype."""
    inv = (1.0 / _along(q.scale, q.axis, x)).to(torch.float32)  # the kernel's reciprocal, a double, used as f32
    out = torch.round(x.to(torch.float32) * inv) + q.zero_point
    return out.clamp(q.quant_min, q.quant_max).to(q.dtype)


def dequantize(x: torch.Tensor, q: QParams) -> torch.Tensor:
    """PT2E's dequantize: (x - zero_point) * scale, in float32."""
    scale = _along(q.scale, q.axis, x).to(torch.float32)
    return (x.to(torch.int32) - q.zero_point).to(torch.float32) * scale


def quantization_attr(q: QParams) -> ir.DictAttr:
    """The `tosa_custom.quantization` dictionary of per-tensor parameters."""
    i64 = ir.IntegerType.get_signless(64)
    return ir.DictAttr.get({
        "scale": ir.FloatAttr.get(ir.F64Type.get(), float(q.scale)),
        "zero_point": ir.IntegerAttr.get(i64, q.zero_point),
        "quant_min": ir.IntegerAttr.get(i64, q.quant_min), "quant_max": ir.IntegerAttr.get(i64, q.quant_max),
        "dtype": ir.StringAttr.get(str(q.dtype).replace("torch.", ""))})


def _from_attr(attr: ir.Attribute) -> QParams:
    d = ir.DictAttr(attr)
    return QParams(np.asarray(ir.FloatAttr(d["scale"]).value, dtype=np.float64), ir.IntegerAttr(d["zero_point"]).value,
                   ir.IntegerAttr(d["quant_min"]).value, ir.IntegerAttr(d["quant_max"]).value,
                   _DTYPES[ir.StringAttr(d["dtype"]).value])


def read_quantization(func, key: str) -> dict[int, QParams]:
    """The parameters of each argument (`key="arg_attrs"`) or result (`"res_attrs"`) marked `tosa_custom.quantization`."""
    if key not in func.attributes:
        return {}
    found = {}
    for i, attrs in enumerate(ir.ArrayAttr(func.attributes[key])):
        attrs = ir.DictAttr(attrs)
        if QUANTIZATION in attrs:
            found[i] = _from_attr(attrs[QUANTIZATION])
    return found
