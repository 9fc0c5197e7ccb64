"""`tosa-custom-quantized-boundary`: the entry of a quantized model takes and
returns its integers.

PT2E quantizes each float input first thing and dequantizes each output
last. This pass moves those two steps out of the function: an argument
read only by quantize ops of one set of parameters becomes that integer
tensor; a result that is a dequantize becomes the dequantize's integer
operand. Each is marked `tosa_custom.quantization` (CONTRACT.md §17), and
the executors quantize and dequantize at the call, as PT2E would have, so a
program still takes and returns what the model does. An argument read in
float too, or a result computed in float, keeps its float type.
"""

from __future__ import annotations

import numpy as np
import torch
from torch_mlir import ir

from ..core.attrs import QUANTIZATION
from ..core.quantization import quantization_attr
from ..core.ir import add_signature_attrs, function_type, public_functions, set_function_type
from ..core.passes import PassContext, PassFailure, register_pass
from ..weights.blobs import ResourceBlobs
from . import build as _build
from . import qdq as _qdq
from .scales import QParams
from .values import I32_RANGE

__all__ = ["QUANTIZED_BOUNDARY", "mark_boundary", "returned"]

QUANTIZED_BOUNDARY = "tosa-custom-quantized-boundary"


def _owner(use) -> ir.Operation:
    return use.owner.operation if hasattr(use.owner, "operation") else use.owner


def _arguments(func, blobs) -> dict[int, QParams]:
    block = func.regions[0].blocks[0]
    marks = {}
    for i, arg in enumerate(block.arguments):
        users = [_owner(u) for u in arg.uses]
        if not users or any(_qdq.kind(u) != "quantize" for u in users):
            continue
        params = [_qdq.read_qparams(u, blobs) for u in users]
        if params[0].per_channel or any(not p.same_as(params[0]) for p in params):
            continue
        arg.set_type(_build.int_type(arg, params[0].element))
        for u in users:
            u.results[0].replace_all_uses_with(arg)
            u.erase()
        marks[i] = params[0]
    return marks


def _results(func, blobs) -> dict[int, QParams]:
    block = func.regions[0].blocks[0]
    ret = block.operations[len(block.operations) - 1].operation
    marks = {}
    for i, value in enumerate(ret.operands):
        owner = value.owner
        if isinstance(owner, ir.Block) or _qdq.kind(owner.operation) != "dequantize":
            continue
        q = _qdq.read_qparams(owner.operation, blobs)
        if q.per_channel:
            continue
        ret.operands[i] = owner.operation.operands[0]
        marks[i] = q
    return marks


def mark_boundary(func, blobs) -> None:
    args, results = _arguments(func, blobs), _results(func, blobs)
    if not args and not results:
        return
    block = func.regions[0].blocks[0]
    ret = block.operations[len(block.operations) - 1].operation
    ftype = function_type(func)
    set_function_type(func, [a.type for a in block.arguments], [v.type for v in ret.operands])
    add_signature_attrs(func, "arg_attrs", len(ftype.inputs), {i: {QUANTIZATION: quantization_attr(q)}
                                                                for i, q in args.items()})
    add_signature_attrs(func, "res_attrs", len(ftype.results), {i: {QUANTIZATION: quantization_attr(q)}
                                                                for i, q in results.items()})


def returned(low, op) -> None:
    """A result the model returns without quantizing it (an average pool or
    a cat of quantized values, which PT2E leaves in float after them): the
    integers it stands for, marked with their parameters: int8/int16 in
    their own, an i32 sum or accumulator as int32 at its scale."""
    func = op.parent.opview if hasattr(op.parent, "opview") else op.parent
    marks = {}
    for i, value in enumerate(op.operands):
        x = low.q(value)
        if x is None:
            continue
        if x.per_channel or x.zero_point and x.element == "i32":
            raise PassFailure("a result with per-channel scales (quantize it, or compute it in float)", op)
        dtype = {"i8": torch.int8, "i16": torch.int16, "i32": torch.int32}[x.element]
        low_end, high_end = (x.low, x.high) if x.element != "i32" else I32_RANGE
        op.operands[i] = x.value
        marks[i] = QParams(np.asarray(float(x.scale)), x.zero_point, low_end, high_end, dtype)
    ftype = function_type(func)
    set_function_type(func, ftype.inputs, [v.type for v in op.operands])
    add_signature_attrs(func, "res_attrs", len(ftype.results), {i: {QUANTIZATION: quantization_attr(q)}
                                                                for i, q in marks.items()})


@register_pass(QUANTIZED_BOUNDARY,
               "Make a quantized model's entry take and return integers: an argument only quantized becomes "
               "the integer tensor, a dequantized result its integer operand, each marked "
               "tosa_custom.quantization with its parameters")
def quantized_boundary(module: ir.Operation, ctx: PassContext) -> None:
    blobs = ResourceBlobs(module)
    for func in public_functions(module):
        with func.location:
            mark_boundary(func, blobs)
