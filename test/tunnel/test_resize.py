"""Bilinear upsampling as one tosa.resize (tunnel/resize.py; the IR:
test/tunnel/lower-bilinear-upsample.mlir): F.interpolate by sizes and by
scale factors, up and down, align_corners either way, computes what eager
does in the runtime, and its TOSA carries no gather and no index grid;
an instance TOSA cannot state is decomposed as before, and runs too."""

from __future__ import annotations

import warnings

import pytest
import torch
import torch.nn.functional as F

import tosa_custom
from tosa_custom import runtime
from tosa_custom.e2e import Fn
from tosa_custom.tunnel import resize


def _compiled(fn, x, **kwargs):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        module = tosa_custom.compile(Fn(fn), (x,), **kwargs)  # validated strictly (tosa_target="auto")
    return str(module)


@pytest.mark.parametrize("shape, kwargs", [
    ((1, 21, 4, 4), dict(size=(64, 64), align_corners=False)),  # DeepLabV3's head
    ((2, 3, 5, 7), dict(size=(11, 4), align_corners=False)),  # up and down, odd ratios
    ((2, 3, 5, 7), dict(size=(11, 4), align_corners=True)),
    ((1, 8, 16, 16), dict(scale_factor=2.0, align_corners=False)),  # FPN-style: 1 / 2 is 16 / 32
    ((1, 8, 16, 16), dict(scale_factor=0.5, align_corners=True)),
    ((1, 2, 9, 9), dict(size=(9, 9), align_corners=False)),  # the identity
])
def test_bilinear_is_one_resize_and_matches_eager(shape, kwargs):
    torch.manual_seed(0)
    x = torch.randn(shape)

    def fn(x):
        return F.interpolate(x, mode="bilinear", **kwargs)

    text = _compiled(fn, x)
    identity = x.shape[2:] == fn(x).shape[2:]  # its resize folds away
    assert text.count("tosa.resize") == (0 if identity else 1) and "tosa.gather" not in text
    program = runtime.load(text)
    # Each output is two lerps of the inputs; eager and the resize round their weights apart.
    torch.testing.assert_close(program(x), fn(x), rtol=1e-5, atol=4 * torch.finfo(torch.float32).eps * x.abs().max())


@pytest.mark.parametrize("shape, kwargs, dtype", [
    ((1, 2, 5, 5), dict(scale_factor=1.5, align_corners=False), torch.float32),  # mapped by 1 / 1.5, not 5 / 7
    ((1, 2, 64, 64), dict(size=(2, 2), align_corners=False), torch.float32),  # 32x down: past TOSA 1.0's bound
    ((1, 2, 4, 4), dict(size=(8, 8), align_corners=False), torch.float16),
])
def test_what_tosa_cannot_state_is_decomposed_and_matches_eager(shape, kwargs, dtype):
    torch.manual_seed(0)
    x = torch.randn(shape).to(dtype)

    def fn(x):
        return F.interpolate(x, mode="bilinear", **kwargs)

    text = _compiled(fn, x, tosa_target=None)
    assert "tosa.resize" not in text and "tosa.gather" in text
    program = runtime.load(text)
    tolerance = dict(rtol=1e-2, atol=1e-2) if dtype == torch.float16 else dict(rtol=1e-5, atol=1e-5)
    torch.testing.assert_close(program(x), fn(x), **tolerance)


def test_parameters_follow_the_output_size_equation():
    """tosa.resize's output rows: ((I - 1) scale_n - offset + border) / scale_d + 1."""
    for size in range(1, 40):
        for out in range(1, 80):
            for align in (False, True):
                found = resize.resize_parameters((size, size), (out, out), align)
                if found is None:
                    continue
                (n, d, _, _), (offset, _), (border, _) = found
                assert ((size - 1) * n - offset + border) % d == 0
                assert ((size - 1) * n - offset + border) // d + 1 == out
