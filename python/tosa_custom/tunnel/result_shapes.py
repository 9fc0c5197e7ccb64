"""The `result_shapes` of a `tosa.custom` with `?` result dims (CONTRACT.md §15.2).

A consumer must allocate a result before calling the kernel, so the encoder
writes each `?` size as an expression over the op's own operands. It does not
know any op's shape rule: PyTorch's shape propagation already computed every
value's size as an expression over the program's symbols, and the FX importer
(`import_symbolic_shape_expressions=True`) carries it into the IR as
`torch.bind_symbolic_shape %v, [%s0, ...], affine_map<()[s0, ...] -> (...)>`.
Rewriting a result's expression over the symbols into one over the operands
only needs each symbol found in an operand: the first operand dim that is
exactly that symbol (`dim(k,i)`), or a scalar operand that is it (`value(k)`).
A symbol no operand holds (a data-dependent size, `nonzero`'s) has no such
form, and the op is left unconverted.
"""

from __future__ import annotations

from typing import Sequence

from torch_mlir import ir

from ..contract import shapes as _shapes
from ..core import ir as _ir

__all__ = ["BIND", "SYMBOLIC_INT", "symbol_name", "binding_op", "bound_dims", "derive_result_shapes"]

BIND = "torch.bind_symbolic_shape"
SYMBOLIC_INT = "torch.symbolic_int"


def symbol_name(value: ir.Value) -> str | None:
    """The name of the `torch.symbolic_int` that defines `value`, else None."""
    op = _ir.defining_op(value)
    if op is None or op.name != SYMBOLIC_INT:
        return None
    return ir.StringAttr(op.attributes["symbol_name"]).value


def binding_op(value: ir.Value) -> ir.Operation | None:
    """The `torch.bind_symbolic_shape` of `value`, read from its uses (a
    binding moves with the uses when a pass replaces the value it bound)."""
    for use in value.uses:
        if use.owner.name == BIND and use.owner.operands[0] == value:
            return use.owner
    return None


def bound_dims(bind: ir.Operation, *, unnamed_as_placeholder: bool) -> list[_shapes.ShapeExpr] | None:
    """The shape a `torch.bind_symbolic_shape` gives its value, one
    expression over the program's symbols per dim. A symbol operand that is
    no `torch.symbolic_int` is `?i` with `unnamed_as_placeholder` (no operand
    can bind it, so a size reading it is refused by name), else the whole
    binding is None."""
    names = [symbol_name(v) for v in list(bind.operands)[1:]]
    if None in names and not unnamed_as_placeholder:
        return None
    symbols = [_shapes.symbol(n if n is not None else f"?{i}") for i, n in enumerate(names)]
    affine = ir.AffineMapAttr(bind.attributes["shape_expressions"]).value
    return [_shapes.from_affine(e, symbols) for e in affine.results]


def _binding(value: ir.Value) -> list[_shapes.ShapeExpr] | None:
    """The shape the `torch.bind_symbolic_shape` of `value` gives it, or None when nothing binds it."""
    bind = binding_op(value)
    return None if bind is None else bound_dims(bind, unnamed_as_placeholder=True)


def _scalar_size(value: ir.Value) -> _shapes.ShapeExpr | None:
    """What a `!torch.int` operand is over the symbols: a `torch.symbolic_int`,
    or `torch.aten.size.int` of a bound tensor dim."""
    name = symbol_name(value)
    if name is not None:
        return _shapes.symbol(name)
    op = _ir.defining_op(value)
    if op is None or op.name != "torch.aten.size.int":
        return None
    index = _ir.defining_op(op.operands[1])
    shape = _binding(op.operands[0])
    if index is None or index.name != "torch.constant.int" or shape is None:
        return None
    i = ir.IntegerAttr(index.attributes["value"]).value
    return shape[i] if -len(shape) <= i < len(shape) else None


def _operand_sizes(sources: Sequence[ir.Value | None]) -> dict[str, _shapes.ShapeExpr]:
    """The size each operand holds, keyed by its text over the symbols ("s0",
    "2*s1"), as `dim(k,i)` of the first tensor operand dim of that size, else
    `value(k)` of the first scalar operand that is it. Constants are left out."""
    found: dict[str, _shapes.ShapeExpr] = {}
    for k, source in enumerate(sources):
        shape = _binding(source) if source is not None else None
        for i, size in enumerate(shape or ()):
            if size.kind != "const":
                found.setdefault(str(size), _shapes.dim(k, i))
    for k, source in enumerate(sources):
        if source is not None and not str(source.type).startswith("!torch.vtensor"):
            size = _scalar_size(source)
            if size is not None and size.kind != "const":
                found.setdefault(str(size), _shapes.value(k))
    for size, held in list(found.items()):  # a symbol no operand holds bare, from c*s or s+c
        inverted = _solve(_shapes.parse(size, symbols=True), held)
        if inverted is not None:
            found.setdefault(*inverted)
    return found


def _solve(size: _shapes.ShapeExpr, held: _shapes.ShapeExpr) -> tuple[str, _shapes.ShapeExpr] | None:
    """(symbol, its expression) when an operand holding `held` has the size
    `c*s`, `s+c` or `s-c` (a view to [s, 64] of a [64*s] operand): exact, as
    the size is that of the operand at every value of s."""
    if size.kind not in ("mul", "add", "sub") or len(size.args) != 2:
        return None
    a, b = size.args
    if size.kind == "mul" and a.kind == "const" and b.kind == "symbol" and a.value > 0:
        return b.value, held // a.value
    if size.kind in ("add", "sub") and a.kind == "symbol" and b.kind == "const":
        return a.value, held - b.value if size.kind == "add" else held + b.value
    return None


def _over_operands(size: _shapes.ShapeExpr, found: dict[str, _shapes.ShapeExpr], what: str) -> _shapes.ShapeExpr:
    """`size` (over the symbols) rewritten over the operands: the largest
    parts equal to an operand's size become that operand's dim or value
    (`s0*s1` of a flattened operand stays one `dim(k,i)`), symbols left over
    the dim or value that is exactly them. Sound: equal expressions over the
    same symbols are equal at every size."""
    known = found.get(str(size))
    if known is not None:
        return known
    if size.kind == "symbol":
        raise _shapes.ShapeError(
            f"{what} depends on the size {size.value}, which no operand dim or scalar operand holds: a size "
            "known only from the data (or computed outside the op), which a consumer cannot know before "
            "calling the kernel")
    if not size.args or size.kind in ("dim", "value"):
        return size
    return _shapes.ShapeExpr(size.kind, tuple(_over_operands(a, found, what) for a in size.args), size.value)


def _result_dims(value: ir.Value, ty: ir.RankedTensorType, found, what: str) -> list:
    shape = _binding(value)
    if shape is None:
        raise _shapes.ShapeError(
            f"{what} has type {ty} and no torch.bind_symbolic_shape says how big its ? dims are "
            "(import with import_symbolic_shape_expressions=True, as compile() does)")
    dims = []
    for i, static in enumerate(ty.shape):
        if not ir.ShapedType.is_dynamic_size(static):
            dims.append(static)
        elif i >= len(shape):
            raise _shapes.ShapeError(f"{what}: its torch.bind_symbolic_shape has {len(shape)} dims, its type {ty.rank}")
        elif shape[i].kind == "const":
            dims.append(shape[i].value)
        else:
            dims.append(str(_over_operands(shape[i], found, f"dim {i} of {what}")))
    return dims


def derive_result_shapes(sources: Sequence[ir.Value | None], results: Sequence[tuple[ir.Value, ir.Type]],
                         identifier: str) -> list[list[int | str]] | None:
    """`result_shapes` for a custom op: `sources[k]` is the torch value custom
    operand k carries (None for a constant), `results` the torch value and the
    builtin type of each custom result. None when no result has a `?` dim.
    Raises ShapeError naming the result dim that has no expression."""
    types = [ir.RankedTensorType(t) for _, t in results]
    if all(t.has_static_shape for t in types):
        return None
    found = _operand_sizes(sources)
    return [list(t.shape) if t.has_static_shape else _result_dims(v, t, found, f"result #{j} of {identifier}")
            for j, ((v, _), t) in enumerate(zip(results, types))]
