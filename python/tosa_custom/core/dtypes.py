"""The one dtype table: each tensor dtype the project carries, in every spelling.

A torch dtype is spelt differently by each layer it crosses: torch-mlir's
`!torch.vtensor` element (`si64`), the builtin element type (`i64`), numpy,
the element code of the native C ABI (CONTRACT.md 11), and the TOSA type it
travels as when TOSA has none of its own (uint8 as its int8 bits, complex as
real pairs; CONTRACT.md 3.5). Every module looks its spelling up here.
"""

from __future__ import annotations

import dataclasses
import re

import numpy as np
import torch

__all__ = ["DType", "DTYPES", "by_name", "by_torch", "by_torch_mlir", "by_element", "tosa_element", "parse_vtensor", "vtensor_element", "VTENSOR",
           "ScalarKind", "SCALAR_KINDS", "scalar_kind", "scalar_kind_of_builtin"]


@dataclasses.dataclass(frozen=True)
class DType:
    name: str  # torch's name: "float32" (contract JSON, manifests, tosa_custom.dtype marks)
    torch: torch.dtype
    torch_mlir: str  # the !torch.vtensor element: "f32", "si64", "ui8", "complex<f32>"
    builtin: str  # the builtin tensor element: "f32", "i64", "ui8", "complex<f32>"
    # numpy storage dtype (bfloat16 is stored as its 16 bits: numpy has no bfloat16)
    numpy: type
    # The element TOSA carries it as, when TOSA cannot type it (else None); complex travels as [..., 2] pairs.
    carrier: str | None
    native: int | None  # element code of the C ABI (lib/include/tosa_custom_kernel.h), None: not passed natively

    @property
    def tosa(self) -> str:
        """The element type of this dtype's tensors in TOSA."""
        return self.carrier or self.builtin

    @property
    def itemsize(self) -> int:
        return torch.empty((), dtype=self.torch).element_size()

    @property
    def pairs(self) -> bool:
        """Travels as view_as_real pairs with a trailing dimension of 2."""
        return self.torch.is_complex


DTYPES: tuple[DType, ...] = (
    DType("float32", torch.float32, "f32", "f32", np.float32, None, 1),
    DType("float64", torch.float64, "f64", "f64", np.float64, None, 2),
    DType("float16", torch.float16, "f16", "f16", np.float16, None, 3),
    DType("bfloat16", torch.bfloat16, "bf16", "bf16", np.uint16, None, 4),
    DType("int64", torch.int64, "si64", "i64", np.int64, None, 5),
    DType("int32", torch.int32, "si32", "i32", np.int32, None, 6),
    DType("int16", torch.int16, "si16", "i16", np.int16, None, 7),
    DType("int8", torch.int8, "si8", "i8", np.int8, None, 8),
    DType("uint8", torch.uint8, "ui8", "ui8", np.uint8, "i8", 9),
    DType("bool", torch.bool, "i1", "i1", np.bool_, None, 10),
    DType("complex64", torch.complex64, "complex<f32>", "complex<f32>", np.complex64, "f32", None),
    DType("complex128", torch.complex128, "complex<f64>", "complex<f64>", np.complex128, "f64", None),
)

_BY_NAME = {d.name: d for d in DTYPES}
_BY_TORCH = {d.torch: d for d in DTYPES}
_BY_TORCH_MLIR = {d.torch_mlir: d for d in DTYPES}
# torch-mlir and builtin spellings together: they differ only for signed integers.
_BY_ELEMENT = {**{d.builtin: d for d in DTYPES}, **{d.torch_mlir: d for d in DTYPES}}


def by_name(name: str) -> DType | None:
    return _BY_NAME.get(name)


def by_torch(dtype: torch.dtype) -> DType | None:
    return _BY_TORCH.get(dtype)


# torch dtypes the project does not carry, by the element type MLIR spells
# them as: only to say what they would be in TOSA (which has none of them but
# the two fp8 types, through extensions).
_UNCARRIED = {"uint16": "ui16", "uint32": "ui32", "uint64": "ui64", "complex32": "complex<f16>",
              "float8_e4m3fn": "f8E4M3FN", "float8_e5m2": "f8E5M2", "float8_e4m3fnuz": "f8E4M3FNUZ",
              "float8_e5m2fnuz": "f8E5M2FNUZ", "float8_e8m0fnu": "f8E8M0FNU"}


def tosa_element(dtype: torch.dtype) -> str:
    """The element type a tensor of `dtype` has in TOSA (its carrier when TOSA
    cannot type it: uint8 as i8, complex as pairs); for a dtype the project
    does not carry, the element MLIR would give it (`ui16`), else torch's name."""
    known = _BY_TORCH.get(dtype)
    name = str(dtype).removeprefix("torch.")
    return known.tosa if known else _UNCARRIED.get(name, name)


def by_torch_mlir(spelling: str) -> DType | None:
    """By the element spelling of a `!torch.vtensor` (`si64`, `ui8`, `i1`)."""
    return _BY_TORCH_MLIR.get(spelling)


def by_element(spelling: str) -> DType | None:
    """By a torch-mlir (`si64`) or builtin (`i64`) element spelling."""
    return _BY_ELEMENT.get(spelling)


VTENSOR = re.compile(r"^!torch\.vtensor<\[(?P<shape>[^\]]*)\],(?P<dtype>.+)>$")


def parse_vtensor(text: str) -> tuple[list[str], str] | None:
    """The dims (as written: "-1" is dynamic) and element spelling of a
    `!torch.vtensor` type's text, or None for any other type."""
    m = VTENSOR.match(text)
    if not m:
        return None
    return [d.strip() for d in m["shape"].split(",") if d.strip()], m["dtype"]


def vtensor_element(ty) -> str | None:
    """The element spelling of a ranked `!torch.vtensor` type ("f32", "si64"), or None for any other type."""
    parsed = parse_vtensor(str(ty))
    return parsed[1] if parsed else None


@dataclasses.dataclass(frozen=True)
class ScalarKind:
    """A Python number as each layer spells it: the torch-mlir scalar type
    (`!torch.int`), the 0-d tensor it travels in across a `tosa.custom` or a
    function boundary (CONTRACT.md 4.5), the torch_c cast to its builtin
    value, the op that reads it back out of a tensor, and the Python type the
    program returns it as."""

    name: str  # "int", "float", "bool": the `tosa_custom.scalar` mark and the contract's kind name
    torch_type: str  # "!torch.int"
    dtype: DType  # the dtype of its 0-d tensor (int64, float64, bool)
    to_builtin: str  # the torch_c op that gives its builtin scalar
    from_tensor: str  # the torch op that reads it from a 0-d tensor
    python: type

    @property
    def builtin(self) -> str:
        """The builtin element type of its 0-d tensor (`i64`)."""
        return self.dtype.builtin

    @property
    def tensor_element(self) -> str:
        """The `!torch.vtensor` element of its 0-d tensor (`si64`)."""
        return self.dtype.torch_mlir


SCALAR_KINDS: tuple[ScalarKind, ...] = (
    ScalarKind("int", "!torch.int", _BY_NAME["int64"], "torch_c.to_i64", "torch.aten.Int.Tensor", int),
    ScalarKind("float", "!torch.float", _BY_NAME["float64"], "torch_c.to_f64", "torch.aten.Float.Tensor", float),
    ScalarKind("bool", "!torch.bool", _BY_NAME["bool"], "torch_c.to_i1", "torch.aten.Bool.Tensor", bool),
)
_SCALAR_BY_TYPE = {k.torch_type: k for k in SCALAR_KINDS}
_SCALAR_BY_NAME = {k.name: k for k in SCALAR_KINDS}
_SCALAR_BY_BUILTIN = {k.builtin: k for k in SCALAR_KINDS}


def scalar_kind(spelling: str) -> ScalarKind | None:
    """By its torch-mlir type text (`!torch.int`) or its name (`int`)."""
    return _SCALAR_BY_TYPE.get(spelling) or _SCALAR_BY_NAME.get(spelling)


def scalar_kind_of_builtin(element: str) -> ScalarKind | None:
    """By the builtin element of its 0-d tensor (`i64`, `f64`, `i1`)."""
    return _SCALAR_BY_BUILTIN.get(element)
