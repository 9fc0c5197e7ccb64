"""What a call gives back: eager PyTorch's semantics at the program's boundary.

compile() marks each result of the entry function (CONTRACT.md §12): a user
output, the new value of a user input, or the new value of a buffer. After
the compiled code has run, `Boundary.finish`:

- writes each new input value into the caller's own tensor (`copy_`, so a
  non-contiguous view gets it where it points; a numpy array through
  `torch.from_numpy`), as the model's in-place op would have;
- makes each new buffer value the program's state for the next call (the
  weight slot is pointed at the result: nothing the user handed in is
  written);
- returns only the user outputs, Python numbers as the Python type eager
  returned, rebuilt in the model's structure.

`Boundary.check` refuses, before anything runs, an input the model writes
that cannot take the write (a Python number, a read-only array, a tensor
whose elements overlap in memory, as eager refuses it).

A module without these marks (hand-written TOSA, an older compile) keeps the
old convention: one result alone, several as a flat tuple.
"""

from __future__ import annotations

import numpy as np
import torch

from ..core.dtypes import scalar_kind
from ..contract.signature import MUTATES_BUFFER_ATTR, MUTATES_INPUT_ATTR, OUTPUT_ATTR, read_roles, rebuild

__all__ = ["Boundary"]


def _python_type(scalar: str | None) -> type | None:
    """The Python type of a result marked `tosa_custom.scalar = <kind>` (CONTRACT.md 4.5)."""
    kind = scalar_kind(scalar) if scalar is not None else None
    return kind.python if kind is not None else None


class Boundary:
    """The roles of the entry function's results, read once at load."""

    def __init__(self, func, state_names: list[str]):
        roles, scalars, self.tree = read_roles(func)
        self.marked = any(r is not None for r in roles)
        self.outputs: list[tuple[int, type | None]] = []  # (result, Python type) per user output, in order
        self.inputs: list[tuple[int, int]] = []   # (result, input position) the model writes
        self.state: list[tuple[int, int]] = []    # (result, weight slot) of each buffer it writes
        order = {}
        for i, (role, scalar) in enumerate(zip(roles, scalars)):
            if role is None or role.kind == OUTPUT_ATTR:
                order[i] = role.index if role is not None else i
                self.outputs.append((i, _python_type(scalar) if self.tree is not None else None))
            elif role.kind == MUTATES_INPUT_ATTR:
                self.inputs.append((i, role.index))
            elif role.kind == MUTATES_BUFFER_ATTR:
                if role.name not in state_names:
                    raise ValueError(f"result #{i} is the new value of buffer '{role.name}', which is not a "
                                     f"state argument of the function (CONTRACT.md §12)")
                self.state.append((i, state_names.index(role.name)))
        self.outputs.sort(key=lambda o: order[o[0]])
        self.written = sorted({p for _, p in self.inputs})

    def check(self, inputs) -> None:
        """Refuse, before the call, an input the model writes that cannot be written."""
        for p in self.written:
            x = inputs[p] if p < len(inputs) else None
            if isinstance(x, np.ndarray):
                if not x.flags.writeable:
                    raise ValueError(f"input #{p} is written by the model in place, but the array is read-only")
                continue
            if not isinstance(x, torch.Tensor):
                raise TypeError(f"input #{p} is written by the model in place: pass a tensor or a numpy array, "
                                f"not a {type(x).__name__}")
            if torch._debug_has_internal_overlap(x) == 1:  # 1: overlapping for sure (expand, stride 0)
                raise ValueError(f"input #{p} is written by the model in place, but more than one of its "
                                 "elements refer to the same memory (as eager PyTorch, the program refuses it)")
            if x.requires_grad and x.is_leaf:
                raise RuntimeError(f"input #{p} is written by the model in place, but it is a leaf tensor "
                                   "that requires grad (as eager PyTorch, the program refuses it)")

    def finish(self, inputs, results: list, weights) -> object:
        """Write inputs back, carry the state, return the user's outputs."""
        if not self.marked:
            return results[0] if len(results) == 1 else tuple(results)
        with torch.no_grad():
            for i, p in self.inputs:
                x = inputs[p]
                target = torch.from_numpy(x) if isinstance(x, np.ndarray) else x
                target.copy_(results[i])
        for i, slot in self.state:
            weights.carry(slot, results[i])
        leaves = [results[i].item() if kind is not None else results[i] for i, kind in self.outputs]
        leaves = [kind(v) if kind is not None else v for v, (_, kind) in zip(leaves, self.outputs)]
        if self.tree is None:
            return leaves[0] if len(leaves) == 1 else tuple(leaves)
        return rebuild(self.tree, leaves)
