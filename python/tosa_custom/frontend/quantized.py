"""compile()'s side of quantized models (PT2E: `prepare_pt2e`, calibrate,
`convert_pt2e`): taking one as it comes, and what to keep whole for the
integer lowering (quant/).

A convert_pt2e GraphModule refuses `.eval()` (its mode is fixed in its
graph when it was exported; PT2E raises rather than pretend to switch it),
and an ExportedProgram of it is not a module at all: both are compiled as
they are. Their quantize and dequantize ops, and the elementwise functions
between them that become TABLEs, are kept whole, so that the TOSA lowering
reads PT2E's parameters and the op itself instead of torch-mlir's float
expansion of them."""

from __future__ import annotations

import dataclasses

import numpy as np
import torch

from ..quant.qdq import QDQ_OPS
from ..quant.scales import QParams
from ..quant.tables import TABLE_ATEN_OPS, entries16
from .settings import Settings
from ..core.diagnostics import CompileError
from ..core.schema import OpSelection

__all__ = ["fixed_mode", "as_module", "quantized_settings", "NO_INTEGER_FORM", "refuse_without_integer_form"]

# Ops quant/ has no integer TOSA for. Auto mode keeps them whole in a quantized
# model (a kept op on the integers, quant/kept.py): PyTorch's decompositions,
# which run before auto mode's trials, would split them into pieces that are
# each tunneled on float values between them.
NO_INTEGER_FORM = ("aten.layer_norm", "aten.native_layer_norm", "aten.softmax", "aten._softmax",
                   "aten.log_softmax", "aten._log_softmax", "aten.group_norm", "aten.native_group_norm",
                   "aten.rms_norm")


def fixed_mode(model) -> bool:
    """Whether `model`'s train/eval mode was fixed at export (PT2E's modules
    replace `train` and `eval` on the instance to refuse them)."""
    return isinstance(model, torch.fx.GraphModule) and ("eval" in vars(model) or "train" in vars(model))


def as_module(model):
    """An ExportedProgram as the module torch.export captures again; anything else as it is."""
    if isinstance(model, torch.export.ExportedProgram):
        return model.module(check_guards=False)
    return model


def _graph_ops(model) -> set[str]:
    graph = getattr(model, "graph", None)
    if graph is None:
        return set()
    found = set()
    for node in graph.nodes:
        if node.op == "call_function" and isinstance(node.target, torch._ops.OpOverload):
            found.add(f"{node.target.namespace}.{node.target._opname}")
    return found


def quantized_settings(model, s: Settings) -> Settings:
    """`s` for a PT2E-quantized `model` (its PT2E ops and the table functions
    it has kept whole beside the user's), or `s` itself for any other model.
    A table function the user lists is theirs: a kept op on the integers
    (quant/kept.py), not a TABLE."""
    present = _graph_ops(model)
    if not present & set(QDQ_OPS):
        return s
    if s.selection.everything:  # dummy mode: every group is a kept op (CONTRACT.md §18), none a TABLE
        return dataclasses.replace(s, quantized=True)
    extra = NO_INTEGER_FORM if s.selection.auto else ()
    untabulable = _untabulable(model) if s.selection.auto else set()
    internal = [op for op in (*QDQ_OPS, *TABLE_ATEN_OPS, *extra) if op in present and not s.selection.matches(op)]
    selection = OpSelection([*s.selection.specs, *internal])
    tables = tuple(op for op in internal if op in TABLE_ATEN_OPS and op not in untabulable)
    return dataclasses.replace(s, selection=selection, quantized=True, internal_ops=tuple(internal), tables=tables)


def _name(node) -> str | None:
    if node.op != "call_function" or not isinstance(node.target, torch._ops.OpOverload):
        return None
    return f"{node.target.namespace}.{node.target._opname}"


def _node_qparams(node, kind: str) -> QParams | None:
    """A per-tensor PT2E quantize/dequantize node's parameters (numbers in its call), else None."""
    if not isinstance(node, torch.fx.Node) or _name(node) != f"quantized_decomposed.{kind}_per_tensor" \
            or len(node.args) < 6 or any(isinstance(a, torch.fx.Node) for a in node.args[1:6]):
        return None
    scale, zero_point, low, high, dtype = node.args[1:6]
    return QParams(np.asarray(float(scale)), int(zero_point), int(low), int(high), dtype)


def _untabulable(model) -> set[str]:
    """Auto mode: the table functions (TABLE_ATEN_OPS) of an int16 value
    whose interpolated int16 TABLE the integer lowering would refuse (more
    than 1 LSB off PT2E at some input: quant/tables.entries16). Auto mode
    keeps these ops whole on the integers instead (CONTRACT.md §18)."""
    found = set()
    for node in getattr(getattr(model, "graph", None), "nodes", ()):
        name = _name(node)
        if name not in TABLE_ATEN_OPS or name in found or not node.args or len(node.users) != 1:
            continue
        given, wanted = _node_qparams(node.args[0], "dequantize"), _node_qparams(next(iter(node.users)), "quantize")
        if given is None or wanted is None or given.dtype != torch.int16:
            continue
        try:
            entries16(lambda x, node=node: node.target(x, *node.args[1:], **node.kwargs), given, wanted)
        except ValueError:
            found.add(name)
    return found


def refuse_without_integer_form(model, s: Settings) -> None:
    """Stock and selective mode: an op on quantized values that the integer
    lowering has no form for (NO_INTEGER_FORM, its input a dequantize) and
    the user did not keep is refused here, naming it and the two fixes,
    rather than by the lowering of its float expansion into TOSA pieces."""
    if not s.quantized or s.selection.everything or s.selection.auto:
        return
    for node in getattr(getattr(model, "graph", None), "nodes", ()):
        name = _name(node)
        if name not in NO_INTEGER_FORM or s.selection.matches(name) or not node.args:
            continue
        source = node.args[0]
        if isinstance(source, torch.fx.Node) and (_name(source) or "").startswith("quantized_decomposed.dequantize"):
            raise CompileError(
                f"{name} ({node.name}) computes on quantized values, and integer TOSA has no form for it: keep it "
                f"as a tosa.custom on the integers (backend_legal_ops=[\"{name}\"], CONTRACT.md §18), or "
                "compile in auto mode (backend_legal_ops=\"auto\")", category="lowering-failed", ops=[name])
