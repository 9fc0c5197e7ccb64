"""polymath.py: f32 exp / tanh / erf as polynomials, accurate to eager PyTorch."""

from __future__ import annotations

import collections

import pytest
import torch
from torch_mlir import ir, passmanager

from tosa_custom.core import ir as _ir
from tosa_custom import runtime
from tosa_custom.runtime.lower import lowering, tiling
from _runtime_ir import _matmul, _names, _ops, _parse  # noqa: F401  (shared IR helpers)


UNARY = """
func.func @f(%a: tensor<4096xf32>) -> (tensor<4096xf32>, tensor<4096xf32>, tensor<4096xf32>) {
  %0 = tosa.exp %a : (tensor<4096xf32>) -> tensor<4096xf32>
  %1 = tosa.tanh %a : (tensor<4096xf32>) -> tensor<4096xf32>
  %2 = tosa.erf %a : (tensor<4096xf32>) -> tensor<4096xf32>
  return %0, %1, %2 : tensor<4096xf32>, tensor<4096xf32>, tensor<4096xf32>
}"""


def test_polynomial_exp_tanh_erf_match_eager():
    g = torch.Generator().manual_seed(0)
    x = torch.cat([
        torch.linspace(-110.0, 90.0, 2000),
        torch.randn(1000, generator=g) * 4,
        torch.logspace(-8, 1, 500) * torch.tensor([-1.0, 1.0]).repeat(250),
        torch.tensor([0.0, -0.0, float("inf"), float("-inf"), float("nan"), 88.7, -87.3, -103.9, 1e-30]),
    ])
    x = torch.cat([x, torch.zeros(4096 - x.numel())])
    module = _parse(UNARY)
    lowering.lower_to_vectors(module)
    assert not {"math.exp", "math.tanh", "math.erf"} & set(_names(module))  # no libm call per lane
    exp, tanh, erf = runtime.load(UNARY)(x)
    torch.testing.assert_close(exp, torch.exp(x), rtol=4e-7, atol=1e-40, equal_nan=True)
    torch.testing.assert_close(tanh, torch.tanh(x), rtol=1e-6, atol=0, equal_nan=True)
    torch.testing.assert_close(erf, torch.erf(x), rtol=1e-6, atol=3e-7, equal_nan=True)


def test_naive_lowering_calls_libm_for_erf():
    x = torch.linspace(-4, 4, 4096)
    exp, tanh, erf = runtime.load(UNARY, vectorize=False)(x)
    torch.testing.assert_close(erf, torch.erf(x))
    torch.testing.assert_close(tanh, torch.tanh(x))
