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

Signed integers have their own overflow: TorchToTosa decides floor's
correction by the sign of x * y, which wraps when the product leaves the
type (unravel_index of 2**63 - 2 in (1, 2**63 - 1) gave -3 for its last
index, every-sample OpInfo int64/4). Here the truncating quotient q (TOSA's
intdiv) and r = x - q * y, whose product never exceeds |x|, decide it: q
and r move one step toward floor where r is nonzero and its sign is not
y's (q - 1, r + y; neither can overflow).
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
# Signed integers compute in at least i32: TOSA 1.0 compares only i32 (and
# int8/int16 floor division and remainder are exact in i32, wrapping back alike).
_SIGNED_WIDE = {"si8": "si32", "si16": "si32", "si32": "si32", "si64": "si64"}
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


def _integer(op: ir.Operation, b: _Builder) -> ir.Value | None:
    """Floor division or remainder of signed integers, from the truncating
    quotient and its remainder (the module docstring says why)."""
    x, divisor = op.operands[0], op.operands[1]
    if not str(x.type).startswith("!torch.vtensor"):
        return None
    x = b.cast(x, b.wide)
    number = constant(divisor)
    if number is not NOT_CONSTANT:
        if not isinstance(number, int) or isinstance(number, bool) or number == 0:
            return None
        y, sign = _b.torch_constant(number), float(number)
        q = b.op("torch.aten.div.Scalar_mode", [x, y, _b.torch_constant("trunc")])
        product = b.op("torch.aten.mul.Scalar", [q, y])
    elif str(divisor.type).startswith("!torch.vtensor"):
        y, sign = b.cast(divisor, b.wide), splat_number(divisor)
        if sign == 0.0:
            return None
        q = b.op("torch.aten.div.Tensor_mode", [x, y, _b.torch_constant("trunc")])
        product = b.op("torch.aten.mul.Tensor", [q, y])
    else:
        return None
    r = b.op("torch.aten.sub.Tensor", [x, product, _b.torch_constant(1)])
    zero = _b.scalar_literal(0, b.wide)  # comparisons in the operands' type (a Scalar 0 promotes int8 to i64)
    if sign is not None:  # known: r's sign alone decides (r < 0 implies r != 0)
        away = b.compare("lt" if sign > 0 else "gt", r, zero)
    else:
        r_negative = b.compare("lt", r, zero)
        y_negative = _b.create("torch.aten.lt.Tensor", vtensor_type(_dtypes.parse_vtensor(str(y.type))[0], "i1"),
                               [y, zero])
        away = b.op("torch.aten.logical_and", [b.compare("ne", r, zero),
                                                b.op("torch.aten.logical_xor", [r_negative, y_negative], "i1")], "i1")
    if op.name in _REMAINDERS:
        moved = (b.op("torch.aten.add.Scalar", [r, y, _b.torch_constant(1)]) if number is not NOT_CONSTANT
                 else b.op("torch.aten.add.Tensor", [r, y, _b.torch_constant(1)]))
        return b.where(away, moved, r)
    return b.where(away, b.step(q, -1), q)


def _rewrite(op: ir.Operation) -> ir.Value | None:
    """The exact form of a float rounding division or remainder, or of a
    signed integer floor division or remainder; None to leave it."""
    result = op.results[0].type
    element = _element(result)
    if element not in _WIDE and element not in _SIGNED_WIDE:
        return None
    if op.name in _DIVISIONS:
        mode = constant(op.operands[2])
        if mode not in ("floor", "trunc") or mode == "trunc" and element in _SIGNED_WIDE:
            return None  # integer trunc is TOSA's intdiv itself
    dims = _dtypes.parse_vtensor(str(result))[0]
    if element in _SIGNED_WIDE:
        exact = _integer(op, _Builder(dims, _SIGNED_WIDE[element]))
        return exact if exact is None or exact.type == result else _b.torch_to_dtype(exact, result)
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
               "x * reciprocal(y) makes 49.0 // 49.0 zero; and signed integer floor division and remainder to "
               "correct the truncating quotient by its remainder's sign: TorchToTosa's sign of x * y wraps")
def exact_rounding_division(module: ir.Operation, ctx: PassContext) -> None:
    _ir.replace_each(module, lambda o: o.name in _DIVISIONS + _REMAINDERS, _rewrite)
