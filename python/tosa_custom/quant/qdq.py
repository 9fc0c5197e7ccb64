"""PT2E's quantize and dequantize ops as they reach TOSA: `tosa.custom`s
named `torch.quantized_decomposed.*` (compile() keeps them whole, so the
lowering sees PT2E's own parameters rather than torch-mlir's float
expansion of them). Reads their parameters; a scale or zero point given as
a tensor operand (per channel, or the `.tensor` overloads) must be a
constant."""

from __future__ import annotations

import numpy as np
import torch
import torch.ao.quantization.fx._decomposed  # noqa: F401  (defines torch.ops.quantized_decomposed, which decode() reads)
from torch_mlir import ir

from ..contract.decode import custom_op_strings, decode
from ..contract.encoding import Operand
from ..core.passes import PassFailure
from ..weights.blobs import ResourceBlobs, tensor_value
from .scales import QParams

__all__ = ["QUANTIZE", "DEQUANTIZE", "QDQ_OPS", "kind", "read_qparams", "constant_array"]

_PREFIX = "torch.quantized_decomposed."
QUANTIZE = ("quantize_per_tensor", "quantize_per_channel")
DEQUANTIZE = ("dequantize_per_tensor", "dequantize_per_channel")
# As compile() lists them (every overload of each).
QDQ_OPS = tuple(f"quantized_decomposed.{name}" for name in QUANTIZE + DEQUANTIZE)


def kind(op: ir.Operation) -> str | None:
    """"quantize" or "dequantize" for PT2E's ops, else None."""
    if op.name != "tosa.custom":
        return None
    name = custom_op_strings(op)[0]
    if not name.startswith(_PREFIX):
        return None
    base = name[len(_PREFIX):].split(".")[0]
    return "quantize" if base in QUANTIZE else "dequantize" if base in DEQUANTIZE else None


_NUMPY_NAMES = {np.dtype(np.float32): "float32", np.dtype(np.float64): "float64", np.dtype(np.int32): "int32",
                np.dtype(np.int64): "int64", np.dtype(np.int8): "int8"}


def constant_array(value: ir.Value, blobs: ResourceBlobs) -> np.ndarray | None:
    """The elements of a `tosa.const` (dense or a resource blob), else None."""
    owner = value.owner
    if isinstance(owner, ir.Block) or owner.operation.name != "tosa.const":
        return None
    attr = owner.operation.attributes["values"]
    ty = ir.RankedTensorType(value.type)
    element = str(ty.element_type)
    names = {"f32": "float32", "f64": "float64", "i32": "int32", "i64": "int64", "i8": "int8", "i16": "int16"}
    if element not in names:
        return None
    return tensor_value(attr, tuple(ty.shape), names[element], blobs).numpy()


def _number(op: ir.Operation, value, blobs: ResourceBlobs, what: str) -> np.ndarray:
    if isinstance(value, Operand):
        array = constant_array(op.operands[value.index], blobs)
        if array is None:
            raise PassFailure(f"{what} of a quantize/dequantize computed at run time (it must be a constant)", op)
        return array
    return np.asarray(value)


def read_qparams(op: ir.Operation, blobs: ResourceBlobs) -> QParams:
    """The quantization a PT2E quantize or dequantize op applies."""
    args = decode(op).arguments
    scale = _number(op, args.get("scale", args.get("scales")), blobs, "the scale").astype(np.float64)
    zero = _number(op, args.get("zero_point", args.get("zero_points")), blobs, "the zero point")
    axis = args.get("axis")
    if np.ndim(zero) and len(set(np.asarray(zero).reshape(-1).tolist())) > 1:
        raise PassFailure("per-channel zero points that differ between channels (TOSA takes one weight zero "
                          "point)", op)
    dtype = args["dtype"]
    if not isinstance(dtype, torch.dtype) or dtype not in (torch.int8, torch.int16):
        raise PassFailure(f"quantization to {dtype} (int8 and int16 are lowered)", op)
    if axis is not None:
        rank = ir.RankedTensorType(op.operands[0].type).rank
        axis = axis % rank
    scale = scale.reshape(-1) if axis is not None else scale.reshape(())
    return QParams(scale, int(np.asarray(zero).reshape(-1)[0]), int(args["quant_min"]), int(args["quant_max"]),
                   dtype, axis)
