"""What a weight argument is, in the IR and on disk (CONTRACT.md §10).

In the IR the entry function itself is the manifest: a user input carries
`tosa_custom.input = <position>`, a weight carries `tosa_custom.weight =
"<fully qualified name>"`; shape and dtype are the argument's type. On disk
the same facts are a small JSON file (`Manifest.to_json`), so a runtime or a
backend that never parses MLIR can check a checkpoint against a module.
"""

from __future__ import annotations

import dataclasses
from typing import Any

import torch
from torch_mlir import ir

from ..core import dtypes as _dtypes
from ..core import ir as _ir

__all__ = [
    "INPUT_ATTR",
    "WEIGHT_ATTR",
    "TIED_ATTR",
    "VALUES_ATTR",
    "MANIFEST_FORMAT",
    "MANIFEST_VERSION",
    "ArgumentSpec",
    "Manifest",
    "ManifestError",
    "entry_function",
    "read_manifest",
    "set_argument_attrs",
    "argument_attrs",
    "shape_and_dtype",
]

INPUT_ATTR = "tosa_custom.input"
WEIGHT_ATTR = "tosa_custom.weight"
# On a weight that is the same tensor as an earlier one: that weight's name.
TIED_ATTR = "tosa_custom.tied_to"
# Module attribute the lift pass keeps the lifted values in when it is not
# asked to write them to a file: {name = <elements attr>, ...}.
VALUES_ATTR = "tosa_custom.weight_values"
MANIFEST_FORMAT = "tosa_custom.weights"
MANIFEST_VERSION = 1


class ManifestError(ValueError):
    """The entry function's weight markers are inconsistent (or a JSON manifest is)."""


def shape_and_dtype(t: ir.Type) -> tuple[tuple[int | None, ...] | None, str]:
    """(shape with None for dynamic dimensions, torch dtype name) of a tensor
    type, builtin or `!torch.vtensor`; (None, type text) for anything else."""
    if isinstance(t, ir.RankedTensorType):
        shape = tuple(None if ir.ShapedType.is_dynamic_size(d) else d for d in t.shape)
        return shape, _dtype_name(str(t.element_type))
    parsed = _dtypes.parse_vtensor(str(t))
    if parsed:
        dims, element = parsed
        return tuple(None if d in ("-1", "?") else int(d) for d in dims), _dtype_name(element)
    return None, str(t)


def _dtype_name(element: str) -> str:
    found = _dtypes.by_element(element)
    return found.name if found is not None else element


@dataclasses.dataclass(frozen=True)
class ArgumentSpec:
    """One argument of the entry function: a user input (`name` is None) or a weight."""

    argument: int                      # index in the entry function's arguments
    shape: tuple[int | None, ...] | None
    dtype: str                         # torch dtype name: "float32", "int64", ...
    name: str | None = None            # weights: the fully qualified PyTorch name
    position: int | None = None        # inputs: the position in the model's call
    tied_to: str | None = None         # weights: the earlier weight this one is the same tensor as

    @property
    def torch_dtype(self) -> torch.dtype | None:
        """The torch dtype `dtype` names; None for a type outside the dtype table."""
        found = _dtypes.by_name(self.dtype)
        return found.torch if found is not None else None

    def describe(self) -> str:
        shape = "?" if self.shape is None else "[" + ", ".join("?" if d is None else str(d) for d in self.shape) + "]"
        return f"{shape} {self.dtype}"

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {"argument": self.argument}
        if self.name is not None:
            out["name"] = self.name
            if self.tied_to is not None:
                out["tied_to"] = self.tied_to
        else:
            out["position"] = self.position
        out["shape"] = None if self.shape is None else list(self.shape)
        out["dtype"] = self.dtype
        return out


@dataclasses.dataclass(frozen=True)
class Manifest:
    """The entry function's inputs and weights, in argument order."""

    entry: str
    inputs: tuple[ArgumentSpec, ...]
    weights: tuple[ArgumentSpec, ...]

    @property
    def names(self) -> list[str]:
        return [w.name for w in self.weights]

    def weight(self, name: str) -> ArgumentSpec:
        for w in self.weights:
            if w.name == name:
                return w
        raise KeyError(f"no weight '{name}'")

    def to_json(self) -> dict[str, Any]:
        return {
            "format": MANIFEST_FORMAT,
            "version": MANIFEST_VERSION,
            "entry": self.entry,
            "inputs": [a.to_json() for a in self.inputs],
            "weights": [w.to_json() for w in self.weights],
        }

    @staticmethod
    def from_json(data: dict[str, Any]) -> "Manifest":
        if not isinstance(data, dict) or data.get("format") != MANIFEST_FORMAT:
            raise ManifestError(f"not a weights manifest (expected \"format\": \"{MANIFEST_FORMAT}\")")
        if data.get("version") != MANIFEST_VERSION:
            raise ManifestError(
                f"weights manifest version {data.get('version')!r}; this tosa_custom reads version {MANIFEST_VERSION}"
            )

        def spec(d: dict, weight: bool) -> ArgumentSpec:
            shape = d.get("shape")
            return ArgumentSpec(
                argument=int(d["argument"]),
                shape=None if shape is None else tuple(None if s is None else int(s) for s in shape),
                dtype=str(d["dtype"]),
                name=str(d["name"]) if weight else None,
                position=None if weight else int(d["position"]),
                tied_to=str(d["tied_to"]) if weight and d.get("tied_to") is not None else None,
            )

        try:
            return Manifest(
                entry=str(data["entry"]),
                inputs=tuple(spec(d, False) for d in data["inputs"]),
                weights=tuple(spec(d, True) for d in data["weights"]),
            )
        except (KeyError, TypeError, ValueError) as e:
            raise ManifestError(f"malformed weights manifest: {type(e).__name__}: {e}") from None


def entry_function(module, entry: str | None = None):
    """The function a program runs: `entry`, or the one public function with a body."""
    funcs = _ir.public_functions(module, entry)
    if len(funcs) != 1:
        names = [ir.StringAttr(f.attributes["sym_name"]).value for f in funcs]
        raise ManifestError(
            f"expected one public function with a body{f' named {entry}' if entry else ''}, "
            f"found {names or 'none'}; name the entry function"
        )
    return funcs[0]


def argument_attrs(func) -> list[dict[str, ir.Attribute]]:
    """Each argument's attribute dictionary, as plain dicts."""
    n = len(ir.TypeAttr(func.attributes["function_type"]).value.inputs)
    if "arg_attrs" not in func.attributes:
        return [{} for _ in range(n)]
    result = []
    for a in ir.ArrayAttr(func.attributes["arg_attrs"]):
        d = ir.DictAttr(a)
        result.append({d[i].name: d[i].attr for i in range(len(d))})
    return result + [{} for _ in range(n - len(result))]


def set_argument_attrs(func, attrs: list[dict[str, ir.Attribute]]) -> None:
    """Write back what `argument_attrs` returned (dropping the attribute if all are empty)."""
    if any(attrs):
        func.attributes["arg_attrs"] = ir.ArrayAttr.get([ir.DictAttr.get(a) for a in attrs])
    elif "arg_attrs" in func.attributes:
        del func.attributes["arg_attrs"]


def read_manifest(module, entry: str | None = None) -> Manifest:
    """The manifest of `module`'s entry function (or of a `func.func` op).

    Arguments without a marker count as user inputs at their own position.
    Raises ManifestError for a duplicate weight name or an argument marked both ways.
    """
    is_func = not isinstance(module, ir.Module) and module.operation.name == "func.func"
    func = module if is_func else entry_function(module, entry)
    name = ir.StringAttr(func.attributes["sym_name"]).value
    types = ir.TypeAttr(func.attributes["function_type"]).value.inputs
    inputs, weights, seen = [], [], set()
    for i, (t, attrs) in enumerate(zip(types, argument_attrs(func))):
        shape, dtype = shape_and_dtype(t)
        if WEIGHT_ATTR in attrs:
            if INPUT_ATTR in attrs:
                raise ManifestError(f"argument #{i} of @{name} is marked both {INPUT_ATTR} and {WEIGHT_ATTR}")
            wname = ir.StringAttr(attrs[WEIGHT_ATTR]).value
            if wname in seen:
                raise ManifestError(f"two arguments of @{name} are the weight '{wname}'")
            seen.add(wname)
            tied = ir.StringAttr(attrs[TIED_ATTR]).value if TIED_ATTR in attrs else None
            weights.append(ArgumentSpec(i, shape, dtype, name=wname, tied_to=tied))
        else:
            position = ir.IntegerAttr(attrs[INPUT_ATTR]).value if INPUT_ATTR in attrs else len(inputs)
            inputs.append(ArgumentSpec(i, shape, dtype, position=position))
    return Manifest(name, tuple(inputs), tuple(weights))
