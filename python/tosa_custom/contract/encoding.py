"""The contract: how an ATen call is carried by one `tosa.custom` (CONTRACT.md).

Everything the pass writes and `decode()` reads is defined here, once: one
`ArgKind` entry per schema base type decides its JSON form, whether the const
encoding turns it into a `tosa.const` operand (and of which element type), and
how a value computed at run time travels. Optional and list types are built
from these entries, never spelled out per op.
"""

from __future__ import annotations

import dataclasses
import json
import math
from typing import Any, Callable, Sequence

import torch

from ..core import dtypes as _dtypes
from ..core import schema as _schema
from ..core.registry import Registry
from . import shapes as _shapes
from .errors import ContractError
from .quantized import QUANTIZATION_KEY, QUANTIZED_VERSION, OpQuantization, parse_quantization

__all__ = [
    "CONTRACT_VERSION",
    "DOMAIN",
    "ENCODINGS",
    "ContractError",
    "Operand",
    "DecodedCall",
    "ArgKind",
    "ArgType",
    "arg_kinds",
    "arg_type",
    "canonical_json",
    "encode_attrs",
    "carry_operand",
    "with_quantization",
    "decode_attrs",
    "parse_result_shapes",
]

CONTRACT_VERSION = 5
# Tensors whose TOSA type does not tell their torch dtype (CONTRACT.md 3.5).
CARRIED_DTYPES = {d.name: d.torch for d in _dtypes.DTYPES if d.carrier}
# An int64 operand whose values fit int32 may travel as int32 (version 4,
# CONTRACT.md 3.5): TOSA 1.0 has no 64-bit integers, a constant operand
# (a position-id buffer) is all dummy mode keeps of them.
# A float32 constant operand of a kept op in a quantized program travels as
# int32 holding the same bits (version 5, CONTRACT.md §18): pro_int has no float.
CARRIED_OPERAND_DTYPES = {**CARRIED_DTYPES, "int64": torch.int64, "float32": torch.float32}
_CARRIER_VERSION = {"int64": 4, "float32": 5}
DOMAIN = "torch_mlir"
ENCODINGS = ("json", "const")


@dataclasses.dataclass(frozen=True)
class Operand:
    """Placeholder in a decoded call for the custom op's operand `index`.

    `kind` is "tensor" for tensors, or "int"/"float"/"bool"/"number" for a
    scalar computed at run time, which travels as a 0-d tensor operand.
    """

    index: int
    kind: str = "tensor"


def canonical_json(obj: Any) -> str:
    """Sorted keys, no spaces, UTF-8 text: equal calls give equal strings."""
    return json.dumps(obj, sort_keys=True, separators=(",", ":"), ensure_ascii=False, allow_nan=False)


# --------------------------------------------------------------------------
# Argument kinds: one entry per schema base type.
# --------------------------------------------------------------------------


@dataclasses.dataclass(frozen=True)
class ArgKind:
    """How one schema base type travels.

    `to_json`/`from_json` convert a Python value to its JSON form and back.
    `const_dtype(value)` is the element type of the `tosa.const` the const
    encoding uses for it, or None when the kind always stays in JSON.
    `runtime_dtype` is the torch dtype of the 0-d tensor operand that carries
    a value known only at run time, or None when such values are refused.
    """

    name: str
    to_json: Callable[[Any], Any]
    from_json: Callable[[Any], Any]
    const_dtype: Callable[[Any], torch.dtype | None] = lambda v: None
    runtime_dtype: torch.dtype | None = None
    accepts: Callable[[Any], bool] = lambda v: True


_KINDS: Registry[ArgKind] = Registry("argument kind")


def _register(kind: ArgKind) -> ArgKind:
    return _KINDS.add(kind.name, kind)


def arg_kinds() -> dict[str, ArgKind]:
    return _KINDS.as_dict()


def _expect(ok: bool, what: str, value: Any) -> None:
    if not ok:
        raise ContractError(f"expected {what}, got {json.dumps(value)[:80]}")


def _is_int(v) -> bool:
    return isinstance(v, int) and not isinstance(v, bool)


def _float_to_json(v: float):
    v = float(v)
    if math.isfinite(v):
        return v
    return {"float": "nan" if math.isnan(v) else ("inf" if v > 0 else "-inf")}


def _float_from_json(j) -> float:
    if isinstance(j, dict):
        _expect(set(j) == {"float"} and j["float"] in ("inf", "-inf", "nan"),
                'a number or {"float": "inf"|"-inf"|"nan"}', j)
        return float(j["float"])
    _expect(isinstance(j, float), "a float (a JSON number with a fraction or exponent)", j)
    _expect(math.isfinite(j), 'a finite number (write {"float": "inf"} for infinity)', j)
    return j


_INT64 = (-(2**63), 2**63 - 1)


def _int_from_json(j) -> int:
    _expect(_is_int(j), "an integer", j)
    _expect(_INT64[0] <= j <= _INT64[1], "a 64-bit integer", j)
    return j


def _bool_from_json(j) -> bool:
    _expect(isinstance(j, bool), "true or false", j)
    return j


def _number_to_json(v):
    if isinstance(v, bool) or _is_int(v):
        return v
    if isinstance(v, complex):
        return _complex_to_json(v)
    return _float_to_json(v)


def _number_from_json(j):
    if isinstance(j, bool):
        return j
    if _is_int(j):
        return _int_from_json(j)
    if isinstance(j, dict) and "complex" in j:
        return _complex_from_json(j)
    return _float_from_json(j)


def _number_const_dtype(v):
    if isinstance(v, bool):
        return torch.bool
    if _is_int(v):
        return torch.int64
    if isinstance(v, float):
        return torch.float64
    return None  # complex stays in JSON


def _complex_to_json(v: complex):
    return {"complex": [_float_to_json(v.real), _float_to_json(v.imag)]}


def _complex_from_json(j) -> complex:
    _expect(isinstance(j, dict) and set(j) == {"complex"} and isinstance(j["complex"], list)
            and len(j["complex"]) == 2, '{"complex": [re, im]}', j)
    re_, im_ = j["complex"]
    return complex(_float_from_json(re_), _float_from_json(im_))


def _named(tag: str, table: dict[int, Any], py_type: type) -> ArgKind:
    by_name = {str(v).split(".")[-1]: v for v in table.values()}

    def to_json(v):
        if not isinstance(v, py_type):
            raise ContractError(f"expected a {py_type.__name__}, got {v!r}")
        return {tag: str(v).split(".")[-1]}

    def from_json(j):
        _expect(isinstance(j, dict) and set(j) == {tag} and isinstance(j[tag], str) and j[tag] in by_name,
                f'{{"{tag}": one of {sorted(by_name)}}}', j)
        return by_name[j[tag]]

    return ArgKind(tag, to_json, from_json, accepts=lambda v: isinstance(v, py_type))


def _device_from_json(j):
    _expect(isinstance(j, dict) and set(j) == {"device"} and isinstance(j["device"], str),
            '{"device": "cpu"}', j)
    try:
        return torch.device(j["device"])
    except RuntimeError as e:
        raise ContractError(f"invalid device {j['device']!r}: {e}") from None


def _str_from_json(j) -> str:
    _expect(isinstance(j, str), "a string", j)
    return j


def _tensor_from_json(j):
    raise AssertionError("tensors are decoded from operand references")


_register(ArgKind("Tensor", lambda v: v, _tensor_from_json))
_register(ArgKind("int", int, _int_from_json, lambda v: torch.int64, torch.int64, _is_int))
_register(ArgKind("float", _float_to_json, _float_from_json, lambda v: torch.float64, torch.float64,
                  lambda v: isinstance(v, float)))
_register(ArgKind("bool", bool, _bool_from_json, lambda v: torch.bool, torch.bool,
                  lambda v: isinstance(v, bool)))
_register(ArgKind("number", _number_to_json, _number_from_json, _number_const_dtype, None,
                  lambda v: isinstance(v, (int, float, complex))))
_register(ArgKind("complex", _complex_to_json, _complex_from_json,
                  accepts=lambda v: isinstance(v, complex)))
_register(ArgKind("str", str, _str_from_json, accepts=lambda v: isinstance(v, str)))
_register(_named("dtype", _schema.DTYPES, torch.dtype))
_register(_named("layout", _schema.LAYOUTS, torch.layout))
_register(_named("memory_format", _schema.MEMORY_FORMATS, torch.memory_format))
_register(ArgKind("device", lambda v: {"device": str(v)}, _device_from_json,
                  accepts=lambda v: isinstance(v, (torch.device, str))))
# A Generator can only be absent: a present one is state the IR cannot carry.
_register(ArgKind("Generator", lambda v: v, lambda j: None, accepts=lambda v: False))

_BASE_BY_SCHEMA_NAME = {
    "Tensor": "Tensor", "int": "int", "SymInt": "int", "float": "float", "bool": "bool",
    "number": "number", "Scalar": "number", "complex": "complex", "str": "str",
    "ScalarType": "dtype", "Layout": "layout", "MemoryFormat": "memory_format",
    "Device": "device", "Generator": "Generator",
}


@dataclasses.dataclass(frozen=True)
class ArgType:
    """A schema argument type: a base kind, maybe a list of it, maybe optional."""

    kind: ArgKind
    optional: bool = False
    is_list: bool = False
    elem_optional: bool = False

    def __str__(self) -> str:
        s = self.kind.name + ("?" if self.elem_optional else "")
        s = s + "[]" if self.is_list else s
        return s + ("?" if self.optional else "")


def arg_type(real_type) -> ArgType | None:
    """The ArgType of a schema argument's `real_type`, or None if unsupported."""
    t = real_type
    optional = is_list = elem_optional = False
    if isinstance(t, torch.OptionalType):
        optional, t = True, t.getElementType()
    if isinstance(t, torch.ListType):
        is_list, t = True, t.getElementType()
        if isinstance(t, torch.OptionalType):
            elem_optional, t = True, t.getElementType()
    base = _BASE_BY_SCHEMA_NAME.get(str(t))
    if base is None:
        return None
    return ArgType(_KINDS[base], optional, is_list, elem_optional)


# --------------------------------------------------------------------------
# Decoding.
# --------------------------------------------------------------------------


def carried_view(value: torch.Tensor, dtype: torch.dtype) -> torch.Tensor:
    """The torch tensor a carried TOSA tensor stands for (CONTRACT.md 3.5), as a view."""
    if value.dtype == dtype:
        return value
    if dtype == torch.int64:  # int64 carried as int32 (version 4): a copy, as it widens
        return value.to(torch.int64)
    if dtype in (torch.uint8, torch.float32):  # the same bits (float32 carried as int32: version 5)
        return value.view(dtype)
    if value.stride(-1) != 1 or any(s % 2 for s in value.stride()[:-1]):
        value = value.contiguous()
    return torch.view_as_complex(value)


@dataclasses.dataclass
class DecodedCall:
    """An ATen call rebuilt from a `tosa.custom`: `overload(*args, **kwargs)`.

    Tensor operands (and scalars known only at run time) appear as `Operand`
    placeholders; `bind()` puts real values in their place.
    """

    overload: torch._ops.OpOverload
    args: tuple
    kwargs: dict
    # Results of the ATen op that the custom op does not have (CONTRACT.md 3.4).
    dropped_results: tuple[int, ...] = ()
    # Custom op operand / result index -> torch dtype it carries (CONTRACT.md 3.5).
    operand_dtypes: dict[int, torch.dtype] = dataclasses.field(default_factory=dict)
    result_dtypes: dict[int, torch.dtype] = dataclasses.field(default_factory=dict)
    # Per custom op result, its dims: an int, or a ShapeExpr over the operands'
    # dims and values (CONTRACT.md 15.2); None when every result is static.
    result_shapes: tuple[tuple[int | _shapes.ShapeExpr, ...], ...] | None = None
    # A kept op on quantized values (version 5, CONTRACT.md §18): its meaning is
    # quantize(op(dequantize(operands))) with these parameters; None otherwise.
    quantization: OpQuantization | None = None

    @property
    def arguments(self) -> dict[str, Any]:
        """Every argument by its schema name, in schema order."""
        names = [a.name for a in self.overload._schema.arguments if not a.kwarg_only]
        return {**dict(zip(names, self.args)), **self.kwargs}

    def bind(self, operands: Sequence[Any]) -> tuple[tuple, dict]:
        def sub(v):
            if isinstance(v, Operand):
                value = operands[v.index]
                carried = self.operand_dtypes.get(v.index)
                if carried is not None and isinstance(value, torch.Tensor):
                    value = carried_view(value, carried)
                if v.kind != "tensor":
                    value = value.item() if hasattr(value, "item") else value
                    if v.kind == "int":
                        value = int(value)
                    elif v.kind == "float":
                        value = float(value)
                    elif v.kind == "bool":
                        value = bool(value)
                return value
            if isinstance(v, list):
                return [sub(x) for x in v]
            return v

        return tuple(sub(a) for a in self.args), {k: sub(v) for k, v in self.kwargs.items()}

    def __call__(self, *operands):
        """The call the op stands for: on quantized operands, quantize(op(dequantize(operands)))."""
        if self.quantization is None:
            args, kwargs = self.bind(operands)
            return self.overload(*args, **kwargs)
        args, kwargs = self.bind(self.quantization.dequantized(operands))
        return self.quantization.quantized(self.overload(*args, **kwargs), self.dropped_results)


def _has_empty(encoded) -> bool:
    if isinstance(encoded, dict):
        return "empty" in encoded or any(_has_empty(v) for v in encoded.values())
    if isinstance(encoded, list):
        return any(_has_empty(v) for v in encoded)
    return False


def carry_operand(text: str, index: int, dtype: str) -> str:
    """`implementation_attrs` with operand `index` marked as carrying `dtype`
    (CONTRACT.md 3.5), the version raised to what reads it."""
    attrs = json.loads(text)
    attrs.setdefault("operand_dtypes", {})[str(index)] = dtype
    attrs["version"] = max(attrs["version"], _CARRIER_VERSION.get(dtype, 2))
    return canonical_json(attrs)


def with_quantization(text: str, quantization: OpQuantization) -> str:
    """`implementation_attrs` of a kept op on quantized values (CONTRACT.md
    §18): the parameters under `"quantization"`, the version raised to 5."""
    attrs = json.loads(text)
    attrs[QUANTIZATION_KEY] = quantization.to_json()
    attrs["version"] = max(attrs["version"], QUANTIZED_VERSION)
    return canonical_json(attrs)


def encode_attrs(args: dict, dropped_results: Sequence[int] = (), operand_dtypes: dict[int, str] | None = None,
                 result_dtypes: dict[int, str] | None = None, result_shapes: Sequence[Sequence] | None = None) -> str:
    """The `implementation_attrs` text (CONTRACT.md 3) for already encoded
    arguments: the inverse of `parse_attrs`/`decode_attrs`. Only an op that
    needs version 2 (carried dtypes, empty operands) or 3 (`?` result dims,
    §15.2) says so, so that older decoders read the rest."""
    attrs: dict[str, Any] = {"args": args, "version": 1}
    if dropped_results:
        attrs["dropped_results"] = list(dropped_results)
    for key, table in (("operand_dtypes", operand_dtypes), ("result_dtypes", result_dtypes)):
        if table:
            attrs[key] = {str(i): d for i, d in table.items()}
    if operand_dtypes or result_dtypes or _has_empty(args):
        attrs["version"] = 2
    if result_shapes is not None:
        attrs["result_shapes"] = [[d if _is_int(d) else str(d) for d in dims] for dims in result_shapes]
        attrs["version"] = 3
    return canonical_json(attrs)


def _parse_result_shapes(attrs: dict, num_operands: int) -> tuple | None:
    """`result_shapes` (CONTRACT.md 15.2) of a decoded `implementation_attrs`,
    or None when it has none; it needs version 3."""
    if "result_shapes" not in attrs:
        return None
    if attrs["version"] < 3:
        raise ContractError(f"'result_shapes' needs contract version 3, but the op says version {attrs['version']}")
    return parse_result_shapes(attrs["result_shapes"], num_operands)


def parse_result_shapes(table, num_operands: int) -> tuple:
    """A `result_shapes` table as a tuple per result of int | ShapeExpr,
    operand references checked against `num_operands` (the one reader of
    the key: `decode()`, and the runtime for ops of any domain that state it)."""
    if not (isinstance(table, list) and all(isinstance(dims, list) for dims in table)):
        raise ContractError(f"'result_shapes' must be a list (one per result) of lists of dims, got "
                            f"{json.dumps(table)[:80]}")
    parsed = []
    for j, dims in enumerate(table):
        out = []
        for i, d in enumerate(dims):
            where = f"'result_shapes' result {j} dim {i}"
            if _is_int(d):
                if d < 0:
                    raise ContractError(f"{where} is {d}: a size is >= 0")
                out.append(d)
                continue
            if not isinstance(d, str):
                raise ContractError(f"{where} must be an integer or an expression text, got {json.dumps(d)[:40]}")
            try:
                expr = _shapes.parse(d, symbols=False)
            except _shapes.ShapeError as e:
                raise ContractError(f"{where}: {e}") from None
            bad = sorted(k for k in _operands_read(expr) if k >= num_operands)
            if bad:
                raise ContractError(f"{where} reads operand(s) {bad}, but the op has {num_operands} operands")
            out.append(expr.value if expr.kind == "const" else expr)
        parsed.append(tuple(out))
    return tuple(parsed)


def _operands_read(expr: _shapes.ShapeExpr) -> set[int]:
    """The operand indices `dim(k,i)` and `value(k)` of `expr` read."""
    if expr.kind in ("dim", "value"):
        return {expr.args[0].value}
    return set().union(*(_operands_read(a) for a in expr.args)) if expr.args else set()


def _check_version(attrs: dict) -> None:
    version = attrs.get("version")
    if not _is_int(version):
        raise ContractError("implementation_attrs has no integer 'version'")
    if version > CONTRACT_VERSION:
        raise ContractError(
            f"implementation_attrs uses contract version {version}, but this decoder "
            f"knows contract version {CONTRACT_VERSION} at most: upgrade tosa_custom"
        )
    if version < 1:
        raise ContractError(f"invalid contract version {version}")


def _refuse_constant(token: str):
    raise ContractError(f'implementation_attrs is not valid JSON: {token} is not a JSON number (write {{"float": "nan"}})')


def _refuse_duplicates(pairs: list) -> dict:
    result = dict(pairs)
    if len(result) != len(pairs):
        seen, dups = set(), []
        for k, _ in pairs:
            (dups.append(k) if k in seen else seen.add(k))
        raise ContractError(f"implementation_attrs repeats the key(s) {sorted(set(dups))}")
    return result


def parse_attrs(text: str) -> dict:
    try:
        attrs = json.loads(text, parse_constant=_refuse_constant, object_pairs_hook=_refuse_duplicates)
    except (json.JSONDecodeError, RecursionError, UnicodeError) as e:
        raise ContractError(f"implementation_attrs is not valid JSON: {e}") from None
    if not isinstance(attrs, dict):
        raise ContractError("implementation_attrs must be a JSON object")
    _check_version(attrs)
    unknown = set(attrs) - {"version", "args", "dropped_results", "operand_dtypes", "result_dtypes", "result_shapes",
                            QUANTIZATION_KEY}
    if unknown:
        raise ContractError(f"implementation_attrs has unknown keys {sorted(unknown)}")
    for key, allowed in (("operand_dtypes", CARRIED_OPERAND_DTYPES), ("result_dtypes", CARRIED_DTYPES)):
        if key in attrs:
            table = attrs[key]
            if attrs["version"] < 2:
                raise ContractError(f"'{key}' needs contract version 2, but the op says version {attrs['version']}")
            if not (isinstance(table, dict) and table
                    and all(k.isdigit() and v in allowed for k, v in table.items())):
                raise ContractError(
                    f"'{key}' must map indices (\"0\", \"1\", ...) to one of {sorted(allowed)}, got {table!r}"
                )
            for carried, version in _CARRIER_VERSION.items():
                if carried in table.values() and attrs["version"] < version:
                    raise ContractError(f"an {carried} operand carried as int32 needs contract version {version}, but "
                                        f"the op says version {attrs['version']}")
    if "dropped_results" in attrs:
        dropped = attrs["dropped_results"]
        if not (isinstance(dropped, list) and dropped and all(_is_int(i) and i >= 0 for i in dropped)
                and dropped == sorted(set(dropped))):
            raise ContractError("'dropped_results' must be a non-empty increasing list of result indices")
    if not isinstance(attrs.get("args"), dict):
        raise ContractError("implementation_attrs has no 'args' object")
    return attrs


OperandReader = Callable[[int, ArgKind], Any]
"""Called with (operand index, kind) for a non-tensor operand reference: returns
the constant's Python value (a scalar or a list) or an `Operand` placeholder."""


class _Decoder:
    """One op's arguments being decoded: which operands are taken, and by what."""

    def __init__(self, version: int, num_operands: int, read_operand: OperandReader | None):
        self.version, self.num_operands, self.read_operand = version, num_operands, read_operand
        self.used: set[int] = set()

    def operand(self, j, kind: ArgKind):
        _expect(isinstance(j, dict) and set(j) == {"operand"} and _is_int(j["operand"]),
                '{"operand": index}', j)
        index = j["operand"]
        if not 0 <= index < self.num_operands:
            raise ContractError(f"operand index {index} out of range: the op has {self.num_operands} operands")
        if index in self.used:
            raise ContractError(f"operand {index} is referenced twice")
        self.used.add(index)
        if kind.name == "Tensor":
            return Operand(index)
        if self.read_operand is None:
            return Operand(index, kind.name)
        return self.read_operand(index, kind)

    def empty(self, j) -> torch.Tensor:
        """A zero-size tensor operand, which TOSA cannot carry (CONTRACT.md 3.4)."""
        _expect(set(j) == {"empty", "dtype"} and isinstance(j["empty"], list)
                and all(_is_int(d) and d >= 0 for d in j["empty"]) and 0 in j["empty"]
                and len(j["empty"]) <= 64 and _dtypes.by_name(j["dtype"]) is not None,
                '{"empty": [dims with a 0], "dtype": name}', j)
        if self.version < 2:
            raise ContractError(f"an empty-tensor operand needs contract version 2, but the op says version {self.version}")
        return torch.empty(j["empty"], dtype=_dtypes.by_name(j["dtype"]).torch)

    def scalar(self, j, kind: ArgKind, optional: bool):
        if j is None:
            if not optional:
                raise ContractError(f"null given for a non-optional {kind.name}")
            return None
        if kind.name == "Tensor" and isinstance(j, dict) and "empty" in j:
            return self.empty(j)
        if kind.name == "Tensor" or _is_ref(j):
            value = self.operand(j, kind)
            if isinstance(value, list):
                raise ContractError(f"operand {j['operand']} holds a list where a {kind.name} is expected")
            return value
        if kind.name == "Generator":
            raise ContractError("a Generator can only be null")
        return kind.from_json(j)

    def argument(self, j, t: ArgType):
        if not t.is_list or j is None:
            return self.scalar(j, t.kind, t.optional)
        if _is_ref(j):  # const encoding: a whole list as one 1-d operand
            value = self.operand(j, t.kind)
            if not isinstance(value, list):
                raise ContractError(f"operand {j['operand']} must be a 1-d constant list")
            return value
        _expect(isinstance(j, list), "a list", j)
        return [self.scalar(e, t.kind, t.elem_optional) for e in j]


def _is_ref(j) -> bool:
    return isinstance(j, dict) and "operand" in j


def _check_names(operator_name: str, names: list[str], encoded: dict) -> None:
    missing = [n for n in names if n not in encoded]
    extra = sorted(set(encoded) - set(names))
    if missing or extra:
        raise ContractError(
            f"arguments of {operator_name} do not match its schema: "
            + (f"missing {missing}" if missing else "")
            + ("; " if missing and extra else "")
            + (f"unexpected {extra}" if extra else "")
        )


def _dropped_and_carried(attrs: dict, schema, operator_name: str, num_operands: int):
    dropped = tuple(attrs.get("dropped_results", ()))
    lists = any(isinstance(r.type, torch.ListType) for r in schema.returns)  # flattened: any length
    if dropped and not lists and dropped[-1] >= len(schema.returns):
        raise ContractError(f"dropped result {dropped[-1]} does not exist: {operator_name} has {len(schema.returns)} results")
    carried = {key: {int(i): CARRIED_OPERAND_DTYPES[d] for i, d in attrs.get(key, {}).items()}
               for key in ("operand_dtypes", "result_dtypes")}
    bad = [i for i in carried["operand_dtypes"] if i >= num_operands]
    if bad:
        raise ContractError(f"operand_dtypes names operands {bad}, but the op has {num_operands} operands")
    return dropped, carried["operand_dtypes"], carried["result_dtypes"]


def decode_attrs(
    operator_name: str,
    implementation_attrs: str,
    num_operands: int,
    read_operand: OperandReader | None = None,
    domain_name: str = DOMAIN,
) -> DecodedCall:
    """Rebuild the ATen call from the three strings of a `tosa.custom`."""
    # The version first: a newer contract may name ops or domains differently,
    # and "upgrade" is then the only useful answer.
    attrs = parse_attrs(implementation_attrs)
    if domain_name != DOMAIN:
        raise ContractError(f"domain_name is '{domain_name}', expected '{DOMAIN}'")
    overload = _schema.overload_for(operator_name)
    if overload is None or not operator_name.startswith("torch."):
        raise ContractError(f"operator_name '{operator_name}' names no PyTorch op overload")
    encoded = attrs["args"]
    schema = overload._schema
    _check_names(operator_name, [a.name for a in schema.arguments], encoded)
    decoder = _Decoder(attrs["version"], num_operands, read_operand)
    args, kwargs = [], {}
    for a in schema.arguments:
        t = arg_type(a.real_type)
        if t is None:
            raise ContractError(f"argument '{a.name}' of {operator_name} has unsupported type {a.real_type}")
        try:
            value = decoder.argument(encoded[a.name], t)
        except ContractError as e:
            raise ContractError(f"argument '{a.name}' ({t}) of {operator_name}: {e}") from None
        (kwargs.__setitem__(a.name, value) if a.kwarg_only else args.append(value))
    if len(decoder.used) != num_operands:
        unused = sorted(set(range(num_operands)) - decoder.used)
        raise ContractError(f"operands {unused} of {operator_name} are not referenced by any argument")
    quantization = (parse_quantization(attrs[QUANTIZATION_KEY], attrs["version"]) if QUANTIZATION_KEY in attrs
                    else None)
    if quantization is not None:
        quantization.check_counts(num_operands, None)
    return DecodedCall(overload, tuple(args), kwargs,
                       *_dropped_and_carried(attrs, schema, operator_name, num_operands),
                       result_shapes=_parse_result_shapes(attrs, num_operands), quantization=quantization)
