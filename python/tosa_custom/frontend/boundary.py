"""Types no TOSA profile has, at the program's boundary: said before anything is lowered.

A float64 input, result or weight stays float64 in the TOSA: the narrowing
passes narrow only what the program computes from float32 inside it, never a
function's arguments or results nor a weight's `dense_resource` (CONTRACT.md
13.2), and no TOSA profile or extension has f64 (nor complex128,
carried as f64 pairs, nor unsigned integers wider than 8 bits). tosa-validate
would reject the program only after the whole lowering, naming TOSA ops, and
"keep the op as tosa.custom" cannot help; so compile() reads the exported
program's signature first and names what the user can change, by the names
the user knows: argument names, result positions, weight names.
"""

from __future__ import annotations

import torch

from ..core import dtypes as _dtypes
from ..tosa import target as _target

__all__ = ["untyped_boundary", "check_boundary"]


def _dtype(value) -> torch.dtype | None:
    return value.dtype if isinstance(value, torch.Tensor) else None


def untyped_boundary(program) -> list[tuple[str, str, str, str]]:
    """(what, name, torch dtype name, TOSA element) for each user input,
    user result, parameter and buffer whose dtype no TOSA profile has.
    Weights count inline too: they become `dense_resource` constants, which
    no narrowing pass rewrites, so an f64 weight the program uses is f64 in
    the TOSA either way. Tensor constants made in `forward` are left to
    validation (small ones are dense, which narrow-f64 may narrow)."""
    from torch.export.graph_signature import InputKind, OutputKind

    nodes = {n.name: n for n in program.graph.nodes}
    signature = program.graph_signature
    boundary = []
    for spec in signature.input_specs:
        node = nodes.get(spec.arg.name)
        if spec.kind == InputKind.USER_INPUT and node is not None:
            boundary.append(("input", repr(spec.arg.name), _dtype(node.meta.get("val"))))
        elif spec.kind in (InputKind.PARAMETER, InputKind.BUFFER) and (node is None or node.users):
            value = program.state_dict.get(spec.target, program.constants.get(spec.target))
            boundary.append(("weight" if spec.kind == InputKind.PARAMETER else "buffer", repr(spec.target),
                             _dtype(value)))
    users = [spec for spec in signature.output_specs if spec.kind == OutputKind.USER_OUTPUT]
    for index, spec in enumerate(users):
        node = nodes.get(getattr(spec.arg, "name", None))
        boundary.append(("result", str(index), _dtype(node.meta.get("val")) if node is not None else None))
    found = []
    for what, name, dtype in boundary:
        element = _dtypes.tosa_element(dtype) if dtype is not None else None
        if element is not None and not _target.has_profile(element):
            found.append((what, name, str(dtype).removeprefix("torch."), element))
    return found


def check_boundary(program) -> None:
    """Raise the NO_PROFILE CompileError when the boundary has a type no
    TOSA profile has (compile() calls it when it validates for a target)."""
    found = untyped_boundary(program)
    if found:
        raise _target.no_profile(found)

