"""`compile()`: the historic `torch_mlir.compile` signature on torch.export/FX.

compile() is a list of stages on one `_Compilation`: capture (export and
PyTorch's decompositions, capture.py), import, then pipelines of named passes
(tunnel at import, torch-mlir's lowering to the backend contract, tunnel and
lower to TOSA, check), each recorded as text so `verbose` prints the one
pipeline that `tosa-custom-opt --pass-pipeline=...` replays on the imported
module. A listed op must survive PyTorch's decompositions and torch-mlir's;
after each, compile() checks that it did and names the step that removed it.
"""

from __future__ import annotations

import collections
import dataclasses
import enum
import re
import warnings
from typing import Any, Callable, Iterable, Sequence

import torch
from torch_mlir import ir, passmanager
from torch_mlir.extras.fx_importer import FxImporter

from ..core import ir as _ir
from ..tunnel import auto as _auto
from . import capture as _capture
from ..tosa import checks as _checks
from ..tunnel import pipelines as _pipelines
from ..contract import signature as _signature
from ..tosa import target as _target
from ..tosa import wrong_lowerings as _wrong
from ..weights import export as _weights
from ..tunnel.options import PASS_ARGUMENT, USER_LISTED, ConversionResult, Site, Skipped
from ..tunnel.tensorize import TENSORIZE_SCALAR_BOUNDARY
from ..core.diagnostics import CompileError, Diagnostic, DiagnosticLog, format_location
from ..core.passes import build_pass_manager, lookup_pass, run_pipeline, name_and_options, pipeline_text, split_pipeline
from ..core.schema import EVERYTHING_NAMESPACES, OpSelection, op_identifier, overload_name

__all__ = ["CompileReport", "OutputType", "compile", "install_torch_mlir_compile"]


@dataclasses.dataclass
class CompileReport:
    """What `compile(..., report=CompileReport())` did with each op, for audits.

    Filled as compile() goes, so after a CompileError it still holds what was
    learnt before the failure. Identifiers are dialect spellings
    (`torch.aten.add.Tensor`; a user op is its `torch.operator` name).
    """

    export_mode: str = ""  # "strict" or "non-strict"
    export_strict_error: str = ""  # why strict export failed, when it was retried non-strict
    export_nonstrict_error: str = ""  # why a non-strict capture was redone strict (model state taken for constants)
    ops_seen: dict[str, int] = dataclasses.field(default_factory=dict)
    converted: dict[str, int] = dataclasses.field(default_factory=dict)
    skipped: list[Skipped] = dataclasses.field(default_factory=list)
    # The TOSA target the output was validated against (tosa-attach-target's
    # options); empty when not validated (tosa_target=None, or not TOSA output).
    tosa_target: str = ""
    # Every op instance made a tosa.custom, with its category (auto.CATEGORIES,
    # CONTRACT.md 7.1): user-listed, no-tosa-lowering, wrong-lowering, not-conformant.
    tunneled: list[Site] = dataclasses.field(default_factory=list)
    # Auto mode: ops kept from PyTorch's decompositions because decomposing them failed (op -> error).
    kept_from_decomposition: dict[str, str] = dataclasses.field(default_factory=dict)

    def _add_converted(self, result: ConversionResult) -> None:
        for identifier, count in result.converted.items():
            self.converted[identifier] = self.converted.get(identifier, 0) + count
        self.tunneled.extend(result.sites)

    def tunneled_by_category(self) -> dict[str, collections.Counter]:
        """category -> op identifier -> sites."""
        found: dict[str, collections.Counter] = {}
        for site in self.tunneled:
            found.setdefault(site.category, collections.Counter())[site.identifier] += 1
        return found


class OutputType(enum.Enum):
    """What `compile()` returns (the historic torch_mlir names)."""

    TORCH = "torch"
    TOSA = "tosa"
    LINALG_ON_TENSORS = "linalg-on-tensors"
    RAW = "raw"

    @staticmethod
    def get(spec: "str | OutputType | Any") -> "OutputType":
        if isinstance(spec, OutputType):
            return spec
        value = getattr(spec, "value", spec)  # torch_mlir's own OutputType enum
        if isinstance(value, str):
            key = value.strip().lower().replace("_", "-")
            for member in OutputType:
                if member.value == key:
                    return member
        raise ValueError(
            f"unknown output_type {spec!r}: expected one of "
            + ", ".join(repr(m.value) for m in OutputType)
        )


def _select_mode(model, train: bool):
    """The mode the model is compiled in. eval() by default, since inference is
    what a TOSA backend runs (dropout off, batch norm on running statistics);
    switching a model the user left in training mode is said once, not done
    silently. `train=True` keeps its mode (dropout and batch statistics are
    then compiled in)."""
    if not isinstance(model, torch.nn.Module) or train:
        return model
    if model.training:
        warnings.warn(
            f"compile() puts the {type(model).__name__} in eval() mode (it was in training mode): dropout off, "
            "batch norm on running statistics. Pass train=True to compile it in training mode, or call "
            "model.eval() first to silence this.", UserWarning, stacklevel=3)
    return model.eval()


def _import_error(e: Exception) -> CompileError:
    """torch-mlir's FX importer raises bare Python errors for graph nodes it
    has no import for; name the node and what to do."""
    first = str(e).splitlines()[0] if str(e) else ""
    m = re.search(r"target=<function (\w+)", first)
    target = m[1] if m else None
    hint = ""
    if target and target.startswith("sym_"):
        hint = (f" The model computes with a dynamic size as a number ({target}), which the importer cannot "
                "import: give static shapes (no ignore_traced_shapes / -1 placeholders) or keep that arithmetic "
                "out of the model.")
    detail = f"a node calling {target}" if target else f"{type(e).__name__}: {first[:300]}"
    return CompileError(f"torch-mlir's FX importer could not import the exported program ({detail}).{hint}")


def _module_ops(module: ir.Module) -> collections.Counter:
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


def _culprit_pass(module: ir.Module, elements: Sequence[str], name: str) -> str | None:
    """Replay `elements` one pass at a time on `module` (a fresh import), and
    return the first pass after which the op `name` is gone (failure path only)."""
    with module.context:
        for step in _steps(elements):
            try:
                build_pass_manager([step]).run(module.operation)
            except ir.MLIRError:
                return None
            if not _module_ops(module)[name]:
                culprit = f"the pass '{step.split('{')[0]}'"
                if "canonicalize" in step and "canonicalize" not in step.split("{")[0]:
                    culprit += " (through the canonicalization patterns it runs)"
                return culprit
    return None


def _adopt(module: ir.Module, lowered: ir.Operation) -> None:
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


def _torch_ops_by_location(module: ir.Module) -> dict[str, list[str]]:
    """The torch ops at each location: TorchToTosa gives the TOSA ops it
    makes their source op's location, so a TOSA op's location names its source."""
    found: dict[str, set] = collections.defaultdict(set)

    def visit(op):
        if _aten_op(op):
            found[str(op.location)].add(op_identifier(op))
        return ir.WalkResult.ADVANCE

    module.operation.walk(visit)
    return {loc: sorted(ops) for loc, ops in found.items()}


def _custom_ops_by_location(module: ir.Module) -> dict[str, list[str]]:
    """The torch ops the tosa.custom ops at each location carry."""
    found: dict[str, set] = collections.defaultdict(set)
    for op in _ir.collect_ops(module, lambda op: op.name == "tosa.custom"):
        found[str(op.location)].add(ir.StringAttr(op.attributes["operator_name"]).value)
    return {loc: sorted(ops) for loc, ops in found.items()}


def _aten_op(op) -> bool:
    dialect, _, rest = op.name.partition(".")
    return dialect == "torch" and (op.name == "torch.operator" or rest.split(".")[0] in EVERYTHING_NAMESPACES)


def _aten_ops(module: ir.Module) -> collections.Counter:
    """Counts of the ops an audit is about: aten/prims/quantized_decomposed and user ops."""
    counts: collections.Counter = collections.Counter()

    def visit(op):
        if _aten_op(op):
            counts[op_identifier(op)] += 1
        return ir.WalkResult.ADVANCE

    module.operation.walk(visit)
    return counts


def _report_rewritten(report: CompileReport, selection: OpSelection, present: collections.Counter) -> None:
    """Selected ops seen at import that neither became a tosa.custom nor
    reached our pass: torch-mlir's lowering rewrote them on the way."""
    accounted = set(report.converted) | {s.identifier for s in report.skipped}
    for identifier in report.ops_seen:
        if identifier not in accounted and not present[identifier] and selection.matches(identifier):
            report.skipped.append(Skipped(
                identifier, "rewritten-by-torch-mlir",
                "torch-mlir's lowering to the backend contract rewrote it into other ops before the pass ran",
                "",
            ))


# --------------------------------------------------------------------------
# compile().
# --------------------------------------------------------------------------


@dataclasses.dataclass(frozen=True)
class _Settings:
    """compile()'s arguments, checked once."""

    output: OutputType
    selection: OpSelection
    encoding: str
    strict: bool
    export_strict: "bool | str"
    func_name: str
    weights: str
    library: str | None
    verbose: bool
    tosa_target: "_target.TosaTarget | str | None"  # None: not checked; "auto": fitted to the module

    @property
    def tunnel(self) -> bool:
        return bool(self.selection.listed()) and self.output is OutputType.TOSA

    @property
    def target(self) -> "_target.TosaTarget | str | None":
        """The target checked: none with encoding="const" and listed ops, whose
        i64/f64 operands are outside TOSA by design (CONTRACT.md 4.6)."""
        if self.tosa_target == "auto" and self.encoding == "const" and self.selection:
            return None
        return self.tosa_target

    def ops_option(self, strict: bool, auto: bool = True) -> str:
        selection = self.selection if auto else self.selection.listed()
        text = f"{PASS_ARGUMENT}{{" + (f"ops={','.join(selection.specs)} " if selection else "") + f"encoding={self.encoding}"
        if strict:
            text += " strict=true"
        if selection.auto and self.target != "auto":
            text += " tosa-target=" + ("none" if self.target is None else f'"{self.target}"')
        return text + "}"


def _settings(output_type, use_tracing: bool, ignore_traced_shapes: bool, backend_legal_ops, extra_library,
              verbose: bool, encoding: str, strict: bool, export_strict, func_name: str, weights: str,
              tosa_target) -> _Settings:
    if weights not in _weights.WEIGHT_MODES:
        raise ValueError(f"weights must be one of {', '.join(map(repr, _weights.WEIGHT_MODES))}, not {weights!r}")
    if export_strict not in (True, False, "auto"):
        raise ValueError(f"export_strict must be True, False or 'auto', not {export_strict!r}")
    lookup_pass(PASS_ARGUMENT).parse_options({"encoding": encoding})  # the pass's own check
    output = OutputType.get(output_type)
    selection = OpSelection(backend_legal_ops or [])
    if selection and output is OutputType.LINALG_ON_TENSORS:
        raise ValueError(
            "backend_legal_ops become tosa.custom ops, which only output_type='tosa' carries; "
            "use output_type='torch' to see them kept in torch IR"
        )
    if ignore_traced_shapes and not use_tracing:
        raise ValueError("ignore_traced_shapes=True requires use_tracing=True (as in torch_mlir.compile)")
    library_paths = []
    for item in extra_library or ():
        if callable(item):
            raise TypeError(
                "extra_library entries must be paths to MLIR shape-library files: with torch.export, "
                "PyTorch's meta kernels give shapes and dtypes, so Python shape functions are not needed"
            )
        library_paths.append(str(item))
    if len(library_paths) > 1:
        raise ValueError("torch-mlir takes one extra_library file; concatenate the functions into one")
    return _Settings(output, selection, encoding, strict, export_strict, func_name, weights,
                     library_paths[0] if library_paths else None, verbose, _target.parse_target(tosa_target))


_MAX_CONTRACT_RETRIES = 6


class _Compilation:
    """One compile() call: the stages share this state instead of a closure.

    `pipeline` records every pass element run on the imported module, in
    order, so the whole lowering can be printed and replayed as one pipeline.
    """

    def __init__(self, model, settings: _Settings, report: CompileReport):
        self.model, self.settings, self.report = model, settings, report
        self.pipeline: list[str] = []
        self.program = None
        self.kept: set = set()
        self.weight_names = None
        self.state_values: dict = {}  # initial values of the state the module holds (CONTRACT.md §12)
        self.log = DiagnosticLog()  # our passes' warnings from the final tunnel
        self.sources: dict[str, list[str]] = {}  # location -> the torch ops there, to name a TOSA op's source
        self.validated = None  # auto mode: the target its adopted trial was already validated against
        self.imported: dict[str, list[str]] = {}  # location -> the torch op instances (OP#N) there at import

    # -- capture -------------------------------------------------------------

    def capture(self, example_args, ignore_traced_shapes: bool) -> None:
        """torch.export, then PyTorch's decompositions minus the listed ops."""
        s = self.settings
        args, dynamic = _capture.example_args(example_args)
        if ignore_traced_shapes:
            dynamic = _capture.all_dims_dynamic(args)
        dynamic = _capture.dynamic_by_parameter(self.model, args, dynamic)
        exported = _capture.export(self.model, args, dynamic, s.export_strict, self.report)
        before = _capture.graph_ops(exported.graph_module)
        program = _capture.decompose(exported, s.selection, s.selection.auto, self.report)
        _capture.expose_non_persistent_buffers(program)
        everything = s.weights == "arguments"
        if everything or _weights.state_buffers(program):  # state is an argument with inline weights too
            self.weight_names = _weights.weight_placeholders(program, self.model, everything)
            self.state_values = _weights.state_values(program, self.weight_names, self.model, everything)
        self.kept = _capture.check_survived_pytorch(s.selection, before, _capture.graph_ops(program.graph_module),
                                                    exported)
        self.program = program
        if s.verbose:
            print("==== FX graph after decompositions\n", program.graph_module.code)

    def import_module(self) -> ir.Module:
        """A fresh torch-mlir import of the decomposed program."""
        importer = FxImporter(context=_ir.make_context())
        try:
            if self.weight_names is None:
                importer.import_frozen_program(self.program, func_name=self.settings.func_name)
            else:
                _weights.import_with_weight_arguments(importer, self.program, self.weight_names,
                                                      self.settings.func_name,
                                                      _weights.tied_weights(self.model, self.weight_names),
                                                      self.state_values)
        except (NotImplementedError, NameError, TypeError, ValueError, KeyError) as e:
            raise _import_error(e) from e
        return importer.module

    def record_outputs(self, module: ir.Module) -> None:
        """Mark what each result of the entry function is (a user output, the
        new value of an input or of a buffer) and the output structure, from
        the graph signature (signature.py): at import, so the raw module, every
        later stage and the runtime see them."""
        func = _ir.public_functions(module, self.settings.func_name)[0]
        with module.context:
            _signature.mark_results(func, self.program)

    # -- pipelines -----------------------------------------------------------

    def run(self, module: ir.Module, elements: list[str], what: str, **kw) -> None:
        self.pipeline += elements
        run_pipeline(module, elements, what, **kw)

    def tunnel_at_import(self, module: ir.Module, at_import: dict[str, list[str]] | None = None
                         ) -> list[ConversionResult]:
        """Tunnel listed ops before torch-mlir's pipeline sees them: its
        canonicalizations and decompositions rewrite some ops even when they
        are backend-legal (int8 _int_mm becomes mm), and it cannot lower ops
        it only knows as torch.operator (auto mode tunnels those, and the
        `at_import` ops, category -> op names). Ops skipped here are retried,
        and reported, at the backend contract."""
        auto = [_auto.at_import_element(at_import or {})] if self.settings.selection.auto else []
        elements = [TENSORIZE_SCALAR_BOUNDARY, *auto, self.settings.ops_option(strict=False, auto=False),
                    TENSORIZE_SCALAR_BOUNDARY]
        results: list[ConversionResult] = []
        self.run(module, elements, "Tunneling the listed ops after import", category="compile-failed",
                 log=DiagnosticLog(),  # its skips are retried, and reported, by the final tunnel
                 on_result={PASS_ARGUMENT: results.append})
        return results

    def to_contract(self, module: ir.Module, at_import: dict[str, list[str]] | None = None) -> ir.Module:
        """Tunnel at import, then torch-mlir's lowering to the backend
        contract. In auto mode, an op that lowering fails on is tunneled at
        import of a fresh module instead (at most a few rounds), as are the
        `at_import` ops (category -> op names)."""
        at_import = {category: list(ops) for category, ops in (at_import or {}).items()}
        tunnel = self.settings.tunnel or self.settings.selection.auto
        self.imported = _auto.instances_by_location(module.operation)
        while True:
            start = len(self.pipeline)
            results = self.tunnel_at_import(module, at_import) if tunnel else []
            self.show("torch IR (import" + (", listed ops tunneled)" if tunnel else ")"), module)
            try:
                self.to_backend_contract(module)
            except CompileError as e:
                failed = at_import.setdefault("no-tosa-lowering", [])
                new = [op for op in e.ops if op not in failed and op != "torch.operator"]
                if not self.settings.selection.auto or not new or len(failed) >= _MAX_CONTRACT_RETRIES:
                    raise
                failed += new
                del self.pipeline[start:]
                module = self.import_module()
                self.record_outputs(module)
                continue
            for result in results:
                self.report._add_converted(result)
            return module

    def to_backend_contract(self, module: ir.Module) -> None:
        s = self.settings
        legal = s.selection.torch_mlir_names()
        if s.selection.everything:  # what the early tunnel left: torch-mlir must not decompose it either
            legal = sorted(set(legal) | {n[len("torch."):] for n in _aten_ops(module) if n.startswith("torch.")})
        elif s.selection.auto:  # a wrong lowering may be torch-mlir's decomposition (logcumsumexp): keep the op
            present = _aten_ops(module)
            legal = sorted(set(legal) | {w.op[len("torch."):] for w in _wrong.WRONG_LOWERINGS if present[w.op]})
        legal_option = ["backend-legal-ops=" + ",".join(legal)] if legal else []
        options = legal_option + (["extra-library=" + s.library] if s.library else [])
        refused: list[list[str]] = []
        try:
            self.run(module, [f"{_checks.CHECK_KNOWN_CRASHES}{{{' '.join(['stage=contract', *legal_option])}}}",
                              "func.func(torch-match-quantized-custom-ops)",
                              f"torchdynamo-export-to-torch-backend-pipeline{{{' '.join(options)}}}"],
                     "Lowering torch IR to the backend contract",
                     on_result={_checks.CHECK_KNOWN_CRASHES: refused.append})
        except CompileError as e:
            if refused and refused[0]:  # auto mode keeps these ops and tries again
                e.ops = tuple(dict.fromkeys((*e.ops, *refused[0])))
            raise

    def check_kept(self, module: ir.Module) -> collections.Counter:
        """Fail for a listed op torch-mlir removed, naming the step; warn for
        a listed op the model does not have. Returns the op counts."""
        present = _module_ops(module)
        for overload in sorted(self.kept, key=str):
            name = overload_name(overload)
            if not present[name]:
                raise self._removed_by_torch_mlir(name)
        selection = self.settings.selection
        if selection and not selection.everything:
            listed_present = {o for o in selection.overloads() if present[overload_name(o)]}
            for spec in selection.listed().specs:
                single = OpSelection([spec])
                if not any(single.matches(overload_name(o)) for o in listed_present):
                    warnings.warn(f"backend_legal_ops lists {spec}, but the model contains no such op", stacklevel=3)
        return present

    def _removed_by_torch_mlir(self, name: str) -> CompileError:
        if not _module_ops(self.import_module())[name]:
            return CompileError(
                f"backend_legal_ops lists {name[6:]}, which survived PyTorch's decompositions, but torch-mlir's "
                "FX importer imported it as another op (a Tensor overload called with a Python number becomes "
                "the Scalar overload, e.g. aten.add.Tensor -> aten.add.Scalar). List the op it became; "
                "output_type='raw' shows the imported ops.", category="rewritten-by-torch-mlir", ops=[name])
        culprit = _culprit_pass(self.import_module(), self.pipeline, name)
        return CompileError(
            f"backend_legal_ops lists {name[6:]}, which survived PyTorch's decompositions but "
            f"not torch-mlir's lowering to the backend contract: "
            + (culprit or "a torch-mlir pass") + " rewrote it"
            + " although it was named in backend-legal-ops. Keep the op it became, or "
            "file the rewrite with torch-mlir.", category="rewritten-by-torch-mlir", ops=[name])

    def to_tosa(self, module: ir.Module) -> None:
        """Tunnel what is left of the listed ops (and, in auto mode, what the
        lowering cannot take), refuse what TorchToTosa would compute wrongly,
        lower the rest, check that only TOSA remains."""
        late: list[ConversionResult] = []
        with module.context:
            rest = _pipelines.after_tunnel()
        self.sources = _torch_ops_by_location(module)
        tunnel = [self.settings.ops_option(self.settings.strict)] if self.settings.selection else []
        try:
            if self.settings.selection.auto:
                self._tunnel_auto(module, tunnel, rest, late)
            else:
                self.run(module, [_checks.MARK_BOUNDARY_DTYPES, *tunnel, *rest], "Lowering to TOSA", log=self.log,
                         on_result={PASS_ARGUMENT: late.append})
        finally:
            for result in late:
                self.report._add_converted(result)
                self.report.skipped.extend(result.skipped)

    def tosa_stage(self, module: ir.Module, present: collections.Counter) -> ir.Module:
        """to_tosa. Auto mode tunnels ops as PyTorch wrote them: when it
        chose ops torch-mlir's pipeline made in place of an imported op (its
        decomposition's pieces, or an op it rewrote with other semantics:
        `_embedding_bag` becomes `embedding_bag.padding_idx`, whose -1 then
        means the last row), compile() starts again from a fresh import with
        the imported op tunneled at import."""
        try:
            self.to_tosa(module)
        finally:
            _report_rewritten(self.report, self.settings.selection, present)
        replaced = self._replaced_by_torch_mlir() if self.settings.selection.auto else []
        if not replaced:
            return module
        self.report.converted, self.report.skipped, self.report.tunneled = {}, [], []
        self.pipeline, self.validated, self.log = [], None, DiagnosticLog()
        module = self.import_module()
        self.record_outputs(module)
        module = self.to_contract(module, replaced)
        present = self.check_kept(module)
        try:
            self.to_tosa(module)
        finally:
            _report_rewritten(self.report, self.settings.selection, present)
        return module

    def _replaced_by_torch_mlir(self) -> dict[str, list[str]]:
        """The imported op instances (`OP#N`) that torch-mlir's pipeline
        replaced by the ops auto mode tunneled in their place (same location;
        that op absent there at the backend contract), by the category of the
        site that found them."""
        found: dict[str, set[str]] = {}
        for site in self.report.tunneled:
            imported = self.imported.get(site.location, [])
            names = {instance.partition("#")[0] for instance in imported}
            if site.category == USER_LISTED or site.identifier in names:
                continue
            contract = set(self.sources.get(site.location, []))
            replaced = {i for i in imported if i.partition("#")[0] not in contract}
            if replaced:
                found.setdefault(site.category, set()).update(replaced)
        return {category: sorted(ops) for category, ops in found.items()}

    def _tunnel_auto(self, module: ir.Module, tunnel: list[str], rest: list[str], late: list) -> None:
        """Auto mode's tunnel tried the lowering on copies (auto.py); when its
        last copy lowered cleanly, that copy is the result of `rest` on this
        module, so it is adopted instead of lowered again (the recorded
        pipeline replays to the same module)."""
        self.run(module, [_checks.MARK_BOUNDARY_DTYPES, *tunnel], "Lowering to TOSA", log=self.log,
                 on_result={PASS_ARGUMENT: late.append})
        lowered = late[-1].lowered if late else None
        if lowered is None:
            self.run(module, rest, "Lowering to TOSA", log=self.log)
            return
        self.pipeline += rest
        self.log.diagnostics.extend(late[-1].lowered_log.diagnostics)
        _adopt(module, lowered)
        self.validated = late[-1].lowered_target

    def check_target(self, module: ir.Module) -> None:
        """Attach the TOSA target and validate the module against it."""
        target = self.settings.target
        if target is None:
            return
        if target == "auto":
            target = _target.auto_target(module)
        self.report.tosa_target = str(target)
        if self.validated == target:  # auto mode's adopted trial ran these very passes
            self.pipeline += target.pipeline()
            return
        try:
            self.run(module, target.pipeline(), "Validating the TOSA", category="not-conformant")
        except CompileError as e:
            sources = {**self.sources, **_custom_ops_by_location(module)}
            raise _target.not_conformant(target, e.diagnostics, sources) from None

    def to_linalg(self, module: ir.Module) -> None:
        self.run(module, ["torch-backend-to-linalg-on-tensors-backend-pipeline"],
                 "Lowering the backend contract to linalg-on-tensors")

    # -- reporting -----------------------------------------------------------

    def show(self, stage: str, module: ir.Module) -> None:
        if self.settings.verbose:  # weights elided: they would bury the IR
            print(f"==== {stage}\n" + module.operation.get_asm(large_elements_limit=16))

    def finish(self, module: ir.Module) -> ir.Module:
        for d in self.log.of("warning"):
            warnings.warn(str(d), stacklevel=3)
        if self.settings.verbose and (self.report.tunneled or self.report.kept_from_decomposition):
            print("==== tunneled ops (category: op at location, why)")
            for name, error in self.report.kept_from_decomposition.items():
                print(f"kept from PyTorch's decompositions: {name} (decomposing it failed: {error})")
            for site in self.report.tunneled:
                print(f"{site.category}: {site.identifier} at {format_location(site.location)}"
                      + (f" ({site.reason.splitlines()[0][:200]})" if site.reason else ""))
        if self.settings.verbose:
            print("==== pipeline (tosa-custom-opt --pass-pipeline='...' replays it on output_type='raw')\n"
                  + pipeline_text(self.pipeline))
        return module


def compile(
    model: torch.nn.Module,
    example_args,
    output_type: "str | OutputType" = "tosa",
    use_tracing: bool = False,
    ignore_traced_shapes: bool = False,
    backend_legal_ops: Sequence[str] | None = None,
    extra_library: Iterable = (),
    verbose: bool = False,
    *,
    encoding: str = "json",
    strict: bool = False,
    export_strict: "bool | str" = False,
    func_name: str = "forward",
    report: CompileReport | None = None,
    weights: str = "inline",
    train: bool = False,
    tosa_target: "str | dict | _target.TosaTarget | None" = "auto",
) -> ir.Module:
    """Compile `model` to TOSA with the ops in `backend_legal_ops` as `tosa.custom`.

    The positional parameters are those of the historic `torch_mlir.compile`.
    `use_tracing` is accepted for compatibility (torch.export always traces);
    `ignore_traced_shapes=True` makes every input dimension dynamic, as tracing
    without shape specialization once did. `extra_library` takes paths to MLIR
    files of shape/dtype functions for torch-mlir (FX import gets shapes from
    PyTorch itself, so Python functions are not needed and are refused).
    `strict` makes an op that cannot be tunneled an error instead of a warning.
    `export_strict`: False exports non-strict, True strict, "auto" tries strict
    and retries non-strict (the report says which was used); a non-strict capture
    that took a buffer the model writes for a constant (reached through an object
    that is not a module, as transformers' StaticCache holds its cache) is redone
    strict, which follows it (`report.export_nonstrict_error` says why). `backend_legal_ops=["*"]`
    is the dummy mode: nothing is decomposed on either side and every op is tried.
    `backend_legal_ops="auto"` (or a list with "auto" among the ops) tunnels, per
    instance, exactly what torch-mlir cannot lower to TOSA, lowers wrongly or
    lowers to TOSA the target forbids (CONTRACT.md §14); `report.tunneled` says why
    each tosa.custom is there.
    `report` (a `CompileReport`) is filled with what happened to each op.
    `weights="arguments"` makes every parameter and persistent buffer a named
    argument of the entry function instead of a constant (CONTRACT.md §10).
    `tosa_target` (TOSA output): the target the result is declared for and
    validated against last, as `tosa-attach-target` names it (a `TosaTarget`,
    a dict of its fields, or option text such as "profiles=pro_fp
    extensions=bf16"); "auto" fits it to the model (pro_fp for floats, pro_int
    for integers, the extensions its dtypes need; with `encoding="const"` and
    listed ops it checks nothing, as that encoding's i64/f64 operands are
    outside TOSA by design, CONTRACT.md 4.6); None skips the check. Ops the
    target does not allow fail with category "not-conformant".
    `verbose` prints each stage's IR and, last, the pass pipeline that turns
    the `output_type="raw"` import into the result.
    `train=False` compiles the model in eval() mode (inference: dropout off,
    batch norm on running statistics), warning if it was in training mode;
    `train=True` compiles it in the mode it is in.
    """
    settings = _settings(output_type, use_tracing, ignore_traced_shapes, backend_legal_ops, extra_library,
                         verbose, encoding, strict, export_strict, func_name, weights, tosa_target)
    report = report if report is not None else CompileReport()
    c = _Compilation(_select_mode(model, train), settings, report)
    c.capture(example_args, ignore_traced_shapes)
    module = c.import_module()
    c.record_outputs(module)
    report.ops_seen = dict(_aten_ops(module))
    if settings.output is OutputType.RAW:
        c.show("torch IR (raw import)", module)
        return c.finish(module)
    module = c.to_contract(module)
    present = c.check_kept(module)
    c.show("torch IR (backend contract)", module)
    if settings.output is OutputType.TORCH:
        return c.finish(module)
    if settings.output is OutputType.LINALG_ON_TENSORS:
        c.to_linalg(module)
        return c.finish(module)
    module = c.tosa_stage(module, present)
    c.check_target(module)
    c.show("TOSA", module)
    return c.finish(module)


def install_torch_mlir_compile() -> None:
    """Make `torch_mlir.compile(..., backend_legal_ops=[...])` scripts run unchanged.

    The torch-mlir wheel no longer has `torch_mlir.compile`; this installs ours
    (and `torch_mlir.OutputType`) in its place. Opt-in: nothing is patched on
    import.
    """
    import torch_mlir

    torch_mlir.compile = compile
    torch_mlir.OutputType = OutputType
