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
    """Every module `tosa_custom.compile` returns with a declared TOSA target
    is validated again, strictly and apart from compile()'s own check
    (_strict.py), against that target: no test sees a non-conformant output
    that compile() called conformant."""
    import tosa_custom
    from tosa_custom.frontend import compiler

    from _strict import declared_target, strict_errors

    original = compiler.compile

    def checked(*args, **kwargs):
        module = original(*args, **kwargs)
        if hasattr(module, "operation") and declared_target(module):
            errors = strict_errors(module)
            assert not errors, f"compile() declared {declared_target(module)}, which the strict validator " \
                               "refuses:\n" + "\n".join(errors[:20])
        return module

    monkeypatch.setattr(compiler, "compile", checked)
    monkeypatch.setattr(tosa_custom, "compile", checked)
