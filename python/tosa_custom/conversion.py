"""The `convert-torch-backend-legal-to-tosa-custom` pass.

Runs on torch-dialect IR at the backend contract and turns every selected op
into exactly one `tosa.custom`, encoded as CONTRACT.md says (see contract.py).
An op that the contract cannot carry is left for TorchToTosa, with a warning on
its location naming the reason (an error when `strict`), never a crash.
"""

from __future__ import annotations

import dataclasses
import functools
import re
import shlex
import warnings
from typing import Any

import numpy as np
import torch
from torch_mlir import ir

from . import _ir  # noqa: F401  (installs the torch_c stand-in module)
from . import contract as _c
from . import schema as _schema
from .diagnostics import DiagnosticLog
from .passes import PythonPass, register_pass

__all__ = [
    "PASS_ARGUMENT",
    "PassOptions",
    "ConversionFailed",
    "ConversionResult",
    "Skipped",
    "SKIP_CATEGORIES",
    "convert_module",
    "make_pass",
]

PASS_ARGUMENT = "convert-torch-backend-legal-to-tosa-custom"


# Why a selected op was left unconverted: a fixed set, documented in CONTRACT.md.
SKIP_CATEGORIES = {
    "unknown-op": "the op has no schema in torch.ops, so its arguments cannot be named",
    "mutating-op": "the op writes to one of its operands (TOSA values are immutable)",
    "generator-operand": "a torch.Generator is random-number state, not a value",
    "non-tensor-result": "a result is not a tensor (tosa.custom results are tensors)",
    "list-result": "a result is a list of tensors whose length is not known statically",
    "unsupported-argument-type": "the schema has an argument type the contract does not cover",
    "non-constant-argument": "a string, dtype, device, layout or memory format is not a constant",
    "unsupported-tensor-type": "an operand or result is not a ranked value tensor TOSA can type",
    "zero-size-tensor": "tosa.custom rejects tensors with a zero-size dimension",
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
        text = text.strip()
        if text.startswith("{") and text.endswith("}"):
            text = text[1:-1]
        values: dict[str, str] = {}
        for item in shlex.split(text):
            key, sep, value = item.partition("=")
            if not sep:
                value = "true"
            if key not in ("ops", "encoding", "strict"):
                raise ValueError(
                    f"unknown option '{key}' for {PASS_ARGUMENT}: expected ops=, encoding=, strict="
                )
            values[key] = value.strip("{}")
        strict = values.get("strict", "false").lower()
        if strict not in ("true", "false", "1", "0"):
            raise ValueError(f"strict= takes true or false, not '{strict}'")
        return PassOptions(
            ops=_schema.OpSelection(values.get("ops", "")),
            encoding=values.get("encoding", "json"),
            strict=strict in ("true", "1"),
        )


@dataclasses.dataclass(frozen=True)
class Skipped:
    identifier: str
    category: str
    message: str
    location: str


@dataclasses.dataclass
class ConversionResult:
    converted: dict[str, int] = dataclasses.field(default_factory=dict)
    skipped: list[Skipped] = dataclasses.field(default_factory=list)


class _Unrepresentable(Exception):
    def __init__(self, category: str, message: str):
        assert category in SKIP_CATEGORIES, category
        super().__init__(message)
        self.category = category


# --------------------------------------------------------------------------
# Types.
# --------------------------------------------------------------------------

_VTENSOR = re.compile(r"^!torch\.vtensor<\[(?P<shape>[^\]]*)\],(?P<dtype>.+)>$")
_TORCH_TO_BUILTIN_ELEMENT = {
    "si64": "i64", "si32": "i32", "si16": "i16", "si8": "i8", "ui8": "ui8",
    "i1": "i1", "f16": "f16", "bf16": "bf16", "f32": "f32", "f64": "f64",
}


def _builtin_tensor_type(torch_type: ir.Type, what: str) -> ir.Type:
    text = str(torch_type)
    m = _VTENSOR.match(text)
    if not m:
        raise _Unrepresentable("unsupported-tensor-type", f"{what} has type {text}, not a ranked !torch.vtensor")
    element = _TORCH_TO_BUILTIN_ELEMENT.get(m["dtype"])
    if element is None:
        raise _Unrepresentable(
            "unsupported-tensor-type",
            f"{what} has element type {m['dtype']}, which TOSA cannot carry",
        )
    dims = [d.strip() for d in m["shape"].split(",") if d.strip()]
    if any(d == "0" for d in dims):
        raise _Unrepresentable("zero-size-tensor", f"{what} has zero-size type {text}")
    return ir.Type.parse("tensor<" + "".join(f"{d}x" for d in dims) + element + ">")


class _TypeMemo:
    """Per-run memo of torch type -> builtin tensor type. Types are uniqued
    per context, so a module has few distinct ones, while `str()` of a type
    and `Type.parse` cost microseconds per call. Unrepresentable types are
    not memoized, so their error names the right operand."""

    def __init__(self) -> None:
        self._memo: dict[ir.Type, ir.Type] = {}

    def tensor(self, torch_type: ir.Type, what: str) -> ir.Type:
        builtin = self._memo.get(torch_type)
        if builtin is None:
            builtin = self._memo[torch_type] = _builtin_tensor_type(torch_type, what)
        return builtin

    def result(self, torch_type: ir.Type, i: int, identifier: str) -> ir.Type:
        builtin = self._memo.get(torch_type)
        if builtin is not None:
            return builtin
        text = str(torch_type)
        if text.startswith(("!torch.list<vtensor", "!torch.list<optional<vtensor")):
            raise _Unrepresentable("list-result", f"result #{i} of {identifier} has type {text}")
        if not text.startswith(("!torch.vtensor", "!torch.tensor")):
            raise _Unrepresentable("non-tensor-result", f"result #{i} of {identifier} has type {text}")
        return self.tensor(torch_type, f"result #{i}")


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

    def _create(self, name: str, result: ir.Type, operands=(), attributes=None) -> ir.Value:
        op = ir.Operation.create(
            name, results=[result], operands=list(operands), attributes=attributes or {}, loc=self.loc
        )
        self.created.append(op)
        return op.result

    def abandon(self) -> None:
        """Erase what was built for an op that turned out unconvertible."""
        for op in reversed(self.created):
            op.erase()
        self.created.clear()

    def _add(self, builtin_value: ir.Value) -> dict:
        self.inputs.append(builtin_value)
        return {"operand": len(self.inputs) - 1}

    def tensor(self, value: ir.Value, what: str) -> dict:
        ty = self.types.tensor(value.type, what)
        producer = _defining_op(value)
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
        attrs = {"args": encoded_args, "version": _c.CONTRACT_VERSION}
        if self.dropped_results:
            attrs["dropped_results"] = self.dropped_results
        attrs = _c.canonical_json(attrs)
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


def _lower(op: ir.Operation, identifier: str, encoding: str, types: _TypeMemo) -> tuple[ir.Operation, list[int]]:
    """The custom op for `op` (inserted before it), and the dropped result indices."""
    _, arguments = _signature(identifier)
    operands = op.operands
    if len(operands) != len(arguments):
        raise _Unrepresentable(
            "unknown-op",
            f"{identifier} has {len(operands)} operands but its schema has {len(arguments)} arguments",
        )
    result_types, dropped = [], []
    for i, r in enumerate(op.results):
        try:
            result_types.append(types.result(r.type, i, identifier))
        except _Unrepresentable as e:
            # e.g. batch norm's empty save_mean in inference: TOSA refuses
            # zero-size tensors, and nothing reads it (CONTRACT.md 3.4).
            if e.category != "zero-size-tensor" or _has_uses(r):
                raise
            dropped.append(i)
    for arg, t in arguments:
        if t is None:
            raise _Unrepresentable(
                "unsupported-argument-type", f"argument '{arg.name}' has type {arg.real_type}"
            )
    low = _Lowering(op, identifier, encoding, types)
    low.dropped_results = dropped
    try:
        encoded = {arg.name: _encode_argument(low, value, arg, t) for (arg, t), value in zip(arguments, operands)}
    except Exception:
        low.abandon()  # leave the module as it was
        raise
    return low.finish(encoded, result_types), dropped


def _has_uses(value: ir.Value) -> bool:
    return any(True for _ in value.uses)


def _replace(op: ir.Operation, custom: ir.Operation, dropped: list[int]) -> None:
    kept = [r for i, r in enumerate(op.results) if i not in dropped]
    for old, new in zip(kept, custom.results):
        back = ir.Operation.create(
            "torch_c.from_builtin_tensor", results=[old.type], operands=[new], loc=op.location
        ).result
        old.replace_all_uses_with(back)
    # Constants and lists that only fed `op` are left for canonicalization:
    # Python cannot tell two handles of one op apart, so erasing them here
    # risks a double erase.
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
        if options.ops.matches(identifier, user_op=op.name == "torch.operator"):
            candidates.append((op, identifier))
        return ir.WalkResult.ADVANCE

    module.walk(collect)
    types = _TypeMemo()
    failed = False
    for op, identifier in candidates:
        try:
            with ir.InsertionPoint(op):
                custom, dropped = _lower(op, identifier, options.encoding, types)
                _replace(op, custom, dropped)
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
    if failed:
        raise ConversionFailed(f"{PASS_ARGUMENT} failed; the errors are on the ops' locations")
    return result


class ConversionFailed(Exception):
    """`convert_module` emitted errors (strict mode, or an internal error)."""


def make_pass(options: PassOptions, log: DiagnosticLog | None = None):
    """A callable for `PassManager.add(fn, name=..., argument=PASS_ARGUMENT)`."""

    def run(op, pass_) -> None:
        try:
            convert_module(op, options, log)
        except ConversionFailed:
            pass_.signal_pass_failure()
            return
        except Exception as e:  # a bug of ours outside any one op
            op.location.emit_error(f"internal error in {PASS_ARGUMENT} ({type(e).__name__}: {e})")
            pass_.signal_pass_failure()

    run.__name__ = "ConvertTorchBackendLegalToTosaCustom"
    return run


register_pass(PythonPass(
    argument=PASS_ARGUMENT,
    name="ConvertTorchBackendLegalToTosaCustom",
    description="Convert selected torch ops at the backend contract to tosa.custom "
                "(options: ops=a,b encoding=json|const strict=true|false)",
    factory=lambda options, log: make_pass(PassOptions.parse(options), log),
))
