"""`tosa-custom-integers-in-float`: a float program's small integers computed
in f32, so that the program is TOSA 1.0 `pro_fp` alone.

Strictly, pro_fp moves, compares, selects, reduces and gathers floats only:
an i32 reshape, slice, tile, concat, comparison, select or gather table needs
pro_int, which a float-only backend does not have. Every transformer has
them: position ids sliced from a buffer, masks compared from aranges,
torch-mlir's index arithmetic for advanced indexing, token ids reshaped for
the embedding gather, a bool mask gathered as i8. Their values are ids and
positions, far below 2^24, where f32 holds every integer exactly and
computes the same integers by data movement, comparison, selection, add,
sub, mul, negate, abs, min, max and sums. So a group of integer values that
must share a type (narrow_i64's grouping: an op's data operands and results;
a cast that cannot change a value joins its sides) is computed in f32 when

- every element of every value in it that is read is within ±2^24 by the
  ranges derived in the IR (tosa/ranges.py), a sum's terms included;
- every op in it has that exact f32 form (no intdiv, no bitwise op, no
  shifted mul), and
- some op in it needs pro_int (an i32 add, sub, mul or constant does not:
  those groups stay as they are).

A value made by anything else enters through a `tosa.cast` to f32 (an
argument, argmax, a cast from a float, a `tosa.custom` result; a bool cast to
an integer becomes `select(b, 1.0, 0.0)`), and leaves through a `tosa.cast`
back to its integer type for anything else that reads it (a gather's
indices, a `tosa.custom` operand, a result); a cast of it to a float reads the
f32 value, one to bool is `not(x == 0)`. pro_fp has all of these.

An argument a converted group's values are derived from is assumed to hold
values within ±2^24 (2^20 or 2^16 where a stride scales it) and is marked
`tosa_custom.range` (CONTRACT.md §13.4e):
the executors refuse an input outside it, naming it. The pass runs only on
a function that computes with floats (an integer program is pro_int anyway)
and only for a target without pro_int (its option `profiles`).
"""

from __future__ import annotations

import numpy as np
from torch_mlir import ir

from ..core import attrs as _attrs
from ..core import builders as _b
from ..core import ir as _ir
from ..core.passes import Option, PassContext, parse_names, register_pass
from .narrow_i64 import TypeGroups, weight_arguments
from .ranges import IntegerConstants, Ranges, is_zero, type_range

__all__ = ["INTEGERS_IN_FLOAT", "EXACT"]

INTEGERS_IN_FLOAT = "tosa-custom-integers-in-float"

# f32 holds every integer of at most 24 bits exactly (and 2^24 itself).
EXACT = 1 << 24
# The ranges assumed of an integer argument, widest first.
_ASSUMED = (EXACT, 1 << 20, 1 << 16)

# Ops with an exact f32 form on integers within ±2^24, by the operands that
# carry their data (the rest: shapes, a mul's shift), which share a type
# with the integer results (None: all of them).
_DATA = {"tosa.const": (), "tosa.identity": (0,), "tosa.reshape": (0,), "tosa.transpose": (0,),
         "tosa.slice": (0,), "tosa.tile": (0,), "tosa.concat": None, "tosa.reverse": (0,), "tosa.pad": (0, 2),
         "tosa.select": (1, 2), "tosa.add": (0, 1), "tosa.sub": (0, 1), "tosa.mul": (0, 1),
         "tosa.negate": (0, 1, 2), "tosa.abs": (0,), "tosa.minimum": (0, 1), "tosa.maximum": (0, 1),
         "tosa.reduce_sum": (0,), "tosa.reduce_max": (0,), "tosa.reduce_min": (0,), "tosa.equal": (0, 1),
         "tosa.greater": (0, 1), "tosa.greater_equal": (0, 1), "tosa.clamp": (0,), "tosa.gather": (0,),
         "tosa.scatter": (0, 2), "tosa.argmax": (0,)}
# Ops whose integer results are not their operands' type: argmax's index.
_RESULTS_APART = {"tosa.argmax"}
# Of those, what pro_fp takes on i32 as it is: a group of only these stays.
_PRO_FP = {"tosa.const", "tosa.identity", "tosa.add", "tosa.sub", "tosa.mul"}


def _integer(value: ir.Value) -> bool:
    """An integer tensor of 8 to 32 bits (i1 is pro_fp's bool; i64 is narrow_i64's)."""
    t = value.type
    return isinstance(t, ir.RankedTensorType) and isinstance(t.element_type, ir.IntegerType) \
        and 8 <= t.element_type.width <= 32


def _is_bool(value: ir.Value) -> bool:
    t = value.type
    return isinstance(t, ir.RankedTensorType) and isinstance(t.element_type, ir.IntegerType) \
        and t.element_type.width == 1


def _data(op: ir.Operation) -> list[ir.Value]:
    """The integer operands and results of a `_DATA` op that share its type."""
    return [op.operands[i] for i in _data_operands(op) if _integer(op.operands[i])] + \
        [r for r in op.results if _integer(r) and op.name not in _RESULTS_APART]


def _data_operands(op: ir.Operation) -> range | tuple:
    indices = _DATA.get(op.name, (0,))  # a joined cast: its operand
    return range(len(op.operands)) if indices is None else indices


def _joining_cast(op: ir.Operation, ranges: Ranges) -> bool:
    """An integer-to-integer cast that changes no value read."""
    source, result = op.operands[0], op.results[0]
    return _integer(source) and _integer(result) and \
        ranges.fits_read(source, *type_range(result))


class _Plan:
    """The groups of a function's integer values, and which of them go to f32."""

    def __init__(self, func: ir.Operation, ranges: Ranges, weights: set):
        self.ranges, self.groups, self.needs_int = ranges, TypeGroups(), set()
        for arg in func.regions[0].blocks[0].arguments:
            if _integer(arg):
                self.groups.find(arg)
        self.groups.pinned |= {w for w in weights if _integer(w)}
        for op in _ir.collect_ops(func, lambda o: o.name != "func.func"):
            self._visit(op)

    def _visit(self, op: ir.Operation) -> None:
        touched = [v for v in list(op.operands) + list(op.results) if _integer(v)]
        if not touched:
            return
        for v in touched:
            self.groups.find(v)
        if op.name in _DATA:
            data = _data(op)
            self.groups.join(data)
            if op.name == "tosa.mul" and not is_zero(self.ranges.bounds(op.operands[2])):
                self.groups.pinned.update(data)  # a shifted mul rounds
            if op.name not in _PRO_FP:
                self.needs_int.update(data)
        elif op.name == "tosa.cast":
            if _joining_cast(op, self.ranges):
                self.groups.join(touched)
            if not any(isinstance(t.type.element_type, ir.FloatType) for t in (op.operands[0], op.results[0])):
                self.needs_int.update(touched)  # i32 <-> i1, i8 <-> i32
        elif op.name in ("tosa.intdiv", "tosa.bitwise_and", "tosa.bitwise_or", "tosa.bitwise_xor",
                         "tosa.logical_left_shift", "tosa.logical_right_shift", "tosa.arithmetic_right_shift"):
            self.groups.pinned.update(touched)  # their values are not those of an f32 op

    def chosen(self) -> tuple[set, set]:
        """The values of the groups worth and safe to compute in f32, and
        those of the groups worth it that the ranges do not prove exact."""
        chosen: set = set()
        inexact: set = set()
        for members in self.groups.members().values():
            if any(v in self.groups.pinned for v in members) or not any(v in self.needs_int for v in members):
                continue
            (chosen if all(self._exact(v) for v in members) else inexact).update(members)
        return chosen, inexact

    def _exact(self, value: ir.Value) -> bool:
        if not self.ranges.fits_read(value, -EXACT, EXACT):
            return False
        op = _ir.defining_op(value)
        if op is not None and op.name == "tosa.reduce_sum":  # every partial sum too
            bounds = self.ranges.bounds(op.operands[0])
            axis = ir.IntegerAttr(op.attributes["axis"]).value
            if bounds is None:
                return False
            largest = np.maximum(np.abs(bounds[0]), np.abs(bounds[1]))
            if largest.ndim == 0:  # uniform bounds (ranges.py): the terms times their number, if known
                terms = ir.RankedTensorType(op.operands[0].type).shape[axis]
                return not ir.ShapedType.is_dynamic_size(terms) and bool(largest * terms <= EXACT)
            return bool(np.all(largest.sum(axis=axis) <= EXACT))
        return True


def _uses(value: ir.Value, inner: set) -> tuple[list, list]:
    """`value`'s uses (op, operand number): by converted ops, and by the rest."""
    uses = [(u.owner.operation, u.operand_number) for u in value.uses]
    return [u for u in uses if u in inner], [u for u in uses if u not in inner]


def _f32(t: ir.Type) -> ir.Type:
    return _b.retyped(t, ir.F32Type.get())


def _scalar_f32(value: float, rank: int) -> ir.Value:
    shape = [1] * rank
    return _b.tosa_const(ir.DenseElementsAttr.get(np.full(shape, value, dtype=np.float32)))


class _Rewrite:
    """Retypes the chosen values to f32 and puts casts where they meet the rest."""

    def __init__(self, chosen: set, constants: IntegerConstants):
        self.chosen, self.constants = chosen, constants
        self.original = {v: v.type for v in chosen}

    def run(self, func: ir.Operation) -> None:
        # Every use is classified before anything changes: an op's hash changes with its result types.
        converted = [op for op in _ir.collect_ops(func, lambda o: o.name in _DATA or o.name == "tosa.cast")
                     if self._converted(op)]
        inner = {(op, i) for op in converted for i in _data_operands(op)}
        made = [v for op in converted for v in op.results if v in self.chosen and op.name not in _RESULTS_APART]
        made_set = set(made)
        entering = [(v, _uses(v, inner)) for v in self.chosen if v not in made_set]
        exits = [(user, index, v) for v in made for user, index in _uses(v, inner)[1]]
        for op in converted:
            if op.name == "tosa.const":
                self._constant(op)
        for v in made:
            v.set_type(_f32(v.type))
        for op in converted:
            if op.name == "tosa.clamp":
                for key in ("min_val", "max_val"):
                    op.attributes[key] = ir.FloatAttr.get_f32(float(ir.IntegerAttr(op.attributes[key]).value))
        for v, (reads, others) in entering:
            exits += self._enter(v, reads, others)
        for user, index, v in exits:
            self._leave(user, index, v)
        for op in converted:  # a cast that changed no value, now from f32 to f32
            if op.name == "tosa.cast":
                op.results[0].replace_all_uses_with(op.operands[0])
                op.erase()

    def _converted(self, op: ir.Operation) -> bool:
        if op.name == "tosa.cast":  # joined: both sides chosen
            return op.operands[0] in self.chosen and op.results[0] in self.chosen
        return any(v in self.chosen for v in _data(op))

    def _constant(self, op: ir.Operation) -> None:
        attr = op.attributes["values"]
        shape = ir.RankedTensorType(op.results[0].type).shape
        if isinstance(attr, ir.DenseIntElementsAttr):
            values = np.array(attr)
            values = np.full(shape, values.reshape(-1)[0]) if attr.is_splat else values
        else:
            values = self.constants.values(op.results[0])
        data = np.asarray(values, dtype=np.float32).reshape(shape)
        op.attributes["values"] = ir.DenseElementsAttr.get(data, type=ir.F32Type.get())

    def _enter(self, value: ir.Value, reads: list, others: list) -> list:
        """An integer value made elsewhere, as f32 for the converted ops that
        read it (`reads`). A bool cast to an integer is replaced (pro_fp has
        no such cast): its `others` readers, and the casts to bool among
        another value's, are returned to read the f32 value as they read a
        converted one."""
        op = _ir.defining_op(value)
        bool_cast = op is not None and op.name == "tosa.cast" and _is_bool(op.operands[0])
        point = ir.InsertionPoint(value.owner.operations[0]) if op is None else ir.InsertionPoint.after(op)
        with point, (op.location if op is not None else ir.Location.unknown()):
            if bool_cast:
                rank = len(ir.RankedTensorType(value.type).shape)
                entered = _b.create("tosa.select", _f32(value.type),
                                    [op.operands[0], _scalar_f32(1.0, rank), _scalar_f32(0.0, rank)])
            else:
                entered = _b.tosa_cast(value, ir.F32Type.get())
        self.original[entered] = value.type
        # Its casts to bool read the f32 value (pro_fp casts no integer to bool), as all do a replaced cast's.
        moved = others if bool_cast else [(u, i) for u, i in others if u.name == "tosa.cast" and _is_bool(u.results[0])]
        for user, index in reads + moved:
            user.operands[index] = entered
        if bool_cast:
            op.erase()
        return [(user, index, entered) for user, index in moved]

    def _leave(self, user: ir.Operation, index: int, value: ir.Value) -> None:
        """`user` reads a value now f32: as the integer it was, or its cast directly."""
        original = self.original[value]
        with ir.InsertionPoint(user), user.location:
            if user.name == "tosa.cast" and user.results[0] not in self.chosen:
                target = ir.RankedTensorType(user.results[0].type).element_type
                if isinstance(target, ir.FloatType) and target != ir.F32Type.get():
                    return  # f16, bf16 from the f32 value
                if isinstance(target, ir.FloatType):
                    user.results[0].replace_all_uses_with(value)
                    user.erase()
                    return
                if _is_bool(user.results[0]):
                    rank = len(ir.RankedTensorType(value.type).shape)
                    equal = _b.create("tosa.equal", _b.retyped(value, target), [value, _scalar_f32(0.0, rank)])
                    user.results[0].replace_all_uses_with(
                        _b.create("tosa.logical_not", user.results[0].type, [equal]))
                    user.erase()
                    return
            user.operands[index] = _b.tosa_cast(value, original)


def _derived_from(values: set, assumed: dict) -> list:
    """The assumed arguments `values` are computed from."""
    seen, stack, found = set(), list(values), []
    while stack:
        v = stack.pop()
        if v in seen:
            continue
        seen.add(v)
        op = _ir.defining_op(v)
        if op is None:
            if v in assumed:
                found.append(v)
            continue
        stack.extend(op.operands)
    return found


def _mark_arguments(func: ir.Operation, chosen: set, assumed: dict) -> None:
    """Mark the arguments the chosen values are derived from with the range assumed of them."""
    block = func.regions[0].blocks[0]
    marks = {ir.BlockArgument(a).arg_number: {_attrs.RANGE: ir.DenseI64ArrayAttr.get(list(assumed[a]))}
             for a in _derived_from(chosen, assumed)}
    _ir.add_signature_attrs(func, "arg_attrs", len(block.arguments), marks)


def _choose(func: ir.Operation, constants: IntegerConstants) -> tuple[set, dict]:
    """The values to compute in f32, and the range assumed of each integer
    argument: 2^24 first; an argument a group is derived from that is not
    proven exact (an index scaled by a stride) is assumed smaller, down to
    2^16 (indices of tensors that size; the executors check it)."""
    weights = weight_arguments(func)
    level = {a: 0 for a in func.regions[0].blocks[0].arguments if _integer(a) and a not in weights}
    while True:
        assumed = {a: (-_ASSUMED[i], _ASSUMED[i]) for a, i in level.items()}
        chosen, inexact = _Plan(func, Ranges(constants.values, assumed), weights).chosen()
        lower = [a for a in dict.fromkeys(_derived_from(inexact, assumed)) if level[a] + 1 < len(_ASSUMED)]
        if not lower:
            return chosen, assumed
        for a in lower:
            level[a] += 1


def _computes_with_floats(func: ir.Operation) -> bool:
    """Any float tensor in it, an argument's included: the program needs pro_fp anyway."""
    def floats(values) -> bool:
        return any(isinstance(v.type, ir.ShapedType) and isinstance(v.type.element_type, ir.FloatType)
                   for v in values)
    return floats(func.regions[0].blocks[0].arguments) or bool(_ir.collect_ops(func, lambda o: floats(o.results)))


@register_pass(INTEGERS_IN_FLOAT,
               "Compute a float program's integer values in f32 where the ranges derived in the IR bound them "
               "within 2^24 and some op on them needs pro_int (TOSA 1.0 pro_fp moves and compares floats only); "
               "arguments they derive from are marked tosa_custom.range",
               options=(Option("profiles", "the target's profiles: nothing is done when they include pro_int",
                               ("pro_fp",), parse_names, metavar="pro_int,pro_fp"),))
def integers_in_float(module: ir.Operation, ctx: PassContext | None = None) -> None:
    profiles = ctx.options.profiles if ctx is not None else ("pro_fp",)
    if "pro_int" in profiles:
        return
    constants = IntegerConstants(module)
    for func in _ir.public_functions(module):
        if not _computes_with_floats(func):
            continue
        chosen, assumed = _choose(func, constants)
        if chosen:
            _mark_arguments(func, chosen, assumed)
            with func.location:
                _Rewrite(chosen, constants).run(func)
