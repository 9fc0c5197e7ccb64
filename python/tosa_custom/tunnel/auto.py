"""Auto mode: tunnel exactly what torch-mlir's TOSA lowering cannot take.

`convert-torch-backend-legal-to-tosa-custom{ops=auto}` (compile()'s
`backend_legal_ops="auto"`, combinable with listed ops) decides per op
instance, on torch IR at the backend contract, which ops become `tosa.custom`
and why (CONTRACT.md 7.1): `wrong-lowering` (TorchToTosa would compute another
answer: the sign check's uint8/bool ops, `wrong_lowerings.py`),
`no-tosa-lowering` (TorchToTosa has no pattern for this instance) and
`not-conformant` (its TOSA breaks the target).

Finding them must not cost a lowering per op. Each distinct instance (name,
types, constant operands) is first lowered alone by convert-torch-to-tosa in a
tiny function, which finds every instance TorchToTosa refuses at once (the
whole pipeline stops at the first) in milliseconds. Then the whole lowering
and validation run on a copy; what still fails there is found on a copy whose
ops carry their index in their location, so each diagnostic names its source
op. A copy that lowered cleanly untagged is handed back, so compile() adopts
it instead of lowering a second time.
"""

from __future__ import annotations

import dataclasses
import re
from typing import Any

from torch_mlir import ir, passmanager
from torch_mlir.dialects import func as func_d

from ..core import attrs as _attrs
from ..core import builders as _b
from ..core import dtypes as _dtypes
from ..core import ir as _ir
from ..core.diagnostics import Diagnostic, DiagnosticLog
from ..core.passes import Option, PassContext, build_pass_manager, option_field, parse_names, register_pass
from ..core.schema import OpSelection, op_identifier
from ..core.torch_ir import vtensor_type
from ..tosa import checks as _checks
from ..tosa import target as _target
from ..tosa import wrong_lowerings as _wrong
from . import pipelines as _pipelines
from .conversion import convert_module
from .options import USER_LISTED, PassOptions

__all__ = ["AT_IMPORT", "CATEGORIES", "STAGES", "Instances", "Selection", "at_import_element", "instances_by_location", "select"]

AT_IMPORT = "tosa-custom-auto-at-import"

# Why an op was tunneled (CompileReport.tunneled, the audit, CONTRACT.md 7.1).
CATEGORIES = {
    USER_LISTED: "listed in backend_legal_ops (the pass's ops=)",
    "no-tosa-lowering": "torch-mlir's TorchToTosa has no lowering for this instance (its name, dtypes or "
                        "constant arguments), or the lowering fails later in the TOSA pipeline",
    "wrong-lowering": "TorchToTosa lowers it to TOSA that computes another answer than PyTorch (uint8 read as "
                      "int8, bool arithmetic on i1, the ops in wrong_lowerings.py)",
    "not-conformant": "its TOSA breaks the declared TOSA target (tosa-validate rejects an op made from it)",
}

# The stage of compile() that showed an op must be tunneled (Site.stage,
# CONTRACT.md 14.2): a later stage's failure is fed back, so the report says
# which one forced each op.
STAGES = {
    "op": "known from the op alone: the sign check, wrong_lowerings.py, a known crash",
    "import": "at import: torch-mlir has no op for it (torch.operator)",
    "contract": "torch-mlir's lowering to the backend contract failed on it: tunneled at import",
    "replaced": "torch-mlir's pipeline replaced it by ops auto mode had to tunnel: tunneled at import as PyTorch "
                "wrote it",
    "probe": "TorchToTosa refused the instance lowered alone",
    "lowering": "the whole program's lowering to TOSA failed on TOSA made from it",
    "indices": "its TOSA is a tosa.scatter whose indices are not constants known unique: TOSA forbids a repeated "
               "index, PyTorch allows it",
    "target": "tosa-validate rejected TOSA made from it",
    "retry-contract": "compile() failed lowering to the backend contract at its location with it left to "
                      "torch-mlir: tunneled at import in a new attempt",
    "retry-lowering": "compile() failed lowering to TOSA at its location with it left to torch-mlir: tunneled at "
                      "import in a new attempt",
    "retry-target": "compile()'s target check failed at its location with it left to torch-mlir: tunneled at "
                    "import in a new attempt",
}

_SITE = "tosa_custom.site."
_SITE_RE = re.compile(re.escape(_SITE) + r"(\d+)")
_MAX_TRIALS = 8
_EVERY_OP = OpSelection(["*"])
# Non-tensor operands copied into a probe function; any other operand becomes an argument.
_COPIED = ("torch.constant.", "torch.prim.ListConstruct")
_MARKS = (_attrs.TUNNEL, _attrs.TUNNEL_REASON, _attrs.TUNNEL_STAGE)


@dataclasses.dataclass
class Selection:
    """What `select` learnt. `lowered`: a copy of the module, converted with
    exactly the marks `select` left, lowered through `pipelines.after_tunnel`
    and validated for `target` without error, or None when the last trial was
    a diagnostic one."""

    lowered: ir.Operation | None = None
    target: "_target.TosaTarget | None" = None  # what `lowered` was validated against (attached and recorded)
    log: DiagnosticLog = dataclasses.field(default_factory=DiagnosticLog)
    trials: int = 0


def _candidates(module_op) -> list[ir.Operation]:
    """Every op auto mode may tunnel, in a fixed order (a trial copy lists the
    same ops at the same indices)."""
    return _ir.collect_ops(module_op, lambda op: _EVERY_OP.matches(op_identifier(op), user_op=op.name == "torch.operator")
                           and _attrs.CARRIER not in op.attributes)


def _mark(op, category: str, reason: str, stage: str) -> None:
    op.attributes[_attrs.TUNNEL] = ir.StringAttr.get(category)
    op.attributes[_attrs.TUNNEL_REASON] = ir.StringAttr.get(reason[:500])
    op.attributes[_attrs.TUNNEL_STAGE] = ir.StringAttr.get(stage)


def _static_reason(op) -> str | None:
    """A lowering known to compute another answer, from the op alone."""
    problem = _checks.sign_semantics_problem(op)
    if problem:
        return problem
    wrong = _wrong.find(op)
    if wrong:
        when = f" with {wrong.condition}" if wrong.condition else ""
        return f"TorchToTosa's lowering of it{when} differs from eager ({wrong.detail}; shown by {wrong.sample})"
    return None


# -- isolated probes ---------------------------------------------------------


def _copied(value: ir.Value) -> bool:
    owner = value.owner
    return isinstance(owner, ir.OpView | ir.Operation) and owner.operation.name.startswith(_COPIED) \
        and not str(value.type).startswith("!torch.vtensor")


def _value_key(value: ir.Value) -> Any:
    if not _copied(value):
        return str(value.type)
    owner = value.owner.operation
    return (owner.name, tuple((k, str(v)) for k, v in owner.attributes.items()),
            tuple(_value_key(v) for v in owner.operands))


def _instance_key(op) -> tuple:
    """What TorchToTosa's patterns can see of an instance: its name, attributes,
    types and constant operands (not where its tensors come from)."""
    return (op.name, tuple((k, str(v)) for k, v in op.attributes.items() if k not in _MARKS),
            tuple(_value_key(v) for v in op.operands), tuple(str(r.type) for r in op.results))


# A scalar computed at run time, as the probe makes it: read from a 0-d tensor
# argument, as in a real module. TorchToTosa dereferences the defining op of
# some scalar operands (aten.slice.Tensor's `end`), so a scalar that is a block
# argument crashes the process.
def _probe_clone(op, block: ir.Block):
    """A copy of `op` at the insertion point, reading the probe's operands."""
    operands = [_probe_operand(v, block) for v in op.operands]
    copy = op.clone()
    for i, v in enumerate(operands):
        copy.operands[i] = v
    return copy


def _probe_operand(value: ir.Value, block: ir.Block) -> ir.Value:
    if not _copied(value):
        kind = _dtypes.scalar_kind(str(value.type))
        if kind is None:
            return block.add_argument(value.type, ir.Location.unknown())
        tensor = block.add_argument(vtensor_type((), kind.tensor_element), ir.Location.unknown())
        return _b.create(kind.from_tensor, value.type, [tensor])
    return _probe_clone(value.owner.operation, block).results[0]


def _probe_function(op, scratch: ir.Module) -> ir.Operation:
    """A function computing `op` alone from arguments and copies of its constant operands."""
    results = [r.type for r in op.results]
    with ir.InsertionPoint(scratch.body):
        func = func_d.FuncOp("probe", ([], results))
    block = func.add_entry_block()
    with ir.InsertionPoint(block):
        func_d.ReturnOp(list(_probe_clone(op, block).results))
    _ir.set_function_type(func, [a.type for a in block.arguments], results)
    return func.operation


def _probe_isolated(ops: list[ir.Operation]) -> dict[int, str]:
    """index -> TorchToTosa's refusal, for the ops it cannot lower even alone."""
    by_key: dict[tuple, list[int]] = {}
    for i, op in enumerate(ops):
        by_key.setdefault(_instance_key(op), []).append(i)
    if not by_key:
        return {}
    refused: dict[int, str] = {}
    pm = passmanager.PassManager("func.func")
    pm.add("convert-torch-to-tosa")
    with ir.Location.unknown():
        scratch = ir.Module.create()
        for indices in by_key.values():
            name = ops[indices[0]].name
            func = _probe_function(ops[indices[0]], scratch)
            try:
                pm.run(func)
            except ir.MLIRError as e:
                # The op's own refusal first (a run-time scalar's aten.Int.Tensor may fail before it).
                messages = sorted((d.message for d in e.error_diagnostics), key=lambda m: f"'{name}'" not in m)
                refused.update({i: messages[0] if messages else str(e) for i in indices})
    return refused


# -- trials ------------------------------------------------------------------


def _tag(copy: ir.Operation) -> None:
    """Give each candidate op of `copy` a location naming its index, so a
    diagnostic on the TOSA made from it names it. (Locations cannot be set
    from Python: each op is re-created.)"""
    for i, op in enumerate(_candidates(copy)):
        if len(op.regions):
            continue
        loc = ir.Location.name(f"{_SITE}{i}", childLoc=op.location)
        new = ir.Operation.create(op.name, results=[r.type for r in op.results], operands=list(op.operands),
                                  attributes=dict(op.attributes.items()), loc=loc,
                                  ip=ir.InsertionPoint(op))
        for old, fresh in zip(op.results, new.results):
            old.replace_all_uses_with(fresh)
        op.erase()


def _errors(e: ir.MLIRError) -> list[Diagnostic]:
    return [d for d in map(Diagnostic.from_mlir, e.error_diagnostics) if d.severity == "error"]


@dataclasses.dataclass
class _Trial:
    """One lowered copy: its errors (None: it lowered and validated), the
    category and stage they mean, the log, and the target it was validated against."""

    copy: ir.Operation
    errors: list[Diagnostic] | None = None
    category: str = ""
    stage: str = ""
    log: DiagnosticLog = dataclasses.field(default_factory=DiagnosticLog)
    validated: "_target.TosaTarget | None" = None


def _trial(module_op, options: PassOptions, target, tagged: bool, quantized: tuple | None = None) -> _Trial:
    """Lower a copy as the pipeline would after this pass (and attach,
    validate and record the target, as compile() does last)."""
    trial = _Trial(module_op.clone(ip=False))
    copy = trial.copy
    if tagged:
        _tag(copy)
    convert_module(copy, options, trial.log)
    try:
        rest = _pipelines.after_tunnel(target, quantized is not None, quantized or ())
        build_pass_manager(rest, trial.log).run(copy)
    except ir.MLIRError as e:
        return dataclasses.replace(trial, errors=_errors(e), category="no-tosa-lowering", stage="lowering")
    repeatable = _wrong.scatters_with_repeatable_indices(copy)
    if repeatable:
        return dataclasses.replace(trial, errors=repeatable, category="wrong-lowering", stage="indices")
    if target is None:
        return trial
    chosen, valid = (target, False) if isinstance(target, _target.TosaTarget) else \
        _target.fitted_target(copy, draft=False)
    try:
        build_pass_manager(chosen.pipeline(validated=valid)).run(copy)
    except ir.MLIRError as e:
        return dataclasses.replace(trial, errors=_errors(e), category="not-conformant", stage="target")
    return dataclasses.replace(trial, validated=chosen)


def _mark_from(errors: list[Diagnostic], ops: list[ir.Operation], free: set[int], category: str, stage: str) -> int:
    """Mark the ops the errors' locations name; returns how many were new."""
    new = 0
    for d in errors:
        for index in {int(m) for m in _SITE_RE.findall(d.location)}:
            op = ops[index]
            if index in free and _attrs.TUNNEL not in op.attributes:
                _mark(op, category, d.message, stage)
                new += 1
    return new


def select(module_op, listed: OpSelection, encoding: str, target, quantized: tuple | None = None) -> Selection:
    """Mark (attribute `tosa_custom.tunnel`) every op instance under
    `module_op` that must be tunneled besides the `listed` ones. `target`: a
    TosaTarget, "auto" (fitted to each trial's output) or None (no
    conformance check). `quantized`: a PT2E model's table functions (None:
    not quantized), whose trials then end with the integer lowering, so
    what it cannot take (softmax, layer_norm on quantized values) is
    tunneled, a kept op on the integers. A model with nothing to tunnel costs one trial; the
    probes run only after a trial's lowering failed."""
    ops = _candidates(module_op)
    free = [i for i, op in enumerate(ops) if not listed.matches(op_identifier(op), user_op=op.name == "torch.operator")]
    for i in free:
        reason = _static_reason(ops[i])
        if reason:
            _mark(ops[i], "wrong-lowering", reason, "op")
        crash = _checks.known_crash(ops[i], "tosa")  # never probed: the probe would crash too
        if crash:
            _mark(ops[i], "no-tosa-lowering", crash, "op")
    options = PassOptions(ops=listed, encoding=encoding)
    selection, probed, tagged = Selection(), False, False
    while selection.trials < _MAX_TRIALS:
        selection.trials += 1
        trial = _trial(module_op, options, target, tagged, quantized)
        if trial.errors is None:
            selection.log = trial.log
            if not tagged:
                selection.lowered, selection.target = trial.copy, trial.validated
            return selection
        if not probed and trial.stage == "lowering":
            # Only a failed lowering has refusals to find: a copy that failed validation lowered every op in
            # context, and the probe, lowering each alone, would mark ops our passes lower in context
            # (an aten.size.int of a `?` dim, whose tunneled result no consumer's size could be read from).
            probed = True
            unmarked = [i for i in free if _attrs.TUNNEL not in ops[i].attributes]
            refused = _probe_isolated([ops[i] for i in unmarked])
            for j, message in refused.items():
                _mark(ops[unmarked[j]], "no-tosa-lowering", message, "probe")
            tagged = not refused  # new marks: try them untagged first
        elif tagged:
            if not _mark_from(trial.errors, ops, set(free), trial.category, trial.stage):
                return selection  # nothing left auto mode can tunnel: the pipeline reports the errors
            tagged = False
        else:
            tagged = True
    return selection


_AT_IMPORT_REASONS = {
    "no-tosa-lowering": "torch-mlir's lowering to the backend contract fails on it, or turns it into ops its TOSA "
                        "lowering cannot take: tunneled as PyTorch wrote it",
    "wrong-lowering": "torch-mlir turns it into ops its TOSA lowering computes wrongly: tunneled as PyTorch wrote it",
    "not-conformant": "torch-mlir turns it into ops whose TOSA breaks the target: tunneled as PyTorch wrote it",
}


def at_import_element(ops_by_category: dict[str, list[str]]) -> str:
    """The `tosa-custom-auto-at-import` pipeline element marking these ops."""
    options = " ".join(f"{category}={','.join(ops)}" for category, ops in sorted(ops_by_category.items()) if ops)
    return f"{AT_IMPORT}{{{options}}}" if options else AT_IMPORT


@dataclasses.dataclass(frozen=True)
class Instances:
    """`a,b#2`: every instance of op `a` (any spelling OpSelection reads),
    and the instance of op `b` at index 2 among its instances in the module's
    order (`torch.aten.b` spelt in full): one instance, not its every use."""

    names: OpSelection = dataclasses.field(default_factory=OpSelection)
    indexed: frozenset = frozenset()

    @staticmethod
    def parse(text: str) -> "Instances":
        names, indexed = [], set()
        for spec in parse_names(text):
            name, hash_, index = spec.partition("#")
            if hash_:
                if not index.isdigit():
                    raise ValueError(f"'{spec}': expected OP#INDEX with a number")
                indexed.add((name if name.startswith("torch.") else f"torch.{name}", int(index)))
            else:
                names.append(spec)
        return Instances(OpSelection(names), frozenset(indexed))

    def matches(self, identifier: str, index: int) -> bool:
        return self.names.matches(identifier) or (identifier, index) in self.indexed


@register_pass(AT_IMPORT,
               "Auto mode, before torch-mlir's pipeline: mark for the tunnel the ops it cannot take to the backend "
               "contract (every torch.operator: an op torch-mlir has no definition for) and the ops named per "
               "category (those its lowering failed on, or replaced by ops auto mode had to tunnel: OP#N is the "
               "N-th instance of OP in the module's order)",
               options=tuple(Option(category, f"ops to tunnel as {category}", Instances(), Instances.parse,
                                    metavar="a,b#N") for category in _AT_IMPORT_REASONS))
def mark_at_import(module: ir.Operation, ctx: PassContext) -> None:
    seen: dict[str, int] = {}
    for op in _candidates(module):
        identifier = op_identifier(op)
        index = seen[identifier] = seen.get(identifier, -1) + 1
        if op.name == "torch.operator":
            _mark(op, "no-tosa-lowering", f"torch-mlir has no op for {identifier} (it imports it as torch.operator), "
                                          "so none of its passes can lower it", "import")
            continue
        for category, reason in _AT_IMPORT_REASONS.items():
            if getattr(ctx.options, option_field(category)).matches(identifier, index):
                _mark(op, category, reason, "import")
                break


def instances_by_location(module_op, every: bool = False) -> dict[str, list[str]]:
    """location -> `OP#N` of each op with results there (the N-th instance of
    OP in the module's order, as `tosa-custom-auto-at-import` counts them);
    with `every`, of the ops without results too (`_assert_scalar`)."""
    found: dict[str, list[str]] = {}
    seen: dict[str, int] = {}
    for op in _candidates(module_op):
        identifier = op_identifier(op)
        seen[identifier] = seen.get(identifier, -1) + 1
        if every or len(op.results):
            found.setdefault(str(op.location), []).append(f"{identifier}#{seen[identifier]}")
    return found
