"""Comparisons (tensor/tensor, tensor/scalar, mixed dtypes), NaN/Inf tests
and `where`: every result here is a bool tensor or selected by one."""

import torch

from tosa_custom.e2e import Fn, case

FAMILY = "comparison"


def _ints(*shape):
    return torch.randint(-3, 4, shape)


@case(inputs=lambda: (_ints(3, 4), _ints(3, 4)), family=FAMILY)
def ElementwiseEqTensorModule_basic():
    return Fn(torch.eq)


@case(inputs=lambda: (torch.tensor([[0.5, 1.0, 2.0], [1.0, -1.0, 0.0]]),), family=FAMILY)
def ElementwiseEqScalarModule_basic():
    return Fn(lambda x: x == 1.0)


@case(inputs=lambda: (_ints(3, 4), _ints(4)), family=FAMILY)
def ElementwiseNeTensorModule_broadcast():
    return Fn(torch.ne)


@case(inputs=lambda: (torch.randn(3, 4), torch.randn(3, 4)), family=FAMILY)
def ElementwiseLtTensorModule_basic():
    return Fn(torch.lt)


@case(inputs=lambda: (torch.randn(3, 4),), family=FAMILY)
def ElementwiseLeScalarModule_basic():
    return Fn(lambda x: x <= 0.25)


@case(inputs=lambda: (torch.randn(2, 3, 4), torch.randn(3, 1)), family=FAMILY)
def ElementwiseGtTensorModule_broadcast():
    return Fn(torch.gt)


@case(inputs=lambda: (_ints(3, 4),), family=FAMILY)
def ElementwiseGeIntScalarModule_basic():
    return Fn(lambda x: x >= 1)


@case(inputs=lambda: (_ints(3, 4),), family=FAMILY,
      nonconformant={"stock": "an int64 input is compared with a Python float in f64 (torch-mlir casts both to f64): "
                              "TOSA 1.0 has no f64 and casts no i64 to a float"})
def ElementwiseGtIntFloatScalarModule_promotion():
    """int64 tensor compared with a Python float: compared as floats."""
    return Fn(lambda x: x > 0.5)


@case(inputs=lambda: (_ints(3, 4), torch.randn(3, 4)), family=FAMILY)
def ElementwiseLtIntFloatTensorModule_promotion():
    return Fn(torch.lt)


@case(inputs=lambda: (torch.randn(3, 4), torch.randn(())), family=FAMILY)
def ElementwiseGeZeroRankModule_basic():
    return Fn(torch.ge)


@case(inputs=lambda: (torch.randn(4, 3), torch.randn(3, 4)), family=FAMILY)
def ElementwiseEqModule_noncontiguous():
    return Fn(lambda a, b: a.t().round() == b.round())


@case(inputs=lambda: (torch.tensor([1.0, float("nan"), float("inf"), -float("inf"), 0.0]),), family=FAMILY)
def ElementwiseIsnanModule_basic():
    return Fn(torch.isnan)


@case(inputs=lambda: (torch.tensor([1.0, float("nan"), float("inf"), -float("inf"), 0.0]),), family=FAMILY)
def ElementwiseIsinfModule_basic():
    return Fn(torch.isinf)


@case(inputs=lambda: (torch.tensor([1.0, float("nan"), float("inf"), -float("inf"), 0.0]),), family=FAMILY,
      xfail={"stock": "torch-mlir has no TOSA lowering for aten.isfinite"})
def ElementwiseIsfiniteModule_basic():
    return Fn(torch.isfinite)


@case(inputs=lambda: (torch.tensor([1.0, float("inf"), -float("inf"), 2.0]),), family=FAMILY)
def ElementwiseIsposinfModule_basic():
    return Fn(torch.isposinf)


@case(inputs=lambda: (torch.tensor([1.0, 1.00001, 2.0, float("nan")]), torch.tensor([1.0, 1.0, 2.1, float("nan")])),
      family=FAMILY)
def ElementwiseIscloseModule_basic():
    return Fn(lambda a, b: torch.isclose(a, b, rtol=1e-4, atol=0.0))


@case(inputs=lambda: (torch.randn(3, 4) > 0, torch.randn(3, 4), torch.randn(3, 4)), family=FAMILY)
def WhereSelfModule_basic():
    return Fn(torch.where)


@case(inputs=lambda: (torch.randn(3, 1) > 0, torch.randn(1, 4), torch.randn(3, 4)), family=FAMILY)
def WhereSelfModule_broadcast():
    return Fn(torch.where)


@case(inputs=lambda: (torch.randn(3, 4),), family=FAMILY)
def WhereScalarOtherModule_basic():
    return Fn(lambda x: torch.where(x > 0, x, 0.0))


@case(inputs=lambda: (torch.randn(3, 4),), family=FAMILY)
def WhereScalarScalarModule_basic():
    """Both branches Python scalars: the result takes the default float dtype."""
    return Fn(lambda x: torch.where(x > 0, 1.5, -2.0))


@case(inputs=lambda: (torch.randn(3, 4) > 0, _ints(3, 4), torch.randn(3, 4)), family=FAMILY)
def WhereIntFloatModule_promotion():
    """An int64 branch and a float32 branch: promoted to float32."""
    return Fn(torch.where)


@case(inputs=lambda: (torch.randn(3, 4),), family=FAMILY)
def WhereComputedConditionModule_basic():
    """The condition combines two comparisons."""
    return Fn(lambda x: torch.where((x > -0.5) & (x < 0.5), x * 10, x))


@case(inputs=lambda: (torch.randn(2, 3), torch.randn(2, 3)), family=FAMILY)
def ElementwiseEqualAndCountModule_basic():
    """A comparison feeding arithmetic: the bool result is summed."""
    return Fn(lambda a, b: (a > b).sum(dim=1))
