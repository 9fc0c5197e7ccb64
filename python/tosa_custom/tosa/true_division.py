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

Operands enter float32 as eager's kernel reads them: a tensor operand as
the result type (its common dtype), a divisor that is a number or a 0-d
tensor as it is (eager reads such a divisor in float32 directly).
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

_HALF = ("f16", "bf16")
_DIVISIONS = ("torch.aten.div.Tensor", "torch.aten.div.Scalar")
_WITHOUT_MODE = {"torch.aten.div.Tensor_mode": "torch.aten.div.Tensor",  # true division when the mode is None
                 "torch.aten.div.Scalar_mode": "torch.aten.div.Scalar"}


def _ranked(value: ir.Value) -> tuple[list[str], str] | None:
    text = str(value.type)
    return _dtypes.parse_vtensor(text) if text.startswith("!torch.vtensor<[") else None


def _in_f32(value: ir.Value, result_element: str, divisor: bool) -> ir.Value:
    """`value` in float32, through the result type unless eager skips it."""
    dims, element = _ranked(value)
    if element != result_element and not (divisor and dims == []):
        value, element = _b.torch_to_dtype(value, vtensor_type(dims, result_element)), result_element
    return value if element == "f32" else _b.torch_to_dtype(value, vtensor_type(dims, "f32"))


def _rewrite(op: ir.Operation) -> ir.Value | None:
    """The division without a mode, in float32 for a half type; None to leave it."""
    name = _WITHOUT_MODE.get(op.name, op.name)
    if name != op.name and constant(op.operands[2]) is not None:
        return None  # floor or trunc: exact_division's
    operands = list(op.operands[:2])
    result = _ranked(op.results[0])
    if result is None or result[1] not in _HALF or _ranked(operands[0]) is None \
            or str(operands[1].type).startswith("!torch.vtensor") and _ranked(operands[1]) is None:
        return None if name == op.name else _b.create(name, op.results[0].type, operands)
    operands[0] = _in_f32(operands[0], result[1], divisor=False)
    if str(operands[1].type).startswith("!torch.vtensor"):
        operands[1] = _in_f32(operands[1], result[1], divisor=True)
    wide = _b.create(name, vtensor_type(result[0], "f32"), operands)
    return _b.torch_to_dtype(wide, op.results[0].type)


@register_pass(TRUE_DIVISION,
               "Rewrite true division (aten.div without a rounding mode, or with None) to aten.div.Tensor/.Scalar, "
               "which TorchToTosa lowers, and in float16 and bfloat16 to divide in float32 and round once, as eager "
               "PyTorch does: TorchToTosa's x * reciprocal(y) in the half type rounds twice and is an ulp off in a "
               "quarter of quotients")
def true_division(module: ir.Operation, ctx: PassContext) -> None:
    for op in _ir.collect_ops(module, lambda o: o.name in _DIVISIONS or o.name in _WITHOUT_MODE):
        with ir.InsertionPoint(op), op.location:
            wide = _rewrite(op)
        if wide is None:
            continue
        op.results[0].replace_all_uses_with(wide)
        op.erase()
