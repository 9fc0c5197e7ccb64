"""`tosa-custom-int64-operands-as-int32`: an int64 constant that only
`tosa.custom` ops read travels as int32 (CONTRACT.md 3.5, version 4).

Strictly, TOSA 1.0 has no 64-bit integer, and a `tosa.const` is validated
whoever reads it. Dummy mode keeps every op whole, so a model's int64
buffers (BERT's position ids and token types, sliced and gathered by kept
ops) reach kept ops as i64 constants, and only they made the program need
the 1.1 draft's EXT-INT64. The contract's carrier (3.5) says it instead:
the constant is i32 holding the same values (all of them fit, or nothing
changes), and each reader's `operand_dtypes` says the operand is int64, so
a decoder hands kernels the int64 tensor the ATen op takes. Values a kept op
computes stay its own: only constants are carried, whose values are known.
"""

from __future__ import annotations

import numpy as np
from torch_mlir import ir

from ..contract.decode import decode
from ..contract.encoding import DOMAIN, ContractError, Operand, carry_operand
from ..core import ir as _ir
from ..core.passes import PassContext, register_pass
from .ranges import I32_RANGE, IntegerConstants

__all__ = ["INT64_OPERANDS_AS_INT32"]

INT64_OPERANDS_AS_INT32 = "tosa-custom-int64-operands-as-int32"


def _i64_constant(op: ir.Operation) -> bool:
    if op.name != "tosa.const":
        return False
    t = op.results[0].type
    return isinstance(t, ir.RankedTensorType) \
        and isinstance(t.element_type, ir.IntegerType) and t.element_type.width == 64


def _read_as_tensor_by_kept_ops_only(op: ir.Operation) -> bool:
    """Every reader is a kept op taking it as a tensor argument: the const
    encoding's numbers and lists are i64 by design (CONTRACT.md 4.6)."""
    uses = [(use.owner.operation, use.operand_number) for use in op.results[0].uses]
    return bool(uses) and all(_tensor_operand(user, index) for user, index in uses)


def _tensor_operand(user: ir.Operation, index: int) -> bool:
    if user.name != "tosa.custom" or ir.StringAttr(user.attributes["domain_name"]).value != DOMAIN:
        return False
    try:
        call = decode(user)
    except ContractError:
        return False
    found: list = []

    def visit(v):
        if isinstance(v, Operand) and v.index == index:
            found.append(v.kind)
        elif isinstance(v, (list, tuple)):
            for x in v:
                visit(x)

    visit(list(call.args) + list(call.kwargs.values()))
    return found == ["tensor"]


@register_pass(INT64_OPERANDS_AS_INT32,
               "Make an int64 tosa.const that only tosa.custom ops read, and whose values fit int32, an int32 "
               "constant the readers' operand_dtypes mark as int64 (CONTRACT.md 3.5, contract version 4)")
def int64_operands_as_int32(module: ir.Operation, ctx: PassContext | None = None) -> None:
    constants = IntegerConstants(module)
    for op in _ir.collect_ops(module, lambda o: _i64_constant(o) and _read_as_tensor_by_kept_ops_only(o)):
        values = constants.values(op.results[0])
        if values is None or values.size and (values.min() < I32_RANGE[0] or values.max() > I32_RANGE[1]):
            continue
        with op.location:
            _carry(op, values)


def _carry(op: ir.Operation, values: np.ndarray) -> None:
    """The constant as int32, its readers told."""
    shape = ir.RankedTensorType(op.results[0].type).shape
    i32 = ir.IntegerType.get_signless(32)
    values = np.asarray(values, dtype=np.int64)
    data = (np.full(shape, values.item()) if values.size == 1 else values.reshape(shape)).astype(np.int32)
    uses = [(use.owner.operation, use.operand_number) for use in op.results[0].uses]
    op.attributes["values"] = ir.DenseElementsAttr.get(data, type=i32)
    op.results[0].set_type(ir.RankedTensorType.get(shape, i32))
    for user, index in uses:
        text = ir.StringAttr(user.attributes["implementation_attrs"]).value
        user.attributes["implementation_attrs"] = ir.StringAttr.get(carry_operand(text, index, "int64"))
