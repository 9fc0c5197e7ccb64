"""Elementwise unary and binary ops: math functions, broadcasting, Python
scalars, alpha/rounding keywords and type promotion between operands."""

import torch

from tosa_custom.e2e import Fn, case, randn_inputs, xfail_except

FAMILY = "elementwise"

# Why a float64 case's TOSA cannot validate, in every mode (CONTRACT.md §13.5).
F64_BY_DESIGN = "computes in float64 by design (an f64 input, result or dtype): TOSA 1.0 has no f64 in any profile"


def _pos(*shape):
    """Inputs in [0.1, 2.1): log, sqrt, reciprocal... are defined there."""
    return lambda: (torch.rand(*shape) * 2 + 0.1,)


def _unit(*shape):
    """Inputs in (-0.9, 0.9): asin, acos, atanh... are defined there."""
    return lambda: (torch.rand(*shape) * 1.8 - 0.9,)


# --------------------------------------------------------------------------
# Unary math.
# --------------------------------------------------------------------------


@case(inputs=randn_inputs(3, 4), family=FAMILY)
def ElementwiseAbsModule_basic():
    return Fn(torch.abs)


@case(inputs=randn_inputs(3, 4), family=FAMILY)
def ElementwiseNegModule_basic():
    return Fn(torch.neg)


@case(inputs=randn_inputs(2, 3, 4), family=FAMILY)
def ElementwiseExpModule_basic():
    return Fn(torch.exp)


@case(inputs=randn_inputs(5), family=FAMILY)
def ElementwiseExp2Module_basic():
    return Fn(torch.exp2)


@case(inputs=randn_inputs(3, 4), family=FAMILY)
def ElementwiseExpm1Module_basic():
    return Fn(torch.expm1)


@case(inputs=_pos(3, 4), family=FAMILY)
def ElementwiseLogModule_basic():
    return Fn(torch.log)


@case(inputs=_pos(3, 4), family=FAMILY)
def ElementwiseLog2Module_basic():
    return Fn(torch.log2)


@case(inputs=_pos(4, 3), family=FAMILY)
def ElementwiseLog10Module_basic():
    return Fn(torch.log10)


@case(inputs=_pos(3, 4), family=FAMILY)
def ElementwiseLog1pModule_basic():
    return Fn(torch.log1p)


@case(inputs=_pos(3, 4), family=FAMILY)
def ElementwiseSqrtModule_basic():
    return Fn(torch.sqrt)


@case(inputs=_pos(3, 4), family=FAMILY)
def ElementwiseRsqrtModule_basic():
    return Fn(torch.rsqrt)


@case(inputs=_pos(3, 4), family=FAMILY)
def ElementwiseReciprocalModule_basic():
    return Fn(torch.reciprocal)


@case(inputs=lambda: (torch.randint(1, 10, (3, 4), dtype=torch.int32),), family=FAMILY)
def ElementwiseReciprocalIntModule_basic():
    """Integer input: the result is promoted to the default float dtype."""
    return Fn(torch.reciprocal)


@case(inputs=randn_inputs(3, 4), family=FAMILY)
def ElementwiseSinModule_basic():
    return Fn(torch.sin)


@case(inputs=randn_inputs(3, 4), family=FAMILY)
def ElementwiseCosModule_basic():
    return Fn(torch.cos)


@case(inputs=_unit(3, 4), family=FAMILY)
def ElementwiseTanModule_basic():
    return Fn(torch.tan)


@case(inputs=_unit(3, 4), family=FAMILY, xfail={"stock": "torch-mlir has no TOSA lowering for aten.asin"})
def ElementwiseAsinModule_basic():
    return Fn(torch.asin)


@case(inputs=_unit(3, 4), family=FAMILY, xfail={"stock": "torch-mlir has no TOSA lowering for aten.acos"})
def ElementwiseAcosModule_basic():
    return Fn(torch.acos)


@case(inputs=randn_inputs(3, 4), family=FAMILY)
def ElementwiseAtanModule_basic():
    return Fn(torch.atan)


@case(inputs=randn_inputs(3, 4), family=FAMILY, xfail={"stock": "torch-mlir has no TOSA lowering for aten.sinh"})
def ElementwiseSinhModule_basic():
    return Fn(torch.sinh)


@case(inputs=randn_inputs(3, 4), family=FAMILY, xfail={"stock": "torch-mlir has no TOSA lowering for aten.cosh"})
def ElementwiseCoshModule_basic():
    return Fn(torch.cosh)


@case(inputs=randn_inputs(3, 4), family=FAMILY, xfail={"stock": "torch-mlir has no TOSA lowering for aten.asinh"})
def ElementwiseAsinhModule_basic():
    return Fn(torch.asinh)


@case(inputs=lambda: (torch.rand(3, 4) * 3 + 1.1,), family=FAMILY,
      xfail={"stock": "torch-mlir has no TOSA lowering for aten.acosh"})
def ElementwiseAcoshModule_basic():
    return Fn(torch.acosh)


@case(inputs=_unit(3, 4), family=FAMILY, xfail={"stock": "torch-mlir has no TOSA lowering for aten.atanh"})
def ElementwiseAtanhModule_basic():
    return Fn(torch.atanh)


@case(inputs=randn_inputs(3, 4), family=FAMILY)
def ElementwiseErfModule_basic():
    return Fn(torch.erf)


@case(inputs=_unit(3, 4), family=FAMILY, rtol=1e-4, atol=1e-5,
      xfail={"stock": "torch-mlir has no TOSA lowering for aten.erfinv"})
def ElementwiseErfinvModule_basic():
    return Fn(torch.erfinv)


@case(inputs=lambda: (torch.randn(3, 4) * 4,), family=FAMILY)
def ElementwiseFloorModule_basic():
    return Fn(torch.floor)


@case(inputs=lambda: (torch.randn(3, 4) * 4,), family=FAMILY)
def ElementwiseCeilModule_basic():
    return Fn(torch.ceil)


@case(inputs=lambda: (torch.tensor([[-2.5, -1.5, -0.5, 0.5], [1.5, 2.5, 3.49, -3.51]]),), family=FAMILY)
def ElementwiseRoundModule_half_to_even():
    """Halfway values: torch.round rounds to even."""
    return Fn(torch.round)


@case(inputs=lambda: (torch.randn(3, 4) * 10,), family=FAMILY)
def ElementwiseRoundDecimalsModule_basic():
    return Fn(lambda x: torch.round(x, decimals=2))


@case(inputs=lambda: (torch.randn(3, 4) * 4,), family=FAMILY)
def ElementwiseTruncModule_basic():
    return Fn(torch.trunc)


@case(inputs=lambda: (torch.randn(3, 4) * 4,), family=FAMILY)
def ElementwiseFracModule_basic():
    return Fn(torch.frac)


@case(inputs=lambda: (torch.tensor([-2.0, -0.0, 0.0, 3.0, float("nan")]),), family=FAMILY)
def ElementwiseSignModule_basic():
    return Fn(torch.sign)


@case(inputs=randn_inputs(3, 4), family=FAMILY)
def ElementwiseSquareModule_basic():
    return Fn(torch.square)


@case(inputs=lambda: (torch.rand(3, 4) * 0.8 + 0.1,), family=FAMILY)
def ElementwiseLogitModule_eps():
    return Fn(lambda x: torch.logit(x, eps=1e-6))


@case(inputs=lambda: (torch.tensor([1.0, float("nan"), float("inf"), -float("inf"), -2.0]),), family=FAMILY)
def ElementwiseNanToNumModule_basic():
    return Fn(lambda x: torch.nan_to_num(x, nan=0.5, posinf=100.0, neginf=-100.0))


@case(inputs=lambda: (torch.randn(()),), family=FAMILY)
def ElementwiseExpModule_zero_rank():
    """A 0-d tensor."""
    return Fn(torch.exp)


@case(inputs=randn_inputs(4, 3), family=FAMILY)
def ElementwiseSinModule_noncontiguous():
    """The operand is a transposed view, not contiguous memory."""
    return Fn(lambda x: torch.sin(x.t()))


# --------------------------------------------------------------------------
# Clamp, pow and friends.
# --------------------------------------------------------------------------


@case(inputs=randn_inputs(3, 4), family=FAMILY)
def ElementwiseClampModule_basic():
    return Fn(lambda x: torch.clamp(x, -0.5, 0.7))


@case(inputs=randn_inputs(3, 4), family=FAMILY)
def ElementwiseClampMinModule_basic():
    return Fn(lambda x: torch.clamp_min(x, 0.2))


@case(inputs=randn_inputs(3, 4), family=FAMILY)
def ElementwiseClampMaxModule_basic():
    return Fn(lambda x: x.clamp(max=-0.1))


@case(inputs=lambda: (torch.randn(3, 4), torch.full((4,), -0.3), torch.full((3, 1), 0.4)), family=FAMILY)
def ElementwiseClampTensorModule_broadcast():
    return Fn(lambda x, lo, hi: torch.clamp(x, lo, hi))


@case(inputs=_pos(3, 4), family=FAMILY)
def ElementwisePowScalarModule_basic():
    return Fn(lambda x: torch.pow(x, 2.5))


@case(inputs=randn_inputs(3, 4), family=FAMILY)
def ElementwisePowIntExponentModule_basic():
    return Fn(lambda x: x ** 3)


@case(inputs=lambda: (torch.rand(3, 4) + 0.5, torch.randn(4)), family=FAMILY)
def ElementwisePowTensorModule_broadcast():
    return Fn(torch.pow)


@case(inputs=randn_inputs(3, 4), family=FAMILY)
def ElementwiseRpowModule_basic():
    """A Python scalar raised to a tensor (aten.pow.Scalar)."""
    return Fn(lambda x: 2.0 ** x)


@case(inputs=lambda: (torch.randn(3, 4), torch.randn(3, 4), torch.rand(3, 4)), family=FAMILY)
def ElementwiseLerpModule_basic():
    return Fn(torch.lerp)


@case(inputs=lambda: (torch.randn(3, 4), torch.randn(3, 4)), family=FAMILY)
def ElementwiseLerpScalarModule_basic():
    return Fn(lambda a, b: torch.lerp(a, b, 0.3))


@case(inputs=lambda: (torch.randn(3, 4), torch.randn(3, 4), torch.randn(4)), family=FAMILY)
def ElementwiseAddcmulModule_basic():
    return Fn(lambda a, b, c: torch.addcmul(a, b, c, value=0.5))


@case(inputs=lambda: (torch.randn(3, 4), torch.randn(3, 4), torch.rand(3, 4) + 1), family=FAMILY)
def ElementwiseAddcdivModule_basic():
    return Fn(lambda a, b, c: torch.addcdiv(a, b, c, value=-2.0))


@case(inputs=lambda: (torch.randn(3, 4) * 5, torch.rand(3, 4) * 2 + 0.5), family=FAMILY)
def ElementwiseFmodModule_basic():
    return Fn(torch.fmod)


@case(inputs=lambda: (torch.randn(3, 4) * 5,), family=FAMILY)
def ElementwiseRemainderScalarModule_basic():
    """Python's sign convention: the result has the divisor's sign."""
    return Fn(lambda x: torch.remainder(x, -1.5))


@case(inputs=lambda: (torch.randn(3, 4), torch.randn(3, 4)), family=FAMILY,
      xfail={"stock": "torch-mlir has no TOSA lowering for aten.atan2"})
def ElementwiseAtan2Module_basic():
    return Fn(torch.atan2)


@case(inputs=lambda: (torch.randn(3, 4), torch.randn(4)), family=FAMILY,
      xfail={"stock": "copysign decomposes to aten.view.dtype (bit reinterpretation), which torch-mlir cannot lower to TOSA"})
def ElementwiseCopysignModule_broadcast():
    return Fn(torch.copysign)


@case(inputs=lambda: (torch.rand(3, 4), torch.rand(3, 4) + 0.1), family=FAMILY)
def ElementwiseXlogyModule_basic():
    return Fn(torch.xlogy)


@case(inputs=lambda: (torch.randn(3, 4), torch.randn(3, 4)), family=FAMILY,
      xfail={"stock": "torch-mlir does not know aten.hypot (imported as torch.operator): no TOSA lowering"})
def ElementwiseHypotModule_basic():
    return Fn(torch.hypot)


# --------------------------------------------------------------------------
# Binary arithmetic: broadcasting, scalars, alpha, type promotion.
# --------------------------------------------------------------------------


@case(inputs=lambda: (torch.randn(3, 4), torch.randn(3, 4)), family=FAMILY)
def ElementwiseAddModule_basic():
    return Fn(torch.add)


@case(inputs=lambda: (torch.randn(3, 1, 5), torch.randn(4, 1)), family=FAMILY)
def ElementwiseAddModule_broadcast():
    """Both operands broadcast: (3,1,5) + (4,1) -> (3,4,5)."""
    return Fn(torch.add)


@case(inputs=lambda: (torch.randn(3, 4), torch.randn(3, 4)), family=FAMILY)
def ElementwiseAddAlphaModule_basic():
    return Fn(lambda a, b: torch.add(a, b, alpha=-2.5))


@case(inputs=randn_inputs(3, 4), family=FAMILY)
def ElementwiseAddScalarModule_basic():
    return Fn(lambda x: x + 1.25)


@case(inputs=lambda: (torch.randn(3, 4), torch.randn(())), family=FAMILY)
def ElementwiseAddModule_zero_rank_operand():
    return Fn(torch.add)


@case(inputs=lambda: (torch.randint(-5, 5, (3, 4)), torch.randn(3, 4)), family=FAMILY)
def ElementwiseAddIntFloatModule_promotion():
    """int64 + float32 -> float32."""
    return Fn(torch.add)


@case(inputs=lambda: (torch.randn(3, 4), torch.randn(3, 4, dtype=torch.float64)), family=FAMILY,
      nonconformant=F64_BY_DESIGN)
def ElementwiseAddF32F64Module_promotion():
    """float32 + float64 -> float64."""
    return Fn(torch.add)


@case(inputs=lambda: (torch.randn(3, 4), torch.tensor(2.0, dtype=torch.float64)), family=FAMILY,
      nonconformant=F64_BY_DESIGN)
def ElementwiseMulZeroRankF64Module_promotion():
    """A 0-d float64 operand does not promote a float32 tensor."""
    return Fn(torch.mul)


@case(inputs=lambda: (torch.randint(-5, 5, (3, 4)), torch.randn(3, 4)), family=FAMILY,
      selective_ops=["aten.threshold_backward"])
def ThresholdBackwardIntFloatModule_promotion():
    """int64 grad, float32 self -> float32, as eager computes it (PyTorch's meta kernel said int64: issue 41)."""
    return Fn(lambda g, x: torch.ops.aten.threshold_backward(g, x, 0.25))


@case(inputs=lambda: (torch.randint(-5, 5, (3, 4)),), family=FAMILY)
def ElementwiseAddIntFloatScalarModule_promotion():
    """int64 tensor + Python float -> float32."""
    return Fn(lambda x: x + 0.5)


@case(inputs=lambda: (torch.randn(3, 4), torch.randn(3, 4)), family=FAMILY)
def ElementwiseSubModule_basic():
    return Fn(torch.sub)


@case(inputs=lambda: (torch.randn(3, 4), torch.randn(3, 1)), family=FAMILY)
def ElementwiseSubAlphaModule_broadcast():
    return Fn(lambda a, b: torch.sub(a, b, alpha=3))


@case(inputs=randn_inputs(3, 4), family=FAMILY)
def ElementwiseRsubScalarModule_basic():
    return Fn(lambda x: 2.0 - x)


@case(inputs=lambda: (torch.randn(3, 4), torch.randn(4)), family=FAMILY)
def ElementwiseMulModule_broadcast():
    return Fn(torch.mul)


@case(inputs=randn_inputs(2, 3, 4), family=FAMILY)
def ElementwiseMulScalarModule_basic():
    return Fn(lambda x: x * -3.0)


@case(inputs=lambda: (torch.randint(-5, 5, (3, 4), dtype=torch.int32),), family=FAMILY)
def ElementwiseMulIntFloatScalarModule_promotion():
    return Fn(lambda x: x * 1.5)


@case(inputs=lambda: (torch.randn(3, 4), torch.rand(3, 4) + 0.5), family=FAMILY)
def ElementwiseDivModule_basic():
    return Fn(torch.div)


@case(inputs=lambda: (torch.randn(2, 3, 4), torch.rand(3, 1) + 0.5), family=FAMILY)
def ElementwiseDivModule_broadcast():
    return Fn(torch.div)


@case(inputs=randn_inputs(3, 4), family=FAMILY)
def ElementwiseDivScalarModule_basic():
    return Fn(lambda x: x / 7.0)


@case(inputs=_pos(3, 4), family=FAMILY)
def ElementwiseRdivScalarModule_basic():
    return Fn(lambda x: 3.0 / x)


@case(inputs=lambda: (torch.randint(-10, 10, (3, 4)), torch.randint(1, 4, (3, 4))), family=FAMILY)
def ElementwiseDivIntModule_true_division():
    """int64 / int64 is true division: a float32 result."""
    return Fn(torch.div)


@case(inputs=lambda: (torch.randn(3, 4) * 5, torch.rand(3, 4) * 2 + 0.5), family=FAMILY)
def ElementwiseDivFloorModule_basic():
    return Fn(lambda a, b: torch.div(a, b, rounding_mode="floor"))


@case(inputs=lambda: (torch.randn(3, 4) * 5, -(torch.rand(3, 4) * 2 + 0.5)), family=FAMILY)
def ElementwiseDivTruncModule_basic():
    return Fn(lambda a, b: torch.div(a, b, rounding_mode="trunc"))


def _integer_quotients(dtype=torch.float32):
    """x = k * y with y = 1..199 (both signs), and quotients just off an
    integer: x * (1/y) lands below k for some (49 * (1/49) is 0.99999994)."""
    y = torch.arange(1.0, 200.0)
    y = torch.cat([y, -y])
    k = torch.arange(len(y)) % 7 - 3.0
    x = torch.cat([k * y, k * y + 0.5])
    return x.to(dtype), torch.cat([y, y]).to(dtype)


# TOSA divides as x * reciprocal(y): floor and trunc of a quotient that is an
# integer were one too low (49.0 // 49.0 gave 0; tosa-custom-exact-rounding-division).
@case(inputs=_integer_quotients, family=FAMILY)
def ElementwiseDivRoundingModule_integer_quotients():
    return Fn(lambda a, b: (torch.div(a, b, rounding_mode="floor"), torch.div(a, b, rounding_mode="trunc"),
                            a // 7.0, torch.div(a, -7.0, rounding_mode="trunc"), torch.remainder(a, b), a % 7.0))


@case(inputs=lambda: _integer_quotients(torch.bfloat16), family=FAMILY)
def ElementwiseDivRoundingModule_integer_quotients_bfloat16():
    """In bfloat16 eager rounds the quotient to 8 bits first: 392 / 131
    (2.992) truncates to 3; the program truncates the exact quotient, which
    the audit judges against float64."""
    return Fn(lambda a, b: (torch.div(a, b, rounding_mode="floor"), torch.div(a, b, rounding_mode="trunc"),
                            torch.remainder(a, b)))


@case(inputs=_integer_quotients, family=FAMILY,
      xfail={"stock": "torch-mlir decomposes fmod to x - trunc(x * (1/y)) * y: fmod(147, 49) is 49, not 0 (wrong "
                      "values)"})
def ElementwiseFmodModule_integer_quotients():
    return Fn(torch.fmod)


def _half_quotients(dtype):
    g = torch.Generator().manual_seed(0)
    return torch.randn(64, 16, generator=g).to(dtype), torch.randn(64, 16, generator=g).to(dtype), torch.tensor(0.7)


# TorchToTosa divides as x * reciprocal(y), rounded twice in a half type: a
# quarter of float16 quotients were an ulp off eager's, which divides in
# float32 (tosa-custom-true-division does too). Compared exactly.
@case(inputs=lambda: _half_quotients(torch.float16), family=FAMILY)
def ElementwiseDivModule_float16():
    return Fn(lambda a, b, s: (a / b, a / 3.0, a / s, torch.div(a, b, rounding_mode=None)))


@case(inputs=lambda: _half_quotients(torch.bfloat16), family=FAMILY)
def ElementwiseDivModule_bfloat16():
    return Fn(lambda a, b, s: (a / b, a / 3.0, a / s))


@case(inputs=lambda: (torch.randn(3, 4), torch.rand(3, 4) + 0.5), family=FAMILY)
def ElementwiseDivModule_rounding_mode_none():
    """A None rounding mode is true division; TorchToTosa lowers it only when spelt aten.div.Tensor."""
    return Fn(lambda a, b: (torch.div(a, b, rounding_mode=None), torch.div(a, 4.0, rounding_mode=None)))


@case(inputs=lambda: (torch.randn(3, 3, 3, generator=torch.Generator().manual_seed(0)).to(torch.float16),
                      torch.tensor([1.0996, 2.0, 3.5], dtype=torch.float16), torch.tensor([4.0, 2.0, 6.0],
                                                                                         dtype=torch.float16)),
      family=FAMILY)
def GradientModule_float16_spacings():
    """Differences over coordinates: ten half-type divisions, 8 ulps off
    before they divided in float32 (every-sample OpInfo gradient/float16/6)."""
    return Fn(lambda x, s0, s1: torch.gradient(x, spacing=[s0, s1], dim=(0, -1), edge_order=1))


_NUMBER_LIST = {"dummy": "torch-mlir's FX importer cannot import a list of Scalars (gradient's float spacings), which "
                         "dummy mode keeps as the op's operand (compile fails)"}


def _half_triple(dtype):
    g = torch.Generator().manual_seed(0)
    return tuple((torch.randn(64, 16, generator=g) * 10).to(dtype) for _ in range(3))


# Eager rounds each half-type op's result before the next op takes it; the
# runtime fused a * b + c into one FMA, and its bfloat16 emulation folded the
# rounding between two ops away (runtime/lower/half_rounding.py). Compared exactly.
@case(inputs=lambda: _half_triple(torch.float16), family=FAMILY)
def ElementwiseHalfChainModule_float16():
    return Fn(lambda a, b, c: (a * -1.5 + b * 2 - c * 0.5, a * b + c))


@case(inputs=lambda: _half_triple(torch.bfloat16), family=FAMILY,
      xfail=xfail_except("iree", "IREE's bfloat16 codegen keeps a product in float32 for the next op (eager rounds "
                                 "it to bfloat16 first): a third of the elements an ulp or more off (wrong values)",
                         "dummy"))
def ElementwiseHalfChainModule_bfloat16():
    return Fn(lambda a, b, c: (a * -1.5 + b * 2 - c * 0.5, a * b + c))


# Eager multiplies a half tensor by a number in float32, the number unrounded;
# TorchToTosa rounded 2 * pi to 6.28125 first (every-sample OpInfo
# nn.functional.poisson_nll_loss/float16/52). Compared exactly.
@case(inputs=lambda: _half_triple(torch.float16)[:1], family=FAMILY)
def ElementwiseHalfTimesNumberModule_float16():
    return Fn(lambda a: (a * 6.283185307179586, a * -0.1, a * 3))


@case(inputs=lambda: _half_triple(torch.bfloat16)[:1], family=FAMILY)
def ElementwiseHalfTimesNumberModule_bfloat16():
    return Fn(lambda a: (a * 6.283185307179586, a * -0.1, a * 3))


@case(inputs=lambda: ((torch.randn(4, 4, 4, generator=torch.Generator().manual_seed(0)) * 3).to(torch.bfloat16),),
      family=FAMILY, xfail=_NUMBER_LIST)
def GradientModule_bfloat16_second_order():
    """Second-order edges, -1.5 a + 2 b - 0.5 c over h (every-sample OpInfo gradient/float16/5)."""
    return Fn(lambda x: torch.gradient(x, spacing=[2.0, 1.0], dim=(0, 1), edge_order=2))


@case(inputs=lambda: (torch.randint(-9, 10, (5, 5), generator=torch.Generator().manual_seed(0)),), family=FAMILY,
      xfail=_NUMBER_LIST,
      nonconformant={"stock": "differences of an int64 input are cast to float: TOSA 1.0 casts no i64 to a float, and "
                              "an input's differences are not known to fit i32 (computed in i64, CONTRACT.md §13.4)"})
def GradientModule_int64_float_spacing():
    """int64 by a float spacing of 2.1: TorchToTosa made the spacing an int and divided by 2 (every-sample OpInfo
    gradient/int64/3)."""
    return Fn(lambda x: torch.gradient(x, spacing=[2.0, 2.1], edge_order=1))


# TOSA leaves integer overflow unpredictable (ADD, SUB, MUL REQUIRE a result in range), and the
# reference model stops there; eager wraps int64 (2**62 * 3), which these cases check on purpose.
_INT64_WRAPS = "eager wraps int64 overflow on purpose here; TOSA leaves it unpredictable and the reference model stops"


def _int64_extremes():
    """int64 values over the whole type, its ends included, and divisors near them."""
    big = torch.tensor([2**62, -2**62, 2**63 - 2, -2**63 + 1, 2**40, -2**40 - 7, 7, -7])
    return big, torch.tensor([3, -3, 2**63 - 1, 2**62 + 5, 2**35, -2**35 + 1, -2, 2])


@case(inputs=_int64_extremes, family=FAMILY, xfail={"refmodel": _INT64_WRAPS})
def ElementwiseAddSubInt64Module_beyond_int32():
    """int64 add, sub and rsub (alpha included, a Scalar beyond i32) of values beyond i32: TorchToTosa computed
    them in i32 (2**40 + 2**35 gave 0; every-sample OpInfo unravel_index/int64/4)."""
    return Fn(lambda x, y: (torch.add(x, y, alpha=3), x - y, x + 2**40, torch.rsub(x, 2**35, alpha=2),
                            x.view(8, 1) - y[:3], x.int() + y))


@case(inputs=_int64_extremes, family=FAMILY, xfail={"refmodel": _INT64_WRAPS})
def ElementwiseDivFloorInt64Module_extremes():
    """int64 floor division and remainder where x * y leaves int64: TorchToTosa decided the correction by its
    sign, which wraps (unravel_index of 2**63 - 2 in (1, 2**63 - 1) gave -3)."""
    return Fn(lambda x, y: (torch.div(x, y, rounding_mode="floor"), torch.remainder(x, y), x // 5, x % -5,
                            torch.remainder(x, torch.tensor(-2**63 + 7)),
                            torch.unravel_index(x[2].abs(), (1, 2**63 - 1))))


@case(inputs=lambda: (torch.tensor([-128, 127, -100, 99, 5, -5, 0, 1], dtype=torch.int8),
                      torch.tensor([3, -2, 127, -128, -1, 2, -3, 1], dtype=torch.int8)), family=FAMILY)
def ElementwiseDivFloorInt8Module_extremes():
    """int8 floor division and remainder at the type's ends (computed in int32, where TOSA 1.0 compares)."""
    return Fn(lambda x, y: (torch.div(x, y, rounding_mode="floor"), torch.remainder(x, y)))


@case(inputs=lambda: (torch.randint(-10, 10, (3, 4)), torch.tensor([3, -3, 2, -2])), family=FAMILY)
def ElementwiseDivFloorIntModule_negative():
    """Floor division of negative integers rounds toward -inf."""
    return Fn(lambda a, b: torch.div(a, b, rounding_mode="floor"))


@case(inputs=lambda: (torch.randn(3, 4), torch.randn(3, 4)), family=FAMILY)
def ElementwiseMaximumModule_basic():
    return Fn(torch.maximum)


@case(inputs=lambda: (torch.randn(3, 4), torch.randn(4)), family=FAMILY)
def ElementwiseMinimumModule_broadcast():
    return Fn(torch.minimum)


@case(inputs=lambda: (torch.tensor([1.0, float("nan"), 3.0]), torch.tensor([float("nan"), 2.0, 1.0])), family=FAMILY)
def ElementwiseFmaxModule_nan():
    """fmax ignores NaN where maximum propagates it."""
    return Fn(torch.fmax)


@case(inputs=lambda: (torch.randn(4, 3), torch.randn(3, 4)), family=FAMILY)
def ElementwiseAddModule_noncontiguous():
    return Fn(lambda a, b: a.t() + b)


@case(inputs=lambda: (torch.randn(3, 4),), family=FAMILY)
def ElementwiseChainModule_basic():
    """A chain of elementwise ops that a backend would fuse."""
    return Fn(lambda x: torch.exp(-x * x) * 0.5 + torch.sin(x) / (1 + x.abs()))


# --------------------------------------------------------------------------
# Products by zero: NaN and infinities give NaN, as eager (TOSA's canonicalizer
# folds x * 0 to 0; tosa/zero_products.py keeps them). Every-sample OpInfo
# found it in addr with alpha=0 (addr/bfloat16/5).
# --------------------------------------------------------------------------

_SPECIAL = torch.tensor([float("nan"), float("inf"), -float("inf"), -2.5, -0.0, 0.0, 3.0])


@case(inputs=lambda: (_SPECIAL.clone(),), family=FAMILY)
def MulScalarModule_zero_keeps_nan():
    return Fn(lambda x: (x * 0.0, x * -0.0, 0 * x))


@case(inputs=lambda: (_SPECIAL.clone().bfloat16(),), family=FAMILY)
def MulTensorModule_zero_literal_broadcast_bfloat16():
    return Fn(lambda x: torch.zeros(2, 7, dtype=torch.bfloat16) * x)


@case(inputs=lambda: (torch.randn(3, 4), torch.tensor([1.0, float("nan"), 2.0]),
                      torch.tensor([float("inf"), 1.0, 0.5, -1.0])), family=FAMILY)
def AddrModule_alpha_and_beta_zero():
    """beta=0 drops the input's NaNs; alpha=0 keeps the outer product's."""
    return Fn(lambda m, a, b: torch.addr(m, a, b, beta=0.0, alpha=0.0))
