"""How the tunnel converts one selected op (`convert_module`).

Runs on torch-dialect IR at the backend contract and turns every selected op
into exactly one `tosa.custom`, encoded as CONTRACT.md says (contract/encoding.py).
An op that the contract cannot carry is left for TorchToTosa, with a warning on
its location naming the reason (an error when `strict`), never a crash. The
pass that runs it is tunnel_pass.py; its options and results are options.py.
"""

from __future__ import annotations

import dataclasses
import functools
import warnings

import numpy as np
import torch
from torch_mlir import ir

from ..core import attrs as _attrs
from ..core import builders as _b
from ..core import dtypes as _dtypes
from ..core import ir as _ir  # (importing it also installs the torch_c stand-in module)
from ..core import schema as _schema
from ..core.diagnostics import DiagnosticLog
from ..core.torch_ir import NOT_CONSTANT, constant, look_through, vtensor_type
from ..contract import encoding as _c
from ..contract.shapes import ShapeError
from .result_shapes import derive_result_shapes
from .options import PASS_ARGUMENT, SKIP_CATEGORIES, USER_LISTED, ConversionResult, PassOptions, Site, Skipped

__all__ = [
    "ConversionFailed",
    "convert_module",
    "carrier_source",
    "erase_dead_carriers",
    "real_pairs_type",
]


class ConversionFailed(Exception):
    """`convert_module` emitted errors (strict mode, or an internal error)."""


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


# --------------------------------------------------------------------------
# Lowering one op.
# --------------------------------------------------------------------------


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
        # Custom operand k -> the torch value it carries (None: a constant),
        # where result_shapes finds the symbols of its dims.
        self.sources: list[ir.Value | None] = []
        self.result_shapes: list | None = None

    def _made(self, value: ir.Value) -> ir.Value:
        """Record the op that defines `value`, to be erased by `abandon`."""
        self.created.append(value.owner.operation)
        return value

    def _create(self, name: str, result: ir.Type, operands=(), attributes=None) -> ir.Value:
        return self._made(_b.create(name, result, operands, attributes, loc=self.loc))

    def _const(self, values: ir.Attribute, ty: ir.Type) -> ir.Value:
        return self._made(_b.tosa_const(values, ty, loc=self.loc))

    def _carry_in(self, value: ir.Value, carried: str) -> ir.Value:
        """The torch value whose builtin tensor carries `value` (uint8 -> int8, complex -> real)."""
        text = str(value.type)
        if carried == "uint8":
            return to_dtype(value, text.replace(",ui8>", ",si8>"), "operand", made=self._made)
        return self._create("torch.aten.view_as_real", real_pairs_type(text, carried),
                            [value], {_attrs.CARRIER: ir.StringAttr.get("operand")})

    def abandon(self) -> None:
        """Erase what was built for an op that turned out unconvertible."""
        for op in reversed(self.created):
            op.erase()
        self.created.clear()

    def _add(self, builtin_value: ir.Value, source: ir.Value | None = None) -> dict:
        self.inputs.append(builtin_value)
        self.sources.append(source)
        return {"operand": len(self.inputs) - 1}

    def tensor(self, value: ir.Value, what: str) -> dict:
        tt = self.types.tensor(value.type, what)
        if tt.builtin is None:  # zero-size: nothing to carry but its type (CONTRACT.md 3.4)
            return {"empty": list(tt.dims), "dtype": tt.dtype}
        ty = tt.builtin
        producer = _ir.defining_op(value)
        literal = producer.attributes["value"] if producer is not None and producer.name == "torch.vtensor.literal" \
            else None
        if tt.carried == "uint8" and isinstance(literal, ir.DenseElementsAttr):
            # the same bits as int8 (CONTRACT.md 3.5)
            self.operand_dtypes[len(self.inputs)] = tt.carried
            bits = np.ascontiguousarray(np.broadcast_to(np.array(literal), ty.shape)).view(np.int8)
            return self._add(self._const(ir.DenseElementsAttr.get(bits, type=ty.element_type, shape=ty.shape), ty))
        if tt.carried is not None:
            source = carrier_source(value)
            if source is None:
                source = self._carry_in(value, tt.carried)
            self.operand_dtypes[len(self.inputs)] = tt.carried
            return self._add(self._create("torch_c.to_builtin_tensor", ty, [source]), value)
        if literal is not None:
            # Weights and other literals arrive as tosa.const, as TorchToTosa
            # would make them, instead of a cast TOSA backends cannot read.
            # Signed-integer literals (si64) need their elements retyped to
            # signless; torch-mlir's own lowering of the cast does that.
            if literal.type.element_type != ty.element_type and isinstance(literal, ir.DenseElementsAttr):
                literal = _b.signless_elements(literal, ty)
            if literal.type.element_type == ty.element_type:
                return self._add(self._const(literal, ty))
        return self._add(self._create("torch_c.to_builtin_tensor", ty, [value]), value)

    def runtime_scalar(self, value: ir.Value, kind: _c.ArgKind, what: str) -> dict:
        scalar = _dtypes.scalar_kind(str(value.type))
        if scalar is None or (kind.runtime_dtype is None and kind.name != "number"):
            raise _Unrepresentable(
                "non-constant-argument", f"{what} ({kind.name}) is not a constant: {value.type}"
            )
        source = carrier_source(value)
        if source is not None:  # the scalar result of a converted op: its 0-d tensor
            return self._add(self._create("torch_c.to_builtin_tensor", self.types.tensor(source.type, what).builtin,
                                          [source]), value)
        # TorchToTosa cannot lower a run-time prim.NumToTensor; the builtin
        # scalar-to-tensor form lowers through linalg (see CONTRACT.md).
        builtin = self._create(scalar.to_builtin, ir.Type.parse(scalar.builtin), [value])
        return self._add(self._create("tensor.from_elements", ir.Type.parse(f"tensor<{scalar.builtin}>"), [builtin]),
                         value)

    def const(self, value, dtype: torch.dtype) -> dict:
        attr = ir.DenseElementsAttr.get(np.array(value, dtype=_dtypes.by_torch(dtype).numpy))
        return self._add(self._const(attr, attr.type))

    def finish(self, encoded_args: dict, result_types: list[ir.Type]) -> ir.Operation:
        attrs = _c.encode_attrs(encoded_args, self.dropped_results, self.operand_dtypes, self.result_dtypes,
                                self.result_shapes)
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
        if optional and constant(value) is None:
            return None
        return low.tensor(look_through(value), what)
    c = constant(value)
    if c is None and optional:
        return None
    if kind.name == "Generator":
        raise _Unrepresentable("generator-operand", f"{what} is a Generator")
    if c is NOT_CONSTANT:
        return low.runtime_scalar(look_through(value), kind, what)
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
    if t.optional and constant(value) is None:
        return None
    producer = _ir.defining_op(look_through(value))
    if producer is None or producer.name != "torch.prim.ListConstruct":
        raise _Unrepresentable(
            "non-constant-argument", f"{what} ({t}) is not built by torch.prim.ListConstruct"
        )
    elements = list(producer.operands)
    if low.encoding == "const" and elements:
        # A non-empty list of constant numbers is one 1-d tosa.const.
        constants = [constant(e) for e in elements]
        if all(c is not NOT_CONSTANT and c is not None for c in constants):
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


# --------------------------------------------------------------------------
# Results: how each comes back from the custom op.
# --------------------------------------------------------------------------


@dataclasses.dataclass
class _ResultPlan:
    """How one ATen result comes back from the custom op."""

    kind: str  # "tensor", "scalar" or "list"
    types: list  # per flat element: _TensorType (tensor/list) or the scalar's ScalarKind
    unpacks: list = dataclasses.field(default_factory=list)  # list results: their torch.prim.ListUnpack ops


def _plan_result(r: ir.Value, i: int, identifier: str, types: _TypeMemo) -> _ResultPlan:
    text = str(r.type)
    what = f"result #{i} of {identifier}"
    scalar = _dtypes.scalar_kind(text)
    if scalar is not None:
        return _ResultPlan("scalar", [scalar])
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


def _result_types(plans: list[_ResultPlan]) -> tuple[list[ir.Type], list[int], dict[int, str]]:
    """The custom op's result types, the flat indices of the results it does
    not compute (zero-size), and the torch dtypes of carried results."""
    result_types, dropped, result_dtypes = [], [], {}
    flat = 0
    for plan in plans:
        for t in plan.types:
            if plan.kind == "scalar":
                result_types.append(ir.Type.parse(f"tensor<{t.builtin}>"))
            elif t.builtin is None:  # zero-size: its value is known, nothing to compute
                dropped.append(flat)
            else:
                if t.carried is not None:
                    result_dtypes[len(result_types)] = t.carried
                result_types.append(t.builtin)
            flat += 1
    return result_types, dropped, result_dtypes


def _result_shapes(low: _Lowering, op: ir.Operation, plans: list[_ResultPlan], result_types: list[ir.Type],
                   identifier: str) -> list | None:
    """CONTRACT.md §15.2 for an op with `?` result dims, from the IR's
    `torch.bind_symbolic_shape` (result_shapes.py); None when all are static."""
    values = []
    for r, plan in zip(op.results, plans):
        elements = plan.unpacks[0].results if plan.kind == "list" else [r]
        values += [v for v, t in zip(elements, plan.types)
                   if isinstance(t, _dtypes.ScalarKind) or t.builtin is not None]
    try:
        return derive_result_shapes(low.sources, list(zip(values, result_types)), identifier)
    except ShapeError as e:
        raise _Unrepresentable("dynamic-result-shape", str(e)) from None


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
    result_types, dropped, result_dtypes = _result_types(plans)
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
        low.result_shapes = _result_shapes(low, op, plans, result_types, identifier)
    except Exception:
        low.abandon()  # leave the module as it was
        raise
    return low.finish(encoded, result_types), plans


# --------------------------------------------------------------------------
# Carriers: the torch ops that turn a value TOSA cannot type into one it can
# and back (CONTRACT.md 3.5). Marked (attrs.CARRIER), so that a later run of
# the pass neither converts them nor carries a carried value twice, and dead
# ones are erased.
# --------------------------------------------------------------------------


def to_dtype(value: ir.Value, result: str, direction: str, made=lambda v: v) -> ir.Value:
    """A carrier cast: uint8 <-> int8, PyTorch's bit-preserving wrap."""
    return _b.torch_to_dtype(value, ir.Type.parse(result), {_attrs.CARRIER: ir.StringAttr.get(direction)}, made)


def real_pairs_type(complex_type: str, carried: str) -> ir.Type:
    """The torch type of `view_as_real` of a complex vtensor type."""
    dims, _ = _dtypes.parse_vtensor(complex_type)
    return vtensor_type(dims + ["2"], _dtypes.by_name(carried).carrier)


def carrier_source(value: ir.Value) -> ir.Value | None:
    """The builtin-typeable value behind a result carrier, else None."""
    op = _ir.defining_op(value)
    if op is None or _attrs.CARRIER not in op.attributes \
            or ir.StringAttr(op.attributes[_attrs.CARRIER]).value != "result":
        return None
    return op.operands[0]


def _carry_out(custom_result: ir.Value, original: ir.Type, t) -> ir.Value:
    """The torch value of type `original` for one custom op result."""
    mark = {_attrs.CARRIER: ir.StringAttr.get("result")}
    if isinstance(t, _dtypes.ScalarKind):  # a scalar result travels as a 0-d tensor
        tensor = _b.create("torch_c.from_builtin_tensor", vtensor_type((), t.tensor_element),
                           [custom_result])
        return _b.create(t.from_tensor, original, [tensor], mark)
    text = str(original)
    if t.carried == "uint8":
        signed = _b.create("torch_c.from_builtin_tensor", ir.Type.parse(text.replace(",ui8>", ",si8>")),
                           [custom_result])
        return to_dtype(signed, text, "result")
    if t.carried is not None:  # complex
        pairs = _b.create("torch_c.from_builtin_tensor", real_pairs_type(text, t.carried), [custom_result])
        return _b.create("torch.aten.view_as_complex", original, [pairs], mark)
    return _b.create("torch_c.from_builtin_tensor", original, [custom_result])


def _replace(op: ir.Operation, custom: ir.Operation, plans: list[_ResultPlan]) -> None:
    results = list(custom.results)
    dead: list[ir.Operation] = []

    def back(original: ir.Value, t, index: int) -> int:
        """Replace `original` by custom result `index` (or an empty tensor); the next index."""
        if not isinstance(t, _dtypes.ScalarKind) and t.builtin is None:
            if _ir.has_uses(original):
                original.replace_all_uses_with(_b.empty_vtensor(original.type))
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


# Pure ops that may hold a dead carrier alive: a converted op read the list's
# elements (or the optional's value) straight from the carriers' operands.
_CARRIER_USERS = ("torch.prim.ListConstruct", "torch.derefine")


def erase_dead_carriers(module: ir.Operation) -> None:
    """Erase carriers nothing reads any more (and the lists that were their only
    readers), last first: a carrier is not an op TorchToTosa could lower."""
    dead = _ir.collect_ops(module, lambda op: _attrs.CARRIER in op.attributes or op.name in _CARRIER_USERS)
    for op in reversed(dead):
        if not any(_ir.has_uses(r) for r in op.results):
            op.erase()


# --------------------------------------------------------------------------
# The module.
# --------------------------------------------------------------------------


def _candidates(module: ir.Operation, options: PassOptions) -> list[tuple[ir.Operation, str]]:
    """The ops to convert, with their identifiers: selected by `ops=` or
    marked by auto mode, never a carrier."""
    candidates: list[tuple[ir.Operation, str]] = []

    def collect(op: ir.Operation):
        identifier = _schema.op_identifier(op)
        if _attrs.CARRIER not in op.attributes and (_attrs.TUNNEL in op.attributes or options.ops.matches(
                identifier, user_op=op.name == "torch.operator")):
            candidates.append((op, identifier))
        return ir.WalkResult.ADVANCE

    module.walk(collect)
    return candidates


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
    types = _TypeMemo()
    failed = False
    for op, identifier in _candidates(module, options):
        site = _site(op, identifier)
        try:
            with ir.InsertionPoint(op), op.location:
                custom, plans = _lower(op, identifier, options.encoding, types)
                if _attrs.TUNNEL in op.attributes:  # auto mode added it: say why on the op
                    custom.attributes[_attrs.TUNNELED] = ir.StringAttr.get(site.category)
                had_results = len(op.results) > 0
                _replace(op, custom, plans)
                if had_results and len(custom.results) == 0:
                    # Every result is zero-size (CONTRACT.md 3.4): nothing to compute, and the call may not be
                    # one eager can make (torch-mlir folds cat of zero-size tensors to cat of none: stack/bool/7).
                    custom.erase()
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
    erase_dead_carriers(module)
    if failed:
        raise ConversionFailed(f"{PASS_ARGUMENT} failed; the errors are on the ops' locations")
    return result


def _site(op: ir.Operation, identifier: str) -> Site:
    if _attrs.TUNNEL not in op.attributes:
        return Site(identifier, USER_LISTED, str(op.location), "")
    reason, stage = (ir.StringAttr(op.attributes[name]).value if name in op.attributes else ""
                     for name in (_attrs.TUNNEL_REASON, _attrs.TUNNEL_STAGE))
    return Site(identifier, ir.StringAttr(op.attributes[_attrs.TUNNEL]).value, str(op.location), reason, stage)
