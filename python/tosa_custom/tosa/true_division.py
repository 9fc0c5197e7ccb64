"""True division as eager PyTorch computes it: spelt so TorchToTosa lowers
it, and in float32 for the half types.

`torch.div(x, y, rounding_mode=None)` arrives as `aten.div.Tensor_mode`
with a None mode, which TorchToTosa does not lower (stock mode refused it);
it is `aten.div.Tensor` (`.Scalar`), and becomes that.

TOSA has no float division: TorchToTosa lowers `x / y` to
`x * reciprocal(y)`, in the result's type. In a half type that rounds
twice at 11 (float16) or 8 (bfloat16) bits, and a quarter of all quotients
come out an ulp off eager's, whose CPU kernels divide half types in float32
(their opmath type) and round once. One ulp passes a half type's tolerance;
a formula of a few divisions does not (every-sample OpInfo
gradient/float16/6: differences over spacings, 8 ulps off, in auto and
stock mode).

So before TorchToTosa a half-type true division divides in float32 and
rounds once to its type. `x * reciprocal(y)` in float32 is within an ulp of
float32, 13 bits finer than float16: over 8 million random and integer
quotients in each half type it rounds to eager's every time.

An integer tensor divided by a float number gives floats, and TorchToTosa
made the number the tensor's type: `x / 2.1` divided by 2 (every-sample
OpInfo gradient/int64/3, spacing 2.1, in stock and auto mode). So every
tensor operand enters the division as eager's kernel reads it: as the
result type (the common dtype), except a divisor that is a 0-d tensor,
which eager reads in its computing type directly, as it does a number.
"""

from __future__ import annotations

from torch_mlir import ir

from ..core import builders as _b
from ..core import dtypes as _dtypes
from ..core import ir as _ir
from ..core.passes import PassContext, register_pass
from ..core.torch_ir import constant, vtensor_type

__all__ = ["TRUE_DIVISION", "true_division"]

TRUE_DIVISION = "tosa-custom-true-division"

# The type eager's kernel divides in (its opmath type), by the result type.
_COMPUTED_IN = {"f16": "f32", "bf16": "f32", "f32": "f32", "f64": "f64"}
_DIVISIONS = ("torch.aten.div.Tensor", "torch.aten.div.Scalar")
_WITHOUT_MODE = {"torch.aten.div.Tensor_mode": "torch.aten.div.Tensor",  # true division when the mode is None
                 "torch.aten.div.Scalar_mode": "torch.aten.div.Scalar"}


def _ranked(value: ir.Value) -> tuple[list[str], str] | None:
    """(dims, element) of a ranked vtensor value, else None."""
    return _dtypes.parse_vtensor(str(value.type))


def _is_tensor(value: ir.Value) -> bool:
    return str(value.type).startswith("!torch.vtensor")


def _read(value: ir.Value, result: str, computed_in: str, divisor: bool) -> ir.Value:
    """A tensor operand as eager's kernel reads it: in the result type (the
    common dtype), except a 0-d divisor, read as it is; then in the type the
    division is computed in."""
    dims, element = _ranked(value)
    if element != result and not (divisor and dims == []):
        value, element = _b.torch_to_dtype(value, vtensor_type(dims, result)), result
    return value if element == computed_in else _b.torch_to_dtype(value, vtensor_type(dims, computed_in))


def _rewrite(op: ir.Operation) -> ir.Value | None:
    """The division spelt without a mode, its operands read as eager reads
    them and computed in eager's type; None when there is nothing to change."""
    name = _WITHOUT_MODE.get(op.name, op.name)
    if name != op.name and constant(op.operands[2]) is not None:
        return None  # floor or trunc: exact_division's
    operands = list(op.operands[:2])
    result = _ranked(op.results[0])
    if result is None or result[1] not in _COMPUTED_IN or _ranked(operands[0]) is None \
            or _is_tensor(operands[1]) and _ranked(operands[1]) is None:
        return None if name == op.name else _b.create(name, op.results[0].type, operands)
    computed_in = _COMPUTED_IN[result[1]]
    operands[0] = _read(operands[0], result[1], computed_in, divisor=False)
    if _is_tensor(operands[1]):
        operands[1] = _read(operands[1], result[1], computed_in, divisor=True)
    if name == op.name and all(a == b for a, b in zip(operands, op.operands)):
        return None
    quotient = _b.create(name, vtensor_type(result[0], computed_in), operands)
    return quotient if computed_in == result[1] else _b.torch_to_dtype(quotient, op.results[0].type)


@register_pass(TRUE_DIVISION,
               "Rewrite true division (aten.div without a rounding mode, or with None) to aten.div.Tensor/.Scalar, "
               "which TorchToTosa lowers, with its tensor operands cast to the result type, and in float16 and "
               "bfloat16 to divide in float32 and round once, as eager PyTorch does: TorchToTosa divided an integer "
               "tensor by a float number made an integer, and its x * reciprocal(y) in a half type rounds twice")
def true_division(module: ir.Operation, ctx: PassContext) -> None:
    _ir.replace_each(module, lambda o: o.name in _DIVISIONS or o.name in _WITHOUT_MODE, _rewrite)
