"""torchvision for the tests that compile its models, kept off the venv:
tosa_custom.e2e.vision installs and imports it (its docstring says why it is
not a dependency); here a test is skipped, saying why, when it cannot."""

from __future__ import annotations

import pytest

from tosa_custom.e2e import vision

__all__ = ["torchvision"]


def torchvision():
    """The torchvision module (installed on first use), or the test is skipped."""
    try:
        return vision.torchvision()
    except vision.TorchvisionUnavailable as e:
        pytest.skip(str(e))
