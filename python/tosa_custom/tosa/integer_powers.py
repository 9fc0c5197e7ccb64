"""`tosa-custom-integer-powers`: `x ** 2` and `x ** 3` as products, as eager computes them.

TorchToTosa lowers `aten.pow` by a constant to `tosa.pow`, and the TOSA
specification leaves POW of a negative base unpredictable (the reference
model stops with TOSA_UNPREDICTABLE on `x ** 2`, a tanh gelu's `x ** 3`,
`torch.square`): a backend may return anything for half of a normal
input. Eager PyTorch computes these two exponents as `x * x` and
`x * x * x`, which TOSA defines for every input; so does this pass. Other
exponents stay `tosa.pow`: eager's `std::pow` of a negative base and a
fraction is NaN, which TOSA cannot promise either (a backend decides).
"""

from __future__ import annotations

import numpy as np
from torch_mlir import ir

from ..core import builders as _b
from ..core import ir as _ir
from ..core.passes import PassContext, register_pass

__all__ = ["INTEGER_POWERS"]

INTEGER_POWERS = "tosa-custom-integer-powers"
_EXPONENTS = (2.0, 3.0)


def _exponent(op: ir.Operation) -> int | None:
    """2 or 3 when `op` raises a float tensor of its result's type to that constant, else None."""
    base, exponent = op.operands
    owner = exponent.owner
    if base.type != op.results[0].type or isinstance(owner, ir.Block) or owner.operation.name != "tosa.const":
        return None
    values = owner.operation.attributes["values"]
    if not isinstance(values, ir.DenseFPElementsAttr):
        return None
    found = np.unique(np.array(values)) if not values.is_splat else [values.get_splat_value().value]
    return int(found[0]) if len(found) == 1 and float(found[0]) in _EXPONENTS else None


def _products(op: ir.Operation) -> ir.Value | None:
    n = _exponent(op)
    if n is None:
        return None
    x = op.operands[0]
    shift = _b.tosa_const(ir.DenseElementsAttr.get(np.zeros(1, dtype=np.int8)))
    power = _b.create("tosa.mul", x.type, [x, x, shift])
    return power if n == 2 else _b.create("tosa.mul", x.type, [power, x, shift])


@register_pass(INTEGER_POWERS,
               "Compute a float tosa.pow by the constant 2 or 3 as products (x*x, x*x*x), as eager does: TOSA "
               "leaves POW of a negative base unpredictable")
def integer_powers(module: ir.Operation, ctx: PassContext) -> None:
    _ir.replace_each(module, lambda op: op.name == "tosa.pow", _products)
