"""Cumulative ops: cumsum (dims, dtype, integers), cumprod, cummax/cummin
(values and indices), logcumsumexp."""

import torch

from tosa_custom.e2e import Fn, case

FAMILY = "cumulative"

# Why a float64 case's TOSA cannot validate, in every mode (CONTRACT.md §13.5).
F64_BY_DESIGN = "computes in float64 by design (an f64 input, result or dtype): TOSA 1.0 has no f64 in any profile"


@case(inputs=lambda: (torch.randn(3, 5),), family=FAMILY)
def CumsumModule_basic():
    return Fn(lambda x: torch.cumsum(x, dim=1))


@case(inputs=lambda: (torch.randn(4, 3, 2),), family=FAMILY)
def CumsumModule_dim0():
    return Fn(lambda x: torch.cumsum(x, dim=0))


@case(inputs=lambda: (torch.randn(2, 6),), family=FAMILY)
def CumsumModule_negative_dim():
    return Fn(lambda x: x.cumsum(-1))


@case(inputs=lambda: (torch.randn(7),), family=FAMILY)
def CumsumModule_1d():
    return Fn(lambda x: torch.cumsum(x, 0))


@case(inputs=lambda: (torch.randn(3, 4),), family=FAMILY, nonconformant=F64_BY_DESIGN)
def CumsumDtypeModule_float64():
    return Fn(lambda x: torch.cumsum(x, 1, dtype=torch.float64))


@case(inputs=lambda: (torch.randint(0, 2, (2, 6), dtype=torch.int32),), family=FAMILY)
def CumsumIntModule_positions():
    """int32 cumsum gives int64: positions from an attention mask, as HF computes them."""
    return Fn(lambda m: torch.cumsum(m, dim=1) * m - 1)


@case(inputs=lambda: (torch.rand(3, 5) + 0.5,), family=FAMILY,
      xfail={"stock": "torch-mlir has no TOSA lowering for aten.cumprod"})
def CumprodModule_basic():
    return Fn(lambda x: torch.cumprod(x, dim=1))


@case(inputs=lambda: (torch.randn(3, 6),), family=FAMILY,
      xfail={"stock": "torch-mlir does not know aten.cummax (imported as torch.operator): no TOSA lowering"})
def CummaxModule_basic():
    return Fn(lambda x: torch.cummax(x, dim=1))


@case(inputs=lambda: (torch.randn(5, 3),), family=FAMILY,
      xfail={"stock": "torch-mlir does not know aten.cummin (imported as torch.operator): no TOSA lowering"})
def CumminModule_dim0():
    return Fn(lambda x: torch.cummin(x, dim=0))


@case(inputs=lambda: (torch.randn(3, 5) * 20,), family=FAMILY)
def LogcumsumexpModule_basic():
    return Fn(lambda x: torch.logcumsumexp(x, dim=1))


@case(inputs=lambda: (torch.randn(4, 3),), family=FAMILY)
def CumsumModule_noncontiguous():
    return Fn(lambda x: x.t().cumsum(1))
