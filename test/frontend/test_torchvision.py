"""torchvision models nobody here wrote (issue 41), compiled as a user would.

- Swin Transformer indexes a parameter by a buffer inside a list argument
  (the FX importer's bare AssertionError, in every mode): it compiles in
  dummy and auto mode and matches eager. It rolls its shifted windows too,
  which torch-mlir's decomposition left with `?` dims TorchToTosa refused in
  stock mode; stock mode compiles it now and matches eager (measured: 6.5
  minutes on this machine, so its test is roll's own, test_capture.py).
- AlexNet pools its 1x1 feature map (at 64x64) to 6x6: PyTorch's
  decomposition of that adaptive pooling lowered to TOSA of rank 7 no
  level allows; ours (frontend/capture.py) validates in stock mode and
  matches eager.
- regnet_y_400mf has grouped convolutions of 55 groups TorchToTosa does not
  lower (stock mode refused them plainly); they are batched matmuls before
  TorchToTosa sees them now (frontend/capture.py), and it compiles in stock
  mode and matches eager (the refusal's own test: test_refusals.py).

Slow (each compiles a whole model); torchvision comes from _torchvision.py.
Every architecture in every mode is the e2e family torchvision's (e2e/torchvision_models.py).
"""

from __future__ import annotations

import warnings

import pytest
import torch

import tosa_custom
from tosa_custom import runtime

from _torchvision import torchvision

MODES = {"dummy": ["*"], "auto": "auto"}


def _model(name: str):
    torch.manual_seed(0)
    return getattr(torchvision().models, name)(weights=None).eval()


@pytest.mark.slow
@pytest.mark.parametrize("mode", ["dummy", "auto"])
def test_swin_t_compiles_and_matches_eager(mode):
    model, x = _model("swin_t"), torch.randn(1, 3, 32, 32, generator=torch.Generator().manual_seed(0))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        module = tosa_custom.compile(model, (x,), backend_legal_ops=MODES[mode])
    torch.testing.assert_close(runtime.load(module)(x), model(x), rtol=1e-4, atol=1e-4)


@pytest.mark.slow
def test_regnet_y_400mf_compiles_in_stock_mode_and_matches_eager():
    model, x = _model("regnet_y_400mf"), torch.randn(1, 3, 64, 64, generator=torch.Generator().manual_seed(0))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        module = tosa_custom.compile(model, (x,), tosa_target="auto")
    expected = model(x)  # random weights: logits well under 1, so atol is relative to them
    torch.testing.assert_close(runtime.load(module)(x), expected, rtol=1e-4, atol=1e-4 * expected.abs().max().item())


@pytest.mark.slow
def test_alexnet_in_stock_mode_validates_and_matches_eager():
    model, x = _model("alexnet"), torch.randn(1, 3, 64, 64, generator=torch.Generator().manual_seed(0))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        module = tosa_custom.compile(model, (x,), tosa_target="auto")  # raises unless the TOSA validates
    expected = model(x)  # random weights: logits of about 0.03, so atol is relative to them
    torch.testing.assert_close(runtime.load(module)(x), expected, rtol=1e-4, atol=1e-4 * expected.abs().max().item())
