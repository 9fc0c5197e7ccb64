"""Whether a VGF can run here (Arm's ML SDK and a Vulkan device), for the tests
that need it: test/vgf's `vulkan` fixture and the README's Vulkan snippets.
They skip, saying why, where it cannot; where Vulkan is promised (CI installs
lavapipe and sets TOSA_CUSTOM_REQUIRE_VULKAN=1) the same problem fails them
instead: a CI run whose Vulkan tests all skipped would say nothing about them."""

from __future__ import annotations

import functools
import os

import pytest

__all__ = ["problem", "required"]

# A graph without kept ops: the probe tests the SDK and the driver, not our shaders.
_PROBE = """func.func @main(%x: tensor<2xf32>) -> tensor<2xf32> {
  %0 = tosa.abs %x : (tensor<2xf32>) -> tensor<2xf32>
  return %0 : tensor<2xf32>
}"""


@functools.cache
def problem() -> str | None:
    """Why a VGF cannot run here, or None."""
    from tosa_custom.core import ml_sdk

    if ml_sdk.find() is None:
        return f"Arm's ML SDK for Vulkan is not installed: {ml_sdk.INSTALL_HINT}"
    from tosa_custom import vgf
    from tosa_custom.core.diagnostics import CompileError

    try:
        vgf.load(_PROBE)
    except CompileError as e:
        return f"no Vulkan device can be made here ({e}); {ml_sdk.INSTALL_HINT}"
    return None


def required() -> str | None:
    """`problem()`, failing the test instead when Vulkan is promised."""
    found = problem()
    if found and os.environ.get("TOSA_CUSTOM_REQUIRE_VULKAN") == "1":
        pytest.fail(f"TOSA_CUSTOM_REQUIRE_VULKAN=1, but {found}", pytrace=False)
    return found
