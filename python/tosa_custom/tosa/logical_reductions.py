"""`any` over an empty dim list, spelt as the comparison eager computes, before torch-mlir folds it away.

`torch.any(x, dim=())` reduces over no dim: eager returns `x != 0`, as bool,
or as uint8 for a uint8 `x`. torch-mlir's folder of `aten.any.dims` takes an
empty list for the identity and returns `x` whenever the result type is the
operand's: for uint8 that returned the value itself (every-sample OpInfo
any/uint8/3: 5 where eager gives 1, in stock and auto mode; the canonicalizer
runs in the lowering to the backend contract, before any later pass could see
it). For other types, whose result is bool, the fold leaves the op and
TorchToTosa has no lowering of it. So the op becomes `x != 0`, cast to uint8
where the result is uint8 (`keepdim` changes nothing when no dim is reduced).
A bool operand is left to the fold, which is right for it. A tunneled `any.dims` is a
`tosa.custom` by then and untouched.
"""

from __future__ import annotations

from torch_mlir import ir

from ..core import builders as _b
from ..core import dtypes as _dtypes
from ..core import ir as _ir
from ..core.passes import PassContext, register_pass
from ..core.torch_ir import constant_list, vtensor_type

__all__ = ["ANY_OVER_NO_DIMS"]

ANY_OVER_NO_DIMS = "tosa-custom-any-over-no-dims"


def _rewrite(op: ir.Operation) -> ir.Value | None:
    operand = _dtypes.parse_vtensor(str(op.operands[0].type))
    if operand is None or operand[1] == "i1" or constant_list(op.operands[1]) != []:
        return None
    # A 0-d zero of the operand's type, not the number 0, which TorchToTosa would compare in int64.
    zero = _b.scalar_literal(0, operand[1])
    nonzero = _b.create("torch.aten.ne.Tensor", vtensor_type(operand[0], "i1"), [op.operands[0], zero])
    return nonzero if op.results[0].type == nonzero.type else _b.torch_to_dtype(nonzero, op.results[0].type)


@register_pass(ANY_OVER_NO_DIMS,
               "Replace aten.any.dims over an empty dim list of a non-bool tensor by x != 0 (as uint8 for uint8), "
               "as eager computes it: torch-mlir's fold returns a uint8 x itself (5 where eager gives 1), and "
               "TorchToTosa lowers no other")
def any_over_no_dims(module: ir.Operation, ctx: PassContext) -> None:
    _ir.replace_each(module, lambda op: op.name == "torch.aten.any.dims", _rewrite)
