"""Shared pytest set-up: tests import the installed package, never a copy."""

import pytest


@pytest.fixture(scope="session")
def tosa_tools():
    """The directory of TOSA's own toolchain (PyPI tosa-tools, core/tosa_tools.py);
    a test that asks for it is skipped, saying how to install it, when it is not there."""
    from tosa_custom.core import tosa_tools as tools

    found = tools.find()
    if found is None:
        pytest.skip(f"TOSA's own toolchain (tosa-tools) is not installed: {tools.INSTALL_HINT}")
    return found
