"""`save(module, directory)`: a program IREE runs without Python.

The directory holds everything `iree-run-module` needs: the vmfb, the
plugin, the kernel libraries the sites use (copied, so the directory moves
as a whole), the sites file naming them relative to itself, the weights of
a module whose weights are arguments and, when given, example inputs, each
as `.npy`. `run.sh` is the command line (`SavedProgram.command`): the plugin
reads the sites from `$TOSA_CUSTOM_IREE_SITES` when IREE loads it.
"""

from __future__ import annotations

import dataclasses
import os
import shlex
import shutil
import sys
from pathlib import Path
from typing import Sequence

import numpy as np
import torch
from torch_mlir import ir

from ..core import ir as _ir
from ..runtime.execute.weights import WeightSlots
from . import plugin as _plugin
from .program import WORKER_STACK_FLAG, build, host_array, parse_module
from .sites import free_ids, write_sites

__all__ = ["SavedProgram", "save", "VMFB_FILE", "SITES_FILE"]

VMFB_FILE = "model.vmfb"
SITES_FILE = "sites.txt"


@dataclasses.dataclass(frozen=True)
class SavedProgram:
    directory: Path
    command: tuple[str, ...]  # argv of iree-run-module
    environment: dict[str, str]  # what the plugin reads

    @property
    def line(self) -> str:
        """The shell line that runs it."""
        env = " ".join(f"{k}={shlex.quote(v)}" for k, v in self.environment.items())
        return f"{env} {shlex.join(self.command)}"


def _npy(directory: Path, name: str, t) -> str:
    path = directory / f"{name}.npy"
    np.save(path, host_array(torch.as_tensor(t)))
    return f"--input=@{path}"


def save(module, directory: str | os.PathLike, *, inputs: Sequence = (), weights=None, entry: str | None = None,
         threads: int | None = None) -> SavedProgram:
    """Compile `module` for IREE (consumed, as by `load`) into `directory`;
    returns the saved program and the `iree-run-module` line that runs it.
    Every op needs a native kernel (CompileError "no-kernel" naming the
    first that has only a Python one: iree-run-module has no Python)."""
    directory = Path(directory).resolve()
    directory.mkdir(parents=True, exist_ok=True)
    module = parse_module(module)
    with module.context:
        funcs = _ir.public_functions(module, entry)
        func = funcs[0]
        name = ir.StringAttr(func.attributes["sym_name"]).value
        slots = WeightSlots.prepare(module, func)
    sites, vmfb = build(module, threads=threads, python=False)
    try:
        (directory / VMFB_FILE).write_bytes(vmfb)
        shutil.copy2(_plugin.plugin_path(), directory / _plugin.plugin_path().name)
        libraries = {}
        for s in sites:
            source = s.binding.library.path
            libraries[source] = source.name
            shutil.copy2(source, directory / source.name)
        write_sites(sites, directory / SITES_FILE, libraries)
    finally:  # the sites run in iree-run-module's process, not this one: ids and kernels given back
        for s in sites:
            s.binding.release()
        free_ids([s.id for s in sites])
    args = [_npy(directory, f"input_{i}", x) for i, x in enumerate(inputs)]
    if slots.count:
        tensors = slots.check(weights if weights is not None else {})
        args += [_npy(directory, f"weight_{i}", t) for i, t in enumerate(tensors)]
    device = ["--device=local-sync"] if threads == 1 else [
        "--device=local-task", f"--task_topology_group_count={threads or 0}", WORKER_STACK_FLAG]
    tool = Path(sys.executable).with_name("iree-run-module")
    command = (str(tool) if tool.exists() else "iree-run-module", *device,
               f"--executable_plugin={directory / _plugin.plugin_path().name}",
               f"--module={directory / VMFB_FILE}", f"--function={name}", *args)
    saved = SavedProgram(directory, command, {"TOSA_CUSTOM_IREE_SITES": str(directory / SITES_FILE)})
    (directory / "run.sh").write_text(f"#!/bin/sh\n{saved.line} \"$@\"\n")
    os.chmod(directory / "run.sh", 0o755)
    return saved
