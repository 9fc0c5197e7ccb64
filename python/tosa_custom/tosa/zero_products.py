"""A float times a constant zero, kept NaN-exact through TOSA canonicalization.

MLIR folds `tosa.mul` by a splat-zero constant to that constant, for floats
too, so `alpha * outer(a, b)` with `alpha=0` (every-sample OpInfo addr/5)
returns 0 where eager PyTorch returns NaN for a NaN or infinite factor
(IEEE: NaN * 0 and inf * 0 are NaN). The fold runs inside torch-mlir's TOSA
pipeline (`canonicalize`), where no option turns one fold off; so before it,
the aten op is rewritten to a product no folder touches:

    x * 0.0   ->   x * (x - x)        x * -0.0   ->   (-x) * (x - x)

and so is `x / inf` (TorchToTosa multiplies by the reciprocal, 0, which the
same fold meets; every x / inf is x * 0 in IEEE, x / -inf is x * -0).

`x - x` is +0 for every finite x and NaN for NaN and infinities, so both
give eager's bits, the sign of a zero included. Only products the model
wrote are rewritten (aten.mul and aten.div with a constant operand);
a lowering that multiplies by zero on purpose, to make zeros, is left alone.
"""

from __future__ import annotations

import math

from torch_mlir import ir

from ..core import builders as _b
from ..core.dtypes import vtensor_element as _element
from ..core import ir as _ir
from ..core.passes import PassContext, register_pass
from ..core.torch_ir import NOT_CONSTANT, constant, splat_number

__all__ = ["KEEP_NAN_IN_ZERO_PRODUCTS", "keep_nan_in_zero_products"]

KEEP_NAN_IN_ZERO_PRODUCTS = "tosa-custom-keep-nan-in-zero-products"

_FLOATS = ("f16", "bf16", "f32", "f64")
_PRODUCTS = ("torch.aten.mul.Scalar", "torch.aten.mul.Tensor")
_DIVISIONS = ("torch.aten.div.Scalar", "torch.aten.div.Tensor")  # true division: no rounding mode


def _number(value: ir.Value) -> float | None:
    """The value of a constant number or splat float/int literal, else None."""
    scalar = constant(value)
    if scalar is NOT_CONSTANT:
        return splat_number(value)
    return float(scalar) if isinstance(scalar, (int, float)) and not isinstance(scalar, bool) else None


def _factor_and_zero(op: ir.Operation) -> tuple[ir.Value, ir.Value, float] | None:
    """The float tensor multiplied by a constant zero (or divided by a
    constant infinity, which TorchToTosa multiplies by its reciprocal, 0),
    the constant operand, and the zero it amounts to; None otherwise."""
    result = _element(op.results[0].type)
    if result not in _FLOATS:
        return None
    if op.name in _DIVISIONS:  # only where x has the result's type: an infinity cannot be added to broadcast it
        x, divisor = op.operands[0], _number(op.operands[1])
        if divisor is None or not math.isinf(divisor) or x.type != op.results[0].type:
            return None
        return x, op.operands[1], math.copysign(0.0, divisor)
    candidates = [(0, 1)] if op.name == "torch.aten.mul.Scalar" else [(0, 1), (1, 0)]
    for x, z in candidates:
        factor, zero = op.operands[x], _number(op.operands[z])
        if zero == 0 and _element(factor.type) == result:
            return factor, op.operands[z], zero
    return None


@register_pass(KEEP_NAN_IN_ZERO_PRODUCTS,
               "Rewrite a float tensor times a constant zero (aten.mul.Scalar by 0, aten.mul.Tensor by a zero "
               "literal) or divided by a constant infinity as x * (x - x), or (-x) * (x - x) for -0.0 and -inf: "
               "TOSA canonicalization folds a tosa.mul by a zero constant to zero, where eager PyTorch gives NaN "
               "for a NaN or infinite x")
def keep_nan_in_zero_products(module: ir.Operation, ctx: PassContext) -> None:
    for op in _ir.collect_ops(module, lambda o: o.name in _PRODUCTS + _DIVISIONS):
        found = _factor_and_zero(op)
        if found is None:
            continue
        x, zero_operand, zero = found
        with ir.InsertionPoint(op), op.location:
            difference = _b.create("torch.aten.sub.Tensor", x.type, [x, x, _b.torch_constant(1)])
            if math.copysign(1.0, zero) < 0:
                x = _b.create("torch.aten.neg", x.type, [x])
            product = _b.create("torch.aten.mul.Tensor", x.type, [x, difference])
            if product.type != op.results[0].type:  # a zero literal of a larger shape broadcasts x
                product = _b.create("torch.aten.add.Tensor", op.results[0].type,
                                    [product, zero_operand, _b.torch_constant(1)])
        op.results[0].replace_all_uses_with(product)
        op.erase()
