"""A narrow integer tensor compared with a number, as a comparison in its own type.

TorchToTosa lowers `x == 3` (`aten.eq.Scalar` and its kin) of an int8, int16
or uint8 tensor by casting the tensor to i64, the number's type: TOSA 1.0 has
no such cast, so stock mode's TOSA failed validation and auto mode tunneled
a plain comparison (`x != 0` of a uint8 tensor, in `any` over no dims; the
fuzzers' `reductions` family). An int32 tensor it compares in i32, but with
the number unwrapped. Eager compares with the number converted to the
tensor's type, wrapping one the type cannot hold (an int8 `x < 1000` is
`x < -24`; TorchToTosa's i64 comparison said true everywhere, a silently wrong
answer where the TOSA was not validated; an int32 `x < 2**32 + 5` said true
where eager's `x < 5` does not, in stock and auto mode: conformant TOSA,
silently wrong). So the op compares with a 0-d tensor
of the tensor's type holding that number, which TorchToTosa compares in that
type (and `tosa-custom-widen-int-arithmetic` in i32, as TOSA 1.0 asks). A
float number keeps the op: eager promotes the tensor to float then. So does
a uint8 ordering, which `tosa-custom-check-sign-semantics` refuses (stock)
or auto mode tunnels, by the name the model wrote.
"""

from __future__ import annotations

import torch
from torch_mlir import ir

from ..core import builders as _b
from ..core import dtypes as _dtypes
from ..core import ir as _ir
from ..core.passes import PassContext, register_pass
from ..core.torch_ir import constant

__all__ = ["SCALAR_COMPARISONS"]

SCALAR_COMPARISONS = "tosa-custom-scalar-comparisons"

_COMPARISONS = {f"torch.aten.{name}.Scalar": f"torch.aten.{name}.Tensor" for name in ("eq", "ne", "gt", "ge", "lt", "le")}
_EQUALITIES = ("torch.aten.eq.Scalar", "torch.aten.ne.Scalar")
_INTEGERS = ("si8", "si16", "si32", "ui8")  # int64: no number is beyond it, and TorchToTosa compares it in i64


def _rewrite(op: ir.Operation) -> ir.Value | None:
    element = _dtypes.vtensor_element(op.operands[0].type)
    number = constant(op.operands[1])
    if element not in _INTEGERS or not isinstance(number, int) or isinstance(number, bool):
        return None
    if element == "ui8" and op.name not in _EQUALITIES:
        return None  # uint8 order read as int8 is wrong either way: the sign check names the op as written
    info = torch.iinfo(_dtypes.by_torch_mlir(element).torch)
    wrapped = (number - info.min) % (info.max - info.min + 1) + info.min  # eager's: int8 x < 1000 is x < -24
    return _b.create(_COMPARISONS[op.name], op.results[0].type, [op.operands[0], _b.scalar_literal(wrapped, element)])


@register_pass(SCALAR_COMPARISONS,
               "Compare an int8/int16/int32/uint8 tensor with an integer as with a 0-d tensor of its type holding the "
               "number wrapped to it, as eager does (TorchToTosa cast the tensor to i64, which TOSA 1.0 has not, "
               "and compared unwrapped)")
def scalar_comparisons(module: ir.Operation, ctx: PassContext) -> None:
    _ir.replace_each(module, lambda op: op.name in _COMPARISONS, _rewrite)
