"""Reading and spelling torch-dialect IR: the Python value of a `torch.constant.*` (or a
list of them) behind an operand, seen through `torch.derefine`. The tunnel
encodes constant arguments with it, and rules about an op instance's
arguments (tosa/wrong_lowerings.py) read them the same way."""

from __future__ import annotations

from typing import Any

from torch_mlir import ir

from .ir import defining_op

__all__ = ["NOT_CONSTANT", "look_through", "constant", "constant_list", "splat_number", "vtensor_type"]

# What `constant` returns for a value computed at run time (None is a constant: torch.constant.none).
NOT_CONSTANT = object()

_VALUED = ("torch.constant.int", "torch.constant.float", "torch.constant.bool",
           "torch.constant.str", "torch.constant.device", "torch.constant.number")


def look_through(value: ir.Value) -> ir.Value:
    """Skip `torch.derefine`, which only widens a type to an optional."""
    op = defining_op(value)
    while op is not None and op.name == "torch.derefine":
        value = op.operands[0]
        op = defining_op(value)
    return value


def constant(value: ir.Value) -> Any:
    """The Python value of a torch constant (None for `torch.constant.none`),
    else NOT_CONSTANT."""
    op = defining_op(look_through(value))
    if op is None:
        return NOT_CONSTANT
    name = op.name
    if name == "torch.constant.none":
        return None
    if name in _VALUED:
        attr = op.attributes["value"]
        if isinstance(attr, ir.BoolAttr):
            return attr.value
        if isinstance(attr, ir.IntegerAttr):
            return bool(attr.value) if name == "torch.constant.bool" else attr.value
        if isinstance(attr, (ir.FloatAttr, ir.StringAttr)):
            return attr.value
    return NOT_CONSTANT


def constant_list(value: ir.Value) -> list | None:
    """The Python values of a `torch.prim.ListConstruct` of constants (a
    pad, a shape), else None."""
    op = defining_op(look_through(value))
    if op is None or op.name != "torch.prim.ListConstruct":
        return None
    items = [constant(v) for v in op.operands]
    return None if any(item is NOT_CONSTANT for item in items) else items


def splat_number(value: ir.Value) -> float | None:
    """The number a splat float or integer `torch.vtensor.literal` holds in
    every element (not a bool one), else None."""
    op = defining_op(look_through(value))
    if op is None or op.name != "torch.vtensor.literal":
        return None
    attr = op.attributes["value"]
    if not isinstance(attr, ir.DenseElementsAttr) or not attr.is_splat:
        return None
    splat = attr.get_splat_value()
    if isinstance(splat, ir.IntegerAttr) and ir.IntegerType(splat.type).width == 1:
        return None
    return float(splat.value) if isinstance(splat, (ir.FloatAttr, ir.IntegerAttr)) else None


def vtensor_type(dims, element: str) -> ir.Type:
    """`!torch.vtensor<[dims],element>` (dims as written: `-1` is dynamic; () is 0-d)."""
    return ir.Type.parse(f"!torch.vtensor<[{','.join(str(d) for d in dims)}],{element}>")
