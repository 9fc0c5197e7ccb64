"""Questions compile() asks of a module: which ops it holds and where, which
pass removed a listed op. Read-only, except `adopt`, which moves a lowered
copy's body into the module."""

from __future__ import annotations

import collections
from typing import Sequence

from torch_mlir import ir, passmanager

from ..core import ir as _ir
from ..core.passes import build_pass_manager, lookup_pass, name_and_options, split_pipeline
from ..core.schema import EVERYTHING_NAMESPACES, OpSelection, op_identifier
from ..tunnel.options import Skipped
from .report import Findings

__all__ = ["adopt", "aten_ops", "culprit_pass", "custom_ops_by_location", "module_ops", "report_rewritten",
           "torch_ops_by_location"]


def module_ops(module: ir.Module) -> collections.Counter:
    """Op counts by identifier; a tosa.custom counts as the op it carries."""
    counts: collections.Counter = collections.Counter()

    def visit(op):
        counts[op_identifier(op)] += 1
        if op.name == "tosa.custom":
            counts[ir.StringAttr(op.attributes["operator_name"]).value] += 1
        return ir.WalkResult.ADVANCE

    module.operation.walk(visit)
    return counts


def _steps(elements: Sequence[str]) -> list[str]:
    """`elements` as single passes: torch-mlir's pipelines expanded, op
    pipelines split per pass; ours stay as they are."""
    steps = []
    for element in elements:
        if lookup_pass(name_and_options(element)[0]) is not None:
            steps.append(element)
            continue
        for part in split_pipeline(str(passmanager.PassManager.parse(f"builtin.module({element})"))):
            anchor, paren, inner = part.partition("(")
            if paren and anchor == "func.func" and inner.endswith(")"):
                steps += [f"{anchor}({e})" for e in split_pipeline(inner[:-1])]
            else:
                steps.append(part)
    return steps


def culprit_pass(module: ir.Module, elements: Sequence[str], name: str) -> str | None:
    """Replay `elements` one pass at a time on `module` (a fresh import), and
    return the first pass after which the op `name` is gone (failure path only)."""
    with module.context:
        for step in _steps(elements):
            try:
                build_pass_manager([step]).run(module.operation)
            except ir.MLIRError:
                return None
            if not module_ops(module)[name]:
                culprit = f"the pass '{step.split('{')[0]}'"
                if "canonicalize" in step and "canonicalize" not in step.split("{")[0]:
                    culprit += " (through the canonicalization patterns it runs)"
                return culprit
    return None


def adopt(module: ir.Module, lowered: ir.Operation) -> None:
    """Make `module` hold `lowered`'s ops and attributes (a copy of it taken
    earlier and lowered apart)."""
    for op in list(module.body.operations):
        op.operation.erase()
    for name in list(module.operation.attributes):
        del module.operation.attributes[name]
    for name, value in lowered.attributes.items():
        module.operation.attributes[name] = value
    end = ir.InsertionPoint(module.body)
    for op in list(lowered.regions[0].blocks[0].operations):
        end.insert(op.operation.detach_from_parent())


def torch_ops_by_location(module: ir.Module) -> dict[str, list[str]]:
    """The torch ops at each location: TorchToTosa gives the TOSA ops it
    makes their source op's location, so a TOSA op's location names its source."""
    found: dict[str, set] = collections.defaultdict(set)

    def visit(op):
        if _aten_op(op):
            found[str(op.location)].add(op_identifier(op))
        return ir.WalkResult.ADVANCE

    module.operation.walk(visit)
    return {loc: sorted(ops) for loc, ops in found.items()}


def custom_ops_by_location(module: ir.Module) -> dict[str, list[str]]:
    """The torch ops the tosa.custom ops at each location carry."""
    found: dict[str, set] = collections.defaultdict(set)
    for op in _ir.collect_ops(module, lambda op: op.name == "tosa.custom"):
        found[str(op.location)].add(ir.StringAttr(op.attributes["operator_name"]).value)
    return {loc: sorted(ops) for loc, ops in found.items()}


def _aten_op(op) -> bool:
    dialect, _, rest = op.name.partition(".")
    return dialect == "torch" and (op.name == "torch.operator" or rest.split(".")[0] in EVERYTHING_NAMESPACES)


def aten_ops(module: ir.Module) -> collections.Counter:
    """Counts of the ops an audit is about: aten/prims/quantized_decomposed and user ops."""
    counts: collections.Counter = collections.Counter()

    def visit(op):
        if _aten_op(op):
            counts[op_identifier(op)] += 1
        return ir.WalkResult.ADVANCE

    module.operation.walk(visit)
    return counts


def report_rewritten(report: "Findings", ops_seen: dict[str, int], selection: OpSelection, present: collections.Counter) -> None:
    """Selected ops seen at import that neither became a tosa.custom nor
    reached our pass: torch-mlir's lowering rewrote them on the way."""
    accounted = set(report.converted) | {s.identifier for s in report.skipped}
    for identifier in ops_seen:
        if identifier not in accounted and not present[identifier] and selection.matches(identifier):
            report.skipped.append(Skipped(
                identifier, "rewritten-by-torch-mlir",
                "torch-mlir's lowering to the backend contract rewrote it into other ops before the pass ran",
                "",
            ))
