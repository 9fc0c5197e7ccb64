"""The `tosa-custom-lift-weights` and `tosa-custom-bind-weights` passes.

For IR that did not come from `compile(..., weights="arguments")`: lift turns
every `dense_resource` constant, and every dense constant of at least
`threshold` elements that is not a splat, into a trailing argument of the
entry function marked `tosa_custom.weight = "<name>"`; bind turns marked
arguments back into constants. Constants are `tosa.const`, `arith.constant`
and `torch.vtensor.literal`; only the entry function is lifted.

Values. The Python bindings cannot read a `dense_resource` blob through its
attribute, so lift keeps each lifted value, unchanged, in the module attribute
`tosa_custom.weight_values = {name = <attr>}` (the blob stays in the module's
resource section and bind needs no file), or, with `weights=FILE`, writes the
values to a safetensors file and keeps none; blobs are then read from the
module's printed resource section. bind takes values from `weights=FILE` (a
safetensors or `torch.save` checkpoint) or else from that module attribute.
"""

from __future__ import annotations

import json
import re

import numpy as np
import torch
from torch_mlir import ir

from ..core import dtypes as _dtypes
from ..core.passes import Option, PassFailure, register_pass
from .manifest import (
    INPUT_ATTR,
    VALUES_ATTR,
    WEIGHT_ATTR,
    ManifestError,
    _shape_and_dtype,
    argument_attrs,
    entry_function,
    read_manifest,
    set_argument_attrs,
)

__all__ = ["LIFT_ARGUMENT", "BIND_ARGUMENT", "lift_weights", "bind_weights", "dense_value", "WeightPassError"]

LIFT_ARGUMENT = "tosa-custom-lift-weights"
BIND_ARGUMENT = "tosa-custom-bind-weights"

# Constant ops and the attribute that holds their value.
_CONSTANTS = {"tosa.const": "values", "arith.constant": "value", "torch.vtensor.literal": "value"}
_RESOURCE = re.compile(r'^dense_resource<(?:"((?:[^"\\]|\\.)*)"|([^>]*))>')


class WeightPassError(ValueError):
    """Bad input to lift or bind; `location` is where the pass reports it."""

    def __init__(self, message: str, location=None):
        super().__init__(message)
        self.location = location


def _resource_key(attr: ir.Attribute) -> str | None:
    text = str(attr) if not isinstance(attr, ir.DenseElementsAttr) else ""
    m = _RESOURCE.match(text)
    if not m:
        return None
    return m[1].encode().decode("unicode_escape") if m[1] is not None else m[2]


def _is_weight(attr: ir.Attribute, threshold: int) -> bool:
    if isinstance(attr, ir.DenseElementsAttr):
        return not attr.is_splat and len(attr) >= threshold
    return _resource_key(attr) is not None


def _unique(name: str, taken: set[str]) -> str:
    candidate, k = name, 1
    while candidate in taken:
        candidate, k = f"{name}.{k}", k + 1
    taken.add(candidate)
    return candidate


def _set_function_inputs(func, types: list[ir.Type]) -> None:
    results = ir.TypeAttr(func.attributes["function_type"]).value.results
    func.attributes["function_type"] = ir.TypeAttr.get(ir.FunctionType.get(types, results))


def _module_values(module_op) -> dict[str, ir.Attribute]:
    if VALUES_ATTR not in module_op.attributes:
        return {}
    d = ir.DictAttr(module_op.attributes[VALUES_ATTR])
    return {d[i].name: d[i].attr for i in range(len(d))}


def _set_module_values(module_op, values: dict[str, ir.Attribute]) -> None:
    if values:
        module_op.attributes[VALUES_ATTR] = ir.DictAttr.get(values)
    elif VALUES_ATTR in module_op.attributes:
        del module_op.attributes[VALUES_ATTR]


# --------------------------------------------------------------------------
# Reading values (lift with weights=FILE).
# --------------------------------------------------------------------------



def _blobs(module_op) -> dict[str, bytes]:
    """Every builtin resource blob of the module, read from its printed form
    (the bindings have no reader); the first 4 bytes of each are its alignment."""
    text = module_op.get_asm(binary=False)
    start = text.rfind("{-#")
    blobs = {}
    if start >= 0:
        for m in re.finditer(r'\n\s*("(?:[^"\\]|\\.)*"|[^\s:]+)\s*:\s*"0x([0-9A-Fa-f]*)"', text[start:]):
            key = m[1][1:-1] if m[1].startswith('"') else m[1]
            blobs[key] = bytes.fromhex(m[2])[4:]
    return blobs


def _tensor(attr: ir.Attribute, shape: tuple[int, ...], dtype: str, blobs) -> torch.Tensor:
    """The value of a lifted constant, as a tensor of `shape` and `dtype`."""
    key = _resource_key(attr)
    if key is not None:
        data = blobs().get(key)
        if data is None:
            raise ValueError(f"the module has no blob '{key}'")
        array = np.frombuffer(data, dtype=_dtypes.by_name(dtype).numpy).copy()
    else:
        if dtype == "bfloat16":
            raise ValueError("weights=FILE cannot read a bfloat16 dense constant; lift without weights=")
        array = np.array(attr).astype(_dtypes.by_name(dtype).numpy)
    t = torch.from_numpy(np.ascontiguousarray(array)).reshape(shape)
    return t.view(torch.bfloat16) if dtype == "bfloat16" else t


# --------------------------------------------------------------------------
# Lift.
# --------------------------------------------------------------------------


def lift_weights(module_op, *, threshold: int = 1024, entry: str | None = None,
                 weights_path: str | None = None, manifest_path: str | None = None) -> list[str]:
    """Lift the entry function's weights to arguments; return the new names."""
    if threshold < 1:
        raise ValueError(f"threshold={threshold}: expected a positive number of elements")
    func = entry_function(module_op, entry)
    block = func.regions[0].blocks[0]
    attrs = argument_attrs(func)
    types = list(ir.TypeAttr(func.attributes["function_type"]).value.inputs)
    if attrs and not any(WEIGHT_ATTR in a for a in attrs):
        i64 = ir.IntegerType.get_signless(64)
        for i, a in enumerate(attrs):
            a.setdefault(INPUT_ATTR, ir.IntegerAttr.get(i64, i))
    taken = {ir.StringAttr(a[WEIGHT_ATTR]).value for a in attrs if WEIGHT_ATTR in a}

    groups: list[tuple[ir.Attribute, ir.Type, list]] = []  # (value, result type, ops)
    counter = [0]

    def visit(op):
        key = _CONSTANTS.get(op.name)
        if key is None or key not in op.attributes or len(op.results) != 1:
            return ir.WalkResult.ADVANCE
        value = op.attributes[key]
        if not _is_weight(value, threshold):
            return ir.WalkResult.ADVANCE
        rtype = op.results[0].type
        for v, t, ops in groups:
            if t == rtype and v == value:
                ops.append(op)
                break
        else:
            groups.append((value, rtype, [op]))
        return ir.WalkResult.ADVANCE

    func.operation.walk(visit)
    names, kept, files = [], _module_values(module_op), {}
    blob_cache: dict[str, bytes] = {}

    def blobs():
        if not blob_cache:
            blob_cache.update(_blobs(module_op))
        return blob_cache

    for value, rtype, ops in groups:
        key = _resource_key(value)
        if key is None:
            name = f"constant_{counter[0]}"
            counter[0] += 1
        else:
            name = key
        name = _unique(name, taken | set(kept))
        taken.add(name)
        if weights_path:
            shape, dtype = _shape_and_dtype(rtype)
            files[name] = _tensor(value, tuple(shape or ()), dtype, blobs)
        else:
            kept[name] = value
        arg = block.add_argument(rtype, ops[0].location)
        types.append(rtype)
        attrs.append({WEIGHT_ATTR: ir.StringAttr.get(name)})
        for op in ops:
            op.results[0].replace_all_uses_with(arg)
            op.erase()
        names.append(name)
    _set_function_inputs(func, types)
    set_argument_attrs(func, attrs)
    if weights_path:
        from safetensors.torch import save_file

        save_file({k: v.contiguous() for k, v in files.items()}, weights_path)
    else:
        _set_module_values(module_op, kept)
    if manifest_path:
        with open(manifest_path, "w", encoding="utf-8") as f:
            json.dump(read_manifest(func).to_json(), f, indent=1)
            f.write("\n")
    return names


# --------------------------------------------------------------------------
# Bind.
# --------------------------------------------------------------------------


def _load_file(path: str) -> dict[str, torch.Tensor]:
    from ..runtime.weights import read_checkpoint

    return read_checkpoint(path)


def _builtin_type(t: ir.Type) -> ir.RankedTensorType:
    """The builtin tensor type of a literal for an argument of type `t`."""
    if isinstance(t, ir.RankedTensorType):
        return t
    parsed = _dtypes.parse_vtensor(str(t))
    if not parsed:
        raise ValueError(f"cannot make a constant of type {t}")
    dims, element = parsed
    return ir.RankedTensorType(ir.Type.parse("tensor<" + "".join(f"{d}x" for d in dims) + element + ">"))


def _attr_from_tensor(t: torch.Tensor, ty: ir.RankedTensorType, name: str) -> ir.Attribute:
    t = t.detach().cpu().contiguous()
    if t.dtype == torch.bfloat16:
        array = t.view(torch.int16).numpy()
    else:
        array = t.numpy()
    if t.numel() <= 1 or t.dtype == torch.bool:
        if t.dtype == torch.bfloat16:
            import ml_dtypes
            array = array.view(ml_dtypes.bfloat16)
        return ir.DenseElementsAttr.get(np.ascontiguousarray(array), type=ty.element_type, shape=list(ty.shape))
    return ir.DenseResourceElementsAttr.get_from_buffer(array, name, ty)


def dense_value(t: torch.Tensor, arg_type: ir.Type) -> ir.Attribute:
    """`t` as a dense elements attribute for an argument of type `arg_type`
    (not a resource: the runtime reads it back through the bindings)."""
    ty = _builtin_type(arg_type)
    t = t.detach().cpu().contiguous()
    array = t.view(torch.int16).numpy() if t.dtype == torch.bfloat16 else t.numpy()
    if t.dtype == torch.bfloat16:
        import ml_dtypes
        array = array.view(ml_dtypes.bfloat16)
    return ir.DenseElementsAttr.get(np.ascontiguousarray(array), type=ty.element_type, shape=list(ty.shape))


def _constant_op(arg_type: ir.Type, value: ir.Attribute, loc) -> ir.Operation:
    if str(arg_type).startswith("!torch.vtensor"):
        return ir.Operation.create("torch.vtensor.literal", results=[arg_type], attributes={"value": value}, loc=loc)
    if isinstance(arg_type, ir.RankedTensorType):
        return ir.Operation.create("tosa.const", results=[arg_type], attributes={"values": value}, loc=loc)
    return ir.Operation.create("arith.constant", results=[arg_type], attributes={"value": value}, loc=loc)


def bind_weights(module_op, *, weights_path: str | None = None, entry: str | None = None) -> list[str]:
    """Turn every weight argument of the entry function back into a constant.

    Values come from `weights_path` or the module's `tosa_custom.weight_values`.
    Raises ValueError listing every missing or mismatched weight (nothing is changed then).
    """
    func = entry_function(module_op, entry)
    manifest = read_manifest(func)
    stored = _module_values(module_op)
    from_file = _load_file(weights_path) if weights_path else None
    problems, values = [], {}
    types = list(ir.TypeAttr(func.attributes["function_type"]).value.inputs)
    for w in manifest.weights:
        ty = types[w.argument]
        if from_file is not None:
            t = from_file.get(w.name)
            if t is None:
                problems.append(f"missing '{w.name}' ({w.describe()})")
                continue
            if tuple(t.shape) != tuple(w.shape or ()) or getattr(_dtypes.by_name(w.dtype), "torch", None) != t.dtype:
                problems.append(
                    f"'{w.name}' is {list(t.shape)} {str(t.dtype).replace('torch.', '')}, expected {w.describe()}"
                )
                continue
            values[w.name] = _attr_from_tensor(t, _builtin_type(ty), w.name)
        else:
            attr = stored.get(w.name)
            if attr is None:
                problems.append(f"missing '{w.name}' ({w.describe()})")
                continue
            values[w.name] = attr
    if problems:
        source = f"'{weights_path}'" if weights_path else f"the module attribute {VALUES_ATTR}"
        raise WeightPassError(f"cannot bind the weights of @{manifest.entry} from {source}: " + "; ".join(problems),
                              func.location)
    block = func.regions[0].blocks[0]
    attrs = argument_attrs(func)
    first = block.operations[0] if len(block.operations) else None
    for w in reversed(manifest.weights):  # erase from the back: indices stay valid
        arg = block.arguments[w.argument]
        with ir.InsertionPoint(first) if first is not None else ir.InsertionPoint(block):
            const = _constant_op(arg.type, values[w.name], arg.location)
        arg.replace_all_uses_with(const.results[0])
        block.erase_argument(w.argument)
        del types[w.argument]
        del attrs[w.argument]
        stored.pop(w.name, None)
    for a in attrs:  # no weight argument left: the input markers have no use
        a.pop(INPUT_ATTR, None)
    _set_function_inputs(func, types)
    set_argument_attrs(func, attrs)
    _set_module_values(module_op, stored)
    return manifest.names


# --------------------------------------------------------------------------
# Registration (tosa-custom-opt flags).
# --------------------------------------------------------------------------


def _weight_errors(body):
    """Bad weights files and manifests are the user's input errors: report
    them where they point (an argument's location), not as internal errors."""

    def run(op, ctx):
        try:
            return body(op, ctx)
        except (ValueError, ManifestError, OSError) as e:
            raise PassFailure(str(e), getattr(e, "location", None)) from None

    return run


def _threshold(text: str) -> int:
    try:
        return int(text)
    except ValueError:
        raise ValueError(f"takes a number of elements, not '{text}'") from None


@register_pass(
    LIFT_ARGUMENT,
    "Lift dense_resource and large dense constants of the entry function into named weight arguments",
    options=(
        Option("threshold", "constants with at least this many elements are weights", 1024, _threshold),
        Option("entry", "the function to lift into (default: the only public one)", None, metavar="NAME"),
        Option("weights", "write the lifted values here", None, metavar="FILE.safetensors"),
        Option("manifest", "write the weights manifest here", None, metavar="FILE.json"),
    ),
)
@_weight_errors
def _lift_pass(op, ctx) -> None:
    o = ctx.options
    lift_weights(op, threshold=o.threshold, entry=o.entry, weights_path=o.weights, manifest_path=o.manifest)


@register_pass(
    BIND_ARGUMENT,
    "Turn weight arguments back into constants, from weights=FILE or the module's tosa_custom.weight_values",
    options=(
        Option("weights", "read the values from this safetensors file", None, metavar="FILE"),
        Option("entry", "the function to bind (default: the only public one)", None, metavar="NAME"),
    ),
)
@_weight_errors
def _bind_pass(op, ctx) -> None:
    bind_weights(op, weights_path=ctx.options.weights, entry=ctx.options.entry)
