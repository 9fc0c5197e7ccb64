"""What a call gives back: eager PyTorch's semantics at the program's boundary.

compile() marks each result of the entry function (CONTRACT.md §12): a user
output, the new value of a user input, or the new value of a buffer. After
the compiled code has run, `Boundary.finish`:

- writes each new input value into the caller's own tensor (`copy_`, so a
  non-contiguous view gets it where it points; a numpy array through
  `torch.from_numpy`), as the model's in-place op would have; a value of
  another shape (an `out=` argument of another size, which eager resizes:
  `torch.add(y, 1, out=x)` of a [5] `y` makes a [3, 4] `x` a [5] one)
  resizes the tensor first, warning as eager does when it held elements (a
  numpy array cannot be resized in place: it is refused). Which shape eager
  leaves is compile()'s to say (frontend/out_arguments.py);
- makes each new buffer value the program's state for the next call (the
  weight slot is pointed at the result: nothing the user handed in is
  written);
- returns only the user outputs, Python numbers as the Python type eager
  returned, rebuilt in the model's structure.

`Boundary.narrow` hands the compiled code int32 copies of the int64 inputs
it carries as int32 (`tosa_custom.dtype = "int64"` on an i32 argument,
CONTRACT.md §13.4d), refusing values outside int32; `finish` gives such
results back as int64.

A quantized model's program (CONTRACT.md §17) takes and returns integers
marked `tosa_custom.quantization`: `narrow` quantizes the caller's float
input with those parameters, as PT2E's quantize would have, and `finish`
dequantizes the result; `applied` says what it does to each.

An integer input the program computes with in float32 (marked
`tosa_custom.range`, CONTRACT.md §13.4e) must be within that range, where f32
holds every integer: `narrow` refuses one outside it, naming it.

`Boundary.check` refuses, before anything runs, an input the model writes
that cannot take the write (a Python number, a read-only array, a tensor
whose elements overlap in memory, as eager refuses it).

A module without these marks (hand-written TOSA, an older compile) keeps the
old convention: one result alone, several as a flat tuple.
"""

from __future__ import annotations

import json
import warnings

import numpy as np
import torch

from torch_mlir import ir

from ...core.attrs import BAKED, DTYPE, RANGE
from ...core.ir import function_type
from ...core.quantization import dequantize, quantize, read_quantization
from ...core.dtypes import scalar_kind
from ...contract.signature import MUTATES_BUFFER_ATTR, MUTATES_INPUT_ATTR, OUTPUT_ATTR, read_roles, rebuild

__all__ = ["Boundary"]


def _python_type(scalar: str | None) -> type | None:
    """The Python type of a result marked `tosa_custom.scalar = <kind>` (CONTRACT.md 4.5)."""
    kind = scalar_kind(scalar) if scalar is not None else None
    return kind.python if kind is not None else None


class Boundary:
    """The roles of the entry function's results, read once at load."""

    def __init__(self, func, state_names: list[str]):
        roles, scalars, self.tree = read_roles(func)
        self.marked = any(r is not None for r in roles)
        self.outputs: list[tuple[int, type | None]] = []  # (result, Python type) per user output, in order
        self.inputs: list[tuple[int, int]] = []   # (result, input position) the model writes
        self.state: list[tuple[int, int]] = []    # (result, weight slot) of each buffer it writes
        order = {}
        for i, (role, scalar) in enumerate(zip(roles, scalars)):
            if role is None or role.kind == OUTPUT_ATTR:
                order[i] = role.index if role is not None else i
                self.outputs.append((i, _python_type(scalar) if self.tree is not None else None))
            elif role.kind == MUTATES_INPUT_ATTR:
                self.inputs.append((i, role.index))
            elif role.kind == MUTATES_BUFFER_ATTR:
                if role.name not in state_names:
                    raise ValueError(f"result #{i} is the new value of buffer '{role.name}', which is not a "
                                     f"state argument of the function (CONTRACT.md §12)")
                self.state.append((i, state_names.index(role.name)))
        self.outputs.sort(key=lambda o: order[o[0]])
        self.written = sorted({p for _, p in self.inputs})
        results = function_type(func).results
        self.written_shapes = {p: _static_shape(results[i]) for i, p in self.inputs}  # None: a ? dim
        self.narrowed, self.widened = _int64_on_int32(func, "arg_attrs"), _int64_on_int32(func, "res_attrs")
        self.ranges = _ranges(func)
        self.baked = _baked(func)  # position -> the Python number export baked in
        self.quantized = read_quantization(func, "arg_attrs")  # position -> QParams
        self.dequantized = read_quantization(func, "res_attrs")

    def narrow(self, inputs) -> "tuple | list":
        """The inputs as the compiled code takes them: each int64 input it
        carries as int32 converted, after checking that its values fit."""
        if not self.narrowed and not self.ranges and not self.quantized:
            return inputs
        inputs = list(inputs)
        for p, q in self.quantized.items():
            if p < len(inputs):
                inputs[p] = _quantized(p, inputs[p], q)
        for p, (low, high) in self.ranges.items():
            if p < len(inputs):
                _check_range(p, inputs[p], low, high)
        for p in self.narrowed:
            if p < len(inputs):
                inputs[p] = _to_int32(p, inputs[p])
        return inputs

    def check(self, inputs) -> None:
        """Refuse, before the call, an input the model writes that cannot be
        written, and a Python number other than the one export baked in."""
        for p, value in self.baked.items():
            if p < len(inputs):
                _check_baked(p, inputs[p], value)
        for p in self.written:
            x = inputs[p] if p < len(inputs) else None
            if isinstance(x, np.ndarray):
                if not x.flags.writeable:
                    raise ValueError(f"input #{p} is written by the model in place, but the array is read-only")
                shape = self.written_shapes.get(p)
                if shape is not None and tuple(x.shape) != shape:
                    raise _unresizable(p, x.shape, shape)
                continue
            if not isinstance(x, torch.Tensor):
                raise TypeError(f"input #{p} is written by the model in place: pass a tensor or a numpy array, "
                                f"not a {type(x).__name__}")
            if torch._debug_has_internal_overlap(x) == 1:  # 1: overlapping for sure (expand, stride 0)
                raise ValueError(f"input #{p} is written by the model in place, but more than one of its "
                                 "elements refer to the same memory (as eager PyTorch, the program refuses it)")
            if x.requires_grad and x.is_leaf:
                raise RuntimeError(f"input #{p} is written by the model in place, but it is a leaf tensor "
                                   "that requires grad (as eager PyTorch, the program refuses it)")

    def finish(self, inputs, results: list, weights) -> object:
        """Write inputs back, carry the state, return the user's outputs."""
        for i in self.widened:
            results[i] = results[i].to(torch.int64)
        for i, q in self.dequantized.items():
            results[i] = dequantize(results[i], q)
        if not self.marked:
            return results[0] if len(results) == 1 else tuple(results)
        with torch.no_grad():
            for i, p in self.inputs:
                _write_back(p, inputs[p], results[i])
        for i, slot in self.state:
            weights.carry(slot, results[i])
        leaves = [results[i].item() if kind is not None else results[i] for i, kind in self.outputs]
        leaves = [kind(v) if kind is not None else v for v, (_, kind) in zip(leaves, self.outputs)]
        if self.tree is None:
            return leaves[0] if len(leaves) == 1 else tuple(leaves)
        return rebuild(self.tree, leaves)


    def applied(self) -> list[str]:
        """What the call does at the boundary besides passing tensors: each
        input quantized, each result dequantized (CONTRACT.md §17)."""
        def params(q) -> str:
            return (f"{str(q.dtype).replace('torch.', '')}, scale {float(q.scale):.9g}, zero point {q.zero_point}, "
                    f"{q.quant_min}..{q.quant_max}")
        return ([f"input #{p}: quantized to {params(q)}" for p, q in sorted(self.quantized.items())]
                + [f"result #{i}: dequantized from {params(q)}" for i, q in sorted(self.dequantized.items())])


def _quantized(p: int, x, q) -> torch.Tensor:
    """Input #p, a float tensor or array, quantized as PT2E does; an integer one of q's dtype is taken as quantized."""
    if isinstance(x, np.ndarray):
        x = torch.from_numpy(x)
    if not isinstance(x, torch.Tensor):
        raise TypeError(f"input #{p} is a {type(x).__name__}; expected a float tensor (the program quantizes it)")
    if x.dtype == q.dtype:
        return x
    if not x.is_floating_point():
        raise ValueError(f"input #{p} is {str(x.dtype).replace('torch.', '')}; expected a float tensor, which the "
                         f"program quantizes (or {str(q.dtype).replace('torch.', '')}, already quantized)")
    return quantize(x, q)


_INT32 = torch.iinfo(torch.int32)


def _int64_on_int32(func, key: str) -> list[int]:
    """The positions of the i32 arguments or results marked as int64."""
    if key not in func.attributes:
        return []
    ftype = function_type(func)
    types = ftype.inputs if key == "arg_attrs" else ftype.results
    found = []
    for i, attrs in enumerate(ir.ArrayAttr(func.attributes[key])):
        attrs = ir.DictAttr(attrs)
        if DTYPE in attrs and ir.StringAttr(attrs[DTYPE]).value == "int64" and \
                str(ir.RankedTensorType(types[i]).element_type) == "i32":
            found.append(i)
    return found


def _baked(func) -> dict[int, object]:
    """Position -> the number of each argument marked `tosa_custom.baked` (CONTRACT.md 4.7)."""
    if "arg_attrs" not in func.attributes:
        return {}
    return {i: json.loads(ir.StringAttr(ir.DictAttr(a)[BAKED]).value)
            for i, a in enumerate(ir.ArrayAttr(func.attributes["arg_attrs"])) if BAKED in ir.DictAttr(a)}


def _check_baked(p: int, x, value) -> None:
    one = isinstance(x, torch.Tensor) and x.numel() == 1 or isinstance(x, np.ndarray) and x.size == 1
    given = x.item() if one else x
    same = given == value or (given != given and value != value)  # NaN baked, NaN given
    if not isinstance(given, (bool, int, float)) or not same:
        raise ValueError(f"input #{p} is {x!r}, but torch.export baked the Python number {value!r} into the program "
                         f"(the model reads it as a constant): call it with {value!r}, or compile the model taking "
                         "the number as a 0-d tensor, which stays an input")


def _ranges(func) -> dict[int, tuple[int, int]]:
    """The inclusive range of each argument marked `tosa_custom.range`, by position."""
    if "arg_attrs" not in func.attributes:
        return {}
    found = {}
    for i, attrs in enumerate(ir.ArrayAttr(func.attributes["arg_attrs"])):
        attrs = ir.DictAttr(attrs)
        if RANGE in attrs:
            low, high = ir.DenseI64ArrayAttr(attrs[RANGE])
            found[i] = (low, high)
    return found


def _check_range(p: int, x, low: int, high: int) -> None:
    """Input #p's values are within [low, high], or the error."""
    if isinstance(x, np.ndarray):
        x = torch.from_numpy(x)
    elif type(x) is int:
        x = torch.tensor(x)
    if isinstance(x, torch.Tensor) and x.numel() and not x.is_floating_point() and x.dtype != torch.bool \
            and (int(x.min()) < low or int(x.max()) > high):
        raise ValueError(f"input #{p} holds values outside {low} to {high} ({int(x.min())} to {int(x.max())}): "
                         "the program computes with it in float32, which holds every integer only within that "
                         "range (TOSA 1.0 pro_fp moves and compares floats only; CONTRACT.md §13.4e). Pass "
                         "values within it, or compile for a target with pro_int.")


def _to_int32(p: int, x) -> torch.Tensor:
    """Input #p (int64, given as a tensor, an array or a Python int) as int32, or the error."""
    if isinstance(x, np.ndarray):
        x = torch.from_numpy(x)
    elif type(x) is int:
        x = torch.tensor(x, dtype=torch.int64)
    if not isinstance(x, torch.Tensor) or x.dtype != torch.int64:
        got = f"{type(x).__name__}" if not isinstance(x, torch.Tensor) else str(x.dtype).replace("torch.", "")
        raise ValueError(f"input #{p} is {got}; expected int64")
    if x.numel() and (int(x.min()) < _INT32.min or int(x.max()) > _INT32.max):
        raise ValueError(f"input #{p} holds int64 values outside int32 ({int(x.min())} to {int(x.max())}): the "
                         "program carries it as int32, because everything it computes from it then fits int32 "
                         "(TOSA 1.0 has no 64-bit integers; CONTRACT.md §13.4d). Pass values within int32.")
    return x.to(torch.int32)


def _static_shape(t: ir.Type) -> tuple[int, ...] | None:
    """The shape of a ranked tensor type, None when a dim is `?` or it has no rank."""
    try:
        t = ir.RankedTensorType(t)
    except ValueError:
        return None
    return None if any(t.is_dynamic_dim(d) for d in range(t.rank)) else tuple(t.shape)


def _unresizable(p: int, have, want) -> ValueError:
    return ValueError(f"input #{p} is written by the model with a value of shape {list(want)} where the array has "
                      f"shape {list(have)} (an out= argument of another size, which eager PyTorch resizes); a numpy "
                      "array cannot be resized in place: pass a tensor")


def _write_back(p: int, x, value: torch.Tensor) -> None:
    """Input #p's new value written into the caller's tensor or array. One
    of another shape resizes the tensor first, as eager resizes an `out=`
    argument (with eager's warning when the tensor held elements)."""
    target = torch.from_numpy(x) if isinstance(x, np.ndarray) else x
    if target.shape != value.shape:
        if isinstance(x, np.ndarray):
            raise _unresizable(p, x.shape, value.shape)
        if target.numel():
            warnings.warn(f"An output with one or more elements was resized since it had shape {list(target.shape)}, "
                          f"which does not match the required output shape {list(value.shape)} (input #{p}; eager "
                          "PyTorch resizes it the same way).", UserWarning, stacklevel=4)
        target.resize_(value.shape)
    target.copy_(value)
