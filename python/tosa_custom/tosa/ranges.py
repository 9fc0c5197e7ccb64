"""Value ranges derived in the TOSA IR, per element, for the narrowing passes.

torch-mlir computes positions in i64 (and in f32 before casting them to
i64): RoBERTa's position ids are a cumsum of a 0/1 mask, OPT's a cumsum of
ones minus one, T5's relative position buckets an `arange` difference through
`abs` and a `log`. TOSA 1.0 casts no i64 to or from a float and gathers no
i64, yet those values are bounded by the sequence length. `Ranges` bounds
each element of a value from what the IR says: constants, ops that move values
(reshape, slice, tile, pad, ...), integer and float arithmetic (interval
arithmetic; float bounds widened by a margin for rounding and for the
accuracy of `log`/`exp`), comparisons, selects, casts. An argument, a
`tosa.custom` result or an op not modelled is unbounded (an argument may be
given a range its caller guarantees: `tosa-custom-narrow-i64-values`), so nothing computed
from it is narrowed. Integer arithmetic whose bounds leave its type wraps:
unbounded too.

`demanded` says which elements of a value anything reads: a `tosa.select`
reads its second operand only where its condition may be true. T5 casts
`log(0) = -inf` to i64 on the diagonal, then selects it away: the cast's
elements that matter are bounded although that one is not.

Bounds are float64 arrays of the value's static shape (lo, hi). A value with
a dynamic shape or more than `_MAX_ELEMENTS` elements has uniform bounds:
0-d arrays every element is within, the hull of what its operands' bounds
allow. On `?` dims positions are still bounded so: OPT's cumsum of ones is a
log-step scan of pads and adds (each doubling the bound) over a sequence no
longer than the position table, an `arange` a slice of a constant range.
"""

from __future__ import annotations

import math

import numpy as np
from torch_mlir import ir

from ..core import dtypes as _dtypes
from ..core.ir import defining_op
from ..weights.blobs import ResourceBlobs, resource_key

__all__ = ["I32_RANGE", "IntegerConstants", "Ranges", "fits", "type_range", "is_zero"]

I32_RANGE = (float(np.iinfo(np.int32).min), float(np.iinfo(np.int32).max))


class IntegerConstants:
    """The values of integer `tosa.const` ops, `dense_resource` blobs included
    (read through `ResourceBlobs`)."""

    def __init__(self, module: ir.Operation):
        self._blobs = ResourceBlobs(module)

    def values(self, value: ir.Value) -> np.ndarray | None:
        owner = value.owner
        if isinstance(owner, ir.Block) or owner.operation.name != "tosa.const":
            return None  # computed at run time: its range is not known here
        attr = owner.operation.attributes["values"]
        if isinstance(attr, ir.DenseIntElementsAttr):
            return np.array(attr)
        key = resource_key(attr)
        if key is None:
            return None
        data = self._blobs.get(key)
        ty = ir.RankedTensorType(value.type)
        dtype = _dtypes.by_element(str(ty.element_type))
        if data is None or dtype is None or not ty.has_static_shape:
            return None
        array = np.frombuffer(data, dtype=dtype.numpy)  # the blob holds the const's element type
        return array if array.size == math.prod(ty.shape) else None


_MAX_ELEMENTS = 1 << 16
# Relative and absolute widening of float bounds: f32 rounds each op by 2^-24
# relative; transcendental ops may be a few ulp off; 1e-5 covers both.
_REL, _ABS = 1e-5, 1e-30
_MOVES = {"tosa.reshape", "tosa.transpose", "tosa.slice", "tosa.tile", "tosa.identity"}
_EXACT_UNARY = {"tosa.floor": np.floor, "tosa.ceil": np.ceil}
_MONOTONE = {"tosa.exp": np.exp, "tosa.log": np.log}
# Ops whose result element i reads only operand element i (after broadcasting).
ELEMENTWISE = {"tosa.cast", "tosa.add", "tosa.sub", "tosa.mul", "tosa.abs", "tosa.negate", "tosa.minimum",
               "tosa.maximum", "tosa.floor", "tosa.ceil", "tosa.exp", "tosa.log", "tosa.clamp", "tosa.select",
               "tosa.greater", "tosa.greater_equal", "tosa.equal", "tosa.logical_not", "tosa.logical_and",
               "tosa.logical_or", "tosa.identity"}

Bounds = "tuple[np.ndarray, np.ndarray] | None"


def _shape(value: ir.Value) -> tuple[int, ...] | None:
    """The static shape bounds are kept per element for, else None."""
    t = value.type
    if not isinstance(t, ir.RankedTensorType) or not t.has_static_shape:
        return None
    shape = tuple(t.shape)
    return shape if int(np.prod(shape, dtype=np.int64)) <= _MAX_ELEMENTS else None


def type_range(value: ir.Value) -> tuple[float, float]:
    """What `value`'s element type holds (a float type: everything)."""
    element = ir.RankedTensorType(value.type).element_type if isinstance(value.type, ir.ShapedType) else None
    if isinstance(element, ir.IntegerType):
        if element.width == 1:
            return 0.0, 1.0
        return -2.0 ** (element.width - 1), 2.0 ** (element.width - 1) - 1
    return -np.inf, np.inf


def _uniform(value: ir.Value) -> bool:
    """A tensor whose bounds are uniform (see the module's docstring)."""
    return isinstance(value.type, ir.RankedTensorType) and _shape(value) is None


def _hull(bounds: Bounds) -> Bounds:
    return None if bounds is None else (np.min(bounds[0]), np.max(bounds[1]))


def _is_int(value: ir.Value) -> bool:
    return isinstance(ir.RankedTensorType(value.type).element_type, ir.IntegerType)


def fits(bounds: Bounds, low: float, high: float, where: np.ndarray | None = None) -> bool:
    """Every element (where `where`, if given) is within [low, high]."""
    if bounds is None:
        return False
    lo, hi = bounds
    if where is not None:
        lo, hi = lo[where], hi[where]
    return bool(np.all(lo >= low) and np.all(hi <= high))


def _widen(lo: np.ndarray, hi: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    return lo - np.abs(lo) * _REL - _ABS, hi + np.abs(hi) * _REL + _ABS


def _shape_values(value: ir.Value) -> list[int] | None:
    owner = value.owner
    if isinstance(owner, ir.Block) or owner.operation.name != "tosa.const_shape":
        return None
    attr = owner.operation.attributes["values"]
    return [attr[i] for i in range(len(attr))]


def _move(op: ir.Operation, lo: np.ndarray, hi: np.ndarray, shape) -> Bounds:
    """The bounds of a move's result: its operand's elements, moved."""
    name = op.name
    if name in ("tosa.reshape", "tosa.identity"):
        return lo.reshape(shape), hi.reshape(shape)
    if name == "tosa.transpose":
        perms = list(op.attributes["perms"])
        return lo.transpose(perms), hi.transpose(perms)
    if name == "tosa.tile":
        multiples = _shape_values(op.operands[1])
        return None if multiples is None else (np.tile(lo, multiples), np.tile(hi, multiples))
    start, size = _shape_values(op.operands[1]), _shape_values(op.operands[2])
    if start is None or size is None:
        return None
    index = tuple(slice(s, s + n) for s, n in zip(start, size))
    return lo[index], hi[index]


def _nan_unbounded(lo: np.ndarray, hi: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    nan = np.isnan(lo) | np.isnan(hi)
    return np.where(nan, -np.inf, lo), np.where(nan, np.inf, hi)


def _binary(name: str, a, b) -> tuple[np.ndarray, np.ndarray]:
    (alo, ahi), (blo, bhi) = a, b
    if name == "tosa.add":
        return alo + blo, ahi + bhi
    if name == "tosa.sub":
        return alo - bhi, ahi - blo
    if name == "tosa.mul":
        corners = np.stack(np.broadcast_arrays(alo * blo, alo * bhi, ahi * blo, ahi * bhi))
        return corners.min(0), corners.max(0)
    if name == "tosa.minimum":
        return np.minimum(alo, blo), np.minimum(ahi, bhi)
    return np.maximum(alo, blo), np.maximum(ahi, bhi)


def _compare(name: str, a, b) -> tuple[np.ndarray, np.ndarray]:
    """i1 bounds: 1 where certainly true, 0 where certainly false, else [0, 1]."""
    (alo, ahi), (blo, bhi) = a, b
    if name == "tosa.greater":
        true, false = alo > bhi, ahi <= blo
    elif name == "tosa.greater_equal":
        true, false = alo >= bhi, ahi < blo
    else:  # tosa.equal
        true, false = (alo == ahi) & (blo == bhi) & (alo == blo), (ahi < blo) | (bhi < alo)
    return true.astype(np.float64), 1.0 - false.astype(np.float64)


def _select(c, a, b) -> tuple[np.ndarray, np.ndarray]:
    (clo, chi), (alo, ahi), (blo, bhi) = c, a, b
    true, false = clo >= 1, chi <= 0
    lo = np.where(true, alo, np.where(false, blo, np.minimum(alo, blo)))
    hi = np.where(true, ahi, np.where(false, bhi, np.maximum(ahi, bhi)))
    return lo, hi


def _abs(lo: np.ndarray, hi: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    low = np.where(lo >= 0, lo, np.where(hi <= 0, -hi, 0.0))
    return low, np.maximum(np.abs(lo), np.abs(hi))


def _cast(op: ir.Operation, lo: np.ndarray, hi: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """TOSA's cast. To an integer: rounded, so bounded outward by floor and
    ceil (an element that may leave the target type is unbounded by
    `_in_type`: saturation or truncation, whichever the backend does); to
    bool: 0 only where certainly 0. To a float: widened for the rounding
    (f16 and bf16 keep 11 and 8 bits), f16's overflow to infinity included."""
    element = ir.RankedTensorType(op.results[0].type).element_type
    if isinstance(element, ir.IntegerType) and element.width == 1:
        zero = (lo == 0) & (hi == 0)
        return np.where((lo > 0) | (hi < 0), 1.0, 0.0), np.where(zero, 0.0, 1.0)
    if isinstance(element, ir.IntegerType):
        return np.floor(lo), np.ceil(hi)
    if isinstance(element, (ir.F16Type, ir.BF16Type)):
        lo, hi = lo - np.abs(lo) * 1e-2, hi + np.abs(hi) * 1e-2
        if isinstance(element, ir.F16Type):
            lo, hi = np.where(lo < -65504, -np.inf, lo), np.where(hi > 65504, np.inf, hi)
        return lo, hi
    return _widen(lo, hi)


def is_zero(bounds: Bounds) -> bool:
    """Every element is known to be 0."""
    return bounds is not None and bool(np.all(bounds[0] == 0) and np.all(bounds[1] == 0))


def _scalar(bounds: Bounds) -> tuple[float, float] | None:
    return None if bounds is None else (float(bounds[0].min()), float(bounds[1].max()))


def _transfer(op: ir.Operation, args: list, shape) -> Bounds:
    """The bounds of `op`'s (single) result from its operands' bounds `args`."""
    name, first = op.name, args[0] if args else None
    if name in _MOVES:
        return None if first is None else _move(op, *first, shape)
    if name in ("tosa.add", "tosa.sub", "tosa.mul", "tosa.minimum", "tosa.maximum"):
        shifted = name == "tosa.mul" and _is_int(op.results[0]) and not is_zero(args[2])
        if args[0] is None or args[1] is None or shifted:
            return None  # an integer mul with a shift rounds: not modelled
        lo, hi = _binary(name, args[0], args[1])
        return _widen(lo, hi) if name in ("tosa.add", "tosa.sub", "tosa.mul") and not _is_int(op.results[0]) \
            else (lo, hi)
    if name in ("tosa.greater", "tosa.greater_equal", "tosa.equal"):
        return None if None in args[:2] else _compare(name, args[0], args[1])
    if first is None:
        return None
    if name == "tosa.select":
        return None if None in args[:3] else _select(*args[:3])
    if name == "tosa.cast":
        return _cast(op, *first)
    if name == "tosa.abs":
        return _abs(*first)
    if name == "tosa.negate":
        return (-first[1], -first[0]) if all(is_zero(a) for a in args[1:]) else None
    if name in _EXACT_UNARY:
        return _EXACT_UNARY[name](first[0]), _EXACT_UNARY[name](first[1])
    if name in _MONOTONE:  # log of a negative is NaN: unbounded there (by _nan_unbounded)
        return _widen(_MONOTONE[name](first[0]), _MONOTONE[name](first[1]))
    if name == "tosa.logical_not":
        return 1.0 - first[1], 1.0 - first[0]
    return _other(op, args, shape)


def _other(op: ir.Operation, args: list, shape) -> Bounds:
    """Clamp, pad, concat, reductions, argmax, scatter, gather: the rest `_transfer` models."""
    name, (lo, hi) = op.name, args[0]
    if name == "tosa.clamp":
        low, high = op.attributes["min_val"].value, op.attributes["max_val"].value
        return np.clip(lo, low, high), np.clip(hi, low, high)
    if name == "tosa.pad":
        padding, pad = _shape_values(op.operands[1]), _scalar(args[2])
        if padding is None or pad is None:
            return None
        pairs = list(zip(padding[::2], padding[1::2]))
        return np.pad(lo, pairs, constant_values=pad[0]), np.pad(hi, pairs, constant_values=pad[1])
    if name == "tosa.concat":
        if any(a is None for a in args):
            return None
        axis = op.attributes["axis"].value
        return np.concatenate([a[0] for a in args], axis), np.concatenate([a[1] for a in args], axis)
    if name in ("tosa.reduce_max", "tosa.reduce_min") or (name == "tosa.reduce_sum" and _is_int(op.results[0])):
        axis = op.attributes["axis"].value
        reduce = {"tosa.reduce_max": np.max, "tosa.reduce_min": np.min, "tosa.reduce_sum": np.sum}[name]
        return reduce(lo, axis=axis, keepdims=True), reduce(hi, axis=axis, keepdims=True)
    if name == "tosa.argmax":  # an index along the axis
        axis = op.attributes["axis"].value
        return np.zeros(shape), np.full(shape, float(lo.shape[axis] - 1))
    if name == "tosa.scatter":  # the values in, some replaced by the input's
        low, high = np.minimum(lo.min(), args[2][0].min()), np.maximum(hi.max(), args[2][1].max())
        return np.full(shape, low), np.full(shape, high)
    if name == "tosa.gather":  # any row of the table, per batch and channel
        return (np.broadcast_to(lo.min(axis=1, keepdims=True), shape),
                np.broadcast_to(hi.max(axis=1, keepdims=True), shape))
    return None


def _uniform_transfer(op: ir.Operation, args: list) -> Bounds:
    """Uniform bounds of `op`'s result from its operands' hulls `args`."""
    name, first = op.name, args[0] if args else None
    if name in ELEMENTWISE:
        return _transfer(op, args, ())
    data = {"tosa.pad": args[:1] + args[2:3], "tosa.scatter": args[:1] + args[2:3], "tosa.concat": args}.get(
        name, args[:1] if name in _MOVES or name in ("tosa.reduce_max", "tosa.reduce_min", "tosa.gather") else None)
    if name == "tosa.reduce_sum" and _is_int(op.results[0]) and first is not None:
        terms = ir.RankedTensorType(op.operands[0].type).shape[op.attributes["axis"].value]
        return (None if ir.ShapedType.is_dynamic_size(terms)  # a ? axis: as long as the axis, unknown here
                else (first[0] * terms, first[1] * terms))
    if data is None or any(a is None for a in data):
        return None
    return min(a[0] for a in data), max(a[1] for a in data)


class Ranges:
    """Per-element bounds and demanded elements of values, computed on demand
    and kept (the IR must not change while one `Ranges` is used).
    `constants(value)` reads an integer `tosa.const` (dense or resource)."""

    def __init__(self, constants, arguments: "dict | None" = None, guarded: "dict | None" = None):
        self._constants = constants
        self._arguments = arguments or {}  # block argument -> (lo, hi) assumed for every element
        self._guarded = guarded or {}  # value -> (lo, hi) where read (see `fits_read`)
        self._tainted: set = set(self._guarded)
        self._bounds: dict = {}
        self._demand: dict = {}
        self._guards: dict = {}

    def fits_read(self, value: ir.Value, low: float, high: float, read: "ir.Value | None" = None) -> bool:
        """Every element of `value` that is read through `read` (itself by
        default) is within [low, high]: by `demanded` per element, and for
        uniform bounds under the guards of the selects that read it (T5's
        buckets on `?` dims: log(0) = -inf where `abs(i - j) < 2` picks the
        other branch)."""
        read = value if read is None else read
        if fits(self.bounds(value), low, high, where=self.demanded(read)):
            return True
        guards = _guards(self, read, self._guards)
        if not guards:
            return False
        hulls = {v: _hull(self.bounds(v)) or (lo, hi) for v, (lo, hi) in guards.items()}
        within = {v: (max(lo, float(hulls[v][0])), min(hi, float(hulls[v][1]))) for v, (lo, hi) in guards.items()}
        guarded = Ranges(self._constants, self._arguments, {**self._guarded, **within})
        return fits(guarded.bounds(value), low, high)

    def bounds(self, value: ir.Value) -> Bounds:
        """(lo, hi) arrays of `value`'s shape, or None when not bounded."""
        stack = [value]
        while stack:
            v = stack[-1]
            if v in self._bounds:
                stack.pop()
                continue
            op = None if isinstance(v.owner, ir.Block) else v.owner.operation
            missing = [o for o in (op.operands if op is not None and op.name != "tosa.const" else [])
                       if o not in self._bounds]
            if missing:
                stack += missing
                continue
            stack.pop()
            self._bounds[v] = self._compute(v, op)
        return self._bounds[value]

    def _compute(self, value: ir.Value, op) -> Bounds:
        if not isinstance(value.type, ir.RankedTensorType):
            return None  # a !tosa.shape: shape ops read it (_shape_values), not bounds
        shape = _shape(value)
        shape = () if shape is None else shape
        low, high = type_range(value)
        unbounded = (np.full(shape, low), np.full(shape, high))
        if op is None and value in self._arguments:
            low, high = self._arguments[value]
            return np.full(shape, float(low)), np.full(shape, float(high))
        if value in self._guarded:
            low, high = self._guarded[value]
            return np.full(shape, float(low)), np.full(shape, float(high))
        if op is None or len(op.results) != 1:
            return unbounded
        if any(o in self._tainted for o in op.operands):
            if op.name not in ELEMENTWISE:  # moved or reduced: its elements are not where the guard held
                return unbounded
            self._tainted.add(value)
        if op.name == "tosa.const":
            values = self._constant(value, op) if _shape(value) is not None else None
            return unbounded if values is None else _nan_unbounded(values, values)
        args = [self._bounds.get(o) for o in op.operands]
        uniform = any(_uniform(v) for v in [value, *op.operands])
        with np.errstate(all="ignore"):
            try:
                found = _uniform_transfer(op, [_hull(a) for a in args]) if uniform else _transfer(op, args, shape)
            except (ValueError, IndexError, TypeError, AttributeError, KeyError):  # IR of another form than modelled
                found = None
        if found is None:
            return unbounded
        lo, hi = _nan_unbounded(*(np.broadcast_to(b, shape).astype(np.float64) for b in found))
        wraps = (lo < low) | (hi > high)  # integers wrap; floats were widened to infinity already
        return np.where(wraps, low, lo), np.where(wraps, high, hi)

    def _constant(self, value: ir.Value, op: ir.Operation) -> np.ndarray | None:
        attr = op.attributes["values"]
        shape = _shape(value)
        try:
            if isinstance(attr, ir.DenseFPElementsAttr) and attr.is_splat:
                return np.full(shape, float(attr.get_splat_value().value))
            if isinstance(attr, ir.DenseElementsAttr):
                return np.broadcast_to(np.array(attr).astype(np.float64), shape).copy()
        except (TypeError, ValueError):  # an element type numpy does not read (i1 splats, bf16)
            return None
        element = ir.RankedTensorType(value.type).element_type
        values = self._constants(value) if isinstance(element, ir.IntegerType) and element.width == 64 else None
        return None if values is None else values.astype(np.float64).reshape(shape)

    def demanded(self, value: ir.Value) -> np.ndarray | None:
        """The elements of `value` anything reads (a bool array of its shape),
        or None for all of them: what reaches a function's result, a
        non-elementwise op or a big value is all read."""
        stack = [value]
        while stack:
            v = stack[-1]
            if v in self._demand:
                stack.pop()
                continue
            users = [use.owner for use in v.uses]
            missing = [r for user in users if _traced(user) for r in user.results if r not in self._demand]
            if missing:
                stack += missing
                continue
            stack.pop()
            self._demand[v] = self._reads(v)
        return self._demand[value]

    def _reads(self, value: ir.Value) -> np.ndarray | None:
        shape = _shape(value)
        if shape is None:
            return None
        read = np.zeros(shape, dtype=bool)
        for use in value.uses:
            part = self._read_by(use.owner, use.operand_number, shape) if _traced(use.owner) else None
            if part is None or part.shape != read.shape:
                return None
            read |= part
        return read

    def _read_by(self, user, index: int, shape) -> np.ndarray | None:
        """The elements of `user`'s operand `index` (of `shape`) it reads."""
        try:
            return self._operand_read(user.operation, index, shape)
        except (ValueError, IndexError, TypeError):  # IR of another form than modelled: all of it
            return None

    def _operand_read(self, user, index: int, shape) -> np.ndarray | None:
        result = self._demand.get(user.results[0])
        if result is None:  # all of the result is read
            result_shape = _shape(user.results[0])
            if result_shape is None:
                return None
            result = np.ones(result_shape, dtype=bool)
        if user.name == "tosa.reshape":
            return result.reshape(shape) if index == 0 else None
        if user.name == "tosa.transpose":
            return result.transpose(np.argsort(list(user.attributes["perms"])))
        if user.name == "tosa.select" and index in (1, 2):
            condition = self.bounds(user.operands[0])
            if condition is not None:  # the branch not taken is not read
                taken = condition[0] >= 1 if index == 2 else condition[1] <= 0
                result = result & ~np.broadcast_to(taken, result.shape)
        return _unbroadcast(result, shape)


def _guards(ranges: Ranges, value: ir.Value, memo: dict) -> dict:
    """value -> (lo, hi) that holds at every element of `value` anything
    reads: the conditions of the selects it reaches through elementwise ops
    (same-rank broadcasting keeps an element's position), else nothing."""
    if value in memo:
        return memo[value]
    found = None
    for use in value.uses:
        op = use.owner.operation
        if op.name not in ELEMENTWISE or len(op.results) != 1:
            found = {}
            break
        here = dict(_guards(ranges, op.results[0], memo))
        if op.name == "tosa.select" and use.operand_number in (1, 2) and op.operands[0] != value:
            guard = _condition(ranges, op.operands[0], use.operand_number == 1)
            if guard is not None:
                v, (lo, hi) = guard
                old = here.get(v, (-np.inf, np.inf))
                here[v] = (max(lo, old[0]), min(hi, old[1]))
        found = here if found is None else {v: (min(found[v][0], here[v][0]), max(found[v][1], here[v][1]))
                                             for v in found.keys() & here.keys()}
    memo[value] = found or {}
    return memo[value]


def _condition(ranges: Ranges, condition: ir.Value, taken: bool) -> "tuple[ir.Value, tuple] | None":
    """The range a comparison of a value with a constant gives that value
    where it is `taken` (true or false)."""
    op = defining_op(condition)
    if op is None or op.name not in ("tosa.greater", "tosa.greater_equal"):
        return None
    a, b = op.operands
    known = [_scalar(ranges.bounds(v)) for v in (a, b)]
    strict = (op.name == "tosa.greater") == taken  # a > b or, not taken, b > a
    if not taken:  # not (a > b) is b >= a; not (a >= b) is b > a
        a, b, known = b, a, known[::-1]
    step = 1.0 if _is_int(a) and strict else 0.0
    if known[1] is not None and known[1][0] == known[1][1]:  # a > K (or >=)
        return a, (known[1][0] + step, np.inf)
    if known[0] is not None and known[0][0] == known[0][1]:  # K > b
        return b, (-np.inf, known[0][0] - step)
    return None


def _traced(user) -> bool:
    """Demand is traced through single-result elementwise ops, reshapes and transposes."""
    op = user.operation
    return len(op.results) == 1 and (op.name in ELEMENTWISE or op.name in ("tosa.reshape", "tosa.transpose"))


def _unbroadcast(read: np.ndarray, shape) -> np.ndarray | None:
    """`read` (of a result's shape) as the elements of an operand of `shape`
    broadcast to it; None when the operand is not broadcast so (a shift, a zero point)."""
    if read.ndim != len(shape):
        return None
    for axis, (have, want) in enumerate(zip(read.shape, shape)):
        if want == 1 and have != 1:
            read = read.any(axis=axis, keepdims=True)
        elif want != have:
            return None
    return read
