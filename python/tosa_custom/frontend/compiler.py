"""`compile()`: the historic `torch_mlir.compile` signature on torch.export/FX.

compile() checks its arguments (settings.py), captures the model once
(torch.export and PyTorch's decompositions, captured.py), then makes an
attempt (attempt.py) on a fresh import: pipelines of named passes, each
recorded as text so `verbose` prints the one pipeline that `tosa-custom-opt
--pass-pipeline=...` replays on the imported module. Auto mode may make a
second attempt, which tunnels at import what torch-mlir replaced. A listed op
must survive PyTorch's decompositions and torch-mlir's; compile() checks that
it did and names the step that removed it.
"""

from __future__ import annotations

import warnings
from typing import Iterable, Sequence

import torch
from torch_mlir import ir

from ..core.diagnostics import CompileError, format_location
from ..core.heap import collect_new_objects_only
from ..core.passes import pipeline_text
from ..tosa import target as _target
from .attempt import Attempt
from .boundary import check_boundary
from .captured import Capture
from .feedback import Feedback
from . import quantized as _quantized
from .report import CompileReport, OutputType
from .settings import settings

__all__ = ["CompileReport", "OutputType", "compile", "install_torch_mlir_compile"]


def _select_mode(model, train: bool):
    """The mode the model is compiled in. eval() by default, since inference is
    what a TOSA backend runs (dropout off, batch norm on running statistics);
    switching a model the user left in training mode is said once, not done
    silently. `train=True` keeps its mode (dropout and batch statistics are
    then compiled in). A module whose mode export fixed (PT2E's) is compiled
    as it is."""
    if not isinstance(model, torch.nn.Module) or train or _quantized.fixed_mode(model):
        return model
    if model.training:
        warnings.warn(
            f"compile() puts the {type(model).__name__} in eval() mode (it was in training mode): dropout off, "
            "batch norm on running statistics. Pass train=True to compile it in training mode, or call "
            "model.eval() first to silence this.", UserWarning, stacklevel=3)
    return model.eval()


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
    dynamic_shapes=None,
) -> ir.Module:
    """Compile `model` to TOSA with the ops in `backend_legal_ops` as `tosa.custom`.

    The positional parameters are those of the historic `torch_mlir.compile`.
    `use_tracing` is accepted for compatibility (torch.export always traces);
    `ignore_traced_shapes=True` makes every input dimension dynamic, as tracing
    without shape specialization once did (each dim `Dim.AUTO`).
    `dynamic_shapes` is torch.export's own specification (`torch.export.Dim`
    with min/max, `Dim.AUTO`, `Dim.DYNAMIC`, as a tuple or a dict by
    parameter name); only dims that stay symbolic after export are `?`, and
    the entry function then carries their symbols and ranges (CONTRACT.md
    §15.1). `extra_library` takes paths to MLIR
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
    target does not allow fail with category "not-conformant"; an input,
    result or weight of a type no TOSA profile has (float64,
    complex128, uint16/32/64) fails first, before lowering, with category
    "no-tosa-profile", as does a module whose only violations are such types.
    `verbose` prints each stage's IR and, last, the pass pipeline that turns
    the `output_type="raw"` import into the result.
    `train=False` compiles the model in eval() mode (inference: dropout off,
    batch norm on running statistics), warning if it was in training mode;
    `train=True` compiles it in the mode it is in.
    """
    with collect_new_objects_only():  # core/heap.py: the collector walks what the compile allocates
        s = settings(output_type, use_tracing, ignore_traced_shapes, backend_legal_ops, extra_library,
                     verbose, encoding, strict, export_strict, func_name, weights, tosa_target)
        report = report if report is not None else CompileReport()
        model = _quantized.as_module(model)
        s = _quantized.quantized_settings(model, s)
        _quantized.refuse_without_integer_form(model, s)
        capture = Capture.make(_select_mode(model, train), example_args, ignore_traced_shapes, s, report,
                               dynamic_shapes)
        if s.output is OutputType.TOSA and s.target is not None:  # a type no target has: said before lowering
            check_boundary(capture.program)
        feedback = Feedback()
        while True:
            attempt = Attempt(capture, feedback)
            try:
                _attempt(attempt, report)
            except CompileError as e:  # auto mode: tunnel, at import, what this stage failed on, and retry
                if not s.selection.auto or not feedback.learn(attempt.stage, attempt.imported_every, e):
                    raise
                continue
            # auto mode: tunnel, at import, the ops torch-mlir replaced by ops it tunneled
            if not attempt.replaced or not feedback.replaced(attempt.replaced):
                return _finish(attempt, report)


def _attempt(attempt: Attempt, report: CompileReport) -> Attempt:
    try:
        attempt.module = attempt.run()
    finally:
        report.ops_seen = report.ops_seen or attempt.ops_seen
        report.publish(attempt.found)
    return attempt


def _finish(attempt: Attempt, report: CompileReport) -> ir.Module:
    """Our passes' warnings as Python warnings; with `verbose`, what was
    tunneled and why, and last the pipeline that replays the lowering."""
    for d in attempt.log.of("warning"):
        warnings.warn(str(d), stacklevel=3)
    if attempt.settings.verbose and (report.tunneled or report.kept_from_decomposition):
        print("==== tunneled ops (category: op at location, why)")
        for name, error in report.kept_from_decomposition.items():
            print(f"kept from PyTorch's decompositions: {name} (decomposing it failed: {error})")
        for site in report.tunneled:
            print(f"{site.category}: {site.identifier} at {format_location(site.location)}"
                  + (f" ({site.reason.splitlines()[0][:200]})" if site.reason else ""))
    if attempt.settings.verbose:
        print("==== pipeline (tosa-custom-opt --pass-pipeline='...' replays it on output_type='raw')\n"
              + pipeline_text(attempt.pipeline))
    return attempt.module


def install_torch_mlir_compile() -> None:
    """Make `torch_mlir.compile(..., backend_legal_ops=[...])` scripts run unchanged.

    The torch-mlir wheel no longer has `torch_mlir.compile`; this installs ours
    (and `torch_mlir.OutputType`) in its place. Opt-in: nothing is patched on
    import.
    """
    import torch_mlir

    torch_mlir.compile = compile
    torch_mlir.OutputType = OutputType
