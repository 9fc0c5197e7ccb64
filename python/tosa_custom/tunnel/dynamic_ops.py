"""Ops TorchToTosa refuses only because a dim is `?`, lowered to TOSA before
it runs (dynamic-shape issue, item 6): its patterns for `aten.to.dtype` and
`aten.slice.Tensor` need static shapes, though a `tosa.cast` and a
`tosa.slice` whose sizes are TOSA shape ops (1.1 draft) express them exactly;
likewise `aten.cat` (tosa.concat), `aten.gather` by a `?`-long index
(tosa.gather), and softmax's `aten.max.dim` whose argmax reshape TorchToTosa
builds with two -1 sizes (tosa.reduce_max, the indices being unread), and
`aten.cumsum` along a bounded dim (the log-step scan TorchToTosa builds from
static shapes: pads and slices whose sizes are shape ops).
Instances with static shapes are left to TorchToTosa, as before; an instance
this pass cannot express stays too (auto mode then tunnels it, stock mode's
error names it).
"""

from __future__ import annotations

from torch_mlir import ir

from ..core import builders as _b
from ..core.dtypes import vtensor_element as _element
from ..core import ir as _ir
from ..core.passes import PassContext, register_pass
from ..contract import shapes as _shapes
from ..core.torch_ir import NOT_CONSTANT, constant
from .sizes import Shapes, SizeExprs, _builtin_type, _const_shape, _dims, _replace_by_builtin, _to_builtin

__all__ = ["LOWER_DYNAMIC_OPS", "lower_dynamic_ops"]

LOWER_DYNAMIC_OPS = "tosa-custom-lower-dynamic-ops"

# tosa.cast rounds to nearest where torch truncates (float -> int): only casts to floats, from
# floats or the integers every profile has, keep torch's semantics.
_FLOATS = ("f16", "bf16", "f32", "f64")
_CAST_FROM = _FLOATS + ("si8", "si16", "si32", "si64")
_SIGNED = ("si8", "si16", "si32", "si64")
_BOOL_TO = ("ui8",) + _SIGNED
_INT64_MAX = 2**63 - 1


def _dynamic(ty: ir.Type) -> bool:
    dims = _dims(ty)
    return dims is not None and None in dims


def _signless(ty: ir.Type) -> ir.Type:
    """The builtin tensor type of a vtensor type as TOSA carries it: uint8 as
    its i8 bits (CONTRACT.md 3.5; torch_c takes either)."""
    builtin = _builtin_type(ty)
    return _b.retyped(builtin, ir.IntegerType.get_signless(8)) if _element(ty) == "ui8" else builtin


def _castable(source: str, target: str) -> bool:
    """Whether tosa.cast computes torch's cast: to a float type or to bool (`!= 0`) from a float or a
    signed integer, bool to an integer (0 or 1), and between signed integers (both wrap to the
    narrower, as TorchToTosa casts them from static shapes). uint8, carried as i8 bits, would be
    sign-extended."""
    return source in _CAST_FROM and target in _FLOATS + ("i1",) or source == "i1" and target in _BOOL_TO \
        or source in _SIGNED and target in _SIGNED


def _cast(op: ir.Operation, shapes: Shapes) -> bool:
    """`aten.to.dtype` where `_castable`: tosa.cast; float to a signed integer truncated first
    (`_truncated`). uint8 <-> int8 (a carrier: the same i8 bits) is no op at all."""
    source, target = _element(op.operands[0].type), _element(op.results[0].type)
    carrier = {source, target} <= {"ui8", "si8"}
    truncate = source in _FLOATS and target in _SIGNED
    selected = source == "i1" and target in _FLOATS
    if not (carrier or truncate or selected or _castable(source, target)):
        return False
    operand = _b.create("torch_c.to_builtin_tensor", _signless(op.operands[0].type), [op.operands[0]])
    if selected:
        _replace_by_builtin(op, _ones_where(operand, _signless(op.results[0].type)))
        return True
    if truncate:
        operand = _truncated(operand)
    _replace_by_builtin(op, operand if carrier else _b.create("tosa.cast", _signless(op.results[0].type), [operand]))
    return True


def _ones_where(condition: ir.Value, ty: ir.Type) -> ir.Value:
    """bool to a float: `select(b, 1, 0)`, as TorchToTosa lowers it from
    static shapes (TOSA casts no bool to a float)."""
    ty = ir.RankedTensorType(ty)
    one, zero = (_b.tosa_const(ir.Attribute.parse(f"dense<{v}> : tensor<{'1x' * ty.rank}{ty.element_type}>"))
                 for v in ("1.0", "0.0"))
    return _b.create("tosa.select", ty, [condition, one, zero])


def _truncated(x: ir.Value) -> ir.Value:
    """x rounded toward zero, as torch casts a float to an integer (tosa.cast rounds to nearest):
    `select(0 > x, ceil(x), floor(x))`, as TorchToTosa lowers the cast from static shapes."""
    ty = ir.RankedTensorType(x.type)
    zero = _b.tosa_const(ir.Attribute.parse(f"dense<0.0> : tensor<{'1x' * ty.rank}{ty.element_type}>"))
    negative = _b.create("tosa.greater", _b.retyped(ty, ir.IntegerType.get_signless(1)), [zero, x])
    return _b.create("tosa.select", ty, [negative, _b.create("tosa.ceil", ty, [x]), _b.create("tosa.floor", ty, [x])])


def _slice(op: ir.Operation, shapes: Shapes) -> bool:
    """`aten.slice.Tensor` with a constant start (or none) and step 1: tosa.slice, its
    `?` sizes those PyTorch propagated (the result's bound dims; a run-time
    end is in them, clamped as PyTorch clamps it)."""
    dim, start, end, step = (constant(v) for v in list(op.operands)[1:5])
    start, step = 0 if start is None else start, 1 if step is None else step  # x[:, :n] has no start
    in_dims, out_dims = _dims(op.operands[0].type), _dims(op.results[0].type)
    if not all(isinstance(v, int) for v in (dim, start, step)) or step != 1 or in_dims is None:
        return False
    dim %= len(in_dims)
    if start < 0:
        if in_dims[dim] is None:
            return False
        start = max(start + in_dims[dim], 0)
    # a dim other than the sliced one is the operand's (a slice torch-mlir's decompositions made has no binding)
    sizes = [d if d is not None else shapes.sizes.dim(op.results[0] if i == dim else op.operands[0], i)
             for i, d in enumerate(out_dims)]
    if not all(shapes.can(s) for s in sizes):
        return False
    starts = [start if i == dim else 0 for i in range(len(in_dims))]
    sliced = _b.create("tosa.slice", _builtin_type(op.results[0].type),
                       [_to_builtin(op.operands[0]), _const_shape(starts), shapes.build_all(sizes)])
    _replace_by_builtin(op, sliced)
    return True


# The longest arange kept as a constant to slice from (elements).
_MAX_ARANGE = 1 << 16


def _arange(op: ir.Operation, shapes: Shapes) -> bool:
    """`arange(start, end, step)` whose length is a symbol (`arange(T)`): a
    slice, of the length computed at run time, of the constant arange of the
    symbol's largest value; with no such bound (Dim.AUTO, Dim.DYNAMIC), for
    step 1, built at run time by `_counted`."""
    start, step = constant(op.operands[0]), constant(op.operands[2])
    length = shapes.sizes.dim(op.results[0], 0)
    if not isinstance(start, int) or not isinstance(step, int) or step <= 0 or length is None \
            or length.symbol is None or not shapes.can(length):
        return False
    longest = shapes.sizes.ranges.get(length.symbol, (0, _INT64_MAX))[1]
    ty = ir.RankedTensorType(_builtin_type(op.results[0].type))
    if longest > _MAX_ARANGE:
        if step != 1 or not _counts_exactly(ty.element_type):
            return False
        _replace_by_builtin(op, _counted(ty.element_type, start, length, shapes))
        return True
    _replace_by_builtin(op, _b.create("tosa.slice", ty, [_table(ty.element_type, [start + step * i for i in range(longest)]),
                                                          _const_shape([0]), shapes.build_all([length])]))
    return True


def _table(element: ir.Type, values: list[int], row: bool = False) -> ir.Value:
    """A tosa.const of `values` (ints, written as floats for a float type), as
    a vector or (`row`) as a [1, n] row."""
    full = ir.RankedTensorType.get([1, len(values)] if row else [len(values)], element)
    is_float = isinstance(element, (ir.F32Type, ir.F16Type, ir.BF16Type, ir.F64Type))
    text = "[" + ", ".join(str(float(v)) if is_float else str(v) for v in values) + "]"
    return _b.tosa_const(ir.Attribute.parse(f"dense<{f'[{text}]' if row else text}> : {full}" if values
                                            else f"dense<> : {full}"))


# The unbounded arange counts in base 256 over 4 digits: exact up to 2**32 elements (more than any tensor the
# runtime holds: 2**32 int64 values are 32 GB), from four constants of 256 values.
_DIGIT, _DIGITS = 256, 4


def _counts_exactly(element: ir.Type) -> bool:
    """Types whose digit tables (up to 255 * 256**3) are finite: not f16 or bf16, whose
    count beyond 2**11 or 2**8 is not exact anyway."""
    return isinstance(element, (ir.F32Type, ir.F64Type)) or \
        isinstance(element, ir.IntegerType) and ir.IntegerType(element).width in (32, 64)


def _counted(element: ir.Type, start: int, length, shapes: Shapes) -> ir.Value:
    """start + arange(length) without a longest length: the count at digit j
    is `c_j[i] = start + i * 256**j` for i < ceil(length / 256**j); c_3 is a
    slice of a constant, and c_j that of the flattened sum c_{j+1}[:, None] +
    (256**j * arange(256))[None, :] (index a * 256 + b holds (a * 256 + b) * 256**j).
    Adds and reshapes only, so every value is exact in the result type."""
    def count(j):
        return length if j == 0 else _shapes.ShapeExpr("ceildiv", (length, _shapes.const(_DIGIT ** j)))

    vector = ir.RankedTensorType.get([ir.ShapedType.get_dynamic_size()], element)
    top = _DIGITS - 1
    current = _b.create("tosa.slice", vector, [_table(element, [start + i * _DIGIT ** top for i in range(_DIGIT)]),
                                               _const_shape([0]), shapes.build_all([count(top)])])
    for j in range(top - 1, -1, -1):
        column = _b.create("tosa.reshape", ir.RankedTensorType.get([vector.shape[0], 1], element),
                           [current, shapes.build_all([count(j + 1), 1])])
        row = _table(element, [i * _DIGIT ** j for i in range(_DIGIT)], row=True)
        grid = _b.create("tosa.add", ir.RankedTensorType.get([vector.shape[0], _DIGIT], element), [column, row])
        flat = _b.create("tosa.reshape", vector, [grid, shapes.build_all([count(j + 1) * _DIGIT])])
        current = _b.create("tosa.slice", vector, [flat, _const_shape([0]), shapes.build_all([count(j)])])
    return current


def _unsqueeze(op: ir.Operation, shapes: Shapes) -> bool:
    """`aten.unsqueeze` of a tensor with two or more `?` dims (GQA's repeat_kv,
    `h[:, :, None]` of [B, H, T, D] with B and T dynamic): a tosa.reshape whose
    sizes are the operand's, by TOSA shape ops, with the 1 inserted (TorchToTosa
    writes a -1 for each `?`, which tosa.reshape refuses past one)."""
    dim, in_dims = constant(op.operands[1]), _dims(op.operands[0].type)
    if not isinstance(dim, int) or in_dims is None or in_dims.count(None) < 2:
        return False
    sizes = [d if d is not None else shapes.sizes.dim(op.operands[0], i) for i, d in enumerate(in_dims)]
    if not all(shapes.can(s) for s in sizes):
        return False
    sizes.insert(dim % (len(in_dims) + 1), 1)
    _replace_by_builtin(op, _b.create("tosa.reshape", _builtin_type(op.results[0].type),
                                      [_to_builtin(op.operands[0]), shapes.build_all(sizes)]))
    return True


def _gather(op: ir.Operation, shapes: Shapes) -> bool:
    """`aten.gather(x, 1, index)` of a 2-D `x` of static width by an index whose
    rows match x's (BERT's token-type ids by position; RoBERTa's expanded to a
    `?` batch): `tosa.gather` of x as [N, K, 1] by the index as i32, then
    [N, W], the `?` sizes by shape ops."""
    axis, source, index = constant(op.operands[1]), op.operands[0], op.operands[2]
    in_dims, index_dims = _dims(source.type), _dims(index.type)
    if in_dims is None or index_dims is None or len(in_dims) != 2 or len(index_dims) != 2 or axis not in (1, -1) \
            or in_dims[1] is None:
        return False
    rows, cols = shapes.sizes.dim(source, 0), shapes.sizes.dim(index, 1)
    if rows is None or str(rows) != str(shapes.sizes.dim(index, 0)) or not shapes.can(rows):
        return False
    rows = rows.value if rows.kind == "const" else rows
    cols = cols if shapes.can(cols) else -1  # the one size a reshape may leave to be inferred
    (n, k), element = in_dims, ir.RankedTensorType(_builtin_type(source.type)).element_type
    i32 = ir.IntegerType.get_signless(32)
    dynamic = ir.ShapedType.get_dynamic_size()
    row = _one_row(source) if n != 1 else None
    if row is not None:
        _replace_by_builtin(op, _gather_row(row, index, rows, cols, shapes))
        return True
    n = dynamic if n is None else n
    w = dynamic if index_dims[1] is None else index_dims[1]
    values = _b.create("tosa.reshape", ir.RankedTensorType.get([n, k, 1], element),
                       [_to_builtin(source), shapes.build_all([rows, k, 1])])
    indices = _b.create("tosa.cast", ir.RankedTensorType.get([n, w], i32), [_to_builtin(index)])
    gathered = _b.create("tosa.gather", ir.RankedTensorType.get([n, w, 1], element), [values, indices])
    _replace_by_builtin(op, _b.create("tosa.reshape", _builtin_type(op.results[0].type),
                                      [gathered, shapes.build_all([rows, cols])]))
    return True


def _one_row(value: ir.Value) -> "ir.Value | None":
    """The builtin [1, K] tensor that `value` ([N, K]) repeats, when an expand made it (RoBERTa's
    token-type buffer: a tosa.tile once tosa-custom-resolve-size-lists has lowered the expand), else None."""
    op = _ir.defining_op(value)
    if op is not None and op.name == "torch_c.from_builtin_tensor":
        op = _ir.defining_op(op.operands[0])
        if op is None or op.name != "tosa.tile":
            return None
        row = op.operands[0]
    elif op is not None and op.name in ("torch.aten.expand", "torch.aten.broadcast_to"):
        row = _to_builtin(op.operands[0])
    else:
        return None
    shape = ir.RankedTensorType(row.type).shape if isinstance(row.type, ir.RankedTensorType) else None
    return row if shape is not None and len(shape) == 2 and shape[0] == 1 and shape[1] == _dims(value.type)[1] \
        else None


def _gather_row(row: ir.Value, index: ir.Value, rows, cols, shapes: Shapes) -> ir.Value:
    """Every row the same: one tosa.gather from the [1, K] row by the index flattened to
    [1, N*W], so the table stays the constant it is (tosa-custom-narrow-i64-gather reads its
    range; a tile of it on `?` dims has none)."""
    k, element = ir.RankedTensorType(row.type).shape[1], ir.RankedTensorType(row.type).element_type
    dynamic, i32 = ir.ShapedType.get_dynamic_size(), ir.IntegerType.get_signless(32)
    values = _b.create("tosa.reshape", ir.RankedTensorType.get([1, k, 1], element),
                       [row, _const_shape([1, k, 1])])
    index_type = ir.RankedTensorType(_builtin_type(index.type))
    flat = _b.create("tosa.reshape", ir.RankedTensorType.get([1, dynamic], index_type.element_type),
                     [_to_builtin(index), _const_shape([1, -1])])
    indices = _b.create("tosa.cast", ir.RankedTensorType.get([1, dynamic], i32), [flat])
    gathered = _b.create("tosa.gather", ir.RankedTensorType.get([1, dynamic, 1], element), [values, indices])
    return _b.create("tosa.reshape", ir.RankedTensorType.get(list(index_type.shape), element),
                     [gathered, shapes.build_all([rows, cols])])


def _cat(op: ir.Operation, shapes: Shapes) -> bool:
    """`aten.cat` of same-typed tensors whose `?` dims are not the axis: tosa.concat."""
    items, axis = _ir.defining_op(op.operands[0]), constant(op.operands[1])
    out_dims = _dims(op.results[0].type)
    if items is None or items.name != "torch.prim.ListConstruct" or not isinstance(axis, int) or out_dims is None:
        return False
    axis %= len(out_dims)
    tensors = list(items.operands)
    if out_dims[axis] is None or any(_element(t.type) != _element(op.results[0].type)
                                     or len(_dims(t.type)) != len(out_dims) for t in tensors):
        return False
    _replace_by_builtin(op, _b.create("tosa.concat", _builtin_type(op.results[0].type),
                                      [_to_builtin(t) for t in tensors],
                                      {"axis": ir.IntegerAttr.get(ir.IntegerType.get_signless(32), axis)}))
    return True


def _max_values(op: ir.Operation, shapes: Shapes) -> bool:
    """`aten.max.dim` (keepdim) of floats whose indices nothing reads
    (softmax's decomposition): `tosa.reduce_max`, which propagates NaN as
    torch does. TorchToTosa refuses amax on `?` and lowers the indices' argmax with a reshape of
    two -1 sizes when two dims are `?`, invalid even unread."""
    axis, keep, rank = constant(op.operands[1]), constant(op.operands[2]), len(_dims(op.operands[0].type) or [])
    if _ir.has_uses(op.results[1]) or (_dims(op.results[0].type) or []).count(None) < 2 \
            or not isinstance(axis, int) or keep is not True or _element(op.results[0].type) not in _FLOATS:
        return False
    values = _b.create("tosa.reduce_max", _builtin_type(op.results[0].type), [_to_builtin(op.operands[0])],
                       {"axis": ir.IntegerAttr.get(ir.IntegerType.get_signless(32), axis % rank)})
    op.results[0].replace_all_uses_with(_b.create("torch_c.from_builtin_tensor", op.results[0].type, [values]))
    op.erase()
    return True


# The longest `?` dim a cumsum scans by log2 steps of constant shifts: each step pads by its shift, so a
# dim with no such bound (Dim.AUTO) would pad by up to 2**31 at run time.
_MAX_SCAN = 1 << 16
_MONOTONE = ("const", "symbol", "add", "mul", "min", "max")


def _largest(expr: _shapes.ShapeExpr, ranges: dict) -> "int | None":
    """The largest value of a size `expr` over its symbols' ranges, when it grows with each of them
    (sums, products, min, max and divisions by constants of sizes); None otherwise."""
    def grows(e):
        if e.kind in ("floordiv", "ceildiv"):
            return grows(e.args[0]) and e.args[1].kind == "const" and e.args[1].value > 0
        return e.kind in _MONOTONE and (e.kind != "symbol" or e.value in ranges) and all(grows(a) for a in e.args)
    return expr.evaluate({s: ranges[s][1] for s in expr.names()}) if grows(expr) else None


def _cumsum(op: ir.Operation, shapes: Shapes) -> bool:
    """`aten.cumsum` along a dim of at most `_MAX_SCAN`: the scan TorchToTosa builds from static
    shapes (RoBERTa's and OPT's position ids), x += x shifted by 1, 2, 4, ... (tosa.pad by the
    shift, tosa.slice back to x's sizes by shape ops) up to the dim's largest value; the sum in
    the result's dtype (tosa.cast first, where `_castable`), so integers add exactly."""
    axis, source = constant(op.operands[1]), op.operands[0]
    in_dims, out_type = _dims(source.type), _builtin_type(op.results[0].type)
    from_, to = _element(source.type), _element(op.results[0].type)
    if not isinstance(axis, int) or not in_dims or (from_ != to and not _castable(from_, to)) or "ui8" in (from_, to):
        return False
    axis %= len(in_dims)
    sizes = [d if d is not None else shapes.sizes.dim(source, i) for i, d in enumerate(in_dims)]
    length = sizes[axis] if isinstance(sizes[axis], int) else \
        None if sizes[axis] is None else _largest(sizes[axis], shapes.sizes.ranges)
    if length is None or length > _MAX_SCAN or not all(shapes.can(s) for s in sizes):
        return False
    total = _to_builtin(source)
    if from_ != to:
        total = _b.create("tosa.cast", out_type, [total])
    element = ir.RankedTensorType(out_type).element_type
    zero = _table(element, [0])
    size = shapes.build_all(sizes)
    starts = _const_shape([0] * len(in_dims))
    shift = 1
    while shift < length:
        padded_dims = list(ir.RankedTensorType(out_type).shape)
        if in_dims[axis] is not None:
            padded_dims[axis] += shift
        padding = [shift if i == 2 * axis else 0 for i in range(2 * len(in_dims))]
        padded = _b.create("tosa.pad", ir.RankedTensorType.get(padded_dims, element),
                           [total, _const_shape(padding), zero])
        total = _b.create("tosa.add", out_type, [total, _b.create("tosa.slice", out_type, [padded, starts, size])])
        shift *= 2
    _replace_by_builtin(op, total)
    return True


_LOWERINGS = {"torch.aten.cumsum": _cumsum, "torch.aten.max.dim": _max_values, "torch.aten.cat": _cat, "torch.aten.to.dtype": _cast, "torch.aten.slice.Tensor": _slice, "torch.aten.arange.start_step": _arange,
              "torch.aten.unsqueeze": _unsqueeze,
              "torch.aten.gather": _gather}


@register_pass(LOWER_DYNAMIC_OPS,
               "Lower aten.to.dtype (to a float type, uint8 <-> int8, bool to an integer or a float, signed integer to signed integer, float to a signed integer truncated by ceil/floor), aten.slice.Tensor (constant bounds, step 1) and "
               "aten.arange.start_step (length a symbol), aten.cumsum (along a dim of at most 65536: "
               "the log-step scan TorchToTosa builds from static shapes, by pads and slices) with `?` dims to tosa.cast and tosa.slice (sizes by "
               "TOSA shape ops; arange sliced from the constant arange of the longest length, or counted by adds in base 256 when unbounded), and aten.gather along "
               "dim 1 of a static 2-D tensor by a `?`-long index to tosa.gather, aten.cat along a static dim to tosa.concat, aten.max.dim with unread indices and several `?` dims to tosa.reduce_max, aten.unsqueeze of several `?` dims to tosa.reshape by shape ops, which TorchToTosa refuses on `?` dims only "
               "for want of static shapes; static instances are left to TorchToTosa")
def lower_dynamic_ops(module: ir.Operation, ctx: PassContext) -> dict:
    shapes = Shapes(module, SizeExprs(module))
    done: dict[str, int] = {}
    for op in _ir.collect_ops(module, lambda o: o.name in _LOWERINGS):
        if not _dynamic(op.results[0].type) and not (op.operands and _dynamic(op.operands[0].type)):
            continue
        with ir.InsertionPoint(op), op.location:
            name = op.name
            if _LOWERINGS[name](op, shapes):
                done[name] = done.get(name, 0) + 1
    return done
