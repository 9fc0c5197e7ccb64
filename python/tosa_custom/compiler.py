"""`compile()`: the historic `torch_mlir.compile` signature on torch.export/FX.

A listed op must survive two decomposers: PyTorch's (its decomposition table,
applied by `run_decompositions`) and torch-mlir's (`backend-legal-ops`). This
module removes the op from the first, names it to the second, and checks after
each that the op is still there, failing with which step removed it.
"""

from __future__ import annotations

import collections
import contextlib
import dataclasses
import enum
import inspect
import re
import warnings
from typing import Any, Iterable, Sequence

import torch
from torch_mlir import ir, passmanager
from torch_mlir.extras.fx_decomp_util import get_decomposition_table
from torch_mlir.extras.fx_importer import FxImporter

from . import _ir
from .weights import export as _weights
from .conversion import (
    PASS_ARGUMENT, ConversionFailed, ConversionResult, PassOptions, Skipped, convert_module, make_pass,
    tensorize_builtin_scalar_boundary, tensorize_scalar_boundary,
)
from .diagnostics import CompileError, Diagnostic, DiagnosticLog
from .passes import split_pipeline
from .schema import EVERYTHING_NAMESPACES, OpSelection, op_identifier, overload_name

__all__ = ["CompileReport", "OutputType", "compile", "install_torch_mlir_compile", "run_pipeline"]


@dataclasses.dataclass
class CompileReport:
    """What `compile(..., report=CompileReport())` did with each op, for audits.

    Filled as compile() goes, so after a CompileError it still holds what was
    learnt before the failure. Identifiers are dialect spellings
    (`torch.aten.add.Tensor`; a user op is its `torch.operator` name).
    """

    export_mode: str = ""  # "strict" or "non-strict"
    export_strict_error: str = ""  # why strict export failed, when it was retried non-strict
    ops_seen: dict[str, int] = dataclasses.field(default_factory=dict)
    converted: dict[str, int] = dataclasses.field(default_factory=dict)
    skipped: list[Skipped] = dataclasses.field(default_factory=list)

    def _add_converted(self, result: ConversionResult) -> None:
        for identifier, count in result.converted.items():
            self.converted[identifier] = self.converted.get(identifier, 0) + count


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


def _all_dims_dynamic(args: tuple):
    return tuple(
        {i: torch.export.Dim.AUTO for i in range(a.dim())} if isinstance(a, torch.Tensor) else None
        for a in args
    )


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


def _dynamic_by_parameter(model, args: tuple, specs: tuple):
    """torch.export matches `dynamic_shapes` to forward's parameters, not to
    the flat example args: a `forward(self, *args)` needs its specs grouped
    under `args`. Keyed by name, the specs fit any signature."""
    if specs is None:
        return None
    try:
        signature = inspect.signature(model.forward if isinstance(model, torch.nn.Module) else model)
        bound = signature.bind(*range(len(args)))  # positions stand in for the args
    except (TypeError, ValueError):
        return specs  # let torch.export say what does not fit
    by_name = {}
    for name, value in bound.arguments.items():
        kind = signature.parameters[name].kind
        by_name[name] = tuple(specs[i] for i in value) if kind is inspect.Parameter.VAR_POSITIONAL else specs[value]
    return by_name


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
    if selection.everything:  # dummy mode: every op reaches the pass as PyTorch wrote it
        return {}
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


def _export(model, args, dynamic, export_strict, report: CompileReport):
    """torch.export, with "auto" retrying non-strict when strict capture fails."""
    modes = [True, False] if export_strict == "auto" else [bool(export_strict)]
    for strict_mode in modes:
        try:
            with _quiet_torch():
                program = torch.export.export(model, args, dynamic_shapes=dynamic, strict=strict_mode)
        except Exception as e:
            first = str(e).splitlines()[0] if str(e) else ""
            if strict_mode and len(modes) > 1:
                report.export_strict_error = f"{type(e).__name__}: {first}"
                continue
            raise CompileError(
                f"torch.export ({'strict' if strict_mode else 'non-strict'}) could not capture the model "
                f"({type(e).__name__}): {first}"
                + (f"; strict export failed first ({report.export_strict_error})" if report.export_strict_error else "")
            ) from e
        report.export_mode = "strict" if strict_mode else "non-strict"
        return program
    raise AssertionError("unreachable")


def _aten_ops(module: ir.Module) -> collections.Counter:
    """Counts of the ops an audit is about: aten/prims/quantized_decomposed and user ops."""
    counts: collections.Counter = collections.Counter()

    def visit(op):
        dialect, _, rest = op.name.partition(".")
        if dialect == "torch" and (op.name == "torch.operator" or rest.split(".")[0] in EVERYTHING_NAMESPACES):
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


_VERIFY_PASS = "torch-verify-tosa-backend-contract"
# Builtin ops the pass itself makes outside tosa.custom (CONTRACT.md 4.5, 3.4):
# a run-time scalar operand's 0-d tensor, and a zero-size value.
_TOSA_EXTRAS = ("tensor.from_elements", "tensor.empty", "tensor.extract")


def _tosa_pipeline_without_verify() -> list[str]:
    """torch-mlir's TOSA backend pipeline, minus its contract check, which
    refuses the two builtin ops above; `_verify_tosa` checks the rest."""
    expanded = str(passmanager.PassManager.parse("builtin.module(torch-backend-to-tosa-backend-pipeline)"))
    inner = expanded[len("builtin.module("):-1]
    return [e for e in split_pipeline(inner) if e.split("{")[0] != _VERIFY_PASS]


def _verify_tosa(module: ir.Module) -> None:
    """Nothing but TOSA, `func` and the builtin ops CONTRACT.md 4.5 allows."""
    foreign = _ir.collect_ops(module, lambda op: op.name.split(".")[0] not in ("tosa", "func", "builtin")
                              and op.name not in _TOSA_EXTRAS)
    if foreign:
        raise CompileError(
            "Lowering to TOSA failed: ops outside TOSA remain (CONTRACT.md 4.5 allows only "
            + ", ".join(_TOSA_EXTRAS) + " besides TOSA and func):",
            [Diagnostic("error", str(op.location), f"'{op.name}' is not TOSA") for op in foreign[:10]],
        )


# Ops whose result bits do not depend on reading uint8 as signed or unsigned:
# wrapping arithmetic, bitwise logic, equality, selection and data movement.
_SIGN_BLIND = {
    "add.Tensor", "add.Scalar", "sub.Tensor", "sub.Scalar", "mul.Tensor", "mul.Scalar", "neg",
    "bitwise_and.Tensor", "bitwise_or.Tensor", "bitwise_xor.Tensor", "bitwise_not", "logical_not",
    "eq.Tensor", "eq.Scalar", "ne.Tensor", "ne.Scalar", "where.self", "clone", "copy", "contiguous",
    "detach", "alias", "lift_fresh_copy", "view", "reshape", "_reshape_alias", "_unsafe_view", "permute",
    "transpose.int", "t", "expand", "broadcast_to", "squeeze", "squeeze.dim", "squeeze.dims", "unsqueeze",
    "flatten.using_ints", "unflatten.int", "cat", "stack", "slice.Tensor", "select.int", "index_select",
    "gather", "index.Tensor", "repeat", "tile", "flip", "roll", "zeros_like", "ones_like", "empty_like",
    "full_like", "fill.Scalar", "masked_fill.Scalar", "constant_pad_nd", "embedding",
}


# On bool tensors TorchToTosa emits i1 tosa.add / maximum / greater, which
# compute xor and signed order: wrong answers, so these are refused. (i1
# tosa.mul is logical and, PyTorch's bool mul: it stays.)
_BOOL_ARITHMETIC = {
    "add.Tensor", "sub.Tensor", "maximum", "minimum", "gt.Tensor", "lt.Tensor", "ge.Tensor",
    "le.Tensor", "clamp", "max", "min", "amax", "amin", "max.dim", "min.dim",
}


# Ops that only move uint8 values (lists, literals, casts between torch and
# builtin types) and the index operands sign-blind ops may take besides.
_UINT8_NEUTRAL = {
    "torch.prim.ListConstruct", "torch.prim.ListUnpack", "torch.prim.TupleConstruct", "torch.prim.TupleIndex",
    "torch.vtensor.literal", "torch.derefine", "torch.tensor_static_info_cast",
}
_INDEX_OPERANDS = {"index_select": 2, "gather": 2, "embedding": 1}


def _uint8_safe(op, name: str, short: str | None) -> bool:
    """No uint8 tensor, or an op whose answer is the same on int8 bits: a
    sign-blind op whose every tensor is uint8 (or bool), apart from index
    operands. Mixed dtypes promote, and reading the bits as signed is then wrong
    (uint8 200 + int8 1 is 201 in int16, -55 after torch-mlir)."""
    tensors = [(i, str(v.type)) for i, v in enumerate(list(op.operands) + list(op.results))
               if str(v.type).startswith("!torch.vtensor")]
    if not any(t.endswith(",ui8>") for _, t in tensors) or name in _UINT8_NEUTRAL:
        return True
    if name == "torch.aten.to.dtype":  # uint8 <-> int8 wraps: the same bits
        return all(str(v.type).endswith((",ui8>", ",si8>")) for v in [op.operands[0], op.results[0]])
    if short not in _SIGN_BLIND:
        return False
    exempt = _INDEX_OPERANDS.get(short)
    return all(t.endswith((",ui8>", ",i1>")) for i, t in tensors if i != exempt)


def _refuse_wrong_sign_semantics(module: ir.Module) -> None:
    """torch-mlir's TOSA lowering types uint8 as int8 and computes signed
    (200 > 50 is false, 200.0 becomes -56.0), and bool as a 1-bit integer
    (True + True is False). Ops whose answer depends on that would be silently
    wrong, so they are refused, naming the fix."""
    bad = []

    bad_bool = []

    def visit(op):
        name = op.name
        if not name.startswith("torch.") or "tosa_custom.carrier" in op.attributes:
            return ir.WalkResult.ADVANCE
        short = name[len("torch.aten."):] if name.startswith("torch.aten.") else None
        if not _uint8_safe(op, name, short):
            bad.append(f"{op.location}: {name}")
        if short in _BOOL_ARITHMETIC and all(str(v.type).endswith(",i1>") for v in op.operands
                                             if str(v.type).startswith("!torch.vtensor")):
            bad_bool.append(f"{op.location}: {name}")
        return ir.WalkResult.ADVANCE

    module.operation.walk(visit)
    if bad_bool:
        raise CompileError(
            "bool tensors reach arithmetic or ordering ops that torch-mlir's TOSA lowering computes on i1 "
            "(True + True becomes False, True > False becomes false): " + "; ".join(bad_bool[:5])
            + ". Keep these ops as tosa.custom (backend_legal_ops), or use logical ops (| & ^) in the model."
        )
    if bad:
        raise CompileError(
            "uint8 values reach ops whose result depends on their sign, which torch-mlir's TOSA lowering "
            "computes as signed int8 (a silently wrong answer for values above 127): "
            + "; ".join(bad[:5]) + (f"; and {len(bad) - 5} more" if len(bad) > 5 else "")
            + ". Keep these ops as tosa.custom (backend_legal_ops), or convert to a wider dtype in the model."
        )


def _signature_dtypes(module: ir.Module) -> dict:
    """uint8 arguments and results at the backend contract, by function."""
    found = {}
    for func in _ir.public_functions(module):
        ftype = ir.FunctionType(ir.TypeAttr(func.attributes["function_type"]).value)
        found[ir.StringAttr(func.attributes["sym_name"]).value] = (
            [i for i, t in enumerate(ftype.inputs) if str(t).endswith(",ui8>")],
            [i for i, t in enumerate(ftype.results) if str(t).endswith(",ui8>")],
        )
    return found


def _record_signature_dtypes(module: ir.Module, found: dict) -> None:
    """torch-mlir types uint8 as i8 in TOSA; `tosa_custom.dtype = "uint8"` on
    the argument or result tells the runtime (and a backend) what it holds."""
    with module.context:
        for func in _ir.public_functions(module):
            args, results = found.get(ir.StringAttr(func.attributes["sym_name"]).value, ([], []))
            ftype = ir.FunctionType(ir.TypeAttr(func.attributes["function_type"]).value)
            uint8 = {"tosa_custom.dtype": "uint8"}
            _ir.add_signature_attrs(func, "arg_attrs", len(ftype.inputs), {i: uint8 for i in args})
            _ir.add_signature_attrs(func, "res_attrs", len(ftype.results), {i: uint8 for i in results})


def _tensor_constants_as_tosa(module: ir.Module) -> None:
    """torch-mlir's canonicalizations leave some tensor constants (index
    tensors of a gather) as `arith.constant`; TOSA spells them `tosa.const`."""
    with module.context:
        for op in _ir.collect_ops(module, lambda op: op.name == "arith.constant"
                                  and isinstance(op.results[0].type, ir.RankedTensorType)):
            with ir.InsertionPoint(op), op.location:
                const = ir.Operation.create("tosa.const", results=[op.results[0].type],
                                            attributes={"values": op.attributes["value"]})
            op.results[0].replace_all_uses_with(const.result)
            op.erase()


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
    export_strict: "bool | str" = False,
    func_name: str = "forward",
    report: CompileReport | None = None,
    weights: str = "inline",
    train: bool = False,
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
    and retries non-strict (the report says which was used). `backend_legal_ops=["*"]`
    is the dummy mode: nothing is decomposed on either side and every op is tried.
    `report` (a `CompileReport`) is filled with what happened to each op.
    `weights="arguments"` makes every parameter and persistent buffer a named
    argument of the entry function instead of a constant (CONTRACT.md §10).
    `train=False` compiles the model in eval() mode (inference: dropout off,
    batch norm on running statistics), warning if it was in training mode;
    `train=True` compiles it in the mode it is in.
    """
    if weights not in _weights.WEIGHT_MODES:
        raise ValueError(f"weights must be one of {', '.join(map(repr, _weights.WEIGHT_MODES))}, not {weights!r}")
    if export_strict not in (True, False, "auto"):
        raise ValueError(f"export_strict must be True, False or 'auto', not {export_strict!r}")
    report = report if report is not None else CompileReport()
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
    model = _select_mode(model, train)

    args, dynamic = _example_args(example_args)
    if ignore_traced_shapes:
        dynamic = _all_dims_dynamic(args)
    dynamic = _dynamic_by_parameter(model, args, dynamic)
    exported = _export(model, args, dynamic, export_strict, report)
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
    weight_names = _weights.weight_placeholders(program, model) if weights == "arguments" else None
    after = _graph_ops(program.graph_module)
    kept = _check_survived_pytorch(selection, before, after, exported)
    if verbose:
        print("==== FX graph after decompositions\n", program.graph_module.code)

    def import_module(tunnel: bool, record: bool = False) -> ir.Module:
        importer = FxImporter(context=_ir.make_context())
        try:
            if weight_names is None:
                importer.import_frozen_program(program, func_name=func_name)
            else:
                _weights.import_with_weight_arguments(importer, program, weight_names, func_name,
                                                      _weights.tied_weights(model, weight_names))
        except (NotImplementedError, NameError, TypeError, ValueError, KeyError) as e:
            raise _import_error(e) from e
        module = importer.module
        if record:
            report.ops_seen = dict(_aten_ops(module))
        if tunnel:
            # Tunnel listed ops before torch-mlir's pipeline sees them: its
            # canonicalizations and decompositions rewrite some ops even when
            # they are backend-legal (int8 _int_mm becomes mm), and it cannot
            # lower ops it only knows as torch.operator. The import already
            # has value tensors with static types. Ops skipped here are
            # retried, and reported, at the backend contract below.
            with module.context:
                try:
                    with DiagnosticLog().attach(module.context) as early_log:
                        tensorize_scalar_boundary(module.operation)
                        early = convert_module(module.operation, PassOptions(selection, encoding=encoding), early_log)
                        tensorize_scalar_boundary(module.operation)
                except ConversionFailed:
                    raise CompileError("Tunneling the listed ops after import failed:", early_log.diagnostics) from None
            if record:
                report._add_converted(early)
        return module

    if output is OutputType.RAW:
        module = import_module(tunnel=False, record=True)
        _show(verbose, "torch IR (raw import)", module)
        return module
    tunnel = bool(selection) and output is OutputType.TOSA
    module = import_module(tunnel, record=True)
    ctx = module.context
    _show(verbose, "torch IR (import" + (", listed ops tunneled)" if tunnel else ")"), module)
    legal = selection.torch_mlir_names()
    if selection.everything:  # what the early tunnel left: torch-mlir must not decompose it either
        legal = sorted(set(legal) | {name[len("torch."):] for name in _aten_ops(module) if name.startswith("torch.")})
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
        if not present[name] and not _module_ops(import_module(False, False))[name]:
            raise CompileError(
                f"backend_legal_ops lists {name[6:]}, which survived PyTorch's decompositions, but torch-mlir's "
                "FX importer imported it as another op (a Tensor overload called with a Python number becomes "
                "the Scalar overload, e.g. aten.add.Tensor -> aten.add.Scalar). List the op it became; "
                "output_type='raw' shows the imported ops."
            )
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
    late: list[ConversionResult] = []
    with ctx:
        tunnel_pm = passmanager.PassManager()
        tunnel_pm.add(make_pass(options, log, late.append), name="ConvertTorchBackendLegalToTosaCustom",
                      argument=PASS_ARGUMENT)
        pm = passmanager.PassManager()
        for element in _tosa_pipeline_without_verify():
            pm.add(element)
    torch_dtypes = _signature_dtypes(module)
    try:
        run_pipeline(module, tunnel_pm, "Lowering to TOSA", log)
        _refuse_wrong_sign_semantics(module)
        run_pipeline(module, pm, "Lowering to TOSA", log)
        _tensor_constants_as_tosa(module)
        tensorize_builtin_scalar_boundary(module.operation)
        _verify_tosa(module)
        _record_signature_dtypes(module, torch_dtypes)
    finally:
        for result in late:
            report._add_converted(result)
            report.skipped.extend(result.skipped)
        _report_rewritten(report, selection, present)
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
