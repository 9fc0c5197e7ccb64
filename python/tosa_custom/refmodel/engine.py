"""One TOSA segment as a flatbuffer, run by the TOSA reference model.

The flatbuffer is written by tosa-tools' own serializer
(`core.tosa_flatbuffer.write`), once per segment at load. The reference
model's Python extension takes the file's bytes and numpy arrays in the
order of the function's arguments, and gives the results in the order of
its return: the graph's tensors are `TosaInput_<i>`/`TosaOutput_<i>` by
position, so nothing is matched by name.

Arrays cross in the element types TOSA declares: a bfloat16 tensor goes in
as its int16 bits (the extension's buffer protocol has no bfloat16) and
comes back as 2-byte records, read here as bfloat16 again.

The extension says why it refused a graph or an input only on the process's
stderr (fd 2, from C++), and on a fatal error attaches gdb to itself unless
$TOSA_MODEL_NO_BACKTRACE is set: so each run sets that, captures fd 2, and
puts what it printed in the error (or back on stderr when the run worked).
One run at a time: fd 2 is the process's.
"""

from __future__ import annotations

import contextlib
import os
import sys
import tempfile
import threading
from pathlib import Path

import numpy as np
import torch

from ..core import tosa_flatbuffer, tosa_tools
from ..core.diagnostics import CompileError
from ..runtime.execute.memref import borrowed_array

__all__ = ["ReferenceModelError", "serialize", "Segment"]

_LOCK = threading.Lock()
_NO_BACKTRACE = "TOSA_MODEL_NO_BACKTRACE"


class ReferenceModelError(RuntimeError):
    """The reference model refused a segment's graph or inputs (`refused`),
    or ran it to a status other than valid (an ERROR_IF of the
    specification, or a result it calls unpredictable)."""

    def __init__(self, message: str, refused: bool):
        super().__init__(message)
        self.refused = refused


def serialize(module) -> bytes:
    """The flatbuffer of a one-function module of TOSA."""
    with tempfile.TemporaryDirectory(prefix="tosa_custom_refmodel_") as tmp:
        path = Path(tmp) / "segment.tosa"
        tosa_flatbuffer.write(module, path)
        return path.read_bytes()


@contextlib.contextmanager
def _captured_stderr():
    """What C code writes on fd 2 meanwhile, as the one string in the yielded list."""
    sys.stderr.flush()
    saved = os.dup(2)
    captured: list[str] = []
    with tempfile.TemporaryFile() as f:
        os.dup2(f.fileno(), 2)
        try:
            yield captured
        finally:
            os.dup2(saved, 2)
            os.close(saved)
            f.seek(0)
            captured.append(f.read().decode(errors="replace").strip())


def to_array(t: torch.Tensor) -> np.ndarray:
    """A tensor as the extension reads it (bfloat16 as its int16 bits)."""
    t = t.detach().contiguous()
    return borrowed_array(t.view(torch.int16) if t.dtype == torch.bfloat16 else t)  # not .numpy(): see there


def from_array(a: np.ndarray, shape: tuple[int, ...], dtype: torch.dtype) -> torch.Tensor:
    """A result of the extension as a tensor of the declared shape and
    (stored) dtype: a 0-d result may come back as [1]."""
    if a.dtype.kind == "V":  # bfloat16 comes back as raw 2-byte records
        a = a.view(np.int16)
    t = torch.from_numpy(np.ascontiguousarray(a).reshape(shape))
    return t if t.dtype == dtype else t.view(dtype)


def _reason(text: str) -> str:
    lines = [line for line in text.splitlines() if line.strip()]
    return ("; the reference model said:\n  " + "\n  ".join(lines[-12:])) if lines else ""


class Segment:
    """A serialized segment, and the shape and stored dtype of each result."""

    def __init__(self, data: bytes, results: list[tuple[tuple[int, ...], torch.dtype]], what: str):
        self.data, self.results, self.what = data, results, what

    def run(self, tensors: list[torch.Tensor]) -> list[torch.Tensor]:
        arrays = [to_array(t) for t in tensors]
        model = tosa_tools.reference_model()
        os.environ.setdefault(_NO_BACKTRACE, "1")
        with _LOCK:
            with _captured_stderr() as printed:
                try:
                    outputs, status = model.run(self.data, arrays)
                    error = None
                except ValueError as e:
                    error = e
        if error is not None:
            raise ReferenceModelError(f"{self.what}: the TOSA reference model refused it: {error}"
                                      f"{_reason(printed[0])}", refused=True)
        if status != type(status).TOSA_VALID:
            raise ReferenceModelError(f"{self.what}: the TOSA reference model ran it to {status.name}"
                                      f"{_reason(printed[0])}", refused=False)
        if printed[0]:
            print(printed[0], file=sys.stderr)
        return [from_array(a, shape, dtype) for a, (shape, dtype) in zip(outputs, self.results)]

    def check(self, tensors: list[torch.Tensor]) -> None:
        """Run once (on `tensors`, ones say) so that a graph the reference
        model cannot run is refused at load; a status the data causes is not."""
        try:
            self.run(tensors)
        except ReferenceModelError as e:
            if e.refused:
                raise CompileError(str(e), category="runtime-lowering-failed") from None
