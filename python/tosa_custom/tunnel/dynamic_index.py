"""Indexing by whole aranges is a view (dynamic-shape issue, item 2).

transformers builds attention masks as `mask[batch_idx, kv_idx]` where each
index is `arange(0, n)` over the whole dim, unsqueezed to a distinct axis
(masking_utils' padding mask). TorchToTosa lowers `aten.index.Tensor` to a
gather only with static shapes; with a `?` dim it refuses the op. Element
(j_0, ..., j_m) of such an index is x[j_p0, j_p1, ...], so when the axes p_k
increase the result is `x` viewed as the result's shape: a `torch.aten.view`
whose sizes are the aranges' own lengths, which `tosa-custom-resolve-size-lists`
then lowers like any view. Runs before it; static instances are left to
TorchToTosa as before.
"""

from __future__ import annotations

from torch_mlir import ir

from ..core import builders as _b
from ..core import ir as _ir
from ..core.passes import PassContext, register_pass
from ..core.torch_ir import NOT_CONSTANT, constant
from .sizes import SizeExprs, _dims

__all__ = ["INDEX_BY_ARANGES", "index_by_aranges"]

INDEX_BY_ARANGES = "tosa-custom-index-by-aranges"

_INDEX = ("torch.aten.index.Tensor_hacked_twin", "torch.aten.index.Tensor")


def _arange_length(value: ir.Value) -> "tuple[ir.Value, int] | None":
    """(arange length, the one axis it lies on) when `value` is arange(0, n, 1)
    unsqueezed (and plus 0) so that every other dim is 1; else None."""
    dims = _dims(value.type)
    if dims is None:
        return None
    axes = [i for i, d in enumerate(dims) if d != 1]
    if len(axes) != 1:
        return None
    op = _ir.defining_op(value)
    while op is not None and (op.name == "torch.aten.unsqueeze" or (
            op.name == "torch.aten.add.Scalar" and constant(op.operands[1]) == 0)):
        op = _ir.defining_op(op.operands[0])
    if op is None or op.name != "torch.aten.arange.start_step" or len(_dims(op.results[0].type) or []) != 1:
        return None
    if constant(op.operands[0]) != 0 or constant(op.operands[2]) != 1:
        return None
    return op.operands[1], axes[0]


def _same_size(length: ir.Value, source: ir.Value, k: int, sizes: SizeExprs) -> bool:
    number = constant(length)
    dims = _dims(source.type)
    if number is not NOT_CONSTANT:
        return isinstance(number, int) and dims[k] == number
    mine, theirs = sizes.of_int(length), sizes.dim(source, k)
    return mine is not None and theirs is not None and str(mine) == str(theirs)


def _view_sizes(op: ir.Operation, sizes: SizeExprs) -> "list[ir.Value | int] | None":
    """The view's size list (an int per static dim, the arange length per `?`
    dim), or None when `op` is not an index by whole aranges on increasing axes."""
    source = op.operands[0]
    items = _ir.defining_op(op.operands[1])
    in_dims, out_dims = _dims(source.type), _dims(op.results[0].type)
    if items is None or items.name != "torch.prim.ListConstruct" or in_dims is None or out_dims is None:
        return None
    indices = list(items.operands)
    found = [_arange_length(v) for v in indices]
    rank = len(out_dims) - (len(in_dims) - len(indices))
    if None in found or any(len(_dims(v.type)) != rank for v in indices):
        return None
    axes = [axis for _, axis in found]
    if axes != sorted(set(axes)) or not all(_same_size(n, source, k, sizes) for k, (n, _) in enumerate(found)):
        return None
    entries: list[ir.Value | int] = [1] * rank
    for length, axis in found:
        entries[axis] = length
    for k in range(len(indices), len(in_dims)):  # dims not indexed follow, as they are
        entries.append(in_dims[k] if in_dims[k] is not None else _size_of(source, k))
    return [out_dims[j] if out_dims[j] is not None and not isinstance(e, int) else e for j, e in enumerate(entries)]


def _size_of(source: ir.Value, k: int) -> ir.Value:
    return _b.create("torch.aten.size.int", ir.Type.parse("!torch.int"), [source, _b.torch_constant(k)])


def _flat_embedding(op: ir.Operation) -> bool:
    """`aten.embedding` by indices with several `?` dims, which TorchToTosa
    lowers to an invalid reshape (two -1 sizes): the embedding of the
    indices viewed as 1-D, viewed back to the indices' sizes (views the
    size-list pass then lowers)."""
    weight, ids = op.operands[0], op.operands[1]
    id_dims, out_dims = _dims(ids.type), _dims(op.results[0].type)
    if id_dims is None or out_dims is None or id_dims.count(None) < 2:
        return False
    int_list = ir.Type.parse("!torch.list<int>")
    ids_element, element = (str(v.type).rsplit(",", 1)[1].rstrip(">") for v in (ids, op.results[0]))
    flat_ids = _b.create("torch.aten.view", ir.Type.parse(f"!torch.vtensor<[?],{ids_element}>"),
                         [ids, _b.create("torch.prim.ListConstruct", int_list, [_b.torch_constant(-1)])])
    flat = _b.create(op.name, ir.Type.parse(f"!torch.vtensor<[?,{out_dims[-1]}],{element}>"),
                     [weight, flat_ids, *list(op.operands)[2:]])
    sizes = [d if d is not None else _size_of(ids, k) for k, d in enumerate(id_dims)] + [out_dims[-1]]
    listed = _b.create("torch.prim.ListConstruct", int_list,
                       [_b.torch_constant(e) if isinstance(e, int) else e for e in sizes])
    op.results[0].replace_all_uses_with(_b.create("torch.aten.view", op.results[0].type, [flat, listed]))
    op.erase()
    return True


# The ops an index by aranges is built of, erased with it when nothing else reads them.
_INDEX_PARTS = ("torch.prim.ListConstruct", "torch.aten.unsqueeze", "torch.aten.add.Scalar",
                "torch.aten.arange.start_step")


def _erase_unused(op: "ir.Operation | None") -> None:
    if op is None or op.name not in _INDEX_PARTS or any(_ir.has_uses(r) for r in op.results):
        return
    feeding = [_ir.defining_op(v) for v in op.operands]
    op.erase()
    for producer in feeding:
        _erase_unused(producer)


@register_pass(INDEX_BY_ARANGES,
               "Rewrite aten.index.Tensor whose indices are whole aranges (arange(0, dim size) unsqueezed onto "
               "increasing axes, as transformers' masks index) with `?` dims into the aten.view it equals, for "
               "tosa-custom-resolve-size-lists to lower (TorchToTosa refuses the gather on `?` dims); an aten.embedding "
               "by indices with several `?` dims into one by the flattened indices, viewed back")
def index_by_aranges(module: ir.Operation, ctx: PassContext) -> dict:
    sizes = SizeExprs(module)
    done = 0
    for op in _ir.collect_ops(module, lambda o: o.name in _INDEX):
        if None not in (_dims(op.operands[0].type) or [0]) + (_dims(op.results[0].type) or [0]):
            continue
        with ir.InsertionPoint(op), op.location:
            entries, items = _view_sizes(op, sizes), _ir.defining_op(op.operands[1])
            if entries is None:
                continue
            values = [_b.torch_constant(e) if isinstance(e, int) else e for e in entries]
            listed = _b.create("torch.prim.ListConstruct", ir.Type.parse("!torch.list<int>"), values)
            view = _b.create("torch.aten.view", op.results[0].type, [op.operands[0], listed])
        op.results[0].replace_all_uses_with(view)
        op.erase()
        _erase_unused(items)
        done += 1
    embeddings = 0
    for op in _ir.collect_ops(module, lambda o: o.name == "torch.aten.embedding"):
        if None not in (_dims(op.results[0].type) or [0]):
            continue
        with ir.InsertionPoint(op), op.location:
            embeddings += _flat_embedding(op)
    return {"views": done, "embeddings": embeddings}
