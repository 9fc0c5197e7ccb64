"""Our decompositions (frontend/decompositions.py), against eager in stock
mode: nearest resizing by integer factors, which TorchToTosa refused as
torch-mlir's `aten.__interpolate` in every model that upsamples."""

from __future__ import annotations

import warnings

import pytest
import torch
import torch.nn.functional as F

import tosa_custom
from tosa_custom import CompileError, runtime


class Resize(torch.nn.Module):
    def __init__(self, **kw):
        super().__init__()
        self.kw = kw

    def forward(self, x):
        return F.interpolate(x, **self.kw) + 1


def _run(model, x, **compile_kw):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        module = tosa_custom.compile(model, (x,), **compile_kw)
    assert "tosa.custom" not in str(module)
    got = runtime.load(module)(x)
    torch.testing.assert_close(got, model(x), rtol=0, atol=0)  # a resize moves elements: exact


UP = [
    ((1, 3, 5, 7), {"size": (10, 21)}),  # 2x and 3x
    ((2, 4, 6, 6), {"scale_factor": 2}),
    ((1, 2, 6, 4), {"scale_factor": (2.0, 1.0)}),
    ((2, 3, 5), {"size": 15}),  # 1-d
    ((1, 2, 2, 3, 4), {"scale_factor": 2}),  # 3-d
]
DOWN = [
    ((1, 2, 8, 9), {"size": (4, 3)}),  # by 2 and by 3
    ((1, 2, 8, 3), {"size": (2, 6)}),  # down one dim, up the other
]


@pytest.mark.parametrize("mode", ["nearest", "nearest-exact"])
@pytest.mark.parametrize("shape,kw", UP, ids=[str(k) + str(s) for s, k in UP])
def test_nearest_upsampling_by_integer_factors_compiles_in_stock_mode(shape, kw, mode):
    _run(Resize(mode=mode, **kw), torch.randn(*shape))


@pytest.mark.parametrize("shape,kw", DOWN, ids=[str(k) + str(s) for s, k in DOWN])
def test_nearest_downsampling_by_integer_factors_compiles_in_stock_mode(shape, kw):
    _run(Resize(mode="nearest", **kw), torch.randn(*shape))


@pytest.mark.parametrize("shape,kw", DOWN, ids=[str(k) + str(s) for s, k in DOWN])
def test_nearest_exact_downsampling_stays_whole(shape, kw):
    """floor((j + 0.5) * step) is not a strided pick from 0: auto mode tunnels it."""
    x, model = torch.randn(*shape), Resize(mode="nearest-exact", **kw)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        module = tosa_custom.compile(model, (x,), backend_legal_ops="auto")
    assert "tosa.custom" in str(module)
    torch.testing.assert_close(runtime.load(module)(x), model(x), rtol=0, atol=0)


def test_other_ratios_stay_whole_refused_by_name_in_stock_tunneled_in_auto():
    x = torch.randn(1, 2, 4, 4)
    model = Resize(size=(6, 6), mode="nearest")  # 1.5x: not an integer factor
    with pytest.raises(CompileError, match="interpolate"):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            tosa_custom.compile(model, (x,))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        module = tosa_custom.compile(model, (x,), backend_legal_ops="auto")
    torch.testing.assert_close(runtime.load(module)(x), model(x), rtol=0, atol=0)


def test_a_scale_factor_off_the_ratio_stays_whole():
    """floor(j / 2.0000001) is not j // 2 for every j: such a factor is not a repeat."""
    x = torch.randn(1, 1, 4, 4)
    model = Resize(scale_factor=2.0000001, mode="nearest")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        module = tosa_custom.compile(model, (x,), backend_legal_ops="auto")
    assert "tosa.custom" in str(module)
    torch.testing.assert_close(runtime.load(module)(x), model(x), rtol=0, atol=0)
