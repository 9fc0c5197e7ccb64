"""Bool tensors as inputs, results and operands of logical, bitwise and
arithmetic ops (which promote bool to the other operand's dtype)."""

import torch

from tosa_custom.e2e import Fn, case

FAMILY = "boolean"


def _bools(*shape):
    return torch.rand(*shape) > 0.5


@case(inputs=lambda: (_bools(3, 4), _bools(3, 4)), family=FAMILY)
def LogicalAndModule_basic():
    return Fn(torch.logical_and)


@case(inputs=lambda: (_bools(3, 4), _bools(4)), family=FAMILY)
def LogicalOrModule_broadcast():
    return Fn(torch.logical_or)


@case(inputs=lambda: (_bools(3, 4), _bools(3, 4)), family=FAMILY)
def LogicalXorModule_basic():
    return Fn(torch.logical_xor)


@case(inputs=lambda: (_bools(3, 4),), family=FAMILY)
def LogicalNotModule_basic():
    return Fn(torch.logical_not)


@case(inputs=lambda: (torch.randn(3, 4), torch.randint(-2, 3, (3, 4))), family=FAMILY)
def LogicalAndNonBoolModule_basic():
    """Non-bool operands: nonzero is true."""
    return Fn(torch.logical_and)


@case(inputs=lambda: (_bools(3, 4), _bools(3, 4)), family=FAMILY)
def BitwiseAndBoolModule_basic():
    return Fn(lambda a, b: a & b)


@case(inputs=lambda: (_bools(3, 4), _bools(3, 4)), family=FAMILY)
def BitwiseOrBoolModule_basic():
    return Fn(lambda a, b: a | b)


@case(inputs=lambda: (_bools(3, 4), _bools(3, 4)), family=FAMILY)
def BitwiseXorBoolModule_basic():
    return Fn(lambda a, b: a ^ b)


@case(inputs=lambda: (_bools(3, 4),), family=FAMILY)
def BitwiseNotBoolModule_basic():
    return Fn(lambda a: ~a)


@case(inputs=lambda: (_bools(3, 4), _bools(3, 4)), family=FAMILY,
      xfail={"stock": "torch-mlir lowers bool add as a wrapping i1 add: True + True gives False (wrong values)"})
def AddBoolModule_basic():
    """bool + bool stays bool (it is logical or)."""
    return Fn(torch.add)


@case(inputs=lambda: (_bools(3, 4), _bools(3, 4)), family=FAMILY)
def MulBoolModule_basic():
    return Fn(torch.mul)


@case(inputs=lambda: (_bools(3, 4), torch.randn(3, 4)), family=FAMILY)
def MulBoolFloatModule_promotion():
    """A bool mask times a float tensor: bool is promoted to float32."""
    return Fn(torch.mul)


@case(inputs=lambda: (_bools(3, 4),), family=FAMILY)
def AddBoolIntScalarModule_promotion():
    """bool + int -> int64."""
    return Fn(lambda a: a + 2)


@case(inputs=lambda: (_bools(4, 5),), family=FAMILY)
def SumBoolModule_dim():
    """Summing bools counts them (int64 result)."""
    return Fn(lambda a: a.sum(dim=-1))


@case(inputs=lambda: (_bools(4, 5),), family=FAMILY)
def AnyModule_dim():
    return Fn(lambda a: torch.any(a, dim=1))


@case(inputs=lambda: (_bools(4, 5),), family=FAMILY)
def AllModule_basic():
    return Fn(torch.all)


@case(inputs=lambda: (torch.randn(4, 5),), family=FAMILY)
def AnyFloatModule_keepdim():
    return Fn(lambda a: torch.any(a > 1.0, dim=0, keepdim=True))


@case(inputs=lambda: (_bools(3, 4), _bools(3, 4)), family=FAMILY)
def EqBoolModule_basic():
    return Fn(torch.eq)


@case(inputs=lambda: (_bools(3, 4),), family=FAMILY)
def WhereBoolBranchesModule_basic():
    """Bool condition choosing between bool tensors."""
    return Fn(lambda a: torch.where(a, ~a, a))


@case(inputs=lambda: (_bools(3, 4),), family=FAMILY)
def ZerosLikeBoolModule_basic():
    return Fn(lambda a: torch.zeros_like(a) | a.t().t())


@case(inputs=lambda: (_bools(2, 3), _bools(2, 2)), family=FAMILY)
def CatBoolModule_basic():
    return Fn(lambda a, b: torch.cat([a, b], dim=1))


def _uint8(*shape):
    """Values over the whole uint8 range, zeros among them."""
    return torch.randint(0, 256, shape, dtype=torch.uint8) * (torch.rand(*shape) > 0.3)


@case(inputs=lambda: (_uint8(3, 4), torch.tensor(7, dtype=torch.uint8)), family=FAMILY)
def AnyOverNoDimsModule_uint8():
    """`dim=()` reduces nothing: x != 0 as uint8 (torch-mlir's fold returned x, 5 for 1)."""
    return Fn(lambda a, s: (torch.any(a, dim=()), torch.any(a, dim=(), keepdim=True), torch.any(s, dim=())))


@case(inputs=lambda: (torch.randn(3, 4) * (torch.rand(3, 4) > 0.5), torch.randint(-3, 3, (5,))), family=FAMILY)
def AnyOverNoDimsModule_float_int():
    """`dim=()` of float and int64 tensors: a bool x != 0 (TorchToTosa lowers no any.dims over no dims)."""
    return Fn(lambda a, b: (torch.any(a, dim=()), torch.any(b, dim=())))


@case(inputs=lambda: (_uint8(3, 4),), family=FAMILY, dynamic_shapes=lambda: (({0: torch.export.Dim("rows", max=16)},),),
      sizes=lambda: [(_uint8(n, 4),) for n in (2, 9, 16)])
def AnyOverNoDimsModule_uint8_dynamic():
    """With a run-time row count: the uint8 <-> int8 carriers and the bool -> uint8 cast on `?` dims."""
    return Fn(lambda a: (torch.any(a, dim=()), a != 0))


@case(inputs=lambda: (torch.randint(-128, 128, (3, 5), dtype=torch.int8), torch.randint(-2**15, 2**15, (4,), dtype=torch.int16),
                      _uint8(2, 3), torch.randint(-2**31, 2**31, (6,), dtype=torch.int32)), family=FAMILY)
def CompareNarrowIntScalarModule_basic():
    """int8/int16/uint8 tensors compared with numbers their type holds, and with numbers it does not, which eager
    wraps to the type (int8 x < 1000 is x < -24): TorchToTosa cast the tensor to i64, which TOSA 1.0 has not (stock
    mode did not validate, and compared unwrapped; auto mode tunneled); int32 it compared unwrapped (stock and
    auto mode, silently)."""
    return Fn(lambda a, b, c, d: (a == 3, a != -128, a > 5, a <= -7, b >= 300, b < -2**15 + 1, c != 0, c == 255,
                                  a < 1000, a == -232, b > 40000, c == 300, c != -1, d < 2**32 + 5, d > 3 * 2**31,
                                  d != 2**33 - 7))
