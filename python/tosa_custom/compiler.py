"""`compile()`: the historic `torch_mlir.compile` signature on torch.export/FX.

A listed op must survive two decomposers: PyTorch's (its decomposition table,
applied by `run_decompositions`) and torch-mlir's (`backend-legal-ops`). This
module removes the op from the first, names it to the second, and checks after
each that the op is still there, failing with which step removed it.
"""

from __future__ import annotations

import collections
import contextlib
import enum
import warnings
from typing import Any, Iterable, Sequence

import torch
from torch_mlir import ir, passmanager
from torch_mlir.extras.fx_decomp_util import get_decomposition_table
from torch_mlir.extras.fx_importer import FxImporter

from . import _ir
from .conversion import PASS_ARGUMENT, PassOptions, convert_module, make_pass
from .diagnostics import CompileError, Diagnostic, DiagnosticLog
from .passes import split_pipeline
from .schema import OpSelection, op_identifier, overload_name

__all__ = ["OutputType", "compile", "install_torch_mlir_compile", "run_pipeline"]


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


def run_pipeline(module: ir.Module, pipeline: str | passmanager.PassManager, what: str,
                 log: DiagnosticLog | None = None) -> None:
    """Run a pass pipeline; failures become one CompileError with every
    diagnostic, including the warnings our passes logged before it failed."""
    with module.context:
        pm = passmanager.PassManager.parse(pipeline) if isinstance(pipeline, str) else pipeline
        try:
            pm.run(module.operation)
        except ir.MLIRError as e:
            diagnostics = (log.diagnostics if log else []) + [Diagnostic.from_mlir(d) for d in e.error_diagnostics]
            raise CompileError(f"{what} failed:", diagnostics) from None


# --------------------------------------------------------------------------
# Arguments.
# --------------------------------------------------------------------------


def _example_args(example_args) -> tuple[tuple, Any]:
    """Tensors for export, and the dynamic_shapes spec for placeholders with -1."""
    if isinstance(example_args, (torch.Tensor,)) or hasattr(example_args, "shape") and hasattr(example_args, "dtype"):
        example_args = (example_args,)
    if not isinstance(example_args, (tuple, list)):
        raise TypeError(
            f"example_args must be a tensor or a tuple/list of tensors, got {type(example_args).__name__}"
        )
    tensors, dynamic, any_dynamic = [], [], False
    for a in example_args:
        if isinstance(a, torch.Tensor) or not (hasattr(a, "shape") and hasattr(a, "dtype")):
            tensors.append(a)
            dynamic.append(None)
            continue
        # torch_mlir.TensorPlaceholder: -1 marks a dynamic dimension.
        shape = [2 if d == -1 else d for d in a.shape]
        tensors.append(torch.zeros(shape, dtype=a.dtype))
        dims = {i: torch.export.Dim.AUTO for i, d in enumerate(a.shape) if d == -1}
        any_dynamic |= bool(dims)
        dynamic.append(dims or None)
    return tuple(tensors), (tuple(dynamic) if any_dynamic else None)


def _all_dims_dynamic(args: tuple):
    return tuple(
        {i: torch.export.Dim.AUTO for i in range(a.dim())} if isinstance(a, torch.Tensor) else None
        for a in args
    )


# --------------------------------------------------------------------------
# Surviving decompositions.
# --------------------------------------------------------------------------


def _graph_ops(graph_module) -> collections.Counter:
    return collections.Counter(
        n.target for n in graph_module.graph.nodes
        if n.op == "call_function" and isinstance(n.target, torch._ops.OpOverload)
    )


def _sources(node) -> list:
    """Every node this one was derived from, through all passes."""
    found, stack = [], list(node.meta.get("from_node") or [])
    while stack:
        src = stack.pop()
        found.append(src)
        stack.extend(getattr(src, "from_node", None) or [])
    return found


def _replacements(program, overload) -> list[str]:
    """The ops PyTorch's mandatory decomposition of `overload` produces (one
    step, no table), for the error message: list those instead."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        probe = program.run_decompositions({})
    return sorted({
        str(n.target) for n in probe.graph.nodes
        if n.op == "call_function" and isinstance(n.target, torch._ops.OpOverload)
        and any(str(getattr(src, "target", "")) == str(overload) for src in _sources(n))
    })


def _has_cia(overload) -> bool:
    return torch._C._dispatch_has_kernel_for_dispatch_key(
        overload.name(), torch._C.DispatchKey.CompositeImplicitAutograd
    )


def _decomposition_table(selection: OpSelection, program=None) -> dict:
    """torch-mlir's table without the listed ops; with `program`, composites in
    it whose own (CompositeImplicitAutograd) decomposition yields a listed op
    decompose that way, instead of by a table entry that would skip the op
    (e.g. upsample_bilinear2d.vec straight to primitives past .default)."""
    keep = set(selection.overloads())
    table = {k: v for k, v in get_decomposition_table().items() if k not in keep}
    if program is None:
        return table
    present = set(_graph_ops(program.graph_module))
    if not keep - present:
        return table  # every listed op is already in the graph
    composites = {op: op.decompose for op in present if op not in keep and op in table and _has_cia(op)}
    if not composites:
        return table
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            probe = program.run_decompositions(composites)
    except Exception:  # some CIA kernels re-enter themselves when traced
        return table
    by_name = {str(op): op for op in composites}
    for n in probe.graph.nodes:
        if n.op == "call_function" and n.target in keep:
            for src in _sources(n):
                composite = by_name.get(str(getattr(src, "target", "")))
                if composite is not None:
                    table[composite] = composites[composite]
    return table


def _check_survived_pytorch(selection: OpSelection, before, after, exported) -> set:
    """Fail for a listed op that PyTorch removed; return the ones it kept."""
    kept = set()
    for overload in selection.overloads():
        if after[overload]:
            kept.add(overload)
        elif before[overload]:
            became = _replacements(exported, overload)
            raise CompileError(
                f"backend_legal_ops lists {overload_name(overload)[6:]}, but PyTorch decomposed it "
                f"during export although it is not in the decomposition table (export always "
                f"decomposes it, e.g. to make it functional)"
                + (f"; it became {', '.join(became)}: list that instead" if became else "")
                + "."
            )
    return kept


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


def _culprit_pass(import_module, pipeline: str, name: str) -> str | None:
    """Replay `pipeline` one pass at a time on a fresh import, and return the
    first pass after which the op `name` is gone (failure path only)."""
    module = import_module()
    with module.context:
        expanded = str(passmanager.PassManager.parse(pipeline))
        steps = []
        for element in split_pipeline(expanded):
            anchor, paren, inner = element.partition("(")
            if paren and anchor in ("func.func",) and inner.endswith(")"):
                steps += [f"{anchor}({e})" for e in split_pipeline(inner[:-1])]
            else:
                steps.append(element)
        for step in steps:
            try:
                passmanager.PassManager.parse(f"builtin.module({step})").run(module.operation)
            except ir.MLIRError:
                return None
            if not _module_ops(module)[name]:
                culprit = f"the pass '{step.split('{')[0]}'"
                if "canonicalize" in step and "canonicalize" not in step.split("{")[0]:
                    culprit += " (through the canonicalization patterns it runs)"
                return culprit
    return None


def _expose_non_persistent_buffers(program) -> None:
    """torch.export keeps non-persistent buffers (BERT's position_ids) in
    `constants`, but torch-mlir's frozen import reads only `state_dict`."""
    from torch.export.graph_signature import InputKind

    for spec in program.graph_signature.input_specs:
        if spec.kind == InputKind.BUFFER and not spec.persistent and spec.target not in program.state_dict:
            program.state_dict[spec.target] = program.constants[spec.target]


@contextlib.contextmanager
def _quiet_torch():
    """Hide torch's own pytree deprecation noise, which is not the user's concern."""
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", message=r".*treespec, LeafSpec.*", category=FutureWarning)
        yield


def _show(verbose: bool, stage: str, module: ir.Module) -> None:
    if verbose:  # weights elided: they would bury the IR
        print(f"==== {stage}\n" + module.operation.get_asm(large_elements_limit=16))


# --------------------------------------------------------------------------
# compile().
# --------------------------------------------------------------------------


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
    export_strict: bool = False,
    func_name: str = "forward",
) -> ir.Module:
    """Compile `model` to TOSA with the ops in `backend_legal_ops` as `tosa.custom`.

    The positional parameters are those of the historic `torch_mlir.compile`.
    `use_tracing` is accepted for compatibility (torch.export always traces);
    `ignore_traced_shapes=True` makes every input dimension dynamic, as tracing
    without shape specialization once did. `extra_library` takes paths to MLIR
    files of shape/dtype functions for torch-mlir (FX import gets shapes from
    PyTorch itself, so Python functions are not needed and are refused).
    `strict` makes an op that cannot be tunneled an error instead of a warning.
    """
    output = OutputType.get(output_type)
    selection = OpSelection(backend_legal_ops or [])
    options = PassOptions(selection, encoding=encoding, strict=strict)
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
    if isinstance(model, torch.nn.Module):
        model = model.eval()

    args, dynamic = _example_args(example_args)
    if ignore_traced_shapes:
        dynamic = _all_dims_dynamic(args)
    try:
        with _quiet_torch():
            program = torch.export.export(model, args, dynamic_shapes=dynamic, strict=export_strict)
    except Exception as e:
        raise CompileError(
            f"torch.export could not capture the model ({type(e).__name__}): {str(e).splitlines()[0] if str(e) else ''}"
        ) from e
    exported = program
    before = _graph_ops(exported.graph_module)
    try:
        with _quiet_torch():
            program = exported.run_decompositions(_decomposition_table(selection, exported))
    except Exception as e:
        raise CompileError(
            f"PyTorch's decompositions failed on the exported model ({type(e).__name__}): "
            f"{str(e).splitlines()[0] if str(e) else ''}"
        ) from e
    _expose_non_persistent_buffers(program)
    after = _graph_ops(program.graph_module)
    kept = _check_survived_pytorch(selection, before, after, exported)
    if verbose:
        print("==== FX graph after decompositions\n", program.graph_module.code)

    def import_module(tunnel: bool) -> ir.Module:
        importer = FxImporter(context=_ir.make_context())
        importer.import_frozen_program(program, func_name=func_name)
        module = importer.module
        if tunnel:
            # Tunnel listed ops before torch-mlir's pipeline sees them: its
            # canonicalizations and decompositions rewrite some ops even when
            # they are backend-legal (int8 _int_mm becomes mm), and it cannot
            # lower ops it only knows as torch.operator. The import already
            # has value tensors with static types. Ops skipped here are
            # retried, and reported, at the backend contract below.
            with module.context:
                convert_module(module.operation, PassOptions(selection, encoding=encoding), DiagnosticLog())
        return module

    if output is OutputType.RAW:
        module = import_module(tunnel=False)
        _show(verbose, "torch IR (raw import)", module)
        return module
    tunnel = bool(selection) and output is OutputType.TOSA
    module = import_module(tunnel)
    ctx = module.context
    _show(verbose, "torch IR (import" + (", listed ops tunneled)" if tunnel else ")"), module)
    legal = selection.torch_mlir_names()
    opts = []
    if legal:
        opts.append("backend-legal-ops=" + ",".join(legal))
    if library_paths:
        opts.append("extra-library=" + library_paths[0])
    backend_pipeline = (
        "builtin.module(func.func(torch-match-quantized-custom-ops), "
        f"torchdynamo-export-to-torch-backend-pipeline{{{' '.join(opts)}}})"
    )
    run_pipeline(module, backend_pipeline, "Lowering torch IR to the backend contract")
    present = _module_ops(module)
    for overload in sorted(kept, key=str):
        name = overload_name(overload)
        if not present[name]:
            culprit = _culprit_pass(lambda: import_module(tunnel), backend_pipeline, name)
            raise CompileError(
                f"backend_legal_ops lists {name[6:]}, which survived PyTorch's decompositions but "
                f"not torch-mlir's lowering to the backend contract: "
                + (culprit or "a torch-mlir pass") + " rewrote it"
                + " although it was named in backend-legal-ops. Keep the op it became, or "
                "file the rewrite with torch-mlir."
            )
    listed_present = {o for o in selection.overloads() if present[overload_name(o)]}
    if selection and not selection.everything:
        for spec in selection.specs:
            single = OpSelection([spec])
            if not any(single.matches(overload_name(o)) for o in listed_present):
                warnings.warn(f"backend_legal_ops lists {spec}, but the model contains no such op", stacklevel=2)
    _show(verbose, "torch IR (backend contract)", module)
    if output is OutputType.TORCH:
        return module

    if output is OutputType.LINALG_ON_TENSORS:
        run_pipeline(module, "builtin.module(torch-backend-to-linalg-on-tensors-backend-pipeline)",
                     "Lowering the backend contract to linalg-on-tensors")
        return module

    log = DiagnosticLog()
    with ctx:
        pm = passmanager.PassManager()
        pm.add(make_pass(options, log), name="ConvertTorchBackendLegalToTosaCustom", argument=PASS_ARGUMENT)
        pm.add("torch-backend-to-tosa-backend-pipeline")
    run_pipeline(module, pm, "Lowering to TOSA", log)
    for d in log.of("warning"):
        warnings.warn(str(d), stacklevel=2)
    _show(verbose, "TOSA", module)
    return module


def install_torch_mlir_compile() -> None:
    """Make `torch_mlir.compile(..., backend_legal_ops=[...])` scripts run unchanged.

    The torch-mlir wheel no longer has `torch_mlir.compile`; this installs ours
    (and `torch_mlir.OutputType`) in its place. Opt-in: nothing is patched on
    import.
    """
    import torch_mlir

    torch_mlir.compile = compile
    torch_mlir.OutputType = OutputType
