"""The torchvision list: one architecture per family of classification and
segmentation models, with random weights, at the smallest input each takes.

One home for the list: the e2e family `torchvision` (e2e/torchvision_models.py,
one case per architecture) and the tests (test/_torchvision.py,
test/frontend/test_torchvision.py) read it here.

torchvision is not a dependency: PyPI's Linux wheel of torchvision 0.28.0
(the release built against torch 2.13) is built for CUDA torch, and with the
CPU torch this project pins, `import torchvision` fails registering its C++
ops (`operator torchvision::nms does not exist`). Installed in the venv it
breaks transformers too, which imports torchvision whenever it is installed.
So it is installed into a directory of its own (build/torchvision-<version>
of the checkout, or $TOSA_CUSTOM_TORCHVISION_DIR) and imported from there
without its C++ op registrations (the models here never call nms or
roi_align). When that fails, `TorchvisionUnavailable` says why.

Random weights make degenerate references: torchvision's initialisation
shrinks MobileNet's and EfficientNet's logits to 1e-9..1e-14 (kaiming
fan-out on depthwise kernels), blows Inception v3's up to 1e8, zeroes ViT's
head and scales ConvNeXt's blocks by 1e-6, and any atol then passes a wrong
program or fails a right one. `build` therefore sets each batch norm's
statistics from one training-mode batch (so every normalised activation is
of unit size), gives zero-initialised linear layers random weights and
ConvNeXt's layer scales 1: every branch then reaches the output at the size
eager's float32 rounding is measured against.
"""

from __future__ import annotations

import dataclasses
import importlib
import importlib.util
import os
import pathlib
import subprocess
import sys
import types

import torch
from torch import nn

__all__ = ["VERSION", "Architecture", "ARCHITECTURES", "TorchvisionUnavailable", "torchvision", "build", "image"]

VERSION = "0.28.0"  # the torchvision release of torch 2.13.0 (pyproject.toml pins torch)
PILLOW = "13.0.0"  # torchvision imports PIL at import time; installed beside it when the environment has none
_CHECKOUT = pathlib.Path(__file__).resolve().parents[3]


class TorchvisionUnavailable(ImportError):
    """torchvision could not be installed or imported: said, with the cause."""


@dataclasses.dataclass(frozen=True)
class Architecture:
    builder: str  # the torchvision.models (or .segmentation) function
    size: int = 64  # the input is 1x3xsize x size
    segmentation: bool = False  # a dict {"out": ...} of per-pixel class scores
    options: tuple = ()  # (keyword, value) pairs for the builder

    def kwargs(self) -> dict:
        return dict(self.options)


_NO_AUX = (("aux_logits", False), ("init_weights", True))
# name -> its architecture; the smallest variant of each family, at 64x64 where it takes it.
ARCHITECTURES: dict[str, Architecture] = {
    "alexnet": Architecture("alexnet"),
    "convnext_tiny": Architecture("convnext_tiny"),
    "densenet121": Architecture("densenet121"),
    "efficientnet_b0": Architecture("efficientnet_b0"),
    "efficientnet_v2_s": Architecture("efficientnet_v2_s"),
    "googlenet": Architecture("googlenet", options=_NO_AUX),
    "inception_v3": Architecture("inception_v3", size=75, options=_NO_AUX),  # its stem needs 75x75
    # partition size 7 at 1/32 of the input: 224 is the smallest maxvit_t takes
    "maxvit_t": Architecture("maxvit_t", size=224),
    "mnasnet0_5": Architecture("mnasnet0_5"),
    "mobilenet_v2": Architecture("mobilenet_v2"),
    "mobilenet_v3_small": Architecture("mobilenet_v3_small"),
    "mobilenet_v3_large": Architecture("mobilenet_v3_large"),
    "regnet_x_400mf": Architecture("regnet_x_400mf"),
    "regnet_y_400mf": Architecture("regnet_y_400mf"),
    "resnet18": Architecture("resnet18"),
    "resnext50_32x4d": Architecture("resnext50_32x4d"),
    "shufflenet_v2_x0_5": Architecture("shufflenet_v2_x0_5"),
    "squeezenet1_0": Architecture("squeezenet1_0"),
    "swin_t": Architecture("swin_t"),
    "swin_v2_t": Architecture("swin_v2_t"),
    "vgg11": Architecture("vgg11"),
    "vit_b_16": Architecture("vit_b_16", size=32, options=(("image_size", 32),)),
    "wide_resnet50_2": Architecture("wide_resnet50_2"),
    "deeplabv3_mobilenet_v3_large": Architecture("deeplabv3_mobilenet_v3_large", segmentation=True),
    "deeplabv3_resnet50": Architecture("deeplabv3_resnet50", segmentation=True),
    "fcn_resnet50": Architecture("fcn_resnet50", segmentation=True),
    "lraspp_mobilenet_v3_large": Architecture("lraspp_mobilenet_v3_large", segmentation=True),
}


def _directory() -> pathlib.Path:
    if os.environ.get("TOSA_CUSTOM_TORCHVISION_DIR"):
        return pathlib.Path(os.environ["TOSA_CUSTOM_TORCHVISION_DIR"])
    if (_CHECKOUT / "pyproject.toml").exists():  # a checkout: beside its other builds
        return _CHECKOUT / "build" / f"torchvision-{VERSION}"
    return pathlib.Path.home() / ".cache" / "tosa_custom" / f"torchvision-{VERSION}"


def _install(target: pathlib.Path) -> None:
    """pip-install torchvision (and pillow, if missing) into `target`, each
    into a fresh directory renamed into place, so two workers installing at
    once never see half a package."""
    wanted = [] if (target / "torchvision" / "__init__.py").exists() else [f"torchvision=={VERSION}"]
    if importlib.util.find_spec("PIL") is None and not (target / "PIL" / "__init__.py").exists():
        wanted.append(f"pillow=={PILLOW}")
    if not wanted:
        return
    staging = target.with_name(f"{target.name}.partial-{os.getpid()}")
    command = [sys.executable, "-m", "pip", "install", "--quiet", "--no-deps", "--target", str(staging), *wanted]
    try:
        done = subprocess.run(command, capture_output=True, text=True, timeout=600)
    except (OSError, subprocess.TimeoutExpired) as e:
        raise TorchvisionUnavailable(f"torchvision {VERSION} could not be installed into {target}: {e}") from None
    if done.returncode:
        raise TorchvisionUnavailable(
            f"torchvision {VERSION} could not be installed into {target}: {done.stderr.strip()[-300:]}")
    target.mkdir(parents=True, exist_ok=True)
    for entry in staging.iterdir():
        if not (target / entry.name).exists():
            entry.rename(target / entry.name)


def _purge() -> None:
    for name in [n for n in sys.modules if n == "torchvision" or n.startswith("torchvision.")]:
        del sys.modules[name]


def torchvision():
    """The torchvision module, installed on first use; TorchvisionUnavailable
    saying why when it cannot be had."""
    try:
        return importlib.import_module("torchvision")
    except ImportError:
        pass
    except RuntimeError as e:  # a CUDA build in the environment: its C++ ops do not load
        if "torchvision::" not in str(e):
            raise
    _purge()
    target = _directory()
    _install(target)
    if str(target) not in sys.path:
        sys.path.append(str(target))
    sys.modules["torchvision._meta_registrations"] = types.ModuleType("torchvision._meta_registrations")
    try:
        return importlib.import_module("torchvision")
    except Exception as e:  # noqa: BLE001 - any failure here means unavailable, said
        _purge()
        raise TorchvisionUnavailable(
            f"torchvision {VERSION} from {target} does not import: {type(e).__name__}: {e}") from None


def image(name: str, batch: int = 1, seed: int = 0) -> torch.Tensor:
    """A random batch of images of the size `name` takes."""
    size = ARCHITECTURES[name].size
    return torch.randn(batch, 3, size, size, generator=torch.Generator().manual_seed(seed))


def _calibrate(model: nn.Module, name: str) -> None:
    """Each batch norm's statistics from one training-mode batch of eight
    images (more than one: a norm over a 1x1 map needs more than one value; eight: a
    statistic of two is too often near zero, which the norm then amplifies)."""
    norms = [m for m in model.modules() if isinstance(m, nn.modules.batchnorm._BatchNorm)]
    if not norms:
        return
    for norm in norms:
        norm.reset_running_stats()
        norm.momentum = None  # a cumulative average: after one batch, that batch's statistics
    model.train()
    with torch.no_grad():
        model(image(name, batch=8, seed=1))
    for norm in norms:
        norm.momentum = 0.1


def _unhide_branches(model: nn.Module) -> None:
    """Random weights for zero-initialised linear layers (ViT's head) and
    layer scales of 1 (ConvNeXt's 1e-6), so no branch is invisible at the output."""
    with torch.no_grad():
        for module in model.modules():
            if isinstance(module, nn.Linear) and not module.weight.any():
                module.weight.normal_(0.0, module.in_features ** -0.5)
            scale = getattr(module, "layer_scale", None)
            if isinstance(scale, nn.Parameter):
                scale.fill_(1.0)


def build(name: str) -> nn.Module:
    """`name` with random weights (the same every build), its branches made
    visible and its batch norms calibrated (see the module's docstring), in eval mode."""
    arch = ARCHITECTURES[name]
    models = torchvision().models
    builder = getattr(models.segmentation if arch.segmentation else models, arch.builder)
    extra = {"weights_backbone": None} if arch.segmentation else {}
    torch.manual_seed(0)
    model = builder(weights=None, **extra, **arch.kwargs())
    _unhide_branches(model)
    _calibrate(model, name)
    return model.eval()
