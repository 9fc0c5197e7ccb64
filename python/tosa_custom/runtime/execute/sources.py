"""What an executor's `load()` accepts, parsed: a module, MLIR text or bytecode
by path or value, a TOSA flatbuffer by its path (`.tosa`: what TOSA's tools
and ExecuTorch's Arm backend write), or a program saved by `Program.save`.
The executors beside the runtime (reference model, IREE, Vulkan) read their
sources here, as it does."""

from __future__ import annotations

from torch_mlir import ir

from ...core import ir as _ir
from ...core import mlir_files as _mlir_files
from ...core.diagnostics import CompileError, Diagnostic
from .program import _module_text
from .weights import is_saved_program, read_saved

__all__ = ["parse_source"]


def parse_source(source) -> tuple[ir.Module, str | None, object]:
    """The module (and a saved program's entry and weights) of what load() got."""
    if _mlir_files.is_flatbuffer(source):
        return _mlir_files.read(source), None, None  # with its sidecar's attributes, when it has one
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
