"""The runtime side of weight arguments: checking, swapping and saving them.

A program compiled with `weights="arguments"` (or lifted by
`tosa-custom-lift-weights`) takes its weights as trailing arguments of the
entry function. The `Program` passes them itself, from a `WeightSlots`: the
user calls `program(*inputs)` with the model's own signature, and
`program.load_weights(...)` swaps the tensors without recompiling. The data
pointers of the weights are written into the packed descriptors once per
load, not per call, and the tensors are not copied (the program holds
references: copy a tensor you will change in place, or load it again).

Saved program (a directory): `module.mlirbc` (the module as given to `load`,
MLIR bytecode), `weights.safetensors`, and `manifest.json` (CONTRACT.md §10).
Replacing `weights.safetensors` by another checkpoint of the same model is a
supported way to swap weights; it is checked against the manifest at load.
"""

from __future__ import annotations

import io
import json
import os
from typing import Any

import torch
from safetensors.torch import save_file
from torch_mlir import ir

from ...weights.blobs import ResourceBlobs, module_values, tensor_value
from ...weights.checkpoint import (
    MANIFEST_FILE,
    MODULE_FILE,
    WEIGHTS_FILE,
    WeightError,
    is_saved_program,
    read_checkpoint,
    read_saved,
)
from ...weights.manifest import INPUT_ATTR, WEIGHT_ATTR, Manifest, argument_attrs, read_manifest, set_argument_attrs

# The checkpoint reader and the saved program's layout live in the weights
# layer (the bind pass reads checkpoints too); they stay importable from here.
__all__ = [
    "WeightError",
    "WeightSlots",
    "read_checkpoint",
    "read_saved",
    "MODULE_FILE",
    "WEIGHTS_FILE",
    "MANIFEST_FILE",
    "is_saved_program",
]


def _dtype_name(dtype: torch.dtype) -> str:
    return str(dtype).replace("torch.", "")


class WeightSlots:
    """The weight arguments of one program, and the tensors bound to them."""

    def __init__(self, manifest: Manifest, module_bytes: bytes | None, defaults: dict | None = None):
        self.manifest = manifest
        # Values the module holds (`tosa_custom.weight_values`): the initial
        # state of the buffers the model writes (CONTRACT.md §12).
        self.defaults: dict[str, torch.Tensor] = defaults or {}
        self.initial: list[torch.Tensor] = []  # what load_weights bound, for reset
        self.count = len(manifest.weights)
        self.first = manifest.weights[0].argument if manifest.weights else None
        self.module_bytes = module_bytes
        self.tensors: list[torch.Tensor] | None = None if self.count else []
        self._specs = [(tuple(w.shape), w.torch_dtype) for w in manifest.weights]
        self._block = None
        self._offset = 0

    @staticmethod
    def prepare(module: ir.Module, func) -> "WeightSlots":
        """Read the manifest of `func`, keep the module's bytecode (for `save`),
        and make the weight arguments read-only for bufferization."""
        manifest = read_manifest(func)
        if not manifest.weights:
            return WeightSlots(manifest, None)
        last_input = max((a.argument for a in manifest.inputs), default=-1)
        if last_input > manifest.weights[0].argument:
            raise ValueError(
                f"@{manifest.entry}: weight arguments must follow every user input (CONTRACT.md §10), "
                f"but input argument #{last_input} comes after weight '{manifest.weights[0].name}'"
            )
        for i, a in enumerate(manifest.inputs):
            if a.position != i:
                raise ValueError(f"@{manifest.entry}: argument #{a.argument} is marked input {a.position}, expected {i}")
        buffer = io.BytesIO()
        module.operation.write_bytecode(buffer)
        # The compiled code must never write into a weight: it is shared by
        # every call, and the user's tensor.
        attrs = argument_attrs(func)
        for w in manifest.weights:
            attrs[w.argument]["bufferization.writable"] = ir.BoolAttr.get(False)
        for a in attrs:
            a.pop(INPUT_ATTR, None)
            a.pop(WEIGHT_ATTR, None)
        set_argument_attrs(func, attrs)
        return WeightSlots(manifest, buffer.getvalue(), _module_values(module, manifest))

    @property
    def shapes(self) -> list[tuple[int, ...]]:
        return [s for s, _ in self._specs]

    def attach(self, block, offset: int) -> None:
        """The descriptor block of the program; weights are arguments offset.. of it."""
        self._block, self._offset = block, offset

    def check(self, source: Any) -> list[torch.Tensor]:
        """The tensors of `source` in argument order; WeightError listing every problem."""
        if not self.manifest.weights:
            raise WeightError("this program has no weight arguments, so there is nothing to load: its weights are "
                              "constants in the module; compile with weights='arguments' to swap them")
        given = self._fill_tied(read_checkpoint(source))
        for name, value in self.defaults.items():  # state no checkpoint carries
            given.setdefault(name, value)
        problems, tensors = [], []
        names = set(self.manifest.names)
        missing = [w for w in self.manifest.weights if w.name not in given]
        extra = sorted(k for k in given if k not in names)
        if missing:
            problems.append("missing: " + ", ".join(f"{w.name} ({w.describe()})" for w in missing))
        if extra:
            problems.append("unexpected: " + ", ".join(extra))
        wrong = []
        for w, (shape, dtype) in zip(self.manifest.weights, self._specs):
            t = given.get(w.name)
            if t is None:
                continue
            if not isinstance(t, torch.Tensor):
                wrong.append(f"{w.name} is a {type(t).__name__}, expected a tensor {w.describe()}")
                continue
            if tuple(t.shape) != shape or t.dtype != dtype:
                wrong.append(f"{w.name} is {list(t.shape)} {_dtype_name(t.dtype)}, expected {w.describe()}")
                continue
            tensors.append(t.detach().cpu().contiguous())
        if wrong:
            problems.append("wrong shape or dtype: " + "; ".join(wrong))
        if problems:
            raise WeightError(
                f"the weights do not fit @{self.manifest.entry} ({self.count} weights):\n  " + "\n  ".join(problems)
            )
        return tensors

    def _fill_tied(self, given: dict) -> dict:
        """A tied group (same tensor, several names; CONTRACT.md 10.3) given
        under one of its names gives the others: `save_pretrained` writes one."""
        groups: dict[str, list[str]] = {}
        for w in self.manifest.weights:
            groups.setdefault(w.tied_to or w.name, []).append(w.name)
        given = dict(given)
        for members in groups.values():
            present = [n for n in members if n in given]
            for n in members:
                if present and n not in given:
                    given[n] = given[present[0]]
        return given

    def bind(self, tensors: list[torch.Tensor]) -> None:
        """Point the weight descriptors at `tensors` (already checked)."""
        for i, t in enumerate(tensors):
            self._block.set(self._offset + i, t)
        self.tensors = list(tensors)
        self.initial = list(tensors)

    def bind_defaults(self) -> None:
        """Bind the values the module holds, when it holds them all (inline
        weights whose state had to become arguments)."""
        if self.count and all(n in self.defaults for n in self.manifest.names):
            self.bind([self.defaults[n] for n in self.manifest.names])

    def carry(self, slot: int, value: torch.Tensor) -> None:
        """Make `value` (a fresh result of the call) weight `slot` from now on:
        the new state of a buffer the model wrote."""
        self._block.set(self._offset + slot, value)
        self.tensors[slot] = value

    def reset(self, slots) -> None:
        """Point `slots` back at the values last loaded (or the module's)."""
        for slot in slots:
            self.carry(slot, self.initial[slot])

    def require(self) -> None:
        if self.tensors is None:
            raise WeightError(
                f"@{self.manifest.entry} takes {self.count} weights as arguments and none are loaded: "
                "call program.load_weights(state_dict or path), or load(module, weights=...)"
            )

    def state_dict(self) -> dict[str, torch.Tensor]:
        self.require()
        return dict(zip(self.manifest.names, self.tensors))

    def save(self, directory) -> None:
        """Write module.mlirbc, weights.safetensors and manifest.json into `directory`."""
        if self.module_bytes is None:
            raise ValueError(
                "only a program whose weights are arguments can be saved: compile with "
                "weights='arguments' (or lift them with tosa-custom-lift-weights)"
            )
        self.require()
        os.makedirs(directory, exist_ok=True)
        # safetensors refuses tensors that share memory (tied weights): give
        # each repeated storage its own copy in the file.
        storages, out = set(), {}
        for name, t in zip(self.manifest.names, self.tensors):
            storage = t.untyped_storage().data_ptr()
            out[name] = t.clone() if storage in storages else t
            storages.add(storage)
        save_file(out, os.path.join(directory, WEIGHTS_FILE))
        with open(os.path.join(directory, MODULE_FILE), "wb") as f:
            f.write(self.module_bytes)
        with open(os.path.join(directory, MANIFEST_FILE), "w", encoding="utf-8") as f:
            json.dump({**self.manifest.to_json(), "module": MODULE_FILE, "weights_file": WEIGHTS_FILE}, f, indent=1)
            f.write("\n")


def _module_values(module: ir.Module, manifest: Manifest) -> dict[str, torch.Tensor]:
    """The weights' values kept in the module attribute `tosa_custom.weight_values`."""
    kept, blobs = module_values(module.operation), ResourceBlobs(module.operation)
    return {w.name: tensor_value(kept[w.name], tuple(w.shape or ()), w.dtype, blobs)
            for w in manifest.weights if w.name in kept}
