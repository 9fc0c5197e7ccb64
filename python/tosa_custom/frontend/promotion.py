"""Result dtypes as eager PyTorch computes them, where operands mix dtypes.

torch.export types every node of its graph by running PyTorch's meta (fake)
kernels, and torch-mlir's FX importer writes those types into the IR: every
stage after it (PyTorch's decompositions, torch-mlir's lowering, the
`tosa.custom` a kept op becomes, the runtime's result) follows them. Where
an op's operands mix dtypes, a meta kernel can promote otherwise than the
eager kernel does: `threshold_backward(int64 grad, float32 self)` is float32
in eager PyTorch (TensorIterator computes in the common dtype) but int64 in
its meta kernel (PyTorch's decomposition, `where(self <= t, 0, grad)`), so
the program silently returned int64; a kept op's kernel, which runs eager,
returned float32 where the IR said int64. OpInfo samples with mixed dtypes
find addr, huber_loss, soft_margin_loss and native_dropout_backward too.

So, right after export and before any decomposition, each op of mixed
operand dtypes is run eagerly on small tensors of its operands' dtypes, and
where eager's result dtype differs from the graph's, the op is made to
compute in eager's: its operands of another dtype are converted to it first
(what TensorIterator does), when the meta kernel then agrees with eager and
eager's values are unchanged by it; else its result is converted. Every
mode then sees the same, corrected op.
"""

from __future__ import annotations

import contextlib
import os
import sys
import warnings

import torch
from torch.utils import _pytree as pytree

__all__ = ["promote_like_eager", "run_eager"]

# Operands larger than this are not copied to full size to ask eager (a
# shape-bound op whose operands do not shrink to size 1): its meta is trusted.
_MAX_ELEMENTS = 1 << 20
_NUMBER_RANK = {bool: 0, int: 1, float: 2, complex: 3}


def _category(dtype: torch.dtype) -> int:
    if dtype == torch.bool:
        return 0
    if dtype.is_complex:
        return 3
    return 2 if dtype.is_floating_point else 1


def _promoting(argument) -> bool:
    """Whether a Python number given for this schema argument takes part in
    type promotion: a `Scalar` (`number`), or a number standing for a Tensor
    (`mul.Tensor(x, 2.5)`)."""
    t = argument.type
    if isinstance(t, torch.OptionalType):
        t = t.getElementType()
    return isinstance(t, (torch.NumberType, torch.TensorType))


def _scalar_operands(node) -> list:
    """The values the node passes for its schema's `Scalar` and Tensor
    arguments: the only Python numbers type promotion reads. Sizes, dims and
    their lists are not operands (`sum_to_size(bool x, [1])` is one bool
    tensor, not a bool and an int: read as mixed, it was "promoted" to bool,
    eager's answer at the shrunken size, where sum_to_size returns its input)."""
    values = []
    for i, argument in enumerate(node.target._schema.arguments):
        if not _promoting(argument):
            continue
        if i < len(node.args) and not argument.kwarg_only:
            values.append(node.args[i])
        elif argument.name in node.kwargs:
            values.append(node.kwargs[argument.name])
    return values


def _operand_dtypes(node) -> tuple[list[torch.dtype], int]:
    """The dtypes of the node's tensor operands, and the highest category
    of its Python-number (`Scalar`) operands (-1: none)."""
    dtypes, number = [], -1
    for a in pytree.tree_leaves((node.args, node.kwargs)):
        value = a.meta.get("val") if isinstance(a, torch.fx.Node) else a
        if isinstance(value, torch.Tensor):
            dtypes.append(value.dtype)
    for value in _scalar_operands(node):
        if type(value) in _NUMBER_RANK:
            number = max(number, _NUMBER_RANK[type(value)])
    return dtypes, number


def _mixed(node) -> bool:
    """Operands of two dtypes, or a Python number of a higher category
    than every tensor operand (an int tensor and a float)."""
    if node.op != "call_function" or not isinstance(node.target, torch._ops.OpOverload):
        return False
    dtypes, number = _operand_dtypes(node)
    return len(set(dtypes)) > 1 or (bool(dtypes) and number > max(_category(d) for d in dtypes))


def _real(value, shrink: bool, fill: str, generator: torch.Generator):
    """A real tensor standing for a fake one: of its dtype, of its shape (or
    size 1 in every non-zero dim with `shrink`); zeros, or small random values."""
    if isinstance(value, (torch.SymInt, torch.SymFloat, torch.SymBool)):
        hint = value.node.hint
        if hint is None:
            raise _Unknown
        return hint
    if not isinstance(value, torch.Tensor):
        return value
    sizes = []
    for d in value.shape:
        if isinstance(d, torch.SymInt):
            d = 1 if shrink else d.node.hint
            if d is None:
                raise _Unknown
        sizes.append(min(int(d), 1) if shrink else int(d))
    if not shrink and torch.Size(sizes).numel() > _MAX_ELEMENTS:
        raise _Unknown
    if fill == "zeros":
        return torch.zeros(sizes, dtype=value.dtype)
    if value.dtype == torch.bool:
        return torch.rand(sizes, generator=generator) < 0.5
    x = torch.randint(-3, 4, sizes, generator=generator).to(torch.float64)
    if value.dtype.is_floating_point:
        x = x + torch.rand(sizes, generator=generator, dtype=torch.float64)
    return x.to(value.dtype)


class _Unknown(Exception):
    """Eager could not be asked (a size known only at run time, operands too large)."""


def _values(args, kwargs, shrink: bool, fill: str, known: dict | None = None):
    """Real operands for `args`, `kwargs`; `known` gives some nodes' values
    (and gets the others')."""
    generator = torch.Generator().manual_seed(0)
    known = {} if known is None else known

    def real(a):
        if not isinstance(a, torch.fx.Node):
            return _real(a, shrink, fill, generator)
        if a not in known:
            known[a] = _real(a.meta.get("val"), shrink, fill, generator)
        return known[a]
    return pytree.tree_map(real, (args, kwargs))


@contextlib.contextmanager
def _quiet():
    """No warning from asking eager: Python's, and PyTorch's C++ ones
    (`TORCH_WARN` from an OpOverload call goes to stderr, not to Python's
    warnings), which would say at compile time what eager says at run time."""
    sys.stderr.flush()
    saved = os.dup(2)
    try:
        with open(os.devnull, "w") as null, warnings.catch_warnings():
            warnings.simplefilter("ignore")
            os.dup2(null.fileno(), 2)
            yield
    finally:
        os.dup2(saved, 2)
        os.close(saved)


def run_eager(target, args, kwargs):
    """`target(*args, **kwargs)` on real tensors, without autograd and quietly."""
    with _quiet(), torch.no_grad():
        return target(*args, **kwargs)


def _dtypes(result) -> list[torch.dtype]:
    return [t.dtype for t in pytree.tree_leaves(result) if isinstance(t, torch.Tensor)]


def _ask(target, args, kwargs, shrink: bool):
    """`target` run eagerly on real operands standing for the nodes among
    `args`, `kwargs`: zeros, else small random values (zeros divide by zero,
    random integers index out of range). Raises _Unknown when neither runs."""
    for fill in ("zeros", "random"):
        try:
            return run_eager(target, *_values(args, kwargs, shrink, fill))
        except _Unknown:
            raise
        except Exception:
            continue
    raise _Unknown


def _eager(node) -> tuple[list[torch.dtype], bool] | None:
    """Eager's result dtypes for the node's operand dtypes, and whether the
    op took operands of size 1 (else full size); None when eager cannot be asked."""
    for shrink in (True, False):  # a view or a convolution needs its sizes
        try:
            return _dtypes(_ask(node.target, node.args, node.kwargs, shrink)), shrink
        except _Unknown:
            continue
    return None


def _fake_mode(graph):
    return torch._guards.detect_fake_mode([n.meta.get("val") for n in graph.nodes if n.op == "placeholder"])


def _fake(fake_mode, target, args, kwargs):
    """The meta value of target(args, kwargs) over the nodes' meta values."""
    values = pytree.tree_map(lambda a: a.meta["val"] if isinstance(a, torch.fx.Node) else a, (args, kwargs))
    with fake_mode or contextlib.nullcontext(), warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return target(*values[0], **values[1])


def _converted_args(graph, fake_mode, node, dtype: torch.dtype, include_bool: bool):
    """The node's operands with each tensor of another dtype converted to
    `dtype` by a new `_to_copy` node (bool ones only with `include_bool`);
    None when nothing would change."""
    made = {}

    def convert(a):
        value = a.meta.get("val") if isinstance(a, torch.fx.Node) else None
        if not isinstance(value, torch.Tensor) or value.dtype == dtype or \
                (value.dtype == torch.bool and not include_bool):
            return a
        if a not in made:
            with graph.inserting_before(node):
                made[a] = graph.call_function(torch.ops.aten._to_copy.default, (a,), {"dtype": dtype})
            made[a].meta.update({k: v for k, v in a.meta.items() if k != "val"})
            made[a].meta["val"] = _fake(fake_mode, torch.ops.aten._to_copy.default, (a,), {"dtype": dtype})
        return made[a]
    args, kwargs = pytree.tree_map_only(torch.fx.Node, convert, (node.args, node.kwargs))
    return (args, kwargs, list(made.values())) if made else None


def _same_values(node, args, kwargs, made: list, shrink: bool) -> bool:
    """Whether eager gives the same values on the converted operands (the
    `made` conversions of the node's own) as on the node's own (small random
    values: zeros show little)."""
    for fill in ("random", "zeros"):
        known: dict = {}
        try:
            want = run_eager(node.target, *_values(node.args, node.kwargs, shrink, fill, known))
        except Exception:
            continue
        for m in made:
            known[m] = known[m.args[0]].to(m.kwargs["dtype"])
        try:
            got = run_eager(node.target, *_values(args, kwargs, shrink, fill, known))
        except Exception:
            return False
        pairs = list(zip(pytree.tree_leaves(want), pytree.tree_leaves(got)))
        return all(isinstance(w, torch.Tensor) and isinstance(g, torch.Tensor) and w.shape == g.shape
                   and torch.allclose(g.to(w.dtype).double(), w.double(), equal_nan=True) for w, g in pairs)
    return False


def _convert_operands(graph, fake_mode, node, dtype: torch.dtype, shrink: bool) -> bool:
    """Compute the node in `dtype` by converting its operands, when the
    meta kernel then agrees with eager and eager's values stay the same."""
    for include_bool in (False, True):
        converted = _converted_args(graph, fake_mode, node, dtype, include_bool)
        if converted is None:
            continue
        args, kwargs, made = converted
        try:
            meta = _dtypes(_fake(fake_mode, node.target, args, kwargs))
        except Exception:
            meta = None
        if meta == [dtype] and _same_values(node, args, kwargs, made, shrink):
            node.args, node.kwargs = args, kwargs
            node.meta["val"] = _fake(fake_mode, node.target, args, kwargs)
            return True
        for m in reversed(made):
            graph.erase_node(m)
    return False


def _convert_result(graph, fake_mode, node, dtype: torch.dtype) -> None:
    """Convert the node's result to `dtype` for every user of it. The
    conversion takes the node's name, which the graph signature may name
    (a user output, the new value of an input)."""
    with graph.inserting_after(node):
        cast = graph.call_function(torch.ops.aten._to_copy.default, (node,), {"dtype": dtype})
    node.replace_all_uses_with(cast, delete_user_cb=lambda user: user is not cast)
    cast.meta.update({k: v for k, v in node.meta.items() if k != "val"})
    cast.meta["val"] = _fake(fake_mode, torch.ops.aten._to_copy.default, (node,), {"dtype": dtype})
    name = node.name
    node._rename(f"{name}_before_promotion")
    cast._rename(name)


def promote_like_eager(program) -> list[str]:
    """Make every op of mixed operand dtypes in `program` (a
    torch.export.ExportedProgram, changed in place) produce the dtype eager
    PyTorch produces. Returns the ops changed (`aten.X.overload`)."""
    graph = program.graph
    fake_mode = _fake_mode(graph)
    changed = []
    for node in list(graph.nodes):
        if not _mixed(node):
            continue
        eager = _eager(node)
        meta = _dtypes(node.meta.get("val"))
        if eager is None or eager[0] == meta or len(meta) != 1 or len(eager[0]) != 1:
            continue  # multi-result ops: no mixed-dtype case of one was found to disagree
        dtype = eager[0][0]
        if not _convert_operands(graph, fake_mode, node, dtype, eager[1]):
            _convert_result(graph, fake_mode, node, dtype)
        changed.append(str(node.target))
    if changed:
        graph.lint()
        program.graph_module.recompile()
    return changed
