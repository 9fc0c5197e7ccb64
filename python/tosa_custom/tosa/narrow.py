"""Passes that narrow what torch-mlir's TOSA lowering computes wider than TOSA 1.0 allows.

TOSA 1.0's base profiles have no f64 and no 64-bit integers in `tosa.gather`,
yet torch-mlir's decompositions compute the variance of an f32 layer_norm in
f64 (`tosa.cast` to f64, `tosa.reduce_sum`, `tosa.mul`, `tosa.sub`, f64
`tosa.const`) and gather BERT's token-type buffer as an i64 table. Both are
rewritten here where the narrow computation gives the same answer within the
tolerances the tests hold against eager PyTorch (CONTRACT.md §13): what is not
rewritten stays as it was, and `tosa-validate` then names it.
"""

from __future__ import annotations

import numpy as np
from torch_mlir import ir

from ..core import builders as _b
from ..core import dtypes as _dtypes
from ..core import ir as _ir
from ..core.passes import PassContext, register_pass
from ..contract.signature import read_roles
from .ranges import I32_RANGE, IntegerConstants, Ranges, fits

__all__ = ["NARROW_F64", "NARROW_I64_GATHER", "NARROW_I64_CASTS", "WIDEN_INT_ARITHMETIC"]

NARROW_F64 = "tosa-custom-narrow-f64"
NARROW_I64_GATHER = "tosa-custom-narrow-i64-gather"
NARROW_I64_CASTS = "tosa-custom-narrow-i64-casts"
WIDEN_INT_ARITHMETIC = "tosa-custom-widen-int-arithmetic"

# Ops whose f64 result can become f32 by changing types alone: elementwise,
# reductions and data movement, with no typed attribute (tosa.clamp's min/max,
# tosa.pad's constant) and no dtype-dependent meaning (tosa.custom).
_RETYPABLE = {
    "tosa.cast", "tosa.const", "tosa.add", "tosa.sub", "tosa.mul", "tosa.maximum", "tosa.minimum", "tosa.pow",
    "tosa.abs", "tosa.negate", "tosa.reciprocal", "tosa.rsqrt", "tosa.exp", "tosa.log", "tosa.floor", "tosa.ceil",
    "tosa.tanh", "tosa.sigmoid", "tosa.erf", "tosa.sin", "tosa.cos", "tosa.identity",
    "tosa.reduce_sum", "tosa.reduce_max", "tosa.reduce_min", "tosa.reduce_product",
    "tosa.reshape", "tosa.transpose", "tosa.tile", "tosa.slice", "tosa.concat", "tosa.select",
    "tosa.equal", "tosa.greater", "tosa.greater_equal",
}


def _element(value: ir.Value):
    t = value.type
    return t.element_type if isinstance(t, ir.ShapedType) else None


def _is_f64(value: ir.Value) -> bool:
    return isinstance(_element(value), ir.F64Type)


def _narrow_float(value: ir.Value) -> bool:
    """f32 or narrower: exactly representable in f32, so f32 -> f64 -> f32 is the identity."""
    element = _element(value)
    return element is not None and isinstance(element, (ir.F32Type, ir.F16Type, ir.BF16Type))


class _Region:
    """The ops connected to one f64 value through f64 values, and whether
    they may compute in f32: every op retypable, no f64 function argument or
    result, every entry a cast from f32 (or narrower) or an f64 constant."""

    def __init__(self, start: ir.Value, seen: set):
        self.ops: dict[ir.Operation, None] = {}  # insertion-ordered set
        self.ok = True
        self._stack, self._seen = [start], seen
        while self._stack:
            self._visit(self._stack.pop())

    def _visit(self, value: ir.Value) -> None:
        if value in self._seen:
            return
        self._seen.add(value)
        if isinstance(value.owner, ir.Block):  # a function argument: the caller passes f64
            self.ok = False
        else:
            self._add(value.owner)
        for use in value.uses:
            self._add(use.owner)

    def _add(self, op) -> None:
        op = op.operation
        if op in self.ops:
            return
        self.ops[op] = None
        if op.name == "func.return":
            self.ok = self.ok and _float_results_only(op)
            return  # its operands are in the region already; the function's type follows them
        if op.name not in _RETYPABLE:
            self.ok = False  # tosa.custom, an op with typed attributes
        elif op.name == "tosa.cast" and _is_f64(op.results[0]) and not _narrow_float(op.operands[0]):
            self.ok = False  # from an integer or from f64: f32 could round it
        elif op.name == "tosa.const" and not _in_f32_range(op.attributes["values"]):
            self.ok = False
        self._stack += [v for v in list(op.operands) + list(op.results) if _is_f64(v)]


def _float_results_only(ret: ir.Operation) -> bool:
    """Every f64 value `ret` returns is a Python float result (`tosa_custom.scalar
    = "float"`, §4.7): the runtime hands it back as a Python float, and an f32
    0-d tensor gives the same number when the region computes it from f32
    (a constant rounds to the nearest f32, as any f64 constant in the region does)."""
    func = ret.parent
    scalars = read_roles(func)[1]
    return all(scalars[i] == "float" and not ir.ShapedType(v.type).rank
               for i, v in enumerate(ret.operands) if _is_f64(v))


def _retype_results(ret: ir.Operation) -> None:
    """The function's result types, after its returned values were narrowed."""
    func = ret.parent
    _ir.set_function_type(func, _ir.function_type(func).inputs, [v.type for v in ret.operands])


def _to_f32(t: ir.Type) -> ir.Type:
    shaped = ir.RankedTensorType(t)
    return ir.RankedTensorType.get(shaped.shape, ir.F32Type.get(), shaped.encoding)


def _f32_constant(attr: ir.Attribute, type_: ir.Type) -> ir.Attribute | None:
    if not isinstance(attr, ir.DenseFPElementsAttr):
        return None  # dense_resource and the like: not read here
    dense = attr
    if dense.is_splat:
        return ir.DenseElementsAttr.get_splat(type_, ir.FloatAttr.get(ir.F32Type.get(), float(dense.get_splat_value().value)))
    array = np.array(dense).astype(np.float32).reshape(ir.RankedTensorType(type_).shape)
    return ir.DenseElementsAttr.get(array, type=type_)


def _in_f32_range(attr: ir.Attribute) -> bool:
    if not isinstance(attr, ir.DenseFPElementsAttr):
        return False
    dense = attr
    values = [dense.get_splat_value().value] if dense.is_splat else np.array(dense)
    values = np.asarray(values, dtype=np.float64)
    # Infinities and NaN (masks use -inf) are f32 values too; finite ones must not overflow.
    return not bool(np.any(np.isfinite(values) & (np.abs(values) > np.finfo(np.float32).max)))


def _narrow_region(ops: list[ir.Operation]) -> None:
    for op in ops:
        if op.name == "tosa.const" and _is_f64(op.results[0]):
            with op.location:
                new_type = _to_f32(op.results[0].type)
                op.attributes["values"] = _f32_constant(op.attributes["values"], new_type)
        for result in op.results:
            if _is_f64(result):
                with op.location:
                    result.set_type(_to_f32(result.type))
    for op in ops:
        if op.name == "func.return":
            _retype_results(op)
    for op in ops:  # casts that became f32 -> f32 are the identity now
        if op.name == "tosa.cast" and op.operands[0].type == op.results[0].type:
            op.results[0].replace_all_uses_with(op.operands[0])
            op.erase()


@register_pass(NARROW_F64,
               "Compute f64 intermediates of f32 computations (cast from f32, back to f32, e.g. torch-mlir's "
               "layer_norm variance) and Python float results computed from f32 in f32; other f64 at a "
               "function boundary or through other ops stays")
def narrow_f64(module: ir.Operation, ctx: PassContext) -> None:
    seen: set = set()
    regions = [_Region(result, seen)
               for op in _ir.collect_ops(module, lambda op: any(_is_f64(r) for r in op.results))
               for result in op.results if _is_f64(result) and result not in seen]
    for region in regions:  # all found before any is rewritten: rewriting erases casts
        if region.ok:
            _narrow_region(list(region.ops))


def _i64(value: ir.Value) -> bool:
    element = _element(value)
    return isinstance(element, ir.IntegerType) and element.width == 64




def _fits_i32(values: np.ndarray | None) -> bool:
    info = np.iinfo(np.int32)
    return values is not None and (values.size == 0 or (values.min() >= info.min and values.max() <= info.max))


@register_pass(NARROW_I64_GATHER,
               "Gather from an i64 table whose values fit in i32 (a constant, or bounds derived in the IR: moves "
               "of a constant, positions) as i32, cast back to i64 after (TOSA 1.0 has no i64 tosa.gather); a "
               "table of unknown range (an argument) stays")
def narrow_i64_gather(module: ir.Operation, ctx: PassContext) -> None:
    constants = IntegerConstants(module)
    ranges = Ranges(constants.values)
    i32 = ir.IntegerType.get_signless(32)
    gathers = [gather for gather in _ir.collect_ops(module, lambda op: op.name == "tosa.gather" and _i64(op.results[0]))
               if _fits_i32(constants.values(gather.operands[0])) or fits(ranges.bounds(gather.operands[0]), *I32_RANGE)]
    for gather in gathers:  # all decided before any is rewritten
        table, indices = gather.operands
        with ir.InsertionPoint(gather), gather.location:
            narrow = _b.tosa_cast(table, i32)
            result = _b.create("tosa.gather", _b.retyped(gather.results[0], i32), [narrow, indices])
            wide = _b.tosa_cast(result, gather.results[0].type)
        gather.results[0].replace_all_uses_with(wide)
        gather.erase()


# Ops that move i64 values without computing new ones: a value reached only
# through them has the values of their first operand (the others are shapes
# and multiples), so it fits in i32 when that operand does.
_MOVES = {"tosa.reshape", "tosa.transpose", "tosa.slice", "tosa.tile", "tosa.identity"}


def _integer_width(value: ir.Value) -> int | None:
    element = _element(value)
    return element.width if isinstance(element, ir.IntegerType) else None


def _moved_from(value: ir.Value) -> tuple[ir.Value, list[ir.Operation]]:
    """The value `value` was moved from (through _MOVES), and the moves, first first."""
    moves = []
    while not isinstance(value.owner, ir.Block) and value.owner.operation.name in _MOVES:
        moves.append(value.owner.operation)
        value = value.owner.operation.operands[0]
    return value, moves[::-1]


def _as_i32(source: ir.Value, constants: "IntegerConstants") -> ir.Value | None:
    """An i32 value equal to the i64 `source`, when its values are known to fit:
    the operand of a cast from a narrower integer, or a constant within range.
    Built just after `source`; None when the range is not known."""
    owner = source.owner
    if isinstance(owner, ir.Block):
        return None  # an argument: the caller's values are not known
    op = owner.operation
    i32 = ir.IntegerType.get_signless(32)
    with ir.InsertionPoint(op), op.location:
        if op.name == "tosa.cast" and (_integer_width(op.operands[0]) or 64) <= 32:
            narrow = op.operands[0]
            if _integer_width(narrow) == 32:
                return narrow
            return _b.tosa_cast(narrow, _b.retyped(source, i32))
        values = constants.values(source)
        if op.name == "tosa.const" and _fits_i32(values):
            array = values.astype(np.int32).reshape(ir.RankedTensorType(source.type).shape)
            return _b.tosa_const(ir.DenseElementsAttr.get(array, type=_b.retyped(source, i32)))
    return None


def _replay_moves(value: ir.Value, moves: list[ir.Operation], before: ir.Operation) -> ir.Value:
    """The same moves applied to the narrow `value`, inserted before `before`."""
    for move in moves:
        with ir.InsertionPoint(before), move.location:
            element = ir.RankedTensorType(value.type).element_type
            attributes = {a.name: a.attr for a in move.attributes}
            value = _b.create(move.name, _b.retyped(move.results[0], element), [value, *list(move.operands)[1:]],
                              attributes)
    return value


def _erase_dead(ops: list[ir.Operation]) -> None:
    """Erase the ops whose results are no longer used, last first."""
    for op in reversed(ops):
        if all(not list(r.uses) for r in op.results):
            op.erase()


def _fold_constant_cast(cast: ir.Operation, constants: "IntegerConstants") -> bool:
    """A cast of an integer constant to a float type is a float constant (the
    same rounding, to nearest even): torch-mlir's `arange(3.0)` casts an i64
    constant to f64, which no TOSA 1.0 profile takes."""
    result_type = ir.RankedTensorType(cast.results[0].type)
    if not isinstance(result_type.element_type, (ir.F32Type, ir.F64Type, ir.F16Type)):
        return False
    values = constants.values(cast.operands[0])
    if values is None:
        return False
    dtype = _dtypes.by_element(str(result_type.element_type)).numpy
    with ir.InsertionPoint(cast), cast.location:
        attr = ir.DenseElementsAttr.get(values.astype(dtype).reshape(result_type.shape), type=result_type)
        const = _b.tosa_const(attr, result_type)
    cast.results[0].replace_all_uses_with(const)
    return True


@register_pass(NARROW_I64_CASTS,
               "Cast between i64 and floats through i32 where the i64 values are known to fit (an i64 constant, a "
               "cast from a narrower integer, moved by reshape/transpose/slice/tile, or bounds derived in the IR "
               "on the elements read), and fold casts of integer constants to floats (TOSA 1.0 casts no i64 to or "
               "from a float); i64 of unknown range (an argument) stays")
def narrow_i64_casts(module: ir.Operation, ctx: PassContext) -> None:
    constants = IntegerConstants(module)
    for cast in _ir.collect_ops(module, lambda op: op.name == "tosa.cast" and _i64(op.operands[0])
                                and not _i64(op.results[0])):
        source, moves = _moved_from(cast.operands[0])
        dead = [source.owner.operation] + moves if not isinstance(source.owner, ir.Block) else moves
        if not moves and _fold_constant_cast(cast, constants):
            cast.erase()
            _erase_dead(dead)
            continue
        narrow = _as_i32(source, constants)
        if narrow is None:
            continue
        narrow = _replay_moves(narrow, moves, cast)
        with ir.InsertionPoint(cast), cast.location:
            if narrow.type == cast.results[0].type:
                result = narrow
            else:
                result = _b.tosa_cast(narrow, cast.results[0].type)
        cast.results[0].replace_all_uses_with(result)
        cast.erase()
        _erase_dead(dead)
    _narrow_bounded_casts(module, constants)


def _is_float(value: ir.Value) -> bool:
    return isinstance(_element(value), (ir.F32Type, ir.F16Type, ir.BF16Type))


def _narrow_bounded_casts(module: ir.Operation, constants: "IntegerConstants") -> None:
    """Casts between i64 and a float whose i64 side is bounded within i32 on
    every element read (ranges.py): through i32 instead. Exact there: the
    integer is the same, and a float rounds to it the same way; an element
    nothing reads (a branch a select drops) may be anything."""
    ranges = Ranges(constants.values)
    i32 = ir.IntegerType.get_signless(32)
    chosen = []
    for cast in _ir.collect_ops(module, lambda op: op.name == "tosa.cast"):
        (source,), result = cast.operands, cast.results[0]
        if _i64(source) and _is_float(result):
            wide = source
        elif _is_float(source) and _i64(result):
            wide = result
        else:
            continue
        if ranges.fits_read(wide, *I32_RANGE, read=result):
            chosen.append(cast)
    for cast in chosen:  # all decided on the unchanged IR
        with ir.InsertionPoint(cast), cast.location:
            narrow = _b.tosa_cast(cast.operands[0], i32)
            wide = _b.tosa_cast(narrow, cast.results[0].type)
        cast.results[0].replace_all_uses_with(wide)
        cast.erase()


# Integer arithmetic TOSA 1.0 has only at i32 (add, sub) or only into an i32
# result (mul of i8 or i16), comparisons it has only of i32, and bool ops it
# has under other names.
_I32_ONLY = {"tosa.add", "tosa.sub"}
_COMPARISONS = {"tosa.equal", "tosa.greater", "tosa.greater_equal"}


def _widen(op: ir.Operation) -> ir.Value | None:
    """The i8/i16 add, sub or mul `op` computed in i32 and truncated back (the
    same wraparound, as TOSA's integer cast truncates), an i8/i16 comparison
    of the operands sign-extended to i32 (the same order and equality), or a
    bool mul/equal as logical ops; None when `op` is none of those. Built
    before `op`."""
    width = _integer_width(op.results[0])
    i32 = ir.IntegerType.get_signless(32)
    if op.name in _I32_ONLY and width in (8, 16):
        wide = _b.create(op.name, _b.retyped(op.results[0], i32), [_b.tosa_cast(v, i32) for v in op.operands])
        return _b.tosa_cast(wide, op.results[0].type.element_type)
    if op.name == "tosa.mul" and width in (8, 16):
        wide = _b.create(op.name, _b.retyped(op.results[0], i32), list(op.operands))
        return _b.tosa_cast(wide, op.results[0].type.element_type)
    if op.name in _COMPARISONS and _integer_width(op.operands[0]) in (8, 16):
        return _b.create(op.name, op.results[0].type, [_b.tosa_cast(v, i32) for v in op.operands])
    if op.name == "tosa.mul" and width == 1:
        return _b.create("tosa.logical_and", op.results[0].type, list(op.operands)[:2])
    if op.name == "tosa.equal" and _integer_width(op.operands[0]) == 1:
        differ = _b.create("tosa.logical_xor", op.results[0].type, list(op.operands))
        return _b.create("tosa.logical_not", op.results[0].type, [differ])
    return None


@register_pass(WIDEN_INT_ARITHMETIC,
               "Compute i8/i16 add, sub and mul in i32 and truncate back (the same wraparound; TOSA 1.0 adds only "
               "i32 and multiplies i8/i16 into i32), compare i8/i16 as i32 (TOSA 1.0 compares only i32), bool "
               "mul as logical_and and bool equal as not-xor")
def widen_int_arithmetic(module: ir.Operation, ctx: PassContext) -> None:
    _ir.replace_each(module, lambda op: op.name in ("tosa.add", "tosa.sub", "tosa.mul", *_COMPARISONS), _widen)
