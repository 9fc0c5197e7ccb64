"""The passes that carry numbers and complex values across function
boundaries as tensors TOSA can type (CONTRACT.md 4.7): on torch IR, around
the tunnel (`tosa-custom-tensorize-scalar-boundary`), and on the builtin
scalars torch-mlir's TOSA lowering leaves at a boundary
(`tosa-custom-tensorize-builtin-scalar-boundary`). Each marks what it changed
on the signature (attrs.SCALAR, attrs.DTYPE) for the runtime and a backend."""

from __future__ import annotations

import numpy as np
from torch_mlir import ir

from ..core import attrs as _attrs
from ..core import builders as _b
from ..core import dtypes as _dtypes
from ..core import ir as _ir
from ..core.passes import Option, PassContext, parse_flag, register_pass
from ..core.torch_ir import NOT_CONSTANT, constant, vtensor_type
from .conversion import carrier_source, erase_dead_carriers, real_pairs_type

__all__ = ["TENSORIZE_SCALAR_BOUNDARY", "TENSORIZE_BUILTIN_SCALAR_BOUNDARY", "tensorize_scalar_boundary",
           "tensorize_builtin_scalar_boundary"]

TENSORIZE_SCALAR_BOUNDARY = "tosa-custom-tensorize-scalar-boundary"
TENSORIZE_BUILTIN_SCALAR_BOUNDARY = "tosa-custom-tensorize-builtin-scalar-boundary"

_Marks = dict[int, dict[str, str]]


def _entry(func) -> ir.Block:
    return func.regions[0].blocks[0]


def _return_op(func) -> ir.Operation:
    block = _entry(func)
    return block.operations[len(block.operations) - 1]


def _retype(func, inputs: list[ir.Type], results: list[ir.Type], arg_marks: _Marks, res_marks: _Marks) -> None:
    """Give `func` these argument and result types, and add the marks (an
    argument with no mark changed type too)."""
    if arg_marks or res_marks:
        _ir.set_function_type(func, inputs, results)
        _ir.add_signature_attrs(func, "arg_attrs", len(inputs), {k: v for k, v in arg_marks.items() if v})
        _ir.add_signature_attrs(func, "res_attrs", len(results), res_marks)


def _complex_of(type_text: str) -> str | None:
    """'complex64'/'complex128' for a complex vtensor type, else None."""
    parsed = _dtypes.parse_vtensor(type_text)
    dtype = _dtypes.by_torch_mlir(parsed[1]) if parsed else None
    return dtype.name if dtype is not None and dtype.pairs else None


def _scalar_literal(value: ir.Value, kind: _dtypes.ScalarKind) -> ir.Value | None:
    """A 0-d literal tensor for a returned constant number (a Python number
    the trace fixed, e.g. `x.shape[0]`), else None."""
    number = constant(value)
    if number is NOT_CONSTANT or not isinstance(number, (bool, int, float)):
        return None
    array = np.array(number, dtype=kind.dtype.numpy)
    signed = kind.tensor_element != kind.builtin  # si64: the literal's elements carry the sign
    attr = ir.DenseElementsAttr.get(array, type=ir.Type.parse(kind.tensor_element) if signed else None)
    op = _ir.defining_op(value)
    with ir.InsertionPoint(op), op.location:
        return _b.create("torch.vtensor.literal", vtensor_type((), kind.tensor_element), (),
                         {"value": attr})


def _tensorize_arguments(func, inputs: list[ir.Type]) -> _Marks:
    """Number and complex arguments become tensors, read by a carrier."""
    block = _entry(func)
    first = block.operations[0] if len(block.operations) else None
    marks: _Marks = {}
    for i, arg in enumerate(block.arguments):
        text = str(arg.type)
        kind, cplx = _dtypes.scalar_kind(text), _complex_of(text)
        if kind is not None:
            new_type, unpack = vtensor_type((), kind.tensor_element), kind.from_tensor
        elif cplx is not None:
            new_type, unpack = real_pairs_type(text, cplx), "torch.aten.view_as_complex"
            marks[i] = {_attrs.DTYPE: cplx}
        else:
            continue
        old_type = arg.type
        arg.set_type(new_type)
        inputs[i] = new_type
        with ir.InsertionPoint(first), func.location:
            carrier = _b.create(unpack, old_type, [arg], {_attrs.CARRIER: ir.StringAttr.get("result")})
        for use in list(arg.uses):
            if use.owner != carrier.owner:
                use.owner.operands[use.operand_number] = carrier
        marks.setdefault(i, {})
    return marks


def _tensorize_results(func, results: list[ir.Type]) -> _Marks:
    """Number and complex results a carrier made (or a constant number) are
    returned as the carrier's tensor operand (or a literal)."""
    ret = _return_op(func)
    marks: _Marks = {}
    for i, value in enumerate(ret.operands):
        text = str(value.type)
        kind, cplx = _dtypes.scalar_kind(text), _complex_of(text)
        source = carrier_source(value) if kind is not None or cplx is not None else None
        if source is None and kind is not None:
            source = _scalar_literal(value, kind)
        if source is not None:
            marks[i] = {_attrs.SCALAR: kind.name} if cplx is None else {_attrs.DTYPE: cplx}
            ret.operands[i] = source
            results[i] = source.type
    return marks


@register_pass(TENSORIZE_SCALAR_BOUNDARY,
               "Make Python-number and complex arguments and results of public torch functions 0-d and real-pair "
               "tensors (CONTRACT.md 4.7)",
               options=(Option("arguments", "arguments too (after the tunnel, only the results a tosa.custom made "
                               "need it: an argument's carrier would then be left for TorchToTosa)", True,
                               parse_flag, metavar="true|false"),))
def tensorize_scalar_boundary(module: ir.Operation, ctx: PassContext | None = None) -> None:
    """Python-scalar and complex arguments and results of public functions
    become tensors TOSA can type (CONTRACT.md 4.7): a scalar a 0-d tensor, a
    complex tensor its `view_as_real` pairs. An argument reaches its users
    through a carrier (`aten.Float.Tensor`, `aten.view_as_complex` ...), which
    converted ops read through; a result that a carrier made is returned as
    the carrier's operand, marked `tosa_custom.scalar` or `tosa_custom.dtype`
    so the runtime (and a backend) can give the caller what the model did."""
    arguments = ctx.options.arguments if ctx is not None else True
    for func in _ir.public_functions(module):
        ftype = _ir.function_type(func)
        inputs, results = list(ftype.inputs), list(ftype.results)
        arg_marks = _tensorize_arguments(func, inputs) if arguments else {}
        res_marks = _tensorize_results(func, results)
        _retype(func, inputs, results, arg_marks, res_marks)
    erase_dead_carriers(module)  # a result's carrier, now unused, is not an op TorchToTosa could lower


def _tensorize_builtin_arguments(func, inputs: list[ir.Type]) -> _Marks:
    """Builtin scalar arguments become 0-d tensors, read with `tensor.extract`."""
    block = _entry(func)
    marks: _Marks = {}
    for i, arg in enumerate(block.arguments):
        kind = _dtypes.scalar_kind_of_builtin(str(arg.type))
        if kind is None:
            continue
        scalar, uses = arg.type, list(arg.uses)
        arg.set_type(ir.RankedTensorType.get([], scalar))
        inputs[i] = arg.type
        if uses:  # export often bakes the number in: then nothing reads it
            with ir.InsertionPoint.at_block_begin(block), func.location:
                read = _b.create("tensor.extract", scalar, [arg])
            for use in uses:
                use.owner.operands[use.operand_number] = read
        marks[i] = {_attrs.SCALAR: kind.name}
    return marks


def _tensorize_builtin_results(func, results: list[ir.Type]) -> _Marks:
    """Builtin scalar results become 0-d tensors: a `tosa.const` of a constant, else `tensor.from_elements`."""
    ret = _return_op(func)
    marks: _Marks = {}
    for i, value in enumerate(ret.operands):
        kind = _dtypes.scalar_kind_of_builtin(str(value.type))
        if kind is None:
            continue
        tensor_type = ir.RankedTensorType.get([], value.type)
        const = _ir.defining_op(value)
        if const is not None and const.name != "arith.constant":
            const = None
        with ir.InsertionPoint(ret), ret.location:
            if const is not None:
                made = _b.tosa_const(ir.DenseElementsAttr.get_splat(tensor_type, const.attributes["value"]))
            else:
                made = _b.create("tensor.from_elements", tensor_type, [value])
        ret.operands[i] = made
        results[i] = tensor_type
        marks[i] = {_attrs.SCALAR: kind.name}
        if const is not None and not _ir.has_uses(const.result):
            const.erase()
    return marks


@register_pass(TENSORIZE_BUILTIN_SCALAR_BOUNDARY,
               "Make builtin scalar arguments and results (f64, i64, i1) of public functions 0-d tensors "
               "(CONTRACT.md 4.7)")
def tensorize_builtin_scalar_boundary(module: ir.Operation, ctx: PassContext | None = None) -> None:
    """A Python number torch-mlir's lowering left as a scalar argument or
    result of a public function (`f64`, `i64`, `i1`: the modes that keep no op
    that reads it) becomes a 0-d tensor marked `tosa_custom.scalar`, as the
    conversion makes the ones it reaches (CONTRACT.md 4.7): an argument is read
    with `tensor.extract`, a constant result is a `tosa.const`, another one is
    built with `tensor.from_elements`. (tensorize_scalar_boundary does the
    same on torch IR, for the numbers converted ops read or compute.)"""
    with module.context, ir.Location.unknown():
        for func in _ir.public_functions(module):
            ftype = _ir.function_type(func)
            inputs, results = list(ftype.inputs), list(ftype.results)
            arg_marks = _tensorize_builtin_arguments(func, inputs)
            res_marks = _tensorize_builtin_results(func, results)
            _retype(func, inputs, results, arg_marks, res_marks)
