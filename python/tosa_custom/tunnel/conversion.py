"""The `convert-torch-backend-legal-to-tosa-custom` pass.

Runs on torch-dialect IR at the backend contract and turns every selected op
into exactly one `tosa.custom`, encoded as CONTRACT.md says (see contract.py).
An op that the contract cannot carry is left for TorchToTosa, with a warning on
its location naming the reason (an error when `strict`), never a crash.
"""

from __future__ import annotations

import dataclasses
import functools
import warnings
from typing import Any

import numpy as np
import torch
from torch_mlir import ir

from ..core import ir as _ir  # (importing it also installs the torch_c stand-in module)
from ..contract import encoding as _c
from ..core import dtypes as _dtypes
from ..core import schema as _schema
from ..core.diagnostics import DiagnosticLog
from ..core.passes import Option, PassContext, lookup_pass, parse_flag, register_pass

__all__ = [
    "PASS_ARGUMENT",
    "TENSORIZE_SCALAR_BOUNDARY",
    "TENSORIZE_BUILTIN_SCALAR_BOUNDARY",
    "PassOptions",
    "ConversionFailed",
    "ConversionResult",
    "Site",
    "Skipped",
    "SKIP_CATEGORIES",
    "tensorize_builtin_scalar_boundary",
    "tensorize_scalar_boundary",
    "constant_list",
    "convert_module",
]

PASS_ARGUMENT = "convert-torch-backend-legal-to-tosa-custom"
# Auto mode (auto.py) marks the op instances it tunnels with their category and
# reason; the tosa.custom it makes keeps the category (CONTRACT.md 7.1).
MARK = "tosa_custom.tunnel"
MARK_REASON = "tosa_custom.tunnel_reason"
TUNNELED = "tosa_custom.tunneled"
USER_LISTED = "user-listed"
TENSORIZE_SCALAR_BOUNDARY = "tosa-custom-tensorize-scalar-boundary"
TENSORIZE_BUILTIN_SCALAR_BOUNDARY = "tosa-custom-tensorize-builtin-scalar-boundary"


# Why a selected op was left unconverted: a fixed set, documented in CONTRACT.md.
SKIP_CATEGORIES = {
    "unknown-op": "the op has no schema in torch.ops, so its arguments cannot be named",
    "mutating-op": "the op writes to one of its operands (TOSA values are immutable)",
    "generator-operand": "a torch.Generator is random-number state, not a value",
    "non-tensor-result": "a result is neither a tensor, a number nor an unpacked list of tensors (e.g. an int[])",
    "list-result": "a result is a list of tensors used other than by prim.ListUnpack, so its length is not known",
    "unsupported-argument-type": "the schema has an argument type the contract does not cover",
    "non-constant-argument": "a string, dtype, device, layout or memory format is not a constant",
    "unsupported-tensor-type": "an operand or result is not a ranked value tensor TOSA can type",
    "zero-size-tensor": "a zero-size operand or result has dynamic dimensions, so its shape cannot be written",
}


# --------------------------------------------------------------------------
# Options.
# --------------------------------------------------------------------------


@dataclasses.dataclass
class PassOptions:
    ops: _schema.OpSelection = dataclasses.field(default_factory=_schema.OpSelection)
    encoding: str = "json"
    strict: bool = False

    def __post_init__(self) -> None:
        if not isinstance(self.ops, _schema.OpSelection):
            self.ops = _schema.OpSelection(self.ops)
        if self.encoding not in _c.ENCODINGS:
            raise ValueError(
                f"unknown encoding '{self.encoding}': expected one of {', '.join(_c.ENCODINGS)}"
            )

    @staticmethod
    def parse(text: str) -> "PassOptions":
        """Parse MLIR pass-option syntax: `ops=a,b encoding=const strict=true`."""
        return PassOptions.of(lookup_pass(PASS_ARGUMENT).parse_options(text))

    @staticmethod
    def of(parsed) -> "PassOptions":
        return PassOptions(ops=parsed.ops, encoding=parsed.encoding, strict=parsed.strict)


@dataclasses.dataclass(frozen=True)
class Skipped:
    identifier: str
    category: str
    message: str
    location: str


@dataclasses.dataclass(frozen=True)
class Site:
    """One op instance made a tosa.custom, and why (a category of auto.CATEGORIES)."""

    identifier: str
    category: str
    location: str
    reason: str


@dataclasses.dataclass
class ConversionResult:
    converted: dict[str, int] = dataclasses.field(default_factory=dict)
    skipped: list[Skipped] = dataclasses.field(default_factory=list)
    sites: list[Site] = dataclasses.field(default_factory=list)
    # Auto mode: a copy of the module before this pass, converted as this run
    # converted it and lowered by pipelines.after_tunnel() (auto.Selection).
    lowered: Any = None
    lowered_log: DiagnosticLog | None = None
    lowered_target: Any = None  # the TosaTarget `lowered` was validated against and carries, if any


class _Unrepresentable(Exception):
    def __init__(self, category: str, message: str):
        assert category in SKIP_CATEGORIES, category
        super().__init__(message)
        self.category = category


# --------------------------------------------------------------------------
# Types.
# --------------------------------------------------------------------------

# Tensors TOSA cannot type travel as another tensor (CONTRACT.md 3.5; the
# `carrier` column of dtypes.py): uint8 as its int8 bits (torch-mlir's TOSA
# lowering types ui8 as i8 and has no cast between them), complex as
# view_as_real's float tensor with a trailing 2.


@dataclasses.dataclass(frozen=True)
class _TensorType:
    """How one torch tensor type reaches the custom op."""

    builtin: ir.Type | None  # None: zero-size, not carried (CONTRACT.md 3.4)
    carried: str | None  # the torch dtype when the builtin type does not tell it
    dims: tuple[int, ...] = ()
    dtype: str = ""  # torch dtype name


def _tensor_type(torch_type: ir.Type, what: str) -> _TensorType:
    text = str(torch_type)
    parsed = _dtypes.parse_vtensor(text)
    if parsed is None:
        raise _Unrepresentable("unsupported-tensor-type", f"{what} has type {text}, not a ranked !torch.vtensor")
    dims, element = parsed
    dtype = _dtypes.by_torch_mlir(element)
    if dtype is None:
        raise _Unrepresentable(
            "unsupported-tensor-type", f"{what} has element type {element}, which the contract cannot carry"
        )
    if any(d == "0" for d in dims):
        if any(not d.lstrip("-").isdigit() or int(d) < 0 for d in dims):
            raise _Unrepresentable("zero-size-tensor", f"{what} has zero-size type {text} with dynamic dims")
        return _TensorType(None, None, tuple(int(d) for d in dims), dtype.name)
    if dtype.pairs:
        dims = dims + ["2"]
    builtin = ir.Type.parse("tensor<" + "".join(f"{d}x" for d in dims) + dtype.tosa + ">")
    return _TensorType(builtin, dtype.name if dtype.carrier else None, dtype=dtype.name)


class _TypeMemo:
    """Per-run memo of torch type -> `_TensorType`. Types are uniqued per
    context, so a module has few distinct ones, while `str()` of a type and
    `Type.parse` cost microseconds per call. Unrepresentable types are not
    memoized, so their error names the right operand."""

    def __init__(self) -> None:
        self._memo: dict[ir.Type, _TensorType] = {}

    def tensor(self, torch_type: ir.Type, what: str) -> _TensorType:
        found = self._memo.get(torch_type)
        if found is None:
            found = self._memo[torch_type] = _tensor_type(torch_type, what)
        return found


_SCALAR_TYPES = {"!torch.int": "int", "!torch.float": "float", "!torch.bool": "bool"}


# --------------------------------------------------------------------------
# Reading constants from torch IR.
# --------------------------------------------------------------------------

_NOT_CONSTANT = object()


def _defining_op(value: ir.Value) -> ir.Operation | None:
    owner = value.owner
    return None if isinstance(owner, ir.Block) else owner.operation


def _look_through(value: ir.Value) -> ir.Value:
    """Skip `torch.derefine`, which only widens a type to an optional."""
    op = _defining_op(value)
    while op is not None and op.name == "torch.derefine":
        value = op.operands[0]
        op = _defining_op(value)
    return value


def _constant(value: ir.Value) -> Any:
    op = _defining_op(_look_through(value))
    if op is None:
        return _NOT_CONSTANT
    name = op.name
    if name == "torch.constant.none":
        return None
    if name in ("torch.constant.int", "torch.constant.float", "torch.constant.bool",
                "torch.constant.str", "torch.constant.device", "torch.constant.number"):
        attr = op.attributes["value"]
        if isinstance(attr, ir.BoolAttr):
            return attr.value
        if isinstance(attr, ir.IntegerAttr):
            return bool(attr.value) if name == "torch.constant.bool" else attr.value
        if isinstance(attr, (ir.FloatAttr, ir.StringAttr)):
            return attr.value
    return _NOT_CONSTANT


def constant_list(value: ir.Value) -> list | None:
    """The Python values of a `torch.prim.ListConstruct` of constants (a
    pad, a shape), else None: for rules about an op instance's arguments
    (wrong_lowerings.py)."""
    op = _defining_op(_look_through(value))
    if op is None or op.name != "torch.prim.ListConstruct":
        return None
    items = [_constant(v) for v in op.operands]
    return None if any(item is _NOT_CONSTANT for item in items) else items


# --------------------------------------------------------------------------
# Lowering one op.
# --------------------------------------------------------------------------


def _signless(values: ir.DenseElementsAttr, ty: ir.Type) -> ir.DenseElementsAttr:
    """The same elements with the builtin (signless) integer type of `ty`."""
    array = np.array(values)
    if values.is_splat:
        array = np.full(ty.shape, array.reshape(-1)[0], dtype=array.dtype)
    return ir.DenseElementsAttr.get(np.ascontiguousarray(array), type=ty.element_type, shape=ty.shape)


class _Lowering:
    """The context for lowering one op: the operands collected so far, the ops
    built for them (undone if the op turns out unconvertible), the encoding.
    Ops are built at the current insertion point; `finish()` builds the custom op."""

    def __init__(self, op: ir.Operation, identifier: str, encoding: str, types: _TypeMemo):
        self.types = types
        self.identifier = identifier
        self.encoding = encoding
        self.loc = op.location
        self.inputs: list[ir.Value] = []
        self.created: list[ir.Operation] = []
        self.dropped_results: list[int] = []
        self.operand_dtypes: dict[int, str] = {}
        self.result_dtypes: dict[int, str] = {}

    def _create(self, name: str, result: ir.Type, operands=(), attributes=None) -> ir.Value:
        op = ir.Operation.create(
            name, results=[result], operands=list(operands), attributes=attributes or {}, loc=self.loc
        )
        self.created.append(op)
        return op.result

    def _carry_in(self, value: ir.Value, carried: str) -> ir.Value:
        """The torch value whose builtin tensor carries `value` (uint8 -> int8, complex -> real)."""
        text = str(value.type)
        if carried == "uint8":
            return _to_dtype(self._create, value, 1, text.replace(",ui8>", ",si8>"), "operand")
        return self._create("torch.aten.view_as_real", _real_pairs_type(text, carried),
                            [value], {_CARRIER: ir.StringAttr.get("operand")})

    def abandon(self) -> None:
        """Erase what was built for an op that turned out unconvertible."""
        for op in reversed(self.created):
            op.erase()
        self.created.clear()

    def _add(self, builtin_value: ir.Value) -> dict:
        self.inputs.append(builtin_value)
        return {"operand": len(self.inputs) - 1}

    def tensor(self, value: ir.Value, what: str) -> dict:
        tt = self.types.tensor(value.type, what)
        if tt.builtin is None:  # zero-size: nothing to carry but its type (CONTRACT.md 3.4)
            return {"empty": list(tt.dims), "dtype": tt.dtype}
        ty = tt.builtin
        producer = _defining_op(value)
        if tt.carried == "uint8" and producer is not None and producer.name == "torch.vtensor.literal":
            values = producer.attributes["value"]
            if isinstance(values, ir.DenseElementsAttr):  # the same bits as int8 (CONTRACT.md 3.5)
                self.operand_dtypes[len(self.inputs)] = tt.carried
                bits = np.ascontiguousarray(np.broadcast_to(np.array(values), ty.shape)).view(np.int8)
                attr = ir.DenseElementsAttr.get(bits, type=ty.element_type, shape=ty.shape)
                return self._add(self._create("tosa.const", ty, attributes={"values": attr}))
        if tt.carried is not None:
            source = _carrier_source(value)
            if source is None:
                source = self._carry_in(value, tt.carried)
            self.operand_dtypes[len(self.inputs)] = tt.carried
            return self._add(self._create("torch_c.to_builtin_tensor", ty, [source]))
        if producer is not None and producer.name == "torch.vtensor.literal":
            values = producer.attributes["value"]
            # Weights and other literals arrive as tosa.const, as TorchToTosa
            # would make them, instead of a cast TOSA backends cannot read.
            # Signed-integer literals (si64) need their elements retyped to
            # signless; torch-mlir's own lowering of the cast does that.
            if values.type.element_type != ty.element_type and isinstance(values, ir.DenseElementsAttr):
                values = _signless(values, ty)
            if values.type.element_type == ty.element_type:
                return self._add(self._create("tosa.const", ty, attributes={"values": values}))
        return self._add(self._create("torch_c.to_builtin_tensor", ty, [value]))

    def runtime_scalar(self, value: ir.Value, kind: _c.ArgKind, what: str) -> dict:
        scalar = _SCALAR_TYPES.get(str(value.type))
        if scalar is None or (kind.runtime_dtype is None and kind.name != "number"):
            raise _Unrepresentable(
                "non-constant-argument", f"{what} ({kind.name}) is not a constant: {value.type}"
            )
        source = _carrier_source(value)
        if source is not None:  # the scalar result of a converted op: its 0-d tensor
            return self._add(self._create("torch_c.to_builtin_tensor", self.types.tensor(source.type, what).builtin,
                                          [source]))
        # TorchToTosa cannot lower a run-time prim.NumToTensor; the builtin
        # scalar-to-tensor form lowers through linalg (see CONTRACT.md).
        cast, element = {"int": ("torch_c.to_i64", "i64"), "float": ("torch_c.to_f64", "f64"),
                         "bool": ("torch_c.to_i1", "i1")}[scalar]
        builtin = self._create(cast, ir.Type.parse(element), [value])
        return self._add(self._create("tensor.from_elements", ir.Type.parse(f"tensor<{element}>"), [builtin]))

    def const(self, value, dtype: torch.dtype) -> dict:
        array = np.array(value, dtype={torch.int64: np.int64, torch.float64: np.float64,
                                       torch.bool: np.bool_}[dtype])
        attr = ir.DenseElementsAttr.get(array)
        return self._add(self._create("tosa.const", attr.type, attributes={"values": attr}))

    def finish(self, encoded_args: dict, result_types: list[ir.Type]) -> ir.Operation:
        attrs = _c.encode_attrs(encoded_args, self.dropped_results, self.operand_dtypes, self.result_dtypes)
        return ir.Operation.create(
            "tosa.custom",
            results=result_types,
            operands=self.inputs,
            attributes={
                "operator_name": ir.StringAttr.get(self.identifier),
                "domain_name": ir.StringAttr.get(_c.DOMAIN),
                "implementation_attrs": ir.StringAttr.get(attrs),
            },
            loc=self.loc,
        )


def _encode_scalar(low: _Lowering, value: ir.Value, t: _c.ArgType, optional: bool, what: str):
    """One non-list value of kind `t.kind`: JSON, an operand, or null."""
    kind = t.kind
    if kind.name == "Tensor":
        if optional and _constant(value) is None:
            return None
        return low.tensor(_look_through(value), what)
    c = _constant(value)
    if c is None and optional:
        return None
    if kind.name == "Generator":
        raise _Unrepresentable("generator-operand", f"{what} is a Generator")
    if c is _NOT_CONSTANT:
        return low.runtime_scalar(_look_through(value), kind, what)
    if kind.name in ("dtype", "layout", "memory_format"):
        table = {"dtype": _schema.DTYPES, "layout": _schema.LAYOUTS,
                 "memory_format": _schema.MEMORY_FORMATS}[kind.name]
        if c not in table:
            raise _Unrepresentable("unsupported-argument-type", f"{what} = {c} is not a known {kind.name}")
        c = table[c]
    elif kind.name == "float" and isinstance(c, int) and not isinstance(c, bool):
        c = float(c)
    if not kind.accepts(c):
        raise _Unrepresentable("unsupported-argument-type", f"{what} = {c!r} is not a {kind.name}")
    try:
        encoded = kind.to_json(c)
        kind.from_json(encoded)  # what we write must decode (e.g. a device "foo")
    except _c.ContractError as e:
        raise _Unrepresentable("unsupported-argument-type", f"{what}: {e}") from None
    dtype = kind.const_dtype(c)
    if low.encoding == "const" and dtype is not None:
        return low.const(c, dtype)
    return encoded


def _encode_argument(low: _Lowering, value: ir.Value, arg, t: _c.ArgType):
    what = f"argument '{arg.name}'"
    if not t.is_list:
        return _encode_scalar(low, value, t, t.optional, what)
    if t.optional and _constant(value) is None:
        return None
    producer = _defining_op(_look_through(value))
    if producer is None or producer.name != "torch.prim.ListConstruct":
        raise _Unrepresentable(
            "non-constant-argument", f"{what} ({t}) is not built by torch.prim.ListConstruct"
        )
    elements = list(producer.operands)
    if low.encoding == "const" and elements:
        # A non-empty list of constant numbers is one 1-d tosa.const.
        constants = [_constant(e) for e in elements]
        if all(c is not _NOT_CONSTANT and c is not None for c in constants):
            dtypes = {t.kind.const_dtype(c) for c in constants}
            dtype = dtypes.pop() if len(dtypes) == 1 else None
            if dtype is not None:
                values = [float(c) if dtype == torch.float64 else c for c in constants]
                if all(t.kind.accepts(v) for v in values):
                    return low.const(values, dtype)
    return [
        _encode_scalar(low, e, t, t.elem_optional, f"{what}[{i}]") for i, e in enumerate(elements)
    ]


@functools.lru_cache(maxsize=None)
def _signature(identifier: str):
    """(overload, ((arg, ArgType | None), ...)) of an op name, read from its
    schema once: `schema.arguments` and `arg_type()` build new Python objects
    on every call. Raises _Unrepresentable (not cached: such ops are rare)."""
    overload = _schema.overload_for(identifier)
    if overload is None:
        raise _Unrepresentable("unknown-op", f"{identifier} has no schema in torch.ops")
    schema = overload._schema
    if schema.is_mutable:
        raise _Unrepresentable("mutating-op", f"{identifier} mutates its operands")
    return overload, tuple((arg, _c.arg_type(arg.real_type)) for arg in schema.arguments)


@dataclasses.dataclass
class _ResultPlan:
    """How one ATen result comes back from the custom op."""

    kind: str  # "tensor", "scalar" or "list"
    types: list  # per flat element: _TensorType (tensor/list) or the scalar's builtin element type
    unpacks: list = dataclasses.field(default_factory=list)  # list results: their torch.prim.ListUnpack ops


_SCALAR_RESULTS = {"!torch.int": ("si64", "i64", "torch.aten.Int.Tensor"),
                   "!torch.float": ("f64", "f64", "torch.aten.Float.Tensor"),
                   "!torch.bool": ("i1", "i1", "torch.aten.Bool.Tensor")}


def _plan_result(r: ir.Value, i: int, identifier: str, types: _TypeMemo) -> _ResultPlan:
    text = str(r.type)
    what = f"result #{i} of {identifier}"
    if text in _SCALAR_RESULTS:
        return _ResultPlan("scalar", [text])
    if text.startswith(("!torch.list<vtensor", "!torch.list<optional<vtensor")):
        users = [u.owner for u in r.uses]
        if not users or any(u.name != "torch.prim.ListUnpack" for u in users):
            raise _Unrepresentable(
                "list-result", f"{what} has type {text} and is used other than by torch.prim.ListUnpack, "
                "so its length is not known statically")
        arity = {len(u.results) for u in users}
        if len(arity) != 1:
            raise _Unrepresentable("list-result", f"{what} is unpacked to different lengths {sorted(arity)}")
        elements = [types.tensor(t.type, f"{what}[{j}]") for j, t in enumerate(users[0].results)]
        return _ResultPlan("list", elements, users)
    if not text.startswith(("!torch.vtensor", "!torch.tensor")):
        raise _Unrepresentable("non-tensor-result", f"{what} has type {text}")
    return _ResultPlan("tensor", [types.tensor(r.type, what)])


def _lower(op: ir.Operation, identifier: str, encoding: str, types: _TypeMemo):
    """The custom op for `op` (inserted before it) and how its results come back."""
    _, arguments = _signature(identifier)
    operands = op.operands
    if len(operands) != len(arguments):
        raise _Unrepresentable(
            "unknown-op",
            f"{identifier} has {len(operands)} operands but its schema has {len(arguments)} arguments",
        )
    plans = [_plan_result(r, i, identifier, types) for i, r in enumerate(op.results)]
    result_types, dropped, result_dtypes = [], [], {}
    flat = 0
    for plan in plans:
        for t in plan.types:
            if plan.kind == "scalar":
                result_types.append(ir.Type.parse(f"tensor<{_SCALAR_RESULTS[t][1]}>"))
            elif t.builtin is None:  # zero-size: its value is known, nothing to compute
                dropped.append(flat)
            else:
                if t.carried is not None:
                    result_dtypes[len(result_types)] = t.carried
                result_types.append(t.builtin)
            flat += 1
    for arg, t in arguments:
        if t is None:
            raise _Unrepresentable(
                "unsupported-argument-type", f"argument '{arg.name}' has type {arg.real_type}"
            )
    low = _Lowering(op, identifier, encoding, types)
    low.dropped_results = dropped
    low.result_dtypes = result_dtypes
    try:
        encoded = {arg.name: _encode_argument(low, value, arg, t) for (arg, t), value in zip(arguments, operands)}
    except Exception:
        low.abandon()  # leave the module as it was
        raise
    return low.finish(encoded, result_types), plans


def _has_uses(value: ir.Value) -> bool:
    return any(True for _ in value.uses)


# --------------------------------------------------------------------------
# Carriers: the torch ops that turn a value TOSA cannot type into one it can
# and back (CONTRACT.md 3.5). Marked, so that a later run of the pass neither
# converts them nor carries a carried value twice, and dead ones are erased.
# --------------------------------------------------------------------------

_CARRIER = "tosa_custom.carrier"


def _create_op(name: str, result: ir.Type, operands=(), attributes=None) -> ir.Value:
    return ir.Operation.create(name, results=[result], operands=list(operands), attributes=attributes or {}).result


def _to_dtype(create, value: ir.Value, dtype: int, result: str, direction: str) -> ir.Value:
    """torch.aten.to.dtype: uint8 <-> int8 is a bit-preserving wrap in PyTorch."""
    i64 = ir.IntegerType.get_signless(64)
    const = lambda name, t, attrs: create(name, ir.Type.parse(t), (), attrs)  # noqa: E731
    operands = [
        value,
        const("torch.constant.int", "!torch.int", {"value": ir.IntegerAttr.get(i64, dtype)}),
        const("torch.constant.bool", "!torch.bool", {"value": ir.BoolAttr.get(False)}),
        const("torch.constant.bool", "!torch.bool", {"value": ir.BoolAttr.get(False)}),
        const("torch.constant.none", "!torch.none", {}),
    ]
    return create("torch.aten.to.dtype", ir.Type.parse(result), operands, {_CARRIER: ir.StringAttr.get(direction)})


def _real_pairs_type(complex_type: str, carried: str) -> ir.Type:
    """The torch type of `view_as_real` of a complex vtensor type."""
    dims, _ = _dtypes.parse_vtensor(complex_type)
    shape = ",".join(dims + ["2"])
    return ir.Type.parse(f"!torch.vtensor<[{shape}],{'f32' if carried == 'complex64' else 'f64'}>")


def _carrier_source(value: ir.Value) -> ir.Value | None:
    """The builtin-typeable value behind a result carrier, else None."""
    op = _defining_op(value)
    if op is None or _CARRIER not in op.attributes or ir.StringAttr(op.attributes[_CARRIER]).value != "result":
        return None
    return op.operands[0]


def _carry_out(custom_result: ir.Value, original: ir.Type, t) -> ir.Value:
    """The torch value of type `original` for one custom op result."""
    mark = {_CARRIER: ir.StringAttr.get("result")}
    if isinstance(t, str):  # a scalar result travels as a 0-d tensor
        torch_element, _, extract = _SCALAR_RESULTS[t]
        tensor = _create_op("torch_c.from_builtin_tensor", ir.Type.parse(f"!torch.vtensor<[],{torch_element}>"),
                            [custom_result])
        return _create_op(extract, original, [tensor], mark)
    text = str(original)
    if t.carried == "uint8":
        signed = _create_op("torch_c.from_builtin_tensor", ir.Type.parse(text.replace(",ui8>", ",si8>")),
                            [custom_result])
        return _to_dtype(_create_op, signed, 0, text, "result")
    if t.carried is not None:  # complex
        pairs = _create_op("torch_c.from_builtin_tensor", _real_pairs_type(text, t.carried), [custom_result])
        return _create_op("torch.aten.view_as_complex", original, [pairs], mark)
    return _create_op("torch_c.from_builtin_tensor", original, [custom_result])


def _empty(original: ir.Type) -> ir.Value:
    """A zero-size value needs no computing: an empty tensor of its type."""
    dims, element = _dtypes.parse_vtensor(str(original))
    element = _dtypes.by_torch_mlir(element).builtin
    dims = "".join(f"{d}x" for d in dims)
    empty = _create_op("tensor.empty", ir.Type.parse(f"tensor<{dims}{element}>"))
    return _create_op("torch_c.from_builtin_tensor", original, [empty])


def _replace(op: ir.Operation, custom: ir.Operation, plans: list[_ResultPlan]) -> None:
    results = list(custom.results)
    dead: list[ir.Operation] = []

    def back(original: ir.Value, t, index: int) -> int:
        """Replace `original` by custom result `index` (or an empty tensor); the next index."""
        if not isinstance(t, str) and t.builtin is None:
            if _has_uses(original):
                original.replace_all_uses_with(_empty(original.type))
            return index
        original.replace_all_uses_with(_carry_out(results[index], original.type, t))
        return index + 1

    index = 0
    for r, plan in zip(op.results, plans):
        if plan.kind == "list":
            end = index
            for unpack in plan.unpacks:  # each unpack reads the same custom results
                end = index
                for element, t in zip(unpack.results, plan.types):
                    end = back(element, t, end)
                dead.append(unpack)
            index = end
        else:
            index = back(r, plan.types[0], index)
    for unpack in dead:
        unpack.erase()
    # Constants and lists that only fed `op` are left for canonicalization:
    # Python cannot tell two handles of one op apart, so erasing them here
    # risks a double erase.
    op.erase()


def _complex_of(type_text: str) -> str | None:
    """'complex64'/'complex128' for a complex vtensor type, else None."""
    parsed = _dtypes.parse_vtensor(type_text)
    dtype = _dtypes.by_torch_mlir(parsed[1]) if parsed else None
    return dtype.name if dtype is not None and dtype.pairs else None


def _scalar_literal(value: ir.Value) -> ir.Value | None:
    """A 0-d literal tensor for a returned constant number (a Python number
    the trace fixed, e.g. `x.shape[0]`), else None."""
    number = _constant(value)
    if number is _NOT_CONSTANT or not isinstance(number, (bool, int, float)):
        return None
    element, builtin, _ = _SCALAR_RESULTS[str(value.type)]
    array = np.array(number, dtype={"i64": np.int64, "f64": np.float64, "i1": np.bool_}[builtin])
    attr = ir.DenseElementsAttr.get(array, type=ir.Type.parse(element) if element == "si64" else None)
    op = _defining_op(value)
    with ir.InsertionPoint(op), op.location:
        return _create_op("torch.vtensor.literal", ir.Type.parse(f"!torch.vtensor<[],{element}>"), (),
                          {"value": attr})


@register_pass(TENSORIZE_SCALAR_BOUNDARY,
               "Make Python-number and complex arguments and results of public torch functions 0-d and real-pair "
               "tensors (CONTRACT.md 4.7)",
               options=(Option("arguments", "arguments too (after the tunnel, only the results a tosa.custom made "
                               "need it: an argument's carrier would then be left for TorchToTosa)", True,
                               parse_flag, metavar="true|false"),))
def tensorize_scalar_boundary(module: ir.Operation, ctx: PassContext | None = None) -> None:
    """Python-scalar and complex arguments and results of public functions
    become tensors TOSA can type (CONTRACT.md 4.7): a scalar a 0-d tensor, a
    complex tensor its `view_as_real` pairs. An argument reaches its users
    through a carrier (`aten.Float.Tensor`, `aten.view_as_complex` ...), which
    converted ops read through; a result that a carrier made is returned as
    the carrier's operand, marked `tosa_custom.scalar` or `tosa_custom.dtype`
    so the runtime (and a backend) can give the caller what the model did."""
    arguments = ctx.options.arguments if ctx is not None else True
    for func in _ir.public_functions(module):
        ftype = ir.FunctionType(ir.TypeAttr(func.attributes["function_type"]).value)
        block = func.regions[0].blocks[0]
        inputs = list(ftype.inputs)
        arg_marks: dict[int, dict[str, str]] = {}
        first = block.operations[0] if len(block.operations) else None
        for i, arg in enumerate(block.arguments if arguments else ()):
            text = str(arg.type)
            cplx = _complex_of(text)
            if text in _SCALAR_RESULTS:
                new_type = ir.Type.parse(f"!torch.vtensor<[],{_SCALAR_RESULTS[text][0]}>")
                unpack = _SCALAR_RESULTS[text][2]
            elif cplx is not None:
                new_type = _real_pairs_type(text, cplx)
                unpack = "torch.aten.view_as_complex"
                arg_marks[i] = {"tosa_custom.dtype": cplx}
            else:
                continue
            old_type = arg.type
            arg.set_type(new_type)
            inputs[i] = new_type
            with ir.InsertionPoint(first), func.location:
                carrier = _create_op(unpack, old_type, [arg], {_CARRIER: ir.StringAttr.get("result")})
            for use in list(arg.uses):
                if use.owner != carrier.owner:
                    use.owner.operands[use.operand_number] = carrier
            arg_marks.setdefault(i, {})
        results = list(ftype.results)
        ret = block.operations[len(block.operations) - 1]
        res_marks: dict[int, dict[str, str]] = {}
        for i, value in enumerate(ret.operands):
            text = str(value.type)
            cplx = _complex_of(text)
            source = _carrier_source(value) if text in _SCALAR_RESULTS or cplx is not None else None
            if source is None and text in _SCALAR_RESULTS:
                source = _scalar_literal(value)
            if source is not None:
                res_marks[i] = {"tosa_custom.scalar": _SCALAR_TYPES[text]} if cplx is None else \
                    {"tosa_custom.dtype": cplx}
                ret.operands[i] = source
                results[i] = source.type
        if arg_marks or res_marks:
            func.attributes["function_type"] = ir.TypeAttr.get(ir.FunctionType.get(inputs, results))
            _ir.add_signature_attrs(func, "arg_attrs", len(inputs), {k: v for k, v in arg_marks.items() if v})
            _ir.add_signature_attrs(func, "res_attrs", len(results), res_marks)
    _erase_dead_carriers(module)  # a result's carrier, now unused, is not an op TorchToTosa could lower


# The builtin scalar types torch-mlir lowers Python numbers to, by kind.
_BUILTIN_SCALAR_KINDS = {builtin: _SCALAR_TYPES[t] for t, (_, builtin, _) in _SCALAR_RESULTS.items()}


@register_pass(TENSORIZE_BUILTIN_SCALAR_BOUNDARY,
               "Make builtin scalar arguments and results (f64, i64, i1) of public functions 0-d tensors "
               "(CONTRACT.md 4.7)")
def tensorize_builtin_scalar_boundary(module: ir.Operation, ctx: PassContext | None = None) -> None:
    """A Python number torch-mlir's lowering left as a scalar argument or
    result of a public function (`f64`, `i64`, `i1`: the modes that keep no op
    that reads it) becomes a 0-d tensor marked `tosa_custom.scalar`, as the
    conversion makes the ones it reaches (CONTRACT.md 4.7): an argument is read
    with `tensor.extract`, a constant result is a `tosa.const`, another one is
    built with `tensor.from_elements`. (tensorize_scalar_boundary does the
    same on torch IR, for the numbers converted ops read or compute.)"""
    with module.context, ir.Location.unknown():
        for func in _ir.public_functions(module):
            ftype = ir.FunctionType(ir.TypeAttr(func.attributes["function_type"]).value)
            block = func.regions[0].blocks[0]
            inputs, results = list(ftype.inputs), list(ftype.results)
            arg_marks, res_marks = {}, {}
            for i, arg in enumerate(block.arguments):
                kind = _BUILTIN_SCALAR_KINDS.get(str(arg.type))
                if kind is None:
                    continue
                scalar, uses = arg.type, list(arg.uses)
                arg.set_type(ir.RankedTensorType.get([], scalar))
                inputs[i] = arg.type
                if uses:  # export often bakes the number in: then nothing reads it
                    with ir.InsertionPoint.at_block_begin(block), func.location:
                        read = ir.Operation.create("tensor.extract", results=[scalar], operands=[arg]).result
                    for use in uses:
                        use.owner.operands[use.operand_number] = read
                arg_marks[i] = {"tosa_custom.scalar": kind}
            ret = block.operations[len(block.operations) - 1]
            for i, value in enumerate(ret.operands):
                kind = _BUILTIN_SCALAR_KINDS.get(str(value.type))
                if kind is None:
                    continue
                tensor_type = ir.RankedTensorType.get([], value.type)
                constant = _defining_op(value)
                if constant is not None and constant.name != "arith.constant":
                    constant = None
                with ir.InsertionPoint(ret), ret.location:
                    if constant is not None:
                        attr = ir.DenseElementsAttr.get_splat(tensor_type, constant.attributes["value"])
                        made = ir.Operation.create("tosa.const", results=[tensor_type], attributes={"values": attr})
                    else:
                        made = ir.Operation.create("tensor.from_elements", results=[tensor_type], operands=[value])
                ret.operands[i] = made.result
                results[i] = tensor_type
                res_marks[i] = {"tosa_custom.scalar": kind}
                if constant is not None and not _has_uses(constant.result):
                    constant.erase()
            if arg_marks or res_marks:
                func.attributes["function_type"] = ir.TypeAttr.get(ir.FunctionType.get(inputs, results))
                _ir.add_signature_attrs(func, "arg_attrs", len(inputs), arg_marks)
                _ir.add_signature_attrs(func, "res_attrs", len(results), res_marks)


# Pure ops that may hold a dead carrier alive: a converted op read the list's
# elements (or the optional's value) straight from the carriers' operands.
_CARRIER_USERS = ("torch.prim.ListConstruct", "torch.derefine")


def _erase_dead_carriers(module: ir.Operation) -> None:
    """Erase carriers nothing reads any more (and the lists that were their only
    readers), last first: a carrier is not an op TorchToTosa could lower."""
    dead: list[ir.Operation] = []

    def visit(op):
        if _CARRIER in op.attributes or op.name in _CARRIER_USERS:
            dead.append(op)
        return ir.WalkResult.ADVANCE

    module.walk(visit)
    for op in reversed(dead):
        if not any(_has_uses(r) for r in op.results):
            op.erase()


def convert_module(
    module: ir.Operation,
    options: PassOptions,
    log: DiagnosticLog | None = None,
) -> ConversionResult:
    """Convert every selected op under `module`; returns what was and was not.

    Unconvertible ops are reported through `log` (or as Python warnings). With
    `strict`, they are MLIR errors on the ops' locations and, once every op
    was tried, `ConversionFailed` is raised; an internal error is reported the
    same way.
    """
    result = ConversionResult()
    candidates: list[tuple[ir.Operation, str]] = []

    def collect(op: ir.Operation):
        identifier = _schema.op_identifier(op)
        if _CARRIER not in op.attributes and (
                MARK in op.attributes or options.ops.matches(identifier, user_op=op.name == "torch.operator")):
            candidates.append((op, identifier))
        return ir.WalkResult.ADVANCE

    module.walk(collect)
    types = _TypeMemo()
    failed = False
    for op, identifier in candidates:
        site = _site(op, identifier)
        try:
            with ir.InsertionPoint(op), op.location:
                custom, plans = _lower(op, identifier, options.encoding, types)
                if MARK in op.attributes:  # auto mode added it: say why on the op
                    custom.attributes[TUNNELED] = ir.StringAttr.get(site.category)
                _replace(op, custom, plans)
        except _Unrepresentable as e:
            skipped = Skipped(identifier, e.category, str(e), str(op.location))
            result.skipped.append(skipped)
            message = f"{identifier} left unconverted [{e.category}]: {e}"
            if options.strict:
                op.location.emit_error(message)
                failed = True
            elif log is not None:
                log.warning(op.location, message)
            else:
                warnings.warn(f"{op.location}: {message}", stacklevel=2)
            continue
        except Exception as e:  # a bug of ours: report it where it happened
            op.location.emit_error(
                f"internal error converting {identifier} to tosa.custom "
                f"({type(e).__name__}: {e}); please report this with the IR"
            )
            failed = True
            continue
        result.converted[identifier] = result.converted.get(identifier, 0) + 1
        result.sites.append(site)
    _erase_dead_carriers(module)
    if failed:
        raise ConversionFailed(f"{PASS_ARGUMENT} failed; the errors are on the ops' locations")
    return result


def _site(op: ir.Operation, identifier: str) -> Site:
    if MARK not in op.attributes:
        return Site(identifier, USER_LISTED, str(op.location), "")
    reason = ir.StringAttr(op.attributes[MARK_REASON]).value if MARK_REASON in op.attributes else ""
    return Site(identifier, ir.StringAttr(op.attributes[MARK]).value, str(op.location), reason)


class ConversionFailed(Exception):
    """`convert_module` emitted errors (strict mode, or an internal error)."""


def _parse_target(text: str):
    from ..tosa import target  # (target.py registers passes; keep this module's import light)
    return None if text == "none" else target.parse_target(text)


def _parse_encoding(text: str) -> str:
    if text not in _c.ENCODINGS:
        raise ValueError(f"unknown encoding '{text}': expected one of {', '.join(_c.ENCODINGS)}")
    return text


@register_pass(
    PASS_ARGUMENT,
    "Convert selected torch ops at the backend contract to tosa.custom",
    options=(
        Option("ops", "the ops to convert (CONTRACT.md 2)", "", _schema.OpSelection, metavar="a,b"),
        Option("encoding", "how non-tensor arguments travel", "json", _parse_encoding, metavar="json|const"),
        Option("strict", "an op that cannot be converted is an error", False, parse_flag, implicit="true",
               metavar="true|false"),
        Option("tosa-target", "with ops=auto: the TOSA target whose violations are tunneled too (auto: fitted to "
               "the output; none: no check; or tosa-attach-target's options, quoted)", "auto", _parse_target,
               metavar="auto|none|'profiles=...'"),
    ),
)
def convert_torch_backend_legal_to_tosa_custom(module: ir.Operation, ctx: PassContext) -> ConversionResult | None:
    options = PassOptions.of(ctx.options)
    selection = None
    if options.ops.auto:
        from . import auto  # it lowers trial copies through passes that import this module
        selection = auto.select(module, options.ops, options.encoding, ctx.options.tosa_target)
    try:
        result = convert_module(module, options, ctx.log)
    except ConversionFailed:  # the errors are on the ops already
        ctx.failed = True
        return None
    if selection is not None:
        result.lowered, result.lowered_log, result.lowered_target = selection.lowered, selection.log, selection.target
    return result
