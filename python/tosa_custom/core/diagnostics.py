"""One error type for everything MLIR reports, with each diagnostic's location.

The Python bindings can emit errors but not warnings, so warnings raised by our
Python passes travel through the same `DiagnosticLog` as the diagnostics MLIR
itself emits; the opt tool prints and verifies them all from that one list.
"""

from __future__ import annotations

import dataclasses
import re
from typing import Iterable

from torch_mlir import ir

__all__ = ["Diagnostic", "DiagnosticLog", "CompileError", "format_location"]

_FILE_LOC = re.compile(r'loc\("(?P<file>(?:[^"\\]|\\.)*)":(?P<line>\d+):(?P<col>\d+)')


def format_location(loc: ir.Location | str) -> str:
    """`file:line:col` for the first file location inside `loc`, else its text."""
    text = str(loc)
    m = _FILE_LOC.search(text)
    if m:
        return f"{m['file']}:{m['line']}:{m['col']}"
    return text


def _file_line(loc_text: str) -> tuple[str, int] | None:
    m = _FILE_LOC.search(loc_text)
    return (m["file"], int(m["line"])) if m else None


@dataclasses.dataclass(frozen=True)
class Diagnostic:
    severity: str  # "error" | "warning" | "note" | "remark"
    location: str  # the MLIR location text, e.g. loc("a.mlir":3:5)
    message: str
    notes: tuple["Diagnostic", ...] = ()

    @property
    def file_line(self) -> tuple[str, int] | None:
        return _file_line(self.location)

    def __str__(self) -> str:
        text = f"{format_location(self.location)}: {self.severity}: {self.message}"
        for note in self.notes:
            text += "\n" + str(note)
        return text

    @staticmethod
    def from_mlir(d) -> "Diagnostic":
        severity = {
            ir.DiagnosticSeverity.ERROR: "error",
            ir.DiagnosticSeverity.WARNING: "warning",
            ir.DiagnosticSeverity.NOTE: "note",
            ir.DiagnosticSeverity.REMARK: "remark",
        }[d.severity]
        return Diagnostic(
            severity,
            str(d.location),
            str(d.message),
            tuple(Diagnostic.from_mlir(n) for n in d.notes),
        )


class DiagnosticLog:
    """Collects MLIR's diagnostics (while attached) and our passes' warnings."""

    def __init__(self) -> None:
        self.diagnostics: list[Diagnostic] = []
        self._handle = None

    def attach(self, ctx: ir.Context) -> "DiagnosticLog":
        def handler(d) -> bool:
            self.diagnostics.append(Diagnostic.from_mlir(d))
            return True  # handled: do not print to stderr

        self._handle = ctx.attach_diagnostic_handler(handler)
        return self

    def detach(self) -> None:
        if self._handle is not None:
            self._handle.detach()
            self._handle = None

    def __enter__(self) -> "DiagnosticLog":
        return self

    def __exit__(self, *exc) -> None:
        self.detach()

    def warning(self, loc: ir.Location, message: str) -> None:
        self.diagnostics.append(Diagnostic("warning", str(loc), message))

    def of(self, severity: str) -> list[Diagnostic]:
        return [d for d in self.diagnostics if d.severity == severity]


class CompileError(Exception):
    """A compilation step failed; `diagnostics` lists what MLIR said, and where.

    `category` (a name from CONTRACT.md 7.1) and `ops` (the op identifiers the
    error is about) are set where the error is raised, so that an audit files
    it without reading the message.
    """

    def __init__(self, message: str, diagnostics: Iterable[Diagnostic] = (), *,
                 category: str = "compile-failed", ops: Iterable[str] = ()):
        self.diagnostics = list(diagnostics)
        self.category = category
        self.ops = tuple(ops)
        text = message
        if self.diagnostics:
            text += "\n" + "\n".join("  " + str(d).replace("\n", "\n  ") for d in self.diagnostics)
        super().__init__(text)
