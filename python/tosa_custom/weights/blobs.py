"""The values a module holds: its resource blobs, the lifted values it keeps
in `tosa_custom.weight_values`, and their conversion to and from tensors.

The Python bindings cannot read a `dense_resource` blob through its
attribute. A blob this package makes (`resource_attr`: the importer's
literals, bound weights) keeps the array it was made from, so its bytes are
read back without a copy (`resource_array`). Any other blob (one the parser
made, from a file or a module's text) is read from the module's printed
resource section: `resource_blobs` reads every blob so, and `ResourceBlobs`
does so once, only when a blob it does not know is asked for. The lift and
bind passes, the runtime (a module's own weight values, flat globals), the
quantized lowering and the TOSA narrowing pass all read blobs here.
"""

from __future__ import annotations

import math
import re
import weakref

import ml_dtypes
import numpy as np
import torch
from torch_mlir import ir

from ..core import dtypes as _dtypes
from .manifest import VALUES_ATTR

__all__ = ["resource_key", "resource_attr", "resource_array", "resource_blobs", "ResourceBlobs", "module_values",
           "set_module_values", "tensor_value", "builtin_type", "dense_value", "weight_value", "storage"]

_RESOURCE = re.compile(r'^dense_resource<(?:"((?:[^"\\]|\\.)*)"|([^>]*))>')
_BLOB = re.compile(r'\n\s*("(?:[^"\\]|\\.)*"|[^\s:]+)\s*:\s*"0x([0-9A-Fa-f]*)"')


def resource_key(attr: ir.Attribute) -> str | None:
    """The blob key of a `dense_resource` attribute; None for any other attribute."""
    text = str(attr) if not isinstance(attr, ir.DenseElementsAttr) else ""
    m = _RESOURCE.match(text)
    if not m:
        return None
    return m[1].encode().decode("unicode_escape") if m[1] is not None else m[2]


_MADE: "weakref.WeakKeyDictionary[ir.Context, dict[str, np.ndarray]]" = weakref.WeakKeyDictionary()
"""context -> blob key -> the array a blob made by `resource_attr` holds (the
blob holds the array alive for as long as its context lives; this table
holds neither the context nor, past the context's life, the array)."""


def resource_attr(array: np.ndarray, name: str, ty: ir.Type) -> ir.Attribute:
    """A `dense_resource` attribute of type `ty` whose blob is `array`'s
    memory (no copy), remembered for `resource_array`. The blob's key is
    `name`, or `name` with a suffix if the context has that key already."""
    array = np.ascontiguousarray(array)
    attr = ir.DenseResourceElementsAttr.get_from_buffer(array, name, ty)
    _MADE.setdefault(attr.context, {})[resource_key(attr)] = array
    return attr


def resource_array(attr: ir.Attribute) -> np.ndarray | None:
    """The array behind a `dense_resource` attribute `resource_attr` made (as
    its storage: bfloat16 as int16), shaped as the attribute; None for any
    other attribute or blob."""
    key = resource_key(attr)
    array = _MADE.get(attr.context, {}).get(key) if key is not None else None
    if array is None:
        return None
    shape = tuple(ir.ShapedType(attr.type).shape)
    return array.reshape(shape) if array.size == math.prod(shape) else None


def resource_blobs(module_op) -> dict[str, bytes]:
    """Every builtin resource blob of the module, read from its printed form
    (the bindings have no reader); the first 4 bytes of each are its alignment."""
    text = module_op.get_asm(binary=False)
    start = text.rfind("{-#")
    blobs = {}
    if start >= 0:
        for m in _BLOB.finditer(text[start:]):
            key = m[1][1:-1] if m[1].startswith('"') else m[1]
            blobs[key] = bytes.fromhex(m[2])[4:]
    return blobs


class ResourceBlobs:
    """The blobs of one module, printed and parsed at the first `get` (printing
    a module with large weights is costly, and most never need it)."""

    def __init__(self, module_op):
        self._module_op = module_op
        self._blobs: dict[str, bytes] | None = None

    def get(self, key: str) -> bytes | None:
        context = getattr(self._module_op, "context", None)
        made = _MADE.get(context, {}).get(key) if context is not None else None
        if made is not None:
            return made.tobytes()
        if self._blobs is None:
            self._blobs = resource_blobs(self._module_op)
        return self._blobs.get(key)


def module_values(module_op) -> dict[str, ir.Attribute]:
    """name -> elements attribute kept in the module attribute `tosa_custom.weight_values`."""
    if VALUES_ATTR not in module_op.attributes:
        return {}
    d = ir.DictAttr(module_op.attributes[VALUES_ATTR])
    return {d[i].name: d[i].attr for i in range(len(d))}


def set_module_values(module_op, values: dict[str, ir.Attribute]) -> None:
    """Write `tosa_custom.weight_values` (dropping it when `values` is empty)."""
    if values:
        module_op.attributes[VALUES_ATTR] = ir.DictAttr.get(values)
    elif VALUES_ATTR in module_op.attributes:
        del module_op.attributes[VALUES_ATTR]


def tensor_value(attr: ir.Attribute, shape: tuple[int, ...], dtype: str, blobs: ResourceBlobs) -> torch.Tensor:
    """The value of a constant's attribute (dense or `dense_resource`), as a
    tensor of `shape` and `dtype` (a torch dtype name)."""
    key = resource_key(attr)
    if key is not None:
        data = blobs.get(key)
        if data is None:
            raise ValueError(f"the module has no blob '{key}'")
        array = np.frombuffer(data, dtype=_dtypes.by_name(dtype).numpy).copy()
    else:
        if dtype == "bfloat16":
            raise ValueError("weights=FILE cannot read a bfloat16 dense constant; lift without weights=")
        array = np.array(attr).astype(_dtypes.by_name(dtype).numpy)
    t = torch.from_numpy(np.ascontiguousarray(array)).reshape(shape)
    return t.view(torch.bfloat16) if dtype == "bfloat16" else t


def builtin_type(t: ir.Type) -> ir.RankedTensorType:
    """The builtin tensor type of a literal for an argument of type `t`."""
    if isinstance(t, ir.RankedTensorType):
        return t
    parsed = _dtypes.parse_vtensor(str(t))
    if not parsed:
        raise ValueError(f"cannot make a constant of type {t}")
    dims, element = parsed
    return ir.RankedTensorType(ir.Type.parse("tensor<" + "".join(f"{d}x" for d in dims) + element + ">"))


def storage(t: torch.Tensor) -> np.ndarray:
    """The elements of `t` as numpy holds them (bfloat16 as its 16 bits)."""
    t = t.detach().cpu().contiguous()
    return t.view(torch.int16).numpy() if t.dtype == torch.bfloat16 else t.numpy()


def dense_value(t: torch.Tensor, arg_type: ir.Type) -> ir.Attribute:
    """`t` as a dense elements attribute for an argument of type `arg_type`
    (not a resource: the runtime reads it back through the bindings)."""
    ty = builtin_type(arg_type)
    array = storage(t)
    if t.dtype == torch.bfloat16:
        array = array.view(ml_dtypes.bfloat16)
    return ir.DenseElementsAttr.get(np.ascontiguousarray(array), type=ty.element_type, shape=list(ty.shape))


def weight_value(t: torch.Tensor, ty: ir.RankedTensorType, name: str) -> ir.Attribute:
    """`t` as the value of the constant bind makes of weight `name`: a
    `dense_resource` blob, or a dense attribute for a scalar or a bool tensor."""
    if t.numel() <= 1 or t.dtype == torch.bool:
        return dense_value(t, ty)
    return resource_attr(storage(t), name, ty)
