"""The `vulkan` fixture: the tests that run programs on Vulkan (Arm's ML SDK and
a Vulkan driver, lavapipe in CI) are skipped, saying why, when the SDK is not
installed or no Vulkan device can be made; they never pass without running.
Where Vulkan is promised (TOSA_CUSTOM_REQUIRE_VULKAN=1) they fail instead
(test/_vulkan.py)."""

from __future__ import annotations

import pytest

from _vulkan import required


@pytest.fixture(scope="session")
def vulkan():
    """Skips the test, saying why, where a VGF cannot run."""
    problem = required()
    if problem:
        pytest.skip(problem)
