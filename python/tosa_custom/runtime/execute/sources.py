"""What an executor's `load()` accepts, parsed: a module, MLIR text or bytecode
by path or value, or a program saved by `Program.save`. The executors beside
the runtime (reference model, Vulkan) read their sources here, as it does."""

from __future__ import annotations

from torch_mlir import ir

from ...core import ir as _ir
from ...core.diagnostics import CompileError, Diagnostic
from .program import _module_text
from .weights import is_saved_program, read_saved

__all__ = ["parse_source"]


def parse_source(source) -> tuple[ir.Module, str | None, object]:
    """The module (and a saved program's entry and weights) of what load() got."""
    if is_saved_program(source):
        data, manifest = read_saved(source)
        return _ir.parse_module(data, _ir.make_context()), manifest.entry, source
    if isinstance(source, ir.Module):
        return source, None, None
    if not isinstance(source, (str, bytes)) and not hasattr(source, "__fspath__"):
        raise TypeError(f"load() takes an ir.Module, MLIR text or a path, not {type(source).__name__}")
    try:
        return _ir.parse_module(_module_text(source), _ir.make_context()), None, None
    except ir.MLIRError as e:
        raise CompileError("cannot parse the module:", [Diagnostic.from_mlir(d) for d in e.error_diagnostics],
                           category="runtime-lowering-failed") from None
