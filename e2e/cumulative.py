"""Cumulative ops: cumsum (dims, dtype, integers), cumprod, cummax/cummin
(values and indices), logcumsumexp."""

import torch

from tosa_custom.e2e import case

FAMILY = "cumulative"


class _Fn(torch.nn.Module):
    """One function as a module: a case is then its function and its inputs."""

    def __init__(self, fn):
        super().__init__()
        self.fn = fn

    def forward(self, *args):
        return self.fn(*args)


@case(inputs=lambda: (torch.randn(3, 5),), family=FAMILY)
def CumsumModule_basic():
    return _Fn(lambda x: torch.cumsum(x, dim=1))


@case(inputs=lambda: (torch.randn(4, 3, 2),), family=FAMILY)
def CumsumModule_dim0():
    return _Fn(lambda x: torch.cumsum(x, dim=0))


@case(inputs=lambda: (torch.randn(2, 6),), family=FAMILY)
def CumsumModule_negative_dim():
    return _Fn(lambda x: x.cumsum(-1))


@case(inputs=lambda: (torch.randn(7),), family=FAMILY)
def CumsumModule_1d():
    return _Fn(lambda x: torch.cumsum(x, 0))


@case(inputs=lambda: (torch.randn(3, 4),), family=FAMILY)
def CumsumDtypeModule_float64():
    return _Fn(lambda x: torch.cumsum(x, 1, dtype=torch.float64))


@case(inputs=lambda: (torch.randint(0, 2, (2, 6), dtype=torch.int32),), family=FAMILY)
def CumsumIntModule_positions():
    """int32 cumsum gives int64: positions from an attention mask, as HF computes them."""
    return _Fn(lambda m: torch.cumsum(m, dim=1) * m - 1)


@case(inputs=lambda: (torch.rand(3, 5) + 0.5,), family=FAMILY,
      xfail={"stock": "torch-mlir has no TOSA lowering for aten.cumprod"})
def CumprodModule_basic():
    return _Fn(lambda x: torch.cumprod(x, dim=1))


@case(inputs=lambda: (torch.randn(3, 6),), family=FAMILY,
      xfail={"stock": "torch-mlir does not know aten.cummax (imported as torch.operator): no TOSA lowering"})
def CummaxModule_basic():
    return _Fn(lambda x: torch.cummax(x, dim=1))


@case(inputs=lambda: (torch.randn(5, 3),), family=FAMILY,
      xfail={"stock": "torch-mlir does not know aten.cummin (imported as torch.operator): no TOSA lowering"})
def CumminModule_dim0():
    return _Fn(lambda x: torch.cummin(x, dim=0))


@case(inputs=lambda: (torch.randn(3, 5) * 20,), family=FAMILY)
def LogcumsumexpModule_basic():
    return _Fn(lambda x: torch.logcumsumexp(x, dim=1))


@case(inputs=lambda: (torch.randn(4, 3),), family=FAMILY)
def CumsumModule_noncontiguous():
    return _Fn(lambda x: x.t().cumsum(1))
