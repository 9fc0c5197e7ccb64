"""`tosa-custom-narrow-i64-values`: i64 values whose range fits i32 become i32,
the program's int64 arguments and results included.

Strictly validated, TOSA 1.0 has no 64-bit integer at all (EXT-INT64 is in
the 1.1 draft), yet every transformer carries some: its `input_ids` and
`attention_mask` arrive as int64, torch-mlir builds causal masks and position
ids from i64 `arange` constants, subtracts and compares them. Their values
are token ids and positions. Where the IR proves a value fits i32
(tosa/ranges.py), it is computed in i32: the same integers, the same
comparisons, no wraparound, as no bound leaves i32.

An int64 argument is assumed to hold int32 values when the program only
moves, selects, compares, converts or gathers by it (input ids, attention
masks: an index or a mask), and every i64 value then derived from it narrows
too; the runtime checks that assumption at every call (an input outside int32
is refused, naming it). An argument the program computes with (arithmetic, a
reduction) or returns keeps eager's int64 range, as does one something
computed from it cannot narrow for (a `tosa.custom` operand, an op not
modelled): it stays int64 and the ranges are derived again without the
assumption. Narrowed arguments and results carry `tosa_custom.dtype = "int64"` (CONTRACT.md §13.4d): the
program still takes and returns int64, as eager does.

Values are decided in groups that must share a type: an elementwise,
reduction or data-movement op's i64 operands and results, a gather's table
and result, a select's branches. A cast's two sides, a gather's indices and a
function's arguments and results are decided apart. A group narrows when every
value in it is bounded within i32 on every element; a value any other op
touches (`tosa.custom`, a call, an op with i64 attributes other than clamp)
pins its group to i64.
"""

from __future__ import annotations

import numpy as np
from torch_mlir import ir

from ..core import attrs as _attrs
from ..core import ir as _ir
from ..core.passes import PassContext, register_pass
from ..weights.manifest import WEIGHT_ATTR
from .ranges import I32_RANGE, IntegerConstants, Ranges

__all__ = ["NARROW_I64_VALUES", "TypeGroups", "weight_arguments"]

NARROW_I64_VALUES = "tosa-custom-narrow-i64-values"

# Ops whose i64 operands and results share one type and which compute the
# same integers in i32 when no value leaves i32.
_UNIFORM = {"tosa.const", "tosa.identity", "tosa.reshape", "tosa.transpose", "tosa.slice", "tosa.tile",
            "tosa.concat", "tosa.pad", "tosa.reverse", "tosa.select", "tosa.add", "tosa.sub", "tosa.mul",
            "tosa.negate", "tosa.abs", "tosa.minimum", "tosa.maximum", "tosa.reduce_sum", "tosa.reduce_max",
            "tosa.reduce_min", "tosa.intdiv", "tosa.bitwise_and", "tosa.bitwise_or", "tosa.bitwise_xor",
            "tosa.equal", "tosa.greater", "tosa.greater_equal", "tosa.clamp"}
# The uniform ops that only move, select or compare values: an int64 input
# that reaches only these (and casts, and gather indices) is an index or a
# mask, which the program does not compute with.
_MOVES = {"tosa.const", "tosa.identity", "tosa.reshape", "tosa.transpose", "tosa.slice", "tosa.tile",
          "tosa.concat", "tosa.pad", "tosa.reverse", "tosa.select", "tosa.equal", "tosa.greater",
          "tosa.greater_equal", "tosa.gather"}
# Ops some of whose operands are decided apart (indices): the operand numbers tied to the results.
_TIED = {"tosa.gather": (0,), "tosa.scatter": (0, 2)}
# Ops whose every i64 value is decided apart.
_APART = {"tosa.cast", "func.return"}


def _i64(value: ir.Value) -> bool:
    t = value.type
    return isinstance(t, ir.RankedTensorType) and isinstance(t.element_type, ir.IntegerType) \
        and t.element_type.width == 64


class TypeGroups:
    """Union-find over values, the values pinned to i64, and the values
    computed with (arithmetic, or returned)."""

    def __init__(self):
        self.parent: dict = {}
        self.pinned: set = set()
        self.computed: set = set()

    def find(self, v):
        self.parent.setdefault(v, v)
        while self.parent[v] != v:
            self.parent[v] = self.parent[self.parent[v]]
            v = self.parent[v]
        return v

    def join(self, values: list) -> None:
        for a, b in zip(values, values[1:]):
            self.parent[self.find(a)] = self.find(b)

    def members(self) -> dict:
        found: dict = {}
        for v in list(self.parent):
            found.setdefault(self.find(v), []).append(v)
        return found


def weight_arguments(func: ir.Operation) -> set:
    """The arguments that are weights (CONTRACT.md §10): their dtype is the checkpoint's, never narrowed."""
    if "arg_attrs" not in func.attributes:
        return set()
    args = func.regions[0].blocks[0].arguments
    return {args[i] for i, attrs in enumerate(ir.ArrayAttr(func.attributes["arg_attrs"]))
            if WEIGHT_ATTR in ir.DictAttr(attrs)}


def _group(func: ir.Operation, weights: set) -> TypeGroups:
    groups = TypeGroups()
    for arg in func.regions[0].blocks[0].arguments:
        if _i64(arg):
            groups.find(arg)
    groups.pinned |= weights
    for op in _ir.collect_ops(func, lambda o: o.name != "func.func"):
        operands = [v for v in op.operands if _i64(v)]
        results = [v for v in op.results if _i64(v)]
        if not operands and not results:
            continue
        if op.name not in _MOVES and op.name != "tosa.cast":
            groups.computed.update(operands + results)
        if op.name in _UNIFORM:
            groups.join(operands + results)
        elif op.name in _TIED:
            groups.join([op.operands[i] for i in _TIED[op.name] if _i64(op.operands[i])] + results)
            for v in operands + results:
                groups.find(v)
        elif op.name in _APART:
            for v in operands + results:
                groups.find(v)
        else:
            groups.pinned.update(operands + results)
    return groups


def _constant_per_use(func: ir.Operation) -> None:
    """An i64 constant several ops read becomes one constant per reader, so
    that sharing a literal (a padding index compared with the ids and added
    to positions) does not tie the types of unrelated values."""
    for op in _ir.collect_ops(func, lambda o: o.name == "tosa.const" and _i64(o.results[0])):
        uses = [(use.owner, use.operand_number) for use in op.results[0].uses]
        for owner, index in uses[1:]:
            clone = op.clone(ip=ir.InsertionPoint(owner))
            owner.operands[index] = clone.results[0]


def _narrowable(func: ir.Operation, constants: IntegerConstants, assumed: set, weights: set
                ) -> tuple[list, set]:
    """The values to narrow, and the assumed arguments whose group cannot."""
    ranges = Ranges(constants.values, {a: I32_RANGE for a in assumed})
    groups = _group(func, weights)
    chosen, refused = [], set()
    for members in groups.members().values():
        inputs = [v for v in members if v in assumed]
        # An input the program computes with or returns keeps int64's range, as eager has it.
        computes = inputs and any(v in groups.computed for v in members)
        if not computes and not any(v in groups.pinned for v in members) and all(
                ranges.fits_read(v, *I32_RANGE) for v in members):
            chosen += members
        else:
            refused.update(inputs)
    return chosen, refused


def _as_i32(t: ir.Type) -> ir.Type:
    return ir.RankedTensorType.get(ir.RankedTensorType(t).shape, ir.IntegerType.get_signless(32))


def _narrow_constant(op: ir.Operation, constants: IntegerConstants) -> None:
    values = constants.values(op.results[0])
    shape = ir.RankedTensorType(op.results[0].type).shape
    data = np.asarray(values, dtype=np.int64).reshape(shape).astype(np.int32)
    op.attributes["values"] = ir.DenseElementsAttr.get(data, type=_as_i32(op.results[0].type))


def _narrow_clamp(op: ir.Operation) -> None:
    """A clamp whose values were retyped: its bounds as i32 (clipped; every value it sees fits)."""
    i32 = ir.IntegerType.get_signless(32)
    for key in ("min_val", "max_val"):
        value = int(np.clip(ir.IntegerAttr(op.attributes[key]).value, *I32_RANGE))
        op.attributes[key] = ir.IntegerAttr.get(i32, value)


def _drop_no_op_casts(func: ir.Operation) -> None:
    for cast in _ir.collect_ops(func, lambda o: o.name == "tosa.cast" and o.operands[0].type == o.results[0].type):
        cast.results[0].replace_all_uses_with(cast.operands[0])
        cast.erase()


def _retype_signature(func: ir.Operation) -> None:
    """The function's types from its block and return; the narrowed ones marked int64."""
    block = func.regions[0].blocks[0]
    ftype = _ir.function_type(func)
    inputs = [a.type for a in block.arguments]
    returned = [op for op in block.operations if op.operation.name == "func.return"][0].operation
    results = [v.type for v in returned.operands]
    marks = {_attrs.DTYPE: "int64"}
    _ir.add_signature_attrs(func, "arg_attrs", len(inputs),
                            {i: marks for i, (old, new) in enumerate(zip(ftype.inputs, inputs)) if old != new})
    _ir.add_signature_attrs(func, "res_attrs", len(results),
                            {i: marks for i, (old, new) in enumerate(zip(ftype.results, results)) if old != new})
    _ir.set_function_type(func, inputs, results)


@register_pass(NARROW_I64_VALUES,
               "Compute i64 values in i32 where the ranges derived in the IR prove they fit, the entry's int64 "
               "arguments and results included (marked tosa_custom.dtype = \"int64\"; the runtime refuses inputs "
               "outside int32) when everything computed from them narrows too (TOSA 1.0 has no 64-bit integers)")
def narrow_i64_values(module: ir.Operation, ctx: PassContext) -> None:
    constants = IntegerConstants(module)
    for func in _ir.public_functions(module):
        block = func.regions[0].blocks[0]
        _constant_per_use(func)
        weights = weight_arguments(func)
        assumed = {a for a in block.arguments if _i64(a)} - weights
        while True:
            chosen, refused = _narrowable(func, constants, assumed, weights)
            if not refused:
                break
            assumed -= refused
        if chosen:
            with func.location:
                _narrow(func, chosen, constants)


def _narrow(func: ir.Operation, chosen: list, constants: IntegerConstants) -> None:
    owners = [v.owner.operation for v in chosen if not isinstance(v.owner, ir.Block)]
    for op in owners:  # constants read before any type changes
        if op.name == "tosa.const":
            _narrow_constant(op, constants)
    for value in chosen:
        value.set_type(_as_i32(value.type))
    for op in owners:
        if op.name == "tosa.clamp":
            _narrow_clamp(op)
    _drop_no_op_casts(func)
    _retype_signature(func)
