"""An integer sum in its result's type, as eager computes it.

Eager sums an integer or bool tensor into int64 when no `dtype=` is
given. TorchToTosa lowers `aten.sum` and `aten.sum.dim_IntList` with
`dtype=None` to a `tosa.reduce_sum` in the operand's type and casts the sum
afterwards: an int32 sum past 2**31 wrapped (2147483647 + 546494580 gave
-1600989069, in stock and auto mode; the fuzzers' `reductions` family found
it, and nansum, einsum and integer mean go through the same sum). With the
result's dtype spelt out, as `sum(x, dtype=torch.int64)` spells it, the
operand is cast first and the sum computed in the result's type. A float sum
is left alone (its result has the operand's type), and so is a bool one: a
count of fewer than 2**31 elements cannot wrap in i32.
"""

from __future__ import annotations

from torch_mlir import ir

from ..core import builders as _b
from ..core import dtypes as _dtypes
from ..core import ir as _ir
from ..core.passes import PassContext, register_pass
from ..core.torch_ir import constant

__all__ = ["INTEGER_SUMS"]

INTEGER_SUMS = "tosa-custom-integer-sums"

# op -> index of its `dtype` operand
_SUMS = {"torch.aten.sum": 1, "torch.aten.sum.dim_IntList": 3}
_INTEGERS = ("ui8", "si8", "si16", "si32", "si64")


def _widen(op: ir.Operation) -> None:
    index = _SUMS[op.name]
    operand = _dtypes.vtensor_element(op.operands[0].type)
    result = _dtypes.vtensor_element(op.results[0].type)
    if operand not in _INTEGERS or result not in _INTEGERS or operand == result \
            or len(op.operands) <= index or constant(op.operands[index]) is not None:
        return
    with ir.InsertionPoint(op), op.location:
        op.operands[index] = _b.torch_constant(_b.dtype_code(op.results[0].type))


@register_pass(INTEGER_SUMS,
               "Give an integer sum without dtype= its result's dtype (int64), so that TorchToTosa casts the "
               "operand first and sums in int64, as eager does (it summed int32 in i32 and wrapped)")
def integer_sums(module: ir.Operation, ctx: PassContext) -> None:
    for op in _ir.collect_ops(module, lambda op: op.name in _SUMS):
        _widen(op)
