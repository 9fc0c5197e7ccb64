"""`save(module, directory)`: a program for Vulkan as files that run without
Python: the VGF, its scenario, the shaders the scenario substitutes, the
inputs as `.npy`, and `run.sh` with the scenario runner's command line
(the Vulkan variables included: the emulation layers, lavapipe when no
driver is named).

The directory is what `load()` makes for itself (scenario.py), kept.
"""

from __future__ import annotations

import dataclasses
import os
import stat
from pathlib import Path

import numpy as np
import torch
from torch_mlir import ir

from ..core import ir as _ir
from ..core.diagnostics import CompileError
from ..runtime.execute import program as _runtime_program
from ..runtime.execute.sources import parse_source
from ..runtime.execute.weights import WeightSlots
from . import scenario as _scenario
from .program import WHAT, _numpy, _refuse_what_it_cannot_run, _stored, prepare

__all__ = ["Saved", "save"]


@dataclasses.dataclass(frozen=True)
class Saved:
    """What `save` wrote: the directory, the line that runs it (also in
    run.sh), where each output lands, and whose shader runs each kept op."""

    directory: Path
    line: str
    outputs: tuple[Path, ...]
    shaders: tuple[tuple[str, str], ...]


def _arrays(func: ir.Operation, inputs) -> list[np.ndarray]:
    types = list(_ir.function_type(func).inputs)
    if inputs is None:
        return [np.zeros(t.shape, dtype=_numpy(_stored(t))) for t in types]
    if len(inputs) != len(types):
        raise TypeError(f"save(..., inputs=) takes the entry's {len(types)} inputs, not {len(inputs)}")
    out = []
    for i, (value, t) in enumerate(zip(inputs, types)):
        array = value.detach().contiguous().numpy() if isinstance(value, torch.Tensor) else np.asarray(value)
        expected = _numpy(_stored(t))
        if tuple(array.shape) != tuple(t.shape) or array.dtype != expected:
            raise TypeError(f"input #{i} is {array.dtype} {list(array.shape)}; the entry takes {expected} "
                            f"{list(t.shape)}")
        out.append(array)
    return out


def save(module, directory: "str | os.PathLike", inputs=None, entry: str | None = None) -> Saved:
    """Write `module` (consumed: its kept ops become shader ops) as a VGF
    directory that `scenario-runner --scenario scenario.json` runs;
    `inputs` (tensors or arrays, the entry's arguments in order) are
    written as its inputs, zeros when None. A module whose weights are
    arguments is refused: compile it with its weights as constants. The
    outputs are the entry's distinct values: a value it returns twice is
    one output (results.py)."""
    module, saved_entry, _ = parse_source(module)
    directory = Path(directory)
    with module.context:
        func = _runtime_program.entry_func(module, entry or saved_entry)
        if WeightSlots.prepare(module, func).count:
            raise CompileError("save() writes programs whose weights are constants; this module takes them as "
                               "arguments (compile it with the default weights=\"constants\")",
                               category="runtime-lowering-failed")
        _refuse_what_it_cannot_run(func)
        arrays = _arrays(func, inputs)
        shaders = prepare(module)
    resources = _scenario.write_directory(module, directory, arrays, WHAT)
    line = _scenario.runner_line(directory.resolve())
    script = directory / "run.sh"
    script.write_text(f"#!/bin/sh\n# Runs the VGF with Arm's ML SDK scenario runner; outputs land in outputs/.\n"
                      f"set -e\n{line}\n")
    script.chmod(script.stat().st_mode | stat.S_IXUSR | stat.S_IXGRP | stat.S_IXOTH)
    return Saved(directory, line, tuple(directory / r.path for r in resources["outputs"]), tuple(shaders))
