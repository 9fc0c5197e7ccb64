"""Test helper: write one ATen call as torch-dialect IR, the way the FX importer does.

`emit(overload, values)` turns a Python call (one value per schema argument, in
schema order) into a module with one `func.func` whose body builds every
argument as an operand: constants as `torch.constant.*`, lists with
`torch.prim.ListConstruct`, tensors (`T`) and scalars known only at run time
(`Runtime`) as function arguments. Tensors may also be literals (`Literal`,
a `torch.vtensor.literal`). `Emitted.expected` is the call the decoder must
give back, with `FuncArg` standing for the function argument that a decoded
`Operand` must trace back to, and the `Literal` itself for a literal.

Nothing here imports the code under test except the contract's type table
(`arg_type`) and the c10 enum numbers (`schema.DTYPES` etc.), which are inputs
of the IR, not of the encoding.
"""

from __future__ import annotations

import dataclasses
import functools
import math
import struct
from typing import Any, Sequence

import torch
from torch_mlir import ir

from tosa_custom.core import ir as _ir
from tosa_custom.core import schema as _schema
from tosa_custom.contract.encoding import ArgType, arg_type

__all__ = ["T", "Literal", "Runtime", "FuncArg", "Emitted", "emit", "mlir_string", "mlir_f64",
           "is_registered", "dialect_name", "ENUM_NUMBER"]


@dataclasses.dataclass(frozen=True)
class T:
    """A tensor argument: a function argument of type `!torch.vtensor<shape,dtype>`.

    `None` in `shape` is a dynamic dimension (`?`)."""

    shape: tuple = (2, 3)
    dtype: str = "f32"

    @property
    def torch_type(self) -> str:
        dims = ",".join("?" if d is None else str(d) for d in self.shape)
        return f"!torch.vtensor<[{dims}],{self.dtype}>"

    @property
    def builtin_type(self) -> str:
        # ui8 travels as its int8 bits (CONTRACT.md 3.5).
        element = {"si64": "i64", "si32": "i32", "si16": "i16", "si8": "i8", "ui8": "i8"}.get(self.dtype, self.dtype)
        return "tensor<" + "".join(("?" if d is None else str(d)) + "x" for d in self.shape) + element + ">"


@dataclasses.dataclass(frozen=True)
class Literal(T):
    """A tensor argument that is a `torch.vtensor.literal` (a weight): `values`
    are the elements in row-major order (bools for i1, ints, or floats exact in
    the element type). Static shapes only."""

    values: tuple = (0.0,) * 6

    def __post_init__(self):
        if any(d is None for d in self.shape) or math.prod(self.shape) != len(self.values):
            raise ValueError(f"{len(self.values)} values for a literal of shape {self.shape}")

    @property
    def dense(self) -> str:
        """The literal's attribute: `dense<[...]> : tensor<2x3xsi64>` (torch's element type)."""
        def elem(v):
            if isinstance(v, bool):
                return "true" if v else "false"
            return repr(float(v)) if self.dtype[0] in "fb" else str(int(v))

        def nest(values, shape):
            if not shape:
                return elem(values[0])
            step = len(values) // shape[0] if shape[0] else 0
            return "[" + ", ".join(nest(values[i * step:(i + 1) * step], shape[1:]) for i in range(shape[0])) + "]"

        ty = "tensor<" + "".join(f"{d}x" for d in self.shape) + self.dtype + ">"
        return f"dense<{nest(list(self.values), list(self.shape))}> : {ty}"


@dataclasses.dataclass(frozen=True)
class Runtime:
    """A scalar known only at run time: a function argument `!torch.<kind>`."""

    kind: str  # "int" | "float" | "bool"

    @property
    def torch_type(self) -> str:
        return f"!torch.{self.kind}"


@dataclasses.dataclass(frozen=True)
class FuncArg:
    """In `Emitted.expected`: the function argument `number`, made for `marker`."""

    number: int
    marker: Any  # T or Runtime


@dataclasses.dataclass
class Emitted:
    text: str
    identifier: str  # `torch.aten.gelu`, `torch.aten.add.Scalar`
    overload: Any
    func_args: list  # the markers, in function-argument order
    expected: dict  # schema argument name -> expected decoded value
    form: str  # "custom" or "operator"


# c10 enum numbers of dtypes, layouts and memory formats (the IR spells them as ints).
ENUM_NUMBER: dict[Any, int] = {
    **{v: k for k, v in _schema.DTYPES.items()},
    **{v: k for k, v in _schema.LAYOUTS.items()},
    **{v: k for k, v in _schema.MEMORY_FORMATS.items()},
}


def mlir_string(s: str) -> str:
    """An MLIR string literal: printable ASCII as is, every other byte `\\XX`."""
    out = []
    for b in s.encode("utf-8"):
        c = chr(b)
        if 0x20 <= b < 0x7F and c not in '"\\':
            out.append(c)
        else:
            out.append(f"\\{b:02X}")
    return '"' + "".join(out) + '"'


def mlir_f64(v: float) -> str:
    """A lossless f64 literal: the IEEE bits in hex (MLIR reads `0x...` for floats)."""
    return f"0x{struct.unpack('<Q', struct.pack('<d', float(v)))[0]:016X}"


@functools.lru_cache(maxsize=1)
def _registry_context() -> ir.Context:
    return _ir.make_context()


def dialect_name(overload) -> str:
    return _schema.overload_name(overload)


def is_registered(overload) -> bool:
    """Whether the torch dialect defines the op (else it is a `torch.operator`)."""
    return _registry_context().is_registered_operation(dialect_name(overload))


_LIST_ELEMENT = {"Tensor": "vtensor", "int": "int", "float": "float", "bool": "bool",
                 "number": "number", "str": "str"}


class _Builder:
    def __init__(self, *, derefine: bool, scalar_as_number: bool):
        self.lines: list[str] = []
        self.func_args: list[Any] = []
        self.derefine = derefine
        self.scalar_as_number = scalar_as_number
        self.n = 0

    def fresh(self) -> str:
        self.n += 1
        return f"%v{self.n}"

    def line(self, text: str) -> str:
        name = self.fresh()
        self.lines.append(f"  {name} = {text}")
        return name

    def func_arg(self, marker) -> tuple[str, str, FuncArg]:
        self.func_args.append(marker)
        number = len(self.func_args) - 1
        return f"%arg{number}", marker.torch_type, FuncArg(number, marker)

    # -- one value ---------------------------------------------------------

    def value(self, v, t: ArgType, *, optional: bool, element: bool, what: str):
        """Returns (ssa name, torch type, expected decoded value)."""
        if v is None:
            if not optional:
                raise ValueError(f"{what}: None for a non-optional {t}")
            return self.line("torch.constant.none"), "!torch.none", None
        if t.is_list and not element:
            ssa, ty, exp = self.list(v, t, what)
        else:
            ssa, ty, exp = self.scalar(v, t, what)
        if optional and self.derefine and not element:
            inner = "vtensor" if ty.startswith("!torch.vtensor") else ty[len("!torch."):]
            opt_ty = f"!torch.optional<{inner}>"
            ssa = self.line(f"torch.derefine {ssa} : {ty} to {opt_ty}")
            ty = opt_ty
        return ssa, ty, exp

    def list(self, v, t: ArgType, what: str):
        if not isinstance(v, (list, tuple)):
            raise ValueError(f"{what}: expected a list for {t}, got {v!r}")
        names, types, exp = [], [], []
        for i, e in enumerate(v):
            s, ty, x = self.value(e, t, optional=t.elem_optional, element=True, what=f"{what}[{i}]")
            names.append(s)
            types.append(ty)
            exp.append(x)
        elem = _LIST_ELEMENT[t.kind.name]
        if t.elem_optional:
            elem = f"optional<{elem}>"
        list_ty = f"!torch.list<{elem}>"
        ssa = self.line(f"torch.prim.ListConstruct {', '.join(names)} : ({', '.join(types)}) -> {list_ty}")
        return ssa, list_ty, exp

    def scalar(self, v, t: ArgType, what: str):
        kind = t.kind.name
        if isinstance(v, Literal):
            if kind != "Tensor":
                raise ValueError(f"{what}: a tensor for a {kind}")
            return self.line(f"torch.vtensor.literal({v.dense}) : {v.torch_type}"), v.torch_type, v
        if isinstance(v, (T, Runtime)):
            if isinstance(v, T) and kind != "Tensor":
                raise ValueError(f"{what}: a tensor for a {kind}")
            if isinstance(v, Runtime) and kind not in ("int", "float", "bool", "number"):
                raise ValueError(f"{what}: a run-time scalar for a {kind}")
            return self.func_arg(v)
        if kind == "Tensor":
            raise ValueError(f"{what}: expected a T marker for a tensor, got {v!r}")
        if kind in ("int", "float", "bool", "number"):
            return self.number(v, kind, what)
        if kind == "str":
            return self.line(f"torch.constant.str {mlir_string(v)}"), "!torch.str", v
        if kind in ("dtype", "layout", "memory_format"):
            return self.line(f"torch.constant.int {ENUM_NUMBER[v]}"), "!torch.int", v
        if kind == "device":
            return self.line(f"torch.constant.device {mlir_string(str(v))}"), "!torch.Device", torch.device(v)
        raise ValueError(f"{what}: cannot emit a {kind} ({v!r})")

    def number(self, v, kind: str, what: str):
        if isinstance(v, bool):
            if kind not in ("bool", "number"):
                raise ValueError(f"{what}: a bool for a {kind}")
            return self.line(f"torch.constant.bool {'true' if v else 'false'}"), "!torch.bool", v
        if isinstance(v, int):
            if kind not in ("int", "number"):
                raise ValueError(f"{what}: an int for a {kind}")
            if kind == "number" and self.scalar_as_number:
                return (self.line(f'"torch.constant.number"() {{value = {v} : i64}} : () -> !torch.number'),
                        "!torch.number", v)
            return self.line(f"torch.constant.int {v}"), "!torch.int", v
        if isinstance(v, float):
            if kind not in ("float", "number"):
                raise ValueError(f"{what}: a float for a {kind}")
            if kind == "number" and self.scalar_as_number:
                return (self.line(f'"torch.constant.number"() {{value = {mlir_f64(v)} : f64}} : () -> !torch.number'),
                        "!torch.number", v)
            return self.line(f"torch.constant.float {mlir_f64(v)}"), "!torch.float", v
        raise ValueError(f"{what}: cannot emit {v!r} as a {kind}")


def emit(
    overload,
    values: Sequence[Any],
    *,
    form: str = "auto",
    derefine: bool = False,
    scalar_as_number: bool = False,
    results: Sequence[T] | None = None,
    func_name: str = "f",
) -> Emitted:
    """IR text for `overload(*values)` (one value per schema argument, kwarg-only
    ones included, in schema order).

    form: "custom" (the dialect's op, e.g. `torch.aten.gelu %a, %s : ...`),
    "operator" (`torch.operator "torch.aten.gelu"(...)`), or "auto" (custom when
    the dialect defines the op). `derefine` wraps every given optional in
    `torch.derefine`; `scalar_as_number` spells `Scalar` constants as
    `torch.constant.number`. `results` default to one `T()` per schema return.
    """
    schema = overload._schema
    if len(values) != len(schema.arguments):
        raise ValueError(f"{schema.name} takes {len(schema.arguments)} arguments, got {len(values)}")
    name = dialect_name(overload)
    if form == "auto":
        form = "custom" if is_registered(overload) else "operator"
    if form not in ("custom", "operator"):
        raise ValueError(f"unknown form {form!r}")
    if results is None:
        results = [T() for _ in schema.returns]
    b = _Builder(derefine=derefine, scalar_as_number=scalar_as_number)
    operands, types, expected = [], [], {}
    for a, v in zip(schema.arguments, values):
        t = arg_type(a.real_type)
        if t is None:
            raise ValueError(f"argument '{a.name}' has unsupported type {a.real_type}")
        ssa, ty, exp = b.value(v, t, optional=t.optional, element=False, what=f"argument '{a.name}'")
        operands.append(ssa)
        types.append(ty)
        expected[a.name] = exp
    result_types = [r.torch_type for r in results]
    n = len(result_types)
    lhs = "%r" if n == 1 else f"%r:{n}"
    if form == "custom":
        op = f"{lhs} = {name} {', '.join(operands)} : {', '.join(types)} -> {', '.join(result_types)}"
    else:
        res = result_types[0] if n == 1 else "(" + ", ".join(result_types) + ")"
        op = f'{lhs} = torch.operator "{name}"({", ".join(operands)}) : ({", ".join(types)}) -> {res}'
    returned = "%r" if n == 1 else ", ".join(f"%r#{i}" for i in range(n))
    sig_args = ", ".join(f"%arg{i}: {m.torch_type}" for i, m in enumerate(b.func_args))
    sig_res = result_types[0] if n == 1 else "(" + ", ".join(result_types) + ")"
    text = "\n".join([
        f"func.func @{func_name}({sig_args}) -> {sig_res} {{",
        *b.lines,
        f"  {op}",
        f"  return {returned} : {', '.join(result_types)}",
        "}",
    ]) + "\n"
    return Emitted(text, name, overload, list(b.func_args), expected, form)
