"""Floor and trunc division, and remainder, exact at integer quotients.

TOSA has no float division: TorchToTosa lowers `x / y` to `x * reciprocal(y)`,
which is within an ulp of the quotient. For `floor` and `trunc` that ulp
decides the answer where the quotient is an integer: 49 * (1/49) is
0.99999994, so `49.0 // 49.0` gave 0 and `remainder(147.0, 49.0)` gave 49,
in float32 (28 of 398 such quotients), and a float16 or bfloat16 quotient,
rounded to 11 or 8 bits first, is off by more (every-sample OpInfo
div.floor_rounding and div.trunc_rounding bfloat16/6,7). Eager PyTorch
rounds the exact quotient.

So before TorchToTosa the rounding division computes in float32 (float64
stays float64), takes n = floor(x * (1/y)), and corrects it by one either
way, deciding with products only:

    n + 1 when (n + 1) * y <= x   (>= for y < 0)
    n - 1 when       n * y >  x   (<  for y < 0)

x is a float, so a product that equals it exactly (an integer quotient) is
computed exactly, and rounding is monotone: each test is right except where
x / y lies within half an ulp of an integer, where eager's own quotient
rounds to it too. trunc is floor of the quotient's magnitude with its sign;
remainder is x - floor(x / y) * y, rounded once to the result type.
"""

from __future__ import annotations

from torch_mlir import ir

from ..core import builders as _b
from ..core import dtypes as _dtypes
from ..core import ir as _ir
from ..core.dtypes import vtensor_element as _element
from ..core.passes import PassContext, register_pass
from ..core.torch_ir import NOT_CONSTANT, constant, splat_number, vtensor_type

__all__ = ["EXACT_ROUNDING_DIVISION", "exact_rounding_division"]

EXACT_ROUNDING_DIVISION = "tosa-custom-exact-rounding-division"

_WIDE = {"f16": "f32", "bf16": "f32", "f32": "f32", "f64": "f64"}
_DIVISIONS = ("torch.aten.div.Tensor_mode", "torch.aten.div.Scalar_mode")
_REMAINDERS = ("torch.aten.remainder.Tensor", "torch.aten.remainder.Scalar")


class _Builder:
    """Elementwise torch ops in the wide type, on the result's dims."""

    def __init__(self, dims: list[str], wide: str):
        self.dims, self.wide = dims, wide

    def tensor(self, element: str | None = None) -> ir.Type:
        return vtensor_type(self.dims, element or self.wide)

    def cast(self, value: ir.Value, element: str) -> ir.Value:
        dims, current = _dtypes.parse_vtensor(str(value.type))
        if current == element:
            return value
        return _b.torch_to_dtype(value, vtensor_type(dims, element))

    def op(self, name: str, operands: list, element: str | None = None) -> ir.Value:
        return _b.create(name, self.tensor(element), operands)

    def unary(self, name: str, value: ir.Value, extra: tuple = (), element: str | None = None) -> ir.Value:
        """An op of one tensor (and constants `extra`), of that tensor's dims."""
        dims, current = _dtypes.parse_vtensor(str(value.type))
        return _b.create(name, vtensor_type(dims, element or current),
                         [value, *(_b.torch_constant(c) for c in extra)])

    def where(self, condition, a, b) -> ir.Value:
        return self.op("torch.aten.where.self", [condition, a, b])

    def times(self, n: ir.Value, y) -> ir.Value:
        if isinstance(y, float):
            return self.op("torch.aten.mul.Scalar", [n, _b.torch_constant(y)])
        return self.op("torch.aten.mul.Tensor", [n, y])

    def step(self, n: ir.Value, by: int) -> ir.Value:
        return self.op("torch.aten.add.Scalar", [n, _b.torch_constant(by), _b.torch_constant(1)])

    def compare(self, name: str, x: ir.Value, y: ir.Value) -> ir.Value:
        return self.op(f"torch.aten.{name}.Tensor", [x, y], "i1")

    def floor_quotient(self, x: ir.Value, y, sign: float | None = None) -> ir.Value:
        """floor(x / y), exact at integer quotients; `y` a wide tensor or a
        float; `sign`, y's sign where it is known (a float, a splat literal)."""
        if isinstance(y, float):
            quotient = self.op("torch.aten.div.Scalar", [x, _b.torch_constant(y)])
            sign = y
        else:
            quotient = self.op("torch.aten.div.Tensor", [x, y])
        n = self.op("torch.aten.floor", [quotient])
        up, down = self.step(n, 1), self.step(n, -1)
        above, below = self.times(up, y), self.times(n, y)
        if sign is not None:
            # Known: no comparison of a constant (TorchToTosa folds gt.Scalar of a literal that a mul.Tensor
            # also reads to false).
            increment = self.compare("le" if sign > 0 else "ge", above, x)
            decrement = self.compare("gt" if sign > 0 else "lt", below, x)
        else:
            positive = self.unary("torch.aten.gt.Scalar", y, (0,), "i1")
            increment = self.op("torch.aten.where.self",
                                [positive, self.compare("le", above, x), self.compare("ge", above, x)], "i1")
            decrement = self.op("torch.aten.where.self",
                                [positive, self.compare("gt", below, x), self.compare("lt", below, x)], "i1")
        return self.where(increment, up, self.where(decrement, down, n))


def _divisor(value: ir.Value, b: _Builder):
    """The divisor as a float when it is a constant number or 0-d literal,
    else as a wide tensor; and its sign when that is known (None: not a
    divisor this pass can take)."""
    number = constant(value)
    if number is not NOT_CONSTANT:
        ok = isinstance(number, (int, float)) and not isinstance(number, bool)
        return (float(number), float(number)) if ok else (None, None)
    if not str(value.type).startswith("!torch.vtensor"):
        return None, None
    splat = splat_number(value)
    if splat is not None and _dtypes.parse_vtensor(str(value.type))[0] == []:
        return splat, splat
    return b.cast(value, b.wide), splat


def _rewrite(op: ir.Operation) -> ir.Value | None:
    """The exact form of a float rounding division or remainder, or None to leave it."""
    result = op.results[0].type
    element = _element(result)
    if element not in _WIDE:
        return None
    if op.name in _DIVISIONS:
        mode = constant(op.operands[2])
        if mode not in ("floor", "trunc"):
            return None
    dims = _dtypes.parse_vtensor(str(result))[0]
    b = _Builder(dims, _WIDE[element])
    x = op.operands[0]
    if not str(x.type).startswith("!torch.vtensor"):
        return None
    y, sign = _divisor(op.operands[1], b)
    if y is None or sign == 0.0:
        return None  # division by a constant zero: inf or NaN, as TorchToTosa makes them
    x = b.cast(x, b.wide)
    if op.name in _REMAINDERS:
        n = b.floor_quotient(x, y, sign)
        exact = b.op("torch.aten.sub.Tensor", [x, b.times(n, y), _b.torch_constant(1)])
    elif mode == "floor":
        exact = b.floor_quotient(x, y, sign)
    else:  # trunc: the floor of the magnitudes, with the quotient's sign
        whole = b.floor_quotient(b.unary("torch.aten.abs", x),
                                 abs(y) if isinstance(y, float) else b.unary("torch.aten.abs", y), 1.0)
        x_negative = b.unary("torch.aten.lt.Scalar", x, (0,), "i1")
        if sign is not None:
            negative = x_negative if sign > 0 else b.unary("torch.aten.logical_not", x_negative)
        else:
            negative = b.op("torch.aten.logical_xor", [x_negative, b.unary("torch.aten.lt.Scalar", y, (0,), "i1")],
                            "i1")
        exact = b.where(negative, b.op("torch.aten.neg", [whole]), whole)
    return b.cast(exact, element) if exact.type != result else exact


@register_pass(EXACT_ROUNDING_DIVISION,
               "Rewrite float floor and trunc division (aten.div with a rounding mode) and remainder to compute in "
               "float32, correct floor(x * (1/y)) by one either way with products, and round once: TorchToTosa's "
               "x * reciprocal(y) makes 49.0 // 49.0 zero")
def exact_rounding_division(module: ir.Operation, ctx: PassContext) -> None:
    _ir.replace_each(module, lambda o: o.name in _DIVISIONS + _REMAINDERS, _rewrite)
