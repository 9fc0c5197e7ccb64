"""What counts as a correct result, a clean error, or a defect.

A target's `check(case)` returns an `Outcome` for a correct result or a clean
error, and raises `Defect` for a silent wrong answer or an error that is not
clean. The supervisor adds the two defects a process cannot report about
itself: `crash` (the worker died: a signal, an abort, `os._exit`) and `hang`
(the case exceeded its timeout).

A *clean error* is:
- for a Python API (`decode`, `runtime.load`, `Program.__call__`, the pass run
  through `convert_module`): an exception of one of the types the API
  documents (`ContractError`, `CompileError`, `KernelError`, `ValueError`,
  `TypeError`, or `ConversionFailed` with MLIR error diagnostics), with a
  non-empty message, raised by tosa_custom's own code (the innermost
  traceback frame is in the `tosa_custom` package, or the exception is one of
  tosa_custom's types). A `ValueError` from deep inside torch or json is not
  clean: the user gets no message naming their input.
- for the opt tool: exit code 1, stderr holding at least one
  `file:line:col: error: ...` diagnostic or a `tosa-custom-opt: error: ...`
  usage error, and no Python traceback nor "internal error" on stderr.
Every other exception (AttributeError, IndexError, KeyError, RuntimeError
from the bindings, AssertionError, ...) is a defect of kind `exception`.
"""

from __future__ import annotations

import dataclasses
import os
import traceback

__all__ = ["Outcome", "Defect", "CORRECT", "CLEAN", "DEFECT_KINDS", "clean_or_defect", "describe"]

CORRECT = "correct"
CLEAN = "clean"
# Defects: the supervisor's (crash, hang) and the checks' (exception, wrong).
DEFECT_KINDS = ("crash", "hang", "exception", "wrong")


@dataclasses.dataclass
class Outcome:
    kind: str  # CORRECT | CLEAN
    detail: str = ""


class Defect(Exception):
    """A case that broke the promise: `kind` is one of DEFECT_KINDS."""

    def __init__(self, kind: str, detail: str):
        assert kind in DEFECT_KINDS, kind
        super().__init__(f"{kind}: {detail}")
        self.kind = kind
        self.detail = detail


_PACKAGE_DIR = None


def _package_dir() -> str:
    global _PACKAGE_DIR
    if _PACKAGE_DIR is None:
        import tosa_custom

        _PACKAGE_DIR = os.path.dirname(os.path.abspath(tosa_custom.__file__)) + os.sep
    return _PACKAGE_DIR


def describe(e: BaseException) -> str:
    """The exception and where it was raised, for a defect report."""
    tb = traceback.extract_tb(e.__traceback__)
    where = f" at {tb[-1].filename}:{tb[-1].lineno}" if tb else ""
    return f"{type(e).__name__}: {str(e)[:500]}{where}\n" + "".join(traceback.format_exception(e))[-3000:]


def _ours(e: BaseException) -> bool:
    if type(e).__module__.startswith("tosa_custom"):
        return True
    tb = traceback.extract_tb(e.__traceback__)
    return bool(tb) and os.path.abspath(tb[-1].filename).startswith(_package_dir())


def clean_or_defect(e: BaseException, allowed: tuple[type, ...]) -> Outcome:
    """An `Outcome(CLEAN)` if `e` is a clean error (see the module docstring), else raise `Defect`."""
    message = str(e).strip()
    if isinstance(e, allowed) and message and _ours(e):
        return Outcome(CLEAN, f"{type(e).__name__}: {message.splitlines()[0][:200]}")
    raise Defect("exception", describe(e)) from e
