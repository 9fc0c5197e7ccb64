"""Capture: torch.export, then PyTorch's decompositions, keeping the listed ops.

A listed op must survive PyTorch's decomposition table (applied by
`run_decompositions`): it is left out of the table, composites that would skip
past it decompose through it instead, and after export each is checked to be
still there, failing with what it became.
"""

from __future__ import annotations

import collections
import contextlib
import inspect
import warnings
from typing import Any

import torch
from torch_mlir.extras.fx_decomp_util import get_decomposition_table

from ..core.diagnostics import CompileError
from . import attention as _attention
from . import decomposition_cost
from .decompositions import OUR_DECOMPOSITIONS
from ..tosa import wrong_lowerings as _wrong
from ..tunnel import resize as _resize
from ..core.schema import OpSelection, overload_name

__all__ = ["example_args", "all_dims_dynamic", "dynamic_by_parameter", "graph_ops", "decomposition_table",
           "check_survived_pytorch", "decompose", "expose_non_persistent_buffers", "quiet_torch", "export"]

decomposition_cost.install()


# --------------------------------------------------------------------------
# Arguments.
# --------------------------------------------------------------------------


def example_args(example_args) -> tuple[tuple, Any]:
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
    return _distinct(tensors), (tuple(dynamic) if any_dynamic else None)


def _distinct(args: list) -> tuple:
    """The example tensors, each sharing memory with no earlier one. torch.export
    gives two arguments that are one tensor one placeholder and leaves the
    other unused: `compile(f, (x, x))` of `f(a, b) = a - b` made a program
    computing `b - b`, whatever it was called with. The program takes distinct
    tensors, so it is exported from distinct copies."""
    seen: set[int] = set()
    distinct = []
    for a in args:
        if isinstance(a, torch.Tensor) and a.numel():
            storage = a.untyped_storage().data_ptr()
            if storage in seen:
                a = a.clone()
            seen.add(a.untyped_storage().data_ptr())
        distinct.append(a)
    return tuple(distinct)


def all_dims_dynamic(args: tuple):
    return tuple(
        {i: torch.export.Dim.AUTO for i in range(a.dim())} if isinstance(a, torch.Tensor) else None
        for a in args
    )


def dynamic_by_parameter(model, args: tuple, specs: tuple):
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


def graph_ops(graph_module) -> collections.Counter:
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


def _decomposed_unless(decomposition, dtypes: tuple[str, ...]):
    """`decomposition`, except for an instance whose first tensor argument
    has one of `dtypes` (torch-mlir's spelling, as wrong_lowerings.py lists
    them): that one stays whole (NotImplemented), for auto mode to tunnel."""
    from ..core import dtypes as _dtypes

    def decompose(*args, **kwargs):
        first = next((a for a in args if isinstance(a, torch.Tensor)), None)
        known = _dtypes.by_torch(first.dtype) if first is not None else None
        if known is not None and known.torch_mlir in dtypes:
            return NotImplemented
        return decomposition(*args, **kwargs)

    return decompose



def _unless_one_resize(decomposition):
    """`upsample_bilinear2d.vec`'s decomposition, except for an instance that
    becomes one tosa.resize (tunnel/resize.py): that one stays whole."""
    from ..core import dtypes as _dtypes

    names = ("input", "output_size", "align_corners", "scale_factors")

    def decompose(*args, **kwargs):
        bound = dict(zip(names, args), **kwargs)
        x = bound.get("input")
        known = _dtypes.by_torch(x.dtype) if isinstance(x, torch.Tensor) else None
        shape = [d if type(d) is int else None for d in x.shape] if known is not None else []
        if known is not None and _resize.fits(shape, known.torch_mlir, bound.get("output_size"),
                                               bound.get("align_corners"), bound.get("scale_factors")):
            return NotImplemented
        return decomposition(*args, **kwargs)

    return decompose


def decomposition_table(selection: OpSelection, program=None) -> dict:
    """torch-mlir's table without the listed ops; with `program`, composites in
    it whose own (CompositeImplicitAutograd) decomposition yields a listed op
    decompose that way, instead of by a table entry that would skip the op
    (e.g. upsample_bilinear2d.vec straight to primitives past .default)."""
    if selection.everything:  # dummy mode: every op reaches the pass as PyTorch wrote it
        return {}
    keep = set(selection.overloads())
    table = {k: v for k, v in get_decomposition_table().items() if k not in keep}
    for op, decomposition in OUR_DECOMPOSITIONS.items():
        if op not in keep:
            table[op] = decomposition
    bilinear = torch.ops.aten.upsample_bilinear2d.vec
    if bilinear in table:  # one tosa.resize where TOSA states it (tunnel/resize.py)
        table[bilinear] = _unless_one_resize(table[bilinear])
    if selection.auto:  # a known wrong lowering must reach auto mode whole (wrong_lowerings.py)
        for w in _wrong.WRONG_LOWERINGS:
            for o in OpSelection([w.op]).overloads():
                if w.dtypes and o in table:  # whole only in the dtypes it is wrong for
                    table[o] = _decomposed_unless(table[o], w.dtypes)
                elif o not in keep:
                    keep.add(o)
                    table.pop(o, None)
    if program is None:
        return table
    present = set(graph_ops(program.graph_module))
    if any(getattr(op, "namespace", "") == "quantized_decomposed" for op in present):
        table.pop(torch.ops.aten.convolution.default, None)  # a PT2E conv stays whole for quant/'s lowering
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


def check_survived_pytorch(selection: OpSelection, before, after, exported) -> set:
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
                + ".",
                category="decomposed-before-import", ops=[overload_name(overload)],
            )
    return kept


def expose_non_persistent_buffers(program) -> None:
    """torch.export keeps non-persistent buffers (BERT's position_ids) in
    `constants`, but torch-mlir's frozen import reads only `state_dict`."""
    from torch.export.graph_signature import InputKind

    for spec in program.graph_signature.input_specs:
        if spec.kind == InputKind.BUFFER and not spec.persistent and spec.target not in program.state_dict:
            program.state_dict[spec.target] = program.constants[spec.target]


@contextlib.contextmanager
def quiet_torch():
    """Hide torch's own pytree deprecation noise, which is not the user's concern."""
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", message=r".*treespec, LeafSpec.*", category=FutureWarning)
        yield


def export(model, args, dynamic, export_strict, report):
    """torch.export, with "auto" retrying non-strict when strict capture fails."""
    modes = [True, False] if export_strict == "auto" else [bool(export_strict)]
    for strict_mode in modes:
        try:
            with quiet_torch():
                program = torch.export.export(model, args, dynamic_shapes=dynamic, strict=strict_mode)
        except Exception as e:
            first = str(e).splitlines()[0] if str(e) else ""
            if strict_mode and len(modes) > 1:
                report.export_strict_error = f"{type(e).__name__}: {first}"
                continue
            raise CompileError(
                f"torch.export ({'strict' if strict_mode else 'non-strict'}) could not capture the model "
                f"({type(e).__name__}): {first}"
                + (f"; strict export failed first ({report.export_strict_error})" if report.export_strict_error else ""),
                category="export-failed",
            ) from e
        hidden = [] if strict_mode else _state_taken_for_constants(program, model)
        if hidden:
            return _export_strict_for_state(model, args, dynamic, hidden, report)
        report.export_mode = "strict" if strict_mode else "non-strict"
        return program
    raise AssertionError("unreachable")




# --------------------------------------------------------------------------
# Decompositions that fail.
# --------------------------------------------------------------------------

# Ops that only reshape or re-stride: a failure surfacing in one of them (a
# view of a tensor whose strides a decomposition changed) is rarely its cause.
_SHAPE_OPS = {
    "view", "reshape", "_unsafe_view", "transpose", "permute", "expand", "unsqueeze", "squeeze", "flatten",
    "unflatten", "t", "contiguous", "clone", "slice", "select", "split", "chunk", "narrow", "as_strided",
    "alias", "detach", "_to_copy", "to",
}
_MAX_SUSPECTS = 4


def _failing_node(error: BaseException):
    """The graph node PyTorch's decomposition interpreter was running when it failed."""
    node, tb = None, error.__traceback__
    while tb is not None:
        frame = tb.tb_frame
        if frame.f_code.co_name == "run_node" and isinstance(frame.f_locals.get("self"), torch.fx.Interpreter):
            candidate = frame.f_locals.get("n")
            node = candidate if isinstance(candidate, torch.fx.Node) else node
        tb = tb.tb_next
    return node


def _suspects(node, table: dict) -> list:
    """The decomposed ops at `node` and upstream of it, nearest first, ops
    that compute before ops that only reshape (a view fails on strides that an
    earlier decomposition changed: GPT-2's sdpa)."""
    seen, frontier, order = {node}, [node], []
    while frontier:
        order += [n for n in frontier if n.op == "call_function" and n.target in table]
        frontier = [m for n in frontier for m in n.all_input_nodes if m not in seen and not seen.add(m)]
    ops = list(dict.fromkeys(n.target for n in order))
    return sorted(ops, key=lambda op: getattr(op, "_opname", "") in _SHAPE_OPS)[:_MAX_SUSPECTS]


def _without_effects(exported, program, table: dict, report):
    """Auto mode: an op whose decomposition adds an effectful check
    (`with_effects`, e.g. linalg_inv's `_linalg_check_errors`), which torch-mlir's
    FX importer cannot import, is kept whole instead."""
    sources = {str(getattr(src, "target", "")) for n in program.graph.nodes
               if n.op == "call_function" and "with_effects" in str(n.target) for src in _sources(n)}
    kept = {op for op in table if str(op) in sources}
    if not kept:
        return program
    for op in kept:
        report.kept_from_decomposition[overload_name(op)] = (
            "its decomposition adds an effectful check (with_effects), which torch-mlir's FX importer cannot import")
    with quiet_torch():
        return exported.run_decompositions({k: v for k, v in table.items() if k not in kept})


def decompose(exported, selection: OpSelection, keep_failing: bool, report):
    """`run_decompositions` with the table minus the listed ops. When it fails,
    find the op whose decomposition breaks (each suspect kept in turn until
    one makes it succeed): kept, and recorded in the report, with
    `keep_failing` (auto mode); named in the error otherwise."""
    table = decomposition_table(selection, exported)
    try:
        with quiet_torch():
            program = exported.run_decompositions(table)
        return _without_effects(exported, program, table, report) if keep_failing else program
    except Exception as e:
        error, first = e, (str(e).splitlines()[0] if str(e) else "")
    if _attention.SDPA in table:  # PyTorch's views of attention's operands fail on `?` dims: ours reshapes
        try:
            with quiet_torch():
                table = {**table, _attention.SDPA: _attention.attention_by_reshapes}
                program = exported.run_decompositions(table)
            return _without_effects(exported, program, table, report) if keep_failing else program
        except Exception:
            table = decomposition_table(selection, exported)
    node = _failing_node(error)
    for op in _suspects(node, table) if node is not None else []:
        try:
            with quiet_torch():
                program = exported.run_decompositions({k: v for k, v in table.items() if k != op})
        except Exception:
            continue
        name = overload_name(op)
        if keep_failing:
            report.kept_from_decomposition[name] = f"{type(error).__name__}: {first}"
            return program
        raise CompileError(
            f"PyTorch's decomposition of {name[6:]} fails on this model ({type(error).__name__}: {first}). "
            f"Keep it: backend_legal_ops=['{name[6:]}'], or backend_legal_ops='auto', which keeps such ops itself.",
            category="decomposition-failed", ops=[name]) from error
    raise CompileError(
        f"PyTorch's decompositions failed on the exported model ({type(error).__name__}): {first}",
        category="decomposition-failed") from error


def _state_taken_for_constants(program, model) -> list[str]:
    """Buffers and parameters of `model` that a non-strict export captured as
    constants (`lifted_tensor_N`): the model reached them through an object
    that is not a module (transformers' StaticCache holds its cache tensors
    that way), so non-strict tracing saw a plain tensor. A write to one is
    then lost (no BUFFER_MUTATION output), and run_decompositions fails on
    it with an AssertionError that names nothing."""
    from torch.export.graph_signature import InputKind

    owned = {}
    for name, t in list(model.named_buffers()) + list(model.named_parameters()):
        if t.untyped_storage().data_ptr():  # zero-size tensors all have address 0
            owned.setdefault(t.untyped_storage().data_ptr(), name)
    placeholders = {n.name: n for n in program.graph.nodes if n.op == "placeholder"}
    hidden = []
    for spec in program.graph_signature.input_specs:
        constant = program.constants.get(spec.target) if spec.kind == InputKind.CONSTANT_TENSOR else None
        if isinstance(constant, torch.Tensor) and constant.untyped_storage().data_ptr() in owned \
                and _written_in_place(placeholders[spec.arg.name]):
            hidden.append(owned[constant.untyped_storage().data_ptr()])
    return hidden


def _written_in_place(node) -> bool:
    """Whether an op of the (not yet functional) exported graph writes `node`,
    directly or through a view of it (`self.k[:, 0] = x`)."""
    stack, seen = [node], {node}
    while stack:
        n = stack.pop()
        for user in n.users:
            schema = getattr(user.target, "_schema", None)
            if schema is None or not schema.arguments or not user.args or user.args[0] is not n:
                continue
            alias = schema.arguments[0].alias_info
            if alias is not None and alias.is_write:
                return True
            if alias is not None and user not in seen:  # a view: its writes land in `node`
                seen.add(user)
                stack.append(user)
    return False


def _export_strict_for_state(model, args, dynamic, hidden: list[str], report):
    """Strict export (TorchDynamo follows the model's objects to the buffer
    itself), used when non-strict export took model state for constants."""
    why = (f"non-strict torch.export took the model's {', '.join(repr(h) for h in hidden)} for constants "
           "(reached through an object that is not a module), so a write to them would be lost")
    state = dict(list(model.named_buffers()) + list(model.named_parameters()))
    for name in hidden:
        if state[name].grad_fn is not None:  # the trace wrote the model's own tensor, with autograd history
            state[name].detach_()
    try:
        with quiet_torch():
            program = torch.export.export(model, args, dynamic_shapes=dynamic, strict=True)
    except Exception as e:
        first = str(e).splitlines()[0] if str(e) else ""
        raise CompileError(f"{why}; strict export, which tracks them, failed too ({type(e).__name__}): {first}",
                           category="export-failed") from e
    report.export_mode = "strict"
    report.export_nonstrict_error = why
    return program


