"""What torch-mlir's FX importer needs of the graph, and what it refuses, said plainly.

The frozen import replaces each parameter, buffer and lifted constant of the
ExportedProgram by the tensor itself in every node that reads it
(`weights="arguments"` does the same for what stays a constant). A tensor
that is an operand imports as a literal; one inside a list argument does
not: `_import_list_argument` takes graph values or Python numbers only and
fails with a bare `AssertionError: Heterogeneous lists are not supported:
expected vtensor, got <class 'torch.Tensor'>`. torchvision's Swin
Transformer indexes its relative position bias table (a parameter) by a
buffer, `table[index]`: `aten.index.Tensor(table, [index])`. So such
constants are lifted first: each becomes a `get_attr` node, which the
importer imports as a literal value the list can hold.

Whatever the importer still refuses is a CompileError naming the node, its
op and the model's source line, never a bare Python error from inside it.

The importer turns each literal tensor into its elements by
`np.array(tensor.tolist())`: a Python object per element, 10.6 of the 12.4 s
resnet18's import took (11.7M weights). `LiteralHooks` gives it the
elements attribute made from the tensor's storage first, which the importer
then takes from its own cache; the op, its type and the blob's name are the
importer's as before. The hooks also keep each literal alive until the
import ends: the importer's cache is keyed by `id()`, and a temporary it
makes (a bool tensor as uint8) could otherwise be freed and its id reused by
the next, which would read the first one's elements.
"""

from __future__ import annotations

import re

import torch
from torch._subclasses.fake_tensor import FakeTensor
from torch_mlir import ir
from torch_mlir.extras.fx_importer import FxImporterHooks, create_mlir_tensor_type

from ..core import dtypes as _dtypes
from ..core.diagnostics import CompileError
from ..core.schema import overload_name
from ..weights.blobs import dense_value, resource_attr, storage

__all__ = ["lift_list_constants", "import_error", "LiteralHooks"]

_PREFIX = "_tosa_custom_list_constant_"


def _frozen_values(program) -> dict:
    """Placeholder -> tensor for the parameters, buffers and lifted constants
    the frozen import replaces by their values."""
    from torch.export.graph_signature import InputKind

    placeholders = {n.name: n for n in program.graph.nodes if n.op == "placeholder"}
    found = {}
    for spec in program.graph_signature.input_specs:
        node = placeholders.get(spec.arg.name)
        if node is None or spec.kind not in (InputKind.PARAMETER, InputKind.BUFFER, InputKind.CONSTANT_TENSOR):
            continue
        value = program.state_dict.get(spec.target)
        found[node] = program.constants.get(spec.target) if value is None else value
    return found


def lift_list_constants(program, placeholders: bool) -> int:
    """Make each constant tensor inside a list argument of `program`'s graph
    (changed in place) a `get_attr` node: tensors already substituted into
    the graph, and with `placeholders` (the frozen import, which substitutes
    later) the parameter, buffer and constant placeholders. Returns how
    many were lifted."""
    graph, module = program.graph, program.graph_module
    frozen = _frozen_values(program) if placeholders else {}
    lifted: dict[int, torch.fx.Node] = {}

    def lift(element):
        value = frozen.get(element) if isinstance(element, torch.fx.Node) else element
        if not isinstance(value, torch.Tensor):
            return element
        if id(value) not in lifted:
            name = f"{_PREFIX}{len(lifted)}"
            setattr(module, name, value)
            with graph.inserting_before(next(n for n in graph.nodes if n.op != "placeholder")):
                lifted[id(value)] = graph.get_attr(name)
            if isinstance(element, torch.fx.Node):
                lifted[id(value)].meta.update(element.meta)
        return lifted[id(value)]

    for node in graph.nodes:
        if node.op != "call_function":
            continue
        args = [_lift_in_lists(a, lift) for a in node.args]
        kwargs = {k: _lift_in_lists(v, lift) for k, v in node.kwargs.items()}
        if any(a is not b for a, b in zip(args, node.args)) or \
                any(kwargs[k] is not node.kwargs[k] for k in kwargs):
            node.args, node.kwargs = tuple(args), kwargs
    if lifted:
        graph.lint()
        module.recompile()
    return len(lifted)


def _lift_in_lists(argument, lift):
    """`argument` with `lift` applied to each element of it if it is a list
    holding a tensor or a node (the argument itself otherwise)."""
    if not isinstance(argument, (list, tuple)):
        return argument
    elements = [lift(e) for e in argument]
    if all(a is b for a, b in zip(elements, argument)):
        return argument
    return type(argument)(elements) if isinstance(argument, list) else tuple(elements)


class LiteralHooks(FxImporterHooks):
    """The importer's literal tensors made from their storage (module doc)."""

    def __init__(self):
        self._alive: list[torch.Tensor] = []

    def resolve_literal(self, gni, literal, info):
        if isinstance(literal, torch.Tensor) and not isinstance(literal, FakeTensor):
            self._alive.append(literal)
            mapping = gni._cc._py_attr_tracker.track(literal)
            if mapping.is_empty:
                attr = _elements(literal)
                if attr is not None:
                    mapping.value = attr
        return None  # the importer makes the op, with the elements found in its cache


def _elements(t: torch.Tensor) -> ir.Attribute | None:
    """What the importer would make of `t`: a dense attribute for one
    element, else a resource blob named as the importer names it; None for
    what it alone handles (a dtype numpy cannot hold, a tensor without storage)."""
    dtype = _dtypes.by_torch(t.dtype)
    if dtype is None or dtype.pairs or t.dtype == torch.bool:
        return None
    try:
        array = storage(t)
    except (RuntimeError, TypeError):
        return None
    ty = create_mlir_tensor_type(t)
    if array.size == 1:
        return dense_value(t, ty)
    name = f"torch_tensor_{'_'.join(str(d) for d in t.shape)}_{t.dtype}"
    return resource_attr(array, name, ty)


def _failing_node(error: BaseException):
    """The graph node torch-mlir's importer was importing when it failed."""
    node, tb = None, error.__traceback__
    while tb is not None:
        candidate = tb.tb_frame.f_locals.get("node")
        if isinstance(candidate, torch.fx.Node):
            node = candidate
        tb = tb.tb_next
    return node


def _source_line(node) -> str | None:
    """`file:line (code)` of the model's line that made `node`, from the
    stack torch.export recorded (its last frame)."""
    trace = node.meta.get("stack_trace") or ""
    frames = re.findall(r'File "([^"]+)", line (\d+), in [^\n]*\n\s*([^\n]*)', trace)
    if not frames:
        return None
    path, line, code = frames[-1]
    return f"{path}:{line} ({code.strip()})" if code.strip() else f"{path}:{line}"


def import_error(error: Exception) -> CompileError:
    """The CompileError for a failure inside torch-mlir's FX importer: the
    node it was importing, its op and the model's source line, and what the
    importer said."""
    first = str(error).splitlines()[0] if str(error) else ""
    first = re.sub(r",? \{'.*", "", first)[:300]  # the node's metadata, which some messages print whole
    node = _failing_node(error)
    target = getattr(node, "target", None)
    name = overload_name(target) if isinstance(target, torch._ops.OpOverload) else None
    op = name[len("torch."):] if name else getattr(target, "__name__", None)
    if op is None:
        m = re.search(r"target=<function (\w+)", first)
        op = m[1] if m else None
    hint = ""
    if op and op.startswith("sym_"):
        hint = (f" The model computes with a dynamic size as a number ({op}), which the importer cannot "
                "import: give static shapes (no ignore_traced_shapes / -1 placeholders) or keep that arithmetic "
                "out of the model.")
    where = f" at {_source_line(node)}" if node is not None and _source_line(node) else ""
    what = f"node {node.name} ({op}){where}" if node is not None else (f"a node calling {op}" if op else "the graph")
    return CompileError(f"torch-mlir's FX importer could not import {what}: {type(error).__name__}: {first}."
                        f"{hint}", category="compile-failed", ops=[name] if name else [])
