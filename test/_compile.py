"""compile() as the tests call it when they read the report too."""

from __future__ import annotations

import warnings

import tosa_custom


def compile_with_report(model, args, **kw):
    """The module and the CompileReport of `compile(model, args, **kw)`; its
    warnings (eval mode, ...) are not what these tests check."""
    report = tosa_custom.CompileReport()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        module = tosa_custom.compile(model, args, report=report, **kw)
    return module, report
