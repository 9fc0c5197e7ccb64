"""`out=` arguments of another shape, written as eager PyTorch writes them.

An `out=` tensor whose shape is not the result's is resized by eager
PyTorch, and the exported graph types the written value with the result's
shape: the runtime resizes the caller's tensor when it writes the value back
(runtime/execute/boundary.py). But not every op resizes alike: the range factories
(`arange`, `linspace`, `logspace`, `randperm`) resize only when the element
count differs, so `torch.arange(0, 12, out=x)` leaves a [3, 4] `x` [3, 4],
holding 0..11 in its order, where PyTorch's meta kernel, and so the exported
graph, says [12].

So, before any decomposition, each op given an `out=` tensor of another
shape than its meta result is run eagerly on such a tensor; where eager
leaves the tensor's shape as it was, the op writes to a fresh tensor instead
and its result is copied into the `out=` tensor reshaped to that shape.
"""

from __future__ import annotations

import warnings

import torch
from torch.utils import _pytree as pytree

from .promotion import run_eager

__all__ = ["write_out_arguments_like_eager"]

# An op whose `out=` tensor has more elements than this is not run eagerly to
# ask: its meta result is trusted.
_MAX_ELEMENTS = 1 << 20


def _out_arguments(node) -> list[tuple[str, torch.fx.Node]]:
    """The node's `out=` arguments (name, node) whose meta shape is not the result's."""
    schema = getattr(node.target, "_schema", None)
    if node.op != "call_function" or schema is None:
        return []
    result = node.meta.get("val")
    found = []
    for argument in schema.arguments:
        out = node.kwargs.get(argument.name) if argument.is_out else None
        value = out.meta.get("val") if isinstance(out, torch.fx.Node) else None
        if isinstance(value, torch.Tensor) and isinstance(result, torch.Tensor) and value.shape != result.shape:
            found.append((argument.name, out))
    return found


def _real(value):
    """A real tensor (zeros) standing for a fake one; None when it cannot be made."""
    if not isinstance(value, torch.Tensor):
        return value
    if any(isinstance(d, torch.SymInt) for d in value.shape) or value.numel() > _MAX_ELEMENTS:
        raise ValueError("not asked")
    return torch.zeros(value.shape, dtype=value.dtype)


def _eager_keeps_shape(node, name: str) -> bool:
    """Whether eager, given an `out=` tensor of the node's meta shape for
    `name`, leaves that tensor's shape as it was. Only asked where the
    element counts agree: a different count is resized by every op."""
    if node.kwargs[name].meta["val"].numel() != node.meta["val"].numel():
        return False
    try:
        args, kwargs = pytree.tree_map(lambda a: _real(a.meta.get("val") if isinstance(a, torch.fx.Node) else a),
                                       (node.args, node.kwargs))
        before = kwargs[name].shape
        run_eager(node.target, args, kwargs)
    except Exception:  # eager refuses it, or it could not be asked: the meta result stands
        return False
    return kwargs[name].shape == before


def _write_through_reshape(graph, node, name: str, out) -> None:
    """`op(..., out=fresh)` then `out.copy_(result.reshape(out.shape))` in
    place of `op(..., out=out)`."""
    result, shape = node.meta["val"], list(out.meta["val"].shape)
    with graph.inserting_before(node):
        fresh = graph.call_function(torch.ops.aten.empty.memory_format, (list(result.shape),),
                                    {"dtype": result.dtype, "device": result.device})
        kept = graph.call_function(node.target, node.args, {**node.kwargs, name: fresh})
        view = graph.call_function(torch.ops.aten.reshape.default, (kept, shape))
        copied = graph.call_function(torch.ops.aten.copy_.default, (out, view))
    fake_mode = torch._guards.detect_fake_mode([result])
    with fake_mode, warnings.catch_warnings():
        warnings.simplefilter("ignore")
        fresh.meta["val"] = torch.empty(result.shape, dtype=result.dtype, device=result.device)
        kept.meta["val"] = result
        view.meta["val"] = result.reshape(shape)
        copied.meta["val"] = out.meta["val"].clone()
    for made in (fresh, kept, view, copied):
        made.meta.update({k: v for k, v in node.meta.items() if k != "val"})
    node.replace_all_uses_with(copied)
    name = node.name
    node._rename(f"{name}_resized")
    copied._rename(name)  # the graph signature may name the result
    graph.erase_node(node)


def write_out_arguments_like_eager(program) -> list[str]:
    """Rewrite, in `program` (a torch.export.ExportedProgram, changed in
    place), each op whose `out=` tensor eager leaves in its own shape where
    the graph resizes it. Returns the ops rewritten."""
    graph = program.graph
    changed = []
    for node in list(graph.nodes):
        for name, out in _out_arguments(node):
            if _eager_keeps_shape(node, name):
                _write_through_reshape(graph, node, name, out)
                changed.append(str(node.target))
                break
    if changed:
        graph.lint()
        program.graph_module.recompile()
    return changed
