"""TorchToTosa's refusals of static ops, said plainly.

When TorchToTosa has no pattern for an op instance, MLIR's conversion driver
says "failed to legalize operation 'torch.aten.convolution' that was
explicitly marked illegal", with the op in generic form and a location that
is a chain of call sites, innermost (PyTorch's own module) first. That names
neither why, nor the model's line, nor what to do. In stock and selective
mode compile() raises instead: the op, what about this instance TorchToTosa
does not take where that is known (a grouped convolution: regnet_y_400mf's
groups of 8 channels), the model's source line, and the two ways out (keep
it as tosa.custom, or auto mode, which tunnels exactly such instances). The
MLIR diagnostics stay attached.

(In a dynamic program, a refused op with `?` dims is said by attempt.py:
TorchToTosa lowers most ops from static shapes only.)
"""

from __future__ import annotations

import re

from torch_mlir import ir

from ..core import dtypes as _dtypes
from ..core import ir as _ir
from ..core import torch_ir as _torch_ir
from ..core.diagnostics import CompileError

__all__ = ["plain_refusal"]

_REFUSED = re.compile(r"failed to legalize operation '(torch\.aten\.[\w.]+)'.*?: (\(.*\) -> [^\n]*)", re.S)
_FRAME = re.compile(r'"((?:[^"\\]|\\.)*)":(\d+):\d+')
# Frames inside PyTorch itself (nn.Module forward, functional): not the model's line.
_PYTORCH_FRAME = re.compile(r"/site-packages/torch/|/torch/nn/")


def _source(location: str) -> str:
    """The model's line in an MLIR location: the innermost call site outside
    PyTorch's own package, with the innermost frame when that is another."""
    frames = [f"{path}:{line}" for path, line in _FRAME.findall(location)]
    if not frames:
        return location
    model = next((f for f in frames if not _PYTORCH_FRAME.search(f)), frames[0])
    return model if model == frames[0] else f"{model} (in {frames[0]})"


def _convolution(op) -> str | None:
    """A grouped convolution: what TorchToTosa takes of those depends on the
    group count (a few groups are sliced into convolutions, a depthwise one
    is tosa.depthwise_conv2d, many groups of several channels are refused)."""
    groups = _torch_ir.constant(op.operands[8])
    weight = _dtypes.parse_vtensor(str(op.operands[1].type))
    if not isinstance(groups, int) or groups == 1:
        return None
    per_group = weight[0][1] if weight and len(weight[0]) > 1 else "?"
    inputs = _dtypes.parse_vtensor(str(op.operands[0].type))
    channels = inputs[0][1] if inputs and len(inputs[0]) > 1 else "?"
    return f"with groups={groups} (a grouped convolution: {channels} input channels in groups of {per_group})"


# Op -> what about an instance TorchToTosa refuses, or None when it is not that.
_DETAILS = {"torch.aten.convolution": _convolution}


def _signature(op) -> str:
    results = ", ".join(str(r.type) for r in op.results)
    results = results if len(op.results) == 1 else f"({results})"
    return f"({', '.join(str(v.type) for v in op.operands)}) -> {results}"


def _instance(module: ir.Module, name: str, location: str, signature: str):
    """The op `name` at `location` with these operand and result types in
    the module (TorchToTosa's failed conversion rolled back to it), or None.
    Ops of one source line called in a loop share its location."""
    found = _ir.collect_ops(module.operation, lambda op: op.name == name and str(op.location) == location
                            and _signature(op) == signature)
    return found[0] if found else None


def plain_refusal(error: CompileError, module: ir.Module) -> CompileError | None:
    """The CompileError to raise for TorchToTosa's refusal of a static op
    in `error` (the lowering's failure on `module`), or None when it is not
    one. Keeps the category, the ops and the diagnostics."""
    for d in error.diagnostics:
        found = _REFUSED.search(d.message) if d.severity == "error" else None
        if not found:
            continue
        name, short = found.group(1), found.group(1)[len("torch."):]
        signature = found.group(2).splitlines()[0].strip()
        op = _instance(module, name, d.location, signature)
        detail = _DETAILS[name](op) if op is not None and name in _DETAILS else None
        what = f"{name} {detail}" if detail else f"{name} of these operands ({signature[:300]})"
        return CompileError(
            f"TorchToTosa does not lower {what}, at {_source(d.location)}. Keep the op as tosa.custom "
            f"(backend_legal_ops=['{short}']), or compile with backend_legal_ops='auto', which tunnels only the "
            "instances TorchToTosa cannot lower.",
            error.diagnostics, category=error.category, ops=error.ops or [name])
    return None

