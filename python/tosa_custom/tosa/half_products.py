"""A half-type tensor times a number, as eager computes it: in float32.

Eager PyTorch multiplies a float16 or bfloat16 tensor by a Python number in
float32 (its opmath type), the number unrounded, and rounds the product once;
TorchToTosa makes the number a constant of the tensor's type first. For a
number the half type cannot hold that is a different product: 2 * pi is
6.28125 in float16, and poisson_nll_loss's Stirling term, a difference of
terms near 6, came out two ulps off eager (every-sample OpInfo
nn.functional.poisson_nll_loss/float16/52, in stock and auto mode).
(Eager adds and subtracts a number rounded to the tensor's type, as
TorchToTosa does; true division is `tosa-custom-true-division`'s.)

So before TorchToTosa such a product is computed in float32 and rounded once
to its type. A number the type holds exactly needs nothing: the product of
two half values is exact in float32, so one rounding gives the same.
"""

from __future__ import annotations

import torch
from torch_mlir import ir

from ..core import builders as _b
from ..core import dtypes as _dtypes
from ..core import ir as _ir
from ..core.passes import PassContext, register_pass
from ..core.torch_ir import constant, vtensor_type

__all__ = ["HALF_PRODUCTS"]

HALF_PRODUCTS = "tosa-custom-half-products"

_HALF = {"f16": torch.float16, "bf16": torch.bfloat16}


def _rewrite(op: ir.Operation) -> ir.Value | None:
    result = _dtypes.parse_vtensor(str(op.results[0].type))
    operand = _dtypes.parse_vtensor(str(op.operands[0].type)) if str(op.operands[0].type).startswith(
        "!torch.vtensor") else None
    number = constant(op.operands[1])
    if result is None or operand is None or result[1] not in _HALF or operand[1] != result[1] \
            or not isinstance(number, (int, float)) or isinstance(number, bool):
        return None
    if float(torch.tensor(number, dtype=_HALF[result[1]])) == number:
        return None  # the type holds it: the half product rounds alike
    wide = _b.torch_to_dtype(op.operands[0], vtensor_type(operand[0], "f32"))
    product = _b.create("torch.aten.mul.Scalar", vtensor_type(result[0], "f32"), [wide, op.operands[1]])
    return _b.torch_to_dtype(product, op.results[0].type)


@register_pass(HALF_PRODUCTS,
               "Compute a float16/bfloat16 tensor times a number the type cannot hold in float32 and round once, "
               "as eager does (TorchToTosa rounds the number to the half type first)")
def half_products(module: ir.Operation, ctx: PassContext) -> None:
    _ir.replace_each(module, lambda op: op.name == "torch.aten.mul.Scalar", _rewrite)
