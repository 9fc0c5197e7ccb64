"""Our decompositions (frontend/decompositions.py), against eager in stock
mode: nearest resizing by integer factors, which TorchToTosa refused as
torch-mlir's `aten.__interpolate` in every model that upsamples; linear
resizing, separably."""

from __future__ import annotations

import math
import re
import warnings

import pytest
import torch
import torch.nn.functional as F

import tosa_custom
from tosa_custom import runtime
from tosa_custom.tunnel import resize


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


OTHER = [
    ((1, 2, 4, 4), {"size": (6, 6)}),  # 1.5x
    ((2, 3, 4), {"size": 3}),  # 4 -> 3
    ((1, 2, 5, 7), {"scale_factor": 1.7}),
    ((1, 2, 9, 10), {"scale_factor": 0.6}),
    ((1, 2, 4, 4), {"scale_factor": 2.0000001}),  # floor(j / factor) is not j // 2 for every j
    ((1, 1, 8, 9), {"size": (4, 3)}),  # nearest-exact downsampling picks from the middle
    ((1, 1, 3, 3, 5), {"size": (4, 5, 2)}),
]


@pytest.mark.parametrize("mode", ["nearest", "nearest-exact"])
@pytest.mark.parametrize("shape,kw", OTHER, ids=[str(k) + str(s) for s, k in OTHER])
def test_nearest_resize_by_any_ratio_picks_the_elements_eager_picks(shape, kw, mode):
    """Each dim gathers by PyTorch's own float32 source index (a constant)."""
    _run(Resize(mode=mode, **kw), torch.randn(*shape))


def test_sizes_of_run_time_value_stay_whole():
    """A resize to a `?` size has no constant index: auto mode tunnels it."""
    from torch.export import Dim

    x, model = torch.randn(1, 2, 4, 6), Resize(scale_factor=2, mode="nearest")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        module = tosa_custom.compile(model, (x,), backend_legal_ops="auto",
                                     dynamic_shapes=({3: Dim("w", min=2, max=16)},))
    program = runtime.load(module)
    for w in (2, 6, 16):
        y = torch.randn(1, 2, 4, w)
        torch.testing.assert_close(program(y), model(y), rtol=0, atol=0)


LINEAR = [
    ((1, 21, 4, 4), "bilinear", {"size": (64, 64)}),  # deeplabv3's head, 16x
    ((2, 3, 5, 7), "bilinear", {"size": (11, 13)}),
    ((1, 2, 6, 6), "bilinear", {"scale_factor": 2.0}),
    ((1, 2, 6, 6), "bilinear", {"scale_factor": 1.7}),
    ((1, 2, 9, 9), "bilinear", {"size": (4, 5)}),  # down
    ((1, 2, 1, 1), "bilinear", {"size": (3, 3)}),
    ((1, 2, 4, 6), "bilinear", {"size": (4, 9)}),  # one dim kept
    ((2, 3, 5), "linear", {"size": 12}),
    ((1, 2, 2, 3, 4), "trilinear", {"scale_factor": 2}),
]


@pytest.mark.parametrize("align_corners", [False, True])
@pytest.mark.parametrize("shape,mode,kw", LINEAR, ids=[m + str(k) + str(s) for s, m, k in LINEAR])
def test_linear_resizing_is_separable_and_matches_eager(shape, mode, kw, align_corners):
    torch.manual_seed(0)
    model, x = Resize(mode=mode, align_corners=align_corners, **kw), torch.randn(*shape)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        module = tosa_custom.compile(model, (x,))
    # Two gathers per resized dim, last dim first, each of one dim's
    # neighbours (PyTorch's own decomposition gathers 2^dims corners at the
    # output's full size); a bilinear resizing TOSA states is one tosa.resize
    # instead (tunnel/resize.py), not decomposed.
    spatial, out = shape[2:], model(x).shape[2:]
    gathers = re.findall(r"tosa\.gather .* -> tensor<([0-9x]+)x\w+>", str(module))
    scales = [kw["scale_factor"]] * 2 if "scale_factor" in kw else None
    if mode == "bilinear" and resize.fits(list(shape), "f32", kw.get("size"), align_corners, scales):
        assert not gathers and str(module).count("tosa.resize") == (spatial != out)
    else:
        assert sorted(math.prod(map(int, g.split("x"))) for g in gathers) == sorted(
            math.prod(shape[:2]) * math.prod(spatial[:d]) * math.prod(out[d:])
            for d in range(len(spatial)) if spatial[d] != out[d] for _ in range(2))
    # The kernel's sums, up to the rounding of one multiply-add per dim (an FMA here or there).
    want = model(x)
    torch.testing.assert_close(runtime.load(module)(x), want, rtol=0, atol=4 * len(shape[2:]) * 2**-24 * (
        x.abs().max().item() + 1))


def test_linear_resizing_of_integers_and_run_time_sizes_stays_whole():
    from tosa_custom.frontend.decompositions import OUR_DECOMPOSITIONS

    vec = OUR_DECOMPOSITIONS[torch.ops.aten.upsample_bilinear2d.vec]
    assert vec(torch.zeros(1, 1, 2, 2, dtype=torch.uint8), (4, 4), False, None) is NotImplemented
    assert vec(torch.zeros(1, 1, 2, 2), None, False, None) is NotImplemented  # neither a size nor factors


@pytest.mark.parametrize("dtype", [torch.float16, torch.bfloat16])
def test_linear_resizing_computes_in_the_kernels_precision(dtype):
    """Half precision in float32, as the kernel's opmath, rounded once at the
    end, its dtype kept (float64: OpInfo's samples, in every dtype)."""
    torch.manual_seed(0)
    model, x = Resize(mode="bilinear", size=(11, 13)), torch.randn(2, 3, 5, 7).to(dtype)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        module = tosa_custom.compile(model, (x,))
    got, want = runtime.load(module)(x), model(x)
    assert got.dtype == dtype
    ulp = torch.finfo(dtype).eps * (x.abs().max().item() + 1)
    torch.testing.assert_close(got, want, rtol=0, atol=ulp)


class Exponential(torch.nn.Module):
    def forward(self, x):
        return x.exponential_()


@pytest.mark.parametrize("legal", [None, "auto"], ids=["stock", "auto"])
@pytest.mark.parametrize("dtype", [torch.float16, torch.bfloat16])
def test_half_precision_exponential_is_drawn_in_float32(dtype, legal):
    """-log(1 - u) in bfloat16 rounds u near 1 to 1: inf (every-sample
    OpInfo exponential/bfloat16, 10 of 4,096 draws). Drawn in float32 and
    rounded once, as eager draws it: no inf, and the mean of 4,096 Exp(1)
    draws within 6 standard errors (6 / 64) of 1."""
    torch.manual_seed(0)
    x = torch.zeros(4096, dtype=dtype)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        module = tosa_custom.compile(Exponential().eval(), (x,), backend_legal_ops=legal, tosa_target=None)
    assert re.search(r"tosa\.log %\S+ : \(tensor<4096xf32>\)", str(module)), "the log is not computed in f32"
    got = runtime.load(module)(x.clone())
    assert got.dtype == dtype
    assert torch.isfinite(got).all() and (got >= 0).all()
    assert abs(got.float().mean().item() - 1.0) < 6 / 64
