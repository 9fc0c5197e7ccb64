"""One attempt at compile()'s lowering, on a fresh import of the capture:
tunnel at import, torch-mlir's lowering to the backend contract, tunnel and
lower to TOSA, check the target. A retry is a new attempt; nothing is reset.

`pipeline` records every pass element run on the imported module, in order,
so the whole lowering can be printed and replayed as one pipeline
(`tosa-custom-opt --pass-pipeline=...` on `output_type="raw"`).
"""

from __future__ import annotations

import collections
import dataclasses
import re
import warnings

from torch_mlir import ir

from ..core import attrs as _attrs
from ..core.diagnostics import CompileError, DiagnosticLog
from ..core.ir import public_functions
from ..core.passes import run_pipeline
from ..core.schema import OpSelection, overload_name
from ..tosa import checks as _checks
from ..tosa import logical_reductions as _logical_reductions
from ..tosa import pool_strides as _pool_strides
from ..tosa import target as _target
from ..tosa import wrong_lowerings as _wrong
from ..tunnel import auto as _auto
from ..tunnel import pipelines as _pipelines
from ..tunnel.options import PASS_ARGUMENT, USER_LISTED, ConversionResult
from ..tunnel.tensorize import TENSORIZE_SCALAR_BOUNDARY
from .captured import Capture
from . import refusals as _refusals
from .feedback import Feedback
from .queries import (adopt, aten_ops, culprit_pass, custom_ops_by_location, module_ops, report_rewritten,
                      torch_ops_by_location)
from .report import Findings, OutputType

__all__ = ["Attempt"]

# Rounds of auto mode's retry at import (ops the lowering to the backend contract failed on).
_MAX_CONTRACT_RETRIES = 6


class Attempt:
    """The state one attempt's stages share."""

    def __init__(self, capture: Capture, feedback: Feedback | None = None):
        self.capture, self.settings = capture, capture.settings
        self.feedback = feedback or Feedback()  # auto mode: what earlier attempts learnt to tunnel at import
        self.stage = "import"  # the stage running, for auto mode's feedback when one fails
        self.found = Findings(integer_ops=self.settings.integer_ops)
        self.pipeline: list[str] = []
        self.log = DiagnosticLog()  # our passes' warnings from the final tunnel
        self.sources: dict[str, list[str]] = {}  # location -> the torch ops there, to name a TOSA op's source
        self.validated = None  # auto mode: the target its adopted trial was already validated against
        self.imported: dict[str, list[str]] = {}  # location -> the torch op instances (OP#N) there at import
        self.imported_every: dict[str, list[str]] = {}  # the same, ops without results included (feedback)
        self.ops_seen: dict[str, int] = {}  # the audited ops of the import (CompileReport.ops_seen)
        self.replaced: dict[str, dict[str, str]] = {}  # auto mode: category -> instance to tunnel at import -> why
        self.module: ir.Module | None = None  # what run() made

    def run(self) -> ir.Module:
        """The stages compile()'s output type asks for; the module they made.
        Stops after the TOSA lowering when `replaced` says to try again."""
        output = self.settings.output
        module = self.capture.import_module()
        self.ops_seen = dict(aten_ops(module))
        if output is OutputType.RAW:
            self.show("torch IR (raw import)", module)
            return module
        self.stage = "contract"
        module = self.to_contract(module, self.feedback.at_import)
        present = self.check_kept(module)
        self.show("torch IR (backend contract)", module)
        if output is OutputType.TORCH:
            return module
        if output is OutputType.LINALG_ON_TENSORS:
            self.to_linalg(module)
            return module
        self.stage = "lowering"
        self.tosa_stage(module, present)
        if self.replaced:
            return module
        self.stage = "target"
        self.check_target(module)
        self.show("TOSA", module)
        return module

    def run_passes(self, module: ir.Module, elements: list[str], what: str, **kw) -> None:
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
        self.run_passes(module, elements, "Tunneling the listed ops after import", category="compile-failed",
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
        self.imported_every = _auto.instances_by_location(module.operation, every=True)
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
                self.feedback.why.update({op: ("contract", e.diagnostics[0].message[:300] if e.diagnostics else "")
                                          for op in new if op not in self.feedback.why})
                del self.pipeline[start:]
                module = self.capture.import_module()
                continue
            for result in results:
                self.found.add(dataclasses.replace(result, sites=[
                    self.feedback.explained(site, self.imported_every.get(site.location, [])) for site in result.sites]))
            return module

    def to_backend_contract(self, module: ir.Module) -> None:
        s = self.settings
        legal = s.selection.torch_mlir_names()
        if s.selection.everything:  # what the early tunnel left: torch-mlir must not decompose it either
            legal = sorted(set(legal) | {n[len("torch."):] for n in aten_ops(module) if n.startswith("torch.")})
        elif s.selection.auto:  # a wrong lowering may be torch-mlir's decomposition (logcumsumexp): keep the op
            present = aten_ops(module)
            legal = sorted(set(legal) | {w.op[len("torch."):] for w in _wrong.WRONG_LOWERINGS if present[w.op]})
        legal_option = ["backend-legal-ops=" + ",".join(legal)] if legal else []
        options = legal_option + (["extra-library=" + s.library] if s.library else [])
        refused: list[list[str]] = []
        try:
            self.run_passes(module, [_pool_strides.DEFAULT_POOL_STRIDES, _logical_reductions.ANY_OVER_NO_DIMS,
                                     f"{_checks.CHECK_KNOWN_CRASHES}{{{' '.join(['stage=contract', *legal_option])}}}",
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
        present = module_ops(module)
        for overload in sorted(self.capture.kept, key=str):
            name = overload_name(overload)
            if not present[name]:
                raise self._removed_by_torch_mlir(name)
        selection = self.settings.selection
        if selection and not selection.everything:
            listed_present = {o for o in selection.overloads() if present[overload_name(o)]}
            for spec in selection.listed().specs:
                single = OpSelection([spec])
                if not any(single.matches(overload_name(o)) for o in listed_present):
                    warnings.warn(f"backend_legal_ops lists {spec}, but the model contains no such op", stacklevel=5)
        return present

    def _removed_by_torch_mlir(self, name: str) -> CompileError:
        if not module_ops(self.capture.import_module())[name]:
            return CompileError(
                f"backend_legal_ops lists {name[6:]}, which survived PyTorch's decompositions, but torch-mlir's "
                "FX importer imported it as another op (a Tensor overload called with a Python number becomes "
                "the Scalar overload, e.g. aten.add.Tensor -> aten.add.Scalar). List the op it became; "
                "output_type='raw' shows the imported ops.", category="rewritten-by-torch-mlir", ops=[name])
        culprit = culprit_pass(self.capture.import_module(), self.pipeline, name)
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
            rest = _pipelines.after_tunnel(self.settings.target, self.settings.quantized, self.settings.tables)
        self.sources = torch_ops_by_location(module)
        tunnel = [self.settings.ops_option(self.settings.strict)] if self.settings.selection else []
        try:
            if self.settings.selection.auto:
                self._tunnel_auto(module, tunnel, rest, late)
            else:
                self.run_passes(module, [_checks.MARK_BOUNDARY_DTYPES, *tunnel, *rest], "Lowering to TOSA",
                                log=self.log, on_result={PASS_ARGUMENT: late.append})
        except CompileError as e:
            dynamic = any(_attrs.SYMBOLS in f.attributes for f in public_functions(module))  # CONTRACT.md §15.1
            plain = None if self.settings.selection.auto else _refusals.plain_refusal(e, module)
            raise _data_dependent(late, e) or (_refused_on_question_marks(e) if dynamic else None) or plain or e
        finally:
            for result in late:
                self.found.add(result, skipped=True)

    def tosa_stage(self, module: ir.Module, present: collections.Counter) -> None:
        """to_tosa. Auto mode tunnels ops as PyTorch wrote them: when it
        chose ops torch-mlir's pipeline made in place of an imported op (its
        decomposition's pieces, or an op it rewrote with other semantics:
        `_embedding_bag` becomes `embedding_bag.padding_idx`, whose -1 then
        means the last row), `replaced` names them, and compile() makes a new
        attempt that tunnels the imported op at import."""
        try:
            self.to_tosa(module)
        finally:
            report_rewritten(self.found, self.ops_seen, self.settings.selection, present)
        self.replaced = self._replaced_by_torch_mlir() if self.settings.selection.auto else {}

    def _replaced_by_torch_mlir(self) -> dict[str, dict[str, str]]:
        """The imported op instances (`OP#N`) that torch-mlir's pipeline
        replaced by the ops auto mode tunneled in their place (same location;
        that op absent there at the backend contract), by the category of the
        site that found them, each with what took its place."""
        found: dict[str, dict[str, str]] = {}
        for site in self.found.tunneled:
            imported = self.imported.get(site.location, [])
            names = {instance.partition("#")[0] for instance in imported}
            if site.category == USER_LISTED or site.identifier in names:
                continue
            contract = set(self.sources.get(site.location, []))
            replaced = {i for i in imported if i.partition("#")[0] not in contract}
            why = f"{site.identifier} took its place ({site.stage}: {site.reason.splitlines()[0][:200]})"
            for instance in sorted(replaced):
                found.setdefault(site.category, {}).setdefault(instance, why)
        return found

    def _tunnel_auto(self, module: ir.Module, tunnel: list[str], rest: list[str], late: list) -> None:
        """Auto mode's tunnel tried the lowering on copies (auto.py); when its
        last copy lowered cleanly, that copy is the result of `rest` on this
        module, so it is adopted instead of lowered again (the recorded
        pipeline replays to the same module)."""
        self.run_passes(module, [_checks.MARK_BOUNDARY_DTYPES, *tunnel], "Lowering to TOSA", log=self.log,
                        on_result={PASS_ARGUMENT: late.append})
        lowered = late[-1].lowered if late else None
        if lowered is None:
            self.run_passes(module, rest, "Lowering to TOSA", log=self.log)
            return
        self.pipeline += rest
        self.log.diagnostics.extend(late[-1].lowered_log.diagnostics)
        adopt(module, lowered)
        self.validated = late[-1].lowered_target

    def check_target(self, module: ir.Module) -> None:
        """Attach the TOSA target and validate the module against it."""
        target = self.settings.target
        if target is None:
            return
        target, fitted = _target.fitted_target(module) if target == "auto" else (target, False)
        self.found.tosa_target = str(target)
        self.pipeline += target.pipeline()
        if self.validated == target:  # auto mode's adopted trial ran these very passes
            return
        try:  # what fitting validated is attached and recorded only (the recorded pipeline validates)
            run_pipeline(module, target.pipeline(validated=fitted), "Validating the TOSA",
                         category="not-conformant")
        except CompileError as e:
            sources = {**self.sources, **custom_ops_by_location(module)}
            error = _target.not_conformant(target, e.diagnostics, sources)
            error.diagnostics = e.diagnostics  # where, for auto mode's feedback (the message already says it)
            raise error from None

    def to_linalg(self, module: ir.Module) -> None:
        self.run_passes(module, ["torch-backend-to-linalg-on-tensors-backend-pipeline"],
                 "Lowering the backend contract to linalg-on-tensors")

    def show(self, stage: str, module: ir.Module) -> None:
        if self.settings.verbose:  # weights elided: they would bury the IR
            print(f"==== {stage}\n" + module.operation.get_asm(large_elements_limit=16))


def _data_dependent(results: list[ConversionResult], error: CompileError) -> CompileError | None:
    """The error to raise when the lowering failed after the tunnel left ops
    unconverted because a result size depends on the data (`nonzero`,
    `masked_select`, a slice to a run-time end): no TOSA op and no
    `tosa.custom` can state such a size (CONTRACT.md §15.2), so the generic
    legalization failure that follows is not the cause. None otherwise."""
    found = [s for r in results for s in r.skipped if s.category == "dynamic-result-shape"]
    if not found:
        return None
    ops = list(dict.fromkeys(s.identifier for s in found))
    return CompileError(
        f"{', '.join(ops)}: the size of its result depends on the values of its inputs, not only on their sizes "
        f"({found[0].message}). Neither TOSA nor a tosa.custom (CONTRACT.md §15.2: result sizes are expressions "
        "over the operands' sizes) can express such a result. Compute it outside the compiled program (split "
        "the model before it), or make its size static (e.g. a mask and torch.where in place of masked_select "
        "or nonzero).", error.diagnostics, category="dynamic-result-shape", ops=ops)


# TorchToTosa's refusal of an op, as MLIR words it, with the op's name and its operand and result types.
_REFUSED = re.compile(r"failed to legalize operation '(torch\.[\w.]+)'.*?: (\(.*\) -> .*)$", re.S)


def _refused_on_question_marks(error: CompileError) -> CompileError | None:
    """The error to raise when, in a dynamic program, TorchToTosa refused an
    op with `?` dims that no pass before it could lower (it lowers most ops only from static
    shapes): name the op and the ways out. None for any other failure."""
    for d in error.diagnostics:
        found = _REFUSED.search(d.message) if d.severity == "error" else None
        if found and "?" in found.group(2):
            op = found.group(1)
            return CompileError(
                f"{op} has dims of run-time size (?) here and TorchToTosa lowers it only from static shapes "
                f"({found.group(2).splitlines()[0][:300]}). Compile with backend_legal_ops='auto', which tunnels it "
                "as a tosa.custom stating its result sizes, or make the dims it touches static (no Dim for them "
                "in dynamic_shapes=).", error.diagnostics, category="lowering-failed", ops=[op])
    return None
