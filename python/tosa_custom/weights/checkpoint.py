"""Weights on disk: checkpoints, and the layout of a saved program.

`read_checkpoint` reads what a user may hand as weights (a state_dict, an
nn.Module, a safetensors or `torch.save` file, a saved program's directory):
the bind pass and the runtime's `load_weights` both read through it.

Saved program (a directory, written by the runtime's `Program.save`):
`module.mlirbc` (the module as given to `load`, MLIR bytecode),
`weights.safetensors`, and `manifest.json` (CONTRACT.md §10).
"""

from __future__ import annotations

import json
import os
from typing import Any, Mapping

import torch
from safetensors.torch import load_file

from .manifest import Manifest

__all__ = ["WeightError", "read_checkpoint", "MODULE_FILE", "WEIGHTS_FILE", "MANIFEST_FILE", "is_saved_program",
           "read_saved"]

MODULE_FILE = "module.mlirbc"
WEIGHTS_FILE = "weights.safetensors"
MANIFEST_FILE = "manifest.json"


class WeightError(ValueError):
    """Weights that do not fit the program: every problem is listed in the message."""


def is_saved_program(path) -> bool:
    return isinstance(path, (str, os.PathLike)) and os.path.isfile(os.path.join(path, MODULE_FILE))


def read_checkpoint(source: Any) -> dict[str, torch.Tensor]:
    """Name -> tensor from a state_dict, an nn.Module, a `.safetensors` file,
    a `torch.save` file (read with weights_only=True) or a saved program's directory."""
    if isinstance(source, torch.nn.Module):
        return dict(source.state_dict())
    if isinstance(source, Mapping):
        return dict(source)
    if not isinstance(source, (str, os.PathLike)):
        raise TypeError(
            f"weights must be a state_dict, an nn.Module or a path, not {type(source).__name__}"
        )
    path = os.fspath(source)
    if os.path.isdir(path):
        path = os.path.join(path, WEIGHTS_FILE)
    if not os.path.isfile(path):
        raise FileNotFoundError(f"no weights file '{path}': pass a .safetensors or torch.save file, a directory "
                                "written by Program.save, a state_dict or an nn.Module")
    if path.endswith(".safetensors"):
        try:
            return load_file(path)
        except Exception as e:  # safetensors raises its own error types for a damaged file
            raise WeightError(f"cannot read '{path}' as a safetensors file ({type(e).__name__}: {e}); "
                              "write it with safetensors.torch.save_file") from None
    try:
        data = torch.load(path, map_location="cpu", weights_only=True)
    except Exception as e:
        raise WeightError(
            f"cannot read '{path}' as a safetensors or torch.save checkpoint ({type(e).__name__}: {e})"
        ) from None
    if not isinstance(data, Mapping):
        raise WeightError(f"'{path}' holds a {type(data).__name__}, not a state_dict")
    return dict(data)


def read_saved(directory) -> tuple[bytes, Manifest]:
    """The module bytecode and the manifest of a saved program."""
    with open(os.path.join(directory, MODULE_FILE), "rb") as f:
        data = f.read()
    try:
        with open(os.path.join(directory, MANIFEST_FILE), encoding="utf-8") as f:
            manifest = Manifest.from_json(json.load(f))
    except FileNotFoundError:
        raise FileNotFoundError(f"'{directory}' has {MODULE_FILE} but no {MANIFEST_FILE}") from None
    return data, manifest
