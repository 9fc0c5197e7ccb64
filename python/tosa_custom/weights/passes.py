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

from safetensors.torch import save_file
from torch_mlir import ir

from ..core.builders import create, tosa_const
from ..core.passes import Option, PassFailure, register_pass
from .blobs import (
    ResourceBlobs,
    builtin_type,
    dense_value,
    module_values,
    resource_key,
    set_module_values,
    tensor_value,
    weight_value,
)
from .checkpoint import read_checkpoint
from .manifest import (
    INPUT_ATTR,
    VALUES_ATTR,
    WEIGHT_ATTR,
    ManifestError,
    argument_attrs,
    entry_function,
    read_manifest,
    set_argument_attrs,
    shape_and_dtype,
)

# dense_value moved to blobs.py; it stays importable from here.
__all__ = ["LIFT_ARGUMENT", "BIND_ARGUMENT", "lift_weights", "bind_weights", "dense_value", "WeightPassError"]

LIFT_ARGUMENT = "tosa-custom-lift-weights"
BIND_ARGUMENT = "tosa-custom-bind-weights"

# Constant ops and the attribute that holds their value.
_CONSTANTS = {"tosa.const": "values", "arith.constant": "value", "torch.vtensor.literal": "value"}


class WeightPassError(ValueError):
    """Bad input to lift or bind; `location` is where the pass reports it."""

    def __init__(self, message: str, location=None):
        super().__init__(message)
        self.location = location


def _is_weight(attr: ir.Attribute, threshold: int) -> bool:
    if isinstance(attr, ir.DenseElementsAttr):
        return not attr.is_splat and len(attr) >= threshold
    return resource_key(attr) is not None


def _unique(name: str, taken: set[str]) -> str:
    candidate, k = name, 1
    while candidate in taken:
        candidate, k = f"{name}.{k}", k + 1
    taken.add(candidate)
    return candidate


def _function_inputs(func) -> list[ir.Type]:
    return list(ir.TypeAttr(func.attributes["function_type"]).value.inputs)


def _set_function_inputs(func, types: list[ir.Type]) -> None:
    results = ir.TypeAttr(func.attributes["function_type"]).value.results
    func.attributes["function_type"] = ir.TypeAttr.get(ir.FunctionType.get(types, results))


# --------------------------------------------------------------------------
# Lift.
# --------------------------------------------------------------------------


def _weight_groups(func, threshold: int) -> list[tuple[ir.Attribute, ir.Type, list]]:
    """(value, result type, ops) of the weight constants of `func`: equal
    constants of one type become one argument."""
    groups: list[tuple[ir.Attribute, ir.Type, list]] = []

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
    return groups


def _mark_inputs(attrs: list[dict]) -> None:
    """Mark each argument of a function without weight arguments yet as the
    user input at its own position: the weights are added after them."""
    if attrs and not any(WEIGHT_ATTR in a for a in attrs):
        i64 = ir.IntegerType.get_signless(64)
        for i, a in enumerate(attrs):
            a.setdefault(INPUT_ATTR, ir.IntegerAttr.get(i64, i))


def _to_argument(block, ops: list, rtype: ir.Type) -> None:
    """Replace the constant ops `ops` (one value) by a new argument of `block`."""
    arg = block.add_argument(rtype, ops[0].location)
    for op in ops:
        op.results[0].replace_all_uses_with(arg)
        op.erase()


def _write_manifest(func, path: str) -> None:
    with open(path, "w", encoding="utf-8") as f:
        json.dump(read_manifest(func).to_json(), f, indent=1)
        f.write("\n")


def lift_weights(module_op, *, threshold: int = 1024, entry: str | None = None,
                 weights_path: str | None = None, manifest_path: str | None = None) -> list[str]:
    """Lift the entry function's weights to arguments; return the new names."""
    if threshold < 1:
        raise ValueError(f"threshold={threshold}: expected a positive number of elements")
    func = entry_function(module_op, entry)
    block = func.regions[0].blocks[0]
    attrs, types = argument_attrs(func), _function_inputs(func)
    _mark_inputs(attrs)
    taken = {ir.StringAttr(a[WEIGHT_ATTR]).value for a in attrs if WEIGHT_ATTR in a}
    names, kept, files = [], module_values(module_op), {}
    blobs, counter = ResourceBlobs(module_op), 0
    for value, rtype, ops in _weight_groups(func, threshold):
        name = resource_key(value)
        if name is None:
            name, counter = f"constant_{counter}", counter + 1
        name = _unique(name, taken | set(kept))
        taken.add(name)
        if weights_path:
            shape, dtype = shape_and_dtype(rtype)
            files[name] = tensor_value(value, tuple(shape or ()), dtype, blobs)
        else:
            kept[name] = value
        _to_argument(block, ops, rtype)
        types.append(rtype)
        attrs.append({WEIGHT_ATTR: ir.StringAttr.get(name)})
        names.append(name)
    _set_function_inputs(func, types)
    set_argument_attrs(func, attrs)
    if weights_path:
        save_file({k: v.contiguous() for k, v in files.items()}, weights_path)
    else:
        set_module_values(module_op, kept)
    if manifest_path:
        _write_manifest(func, manifest_path)
    return names


# --------------------------------------------------------------------------
# Bind.
# --------------------------------------------------------------------------


def _constant(arg_type: ir.Type, value: ir.Attribute, loc) -> ir.Value:
    """The constant of `value` for an argument of type `arg_type`, in the
    argument's own dialect."""
    if str(arg_type).startswith("!torch.vtensor"):
        return create("torch.vtensor.literal", arg_type, attributes={"value": value}, loc=loc)
    if isinstance(arg_type, ir.RankedTensorType):
        return tosa_const(value, arg_type, loc)
    return create("arith.constant", arg_type, attributes={"value": value}, loc=loc)


def _bind_values(manifest, types: list[ir.Type], from_file, stored) -> tuple[dict, list[str]]:
    """(name -> value attribute, problems) of the weights of `manifest`, from
    the checkpoint `from_file` or else from the module's `stored` values."""
    problems, values = [], {}
    for w in manifest.weights:
        if from_file is not None:
            t = from_file.get(w.name)
            if t is None:
                problems.append(f"missing '{w.name}' ({w.describe()})")
                continue
            if tuple(t.shape) != tuple(w.shape or ()) or w.torch_dtype != t.dtype:
                problems.append(
                    f"'{w.name}' is {list(t.shape)} {str(t.dtype).replace('torch.', '')}, expected {w.describe()}"
                )
                continue
            values[w.name] = weight_value(t, builtin_type(types[w.argument]), w.name)
        else:
            attr = stored.get(w.name)
            if attr is None:
                problems.append(f"missing '{w.name}' ({w.describe()})")
                continue
            values[w.name] = attr
    return values, problems


def bind_weights(module_op, *, weights_path: str | None = None, entry: str | None = None) -> list[str]:
    """Turn every weight argument of the entry function back into a constant.

    Values come from `weights_path` or the module's `tosa_custom.weight_values`.
    Raises ValueError listing every missing or mismatched weight (nothing is changed then).
    """
    func = entry_function(module_op, entry)
    manifest = read_manifest(func)
    stored = module_values(module_op)
    from_file = read_checkpoint(weights_path) if weights_path else None
    types = _function_inputs(func)
    values, problems = _bind_values(manifest, types, from_file, stored)
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
            const = _constant(arg.type, values[w.name], arg.location)
        arg.replace_all_uses_with(const)
        block.erase_argument(w.argument)
        del types[w.argument]
        del attrs[w.argument]
        stored.pop(w.name, None)
    for a in attrs:  # no weight argument left: the input markers have no use
        a.pop(INPUT_ATTR, None)
    _set_function_inputs(func, types)
    set_argument_attrs(func, attrs)
    set_module_values(module_op, stored)
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
