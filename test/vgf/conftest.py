"""The `vulkan` fixture: the tests that run programs on Vulkan (Arm's ML SDK and
a Vulkan driver, lavapipe in CI) are skipped, saying why, when the SDK is not
installed or no Vulkan device can be made; they never pass without running.

Where Vulkan is promised (CI installs lavapipe and sets TOSA_CUSTOM_REQUIRE_VULKAN=1),
the same problem fails the tests instead: a CI run whose Vulkan tests all skipped
would say nothing about them."""

from __future__ import annotations

import functools
import os

import pytest

# A graph without kept ops: the probe tests the SDK and the driver, not our shaders.
_PROBE = """func.func @main(%x: tensor<2xf32>) -> tensor<2xf32> {
  %0 = tosa.abs %x : (tensor<2xf32>) -> tensor<2xf32>
  return %0 : tensor<2xf32>
}"""


@functools.cache
def _problem() -> str | None:
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


@pytest.fixture(scope="session")
def vulkan():
    """Skips the test, saying why, where a VGF cannot run."""
    problem = _problem()
    if problem and os.environ.get("TOSA_CUSTOM_REQUIRE_VULKAN") == "1":
        pytest.fail(f"TOSA_CUSTOM_REQUIRE_VULKAN=1, but {problem}", pytrace=False)
    if problem:
        pytest.skip(problem)
