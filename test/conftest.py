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


@pytest.fixture(autouse=True)
def _every_tosa_output_strictly_validated(monkeypatch):
    """Every module compile() declares a TOSA target for is validated again,
    strictly and apart from compile()'s own check (_strict.py), against that
    target: no test sees a non-conformant output that compile() called
    conformant. Hooked after the target check, off the stack of compile()'s
    warnings (which name the caller's line)."""
    from tosa_custom.frontend.attempt import Attempt

    from _strict import declared_target, strict_errors

    original = Attempt.check_target

    def checked(self, module):
        original(self, module)
        if declared_target(module):
            errors = strict_errors(module)
            assert not errors, f"compile() declared {declared_target(module)}, which the strict validator " \
                               "refuses:\n" + "\n".join(errors[:20])

    monkeypatch.setattr(Attempt, "check_target", checked)


@pytest.fixture(autouse=True)
def _compiled_code_cache_off(monkeypatch):
    """The compiled-code cache (runtime/compiled/cache.py) off, in this process and the
    subprocesses it starts: a test loads what it compiles, so one that patches
    the lowering or the engine is never served a program stored earlier. The
    cache's own tests turn it on, in a folder of their own."""
    monkeypatch.setenv("TOSA_CUSTOM_CACHE", "0")
