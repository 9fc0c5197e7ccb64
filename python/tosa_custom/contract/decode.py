"""`decode(custom_op)`: the exact ATen call a `tosa.custom` stands for.

The inverse of the pass. Numbers the const encoding put in `tosa.const`
operands are read back here, so a kernel sees Python values whichever encoding
produced the module.
"""

from __future__ import annotations

import numpy as np
from torch_mlir import ir

from ..core.ir import collect_ops
from .encoding import ArgKind, ContractError, DecodedCall, Operand, decode_attrs

__all__ = ["decode", "constant_operand", "custom_op_strings", "custom_ops"]

_ELEMENT_KIND = {"i64": "int", "f64": "float", "i1": "bool"}


def custom_op_strings(op) -> tuple[str, str, str]:
    """(operator_name, domain_name, implementation_attrs) of a `tosa.custom`."""
    op = op.operation
    if op.name != "tosa.custom":
        raise ContractError(f"expected a tosa.custom op, got {op.name}")
    strings = []
    for k in ("operator_name", "domain_name", "implementation_attrs"):
        try:
            # value_bytes, not value: the bindings raise a bare RuntimeError
            # for a string attribute that is not UTF-8.
            raw = ir.StringAttr(op.attributes[k]).value_bytes
        except (KeyError, ValueError):
            raise ContractError(f"tosa.custom lacks the string attribute '{k}'") from None
        try:
            strings.append(raw.decode("utf-8"))
        except UnicodeDecodeError as e:
            raise ContractError(f"the '{k}' attribute of tosa.custom is not UTF-8 text: {e}") from None
    return tuple(strings)  # type: ignore[return-value]


def _dense_values(attr: ir.Attribute):
    dense = ir.DenseElementsAttr(attr)
    shape = ir.ShapedType(dense.type).shape
    element = str(ir.ShapedType(dense.type).element_type)
    array = np.array(dense)
    if dense.is_splat and array.shape != tuple(shape):
        array = np.full(shape, array.reshape(-1)[0])
    if element == "i1":
        array = array.astype(bool)
    return element, array.tolist()


def constant_operand(value: ir.Value) -> tuple[str, object] | None:
    """(element type, Python values) of a `tosa.const` operand, else None
    (an argument, a computed value, or a weight kept as a resource blob): the
    one reader of the numbers the const encoding puts in operands."""
    owner = value.owner
    if isinstance(owner, ir.Block) or owner.operation.name != "tosa.const":
        return None
    try:
        return _dense_values(owner.operation.attributes["values"])
    except ValueError:  # a dense_resource blob: a tensor, not a number
        return None


def decode(custom_op) -> DecodedCall:
    """Rebuild `overload(*args, **kwargs)` from a `tosa.custom` in IR."""
    if not isinstance(getattr(custom_op, "operation", None), ir.Operation):
        raise TypeError(f"decode() takes a tosa.custom op (e.g. from tosa_custom.custom_ops(module)), "
                        f"not a {type(custom_op).__name__}")
    op = custom_op.operation
    operator_name, domain_name, attrs = custom_op_strings(op)

    def read(index: int, kind: ArgKind):
        value = op.operands[index]
        element = str(value.type.element_type) if isinstance(value.type, ir.ShapedType) else ""
        constant = constant_operand(value)
        if constant is not None:
            element, values = constant
            if element not in _ELEMENT_KIND:
                raise ContractError(f"constant operand {index} has element type {element}, not i64, f64 or i1")
            if kind.name not in ("number", _ELEMENT_KIND[element]):
                raise ContractError(f"constant operand {index} is {element}, which does not carry a {kind.name}")
            return values
        if kind.name == "number":
            return Operand(index, _ELEMENT_KIND.get(element, "number"))
        return Operand(index, kind.name)

    decoded = decode_attrs(operator_name, attrs, len(op.operands), read, domain_name)
    if decoded.result_shapes is not None:
        _check_result_shapes(op, decoded.result_shapes)
    if decoded.quantization is not None:
        decoded.quantization.check_counts(len(op.operands), len(op.results))
    return decoded


def _rank(t: ir.Type) -> int | None:
    return ir.RankedTensorType(t).rank if isinstance(t, ir.RankedTensorType) else None


def _check_result_shapes(op: ir.Operation, result_shapes: tuple) -> None:
    """`result_shapes` against the op's types (CONTRACT.md 15.2): one entry
    per result and per dim, a static dim stated as that size, `dim(k,i)`
    within operand k's rank, `value(k)` a 0-d integer operand."""
    results = list(op.results)
    if len(result_shapes) != len(results):
        raise ContractError(f"'result_shapes' has {len(result_shapes)} entries, the op {len(results)} results")
    for j, (dims, r) in enumerate(zip(result_shapes, results)):
        shape = list(r.type.shape) if _rank(r.type) is not None else None
        if shape is None or len(dims) != len(shape):
            raise ContractError(f"'result_shapes' result {j} has {len(dims)} dims, its type is {r.type}")
        for i, (d, static) in enumerate(zip(dims, shape)):
            if not ir.ShapedType.is_dynamic_size(static) and d != static:
                raise ContractError(f"'result_shapes' result {j} dim {i} is {d}, its type says {static}")
            if not isinstance(d, int):
                d.fold(_OperandCheck(op, f"'result_shapes' result {j} dim {i}"))


class _OperandCheck:
    """`ShapeExpr.fold` callbacks that check every operand reference."""

    def __init__(self, op: ir.Operation, where: str):
        self.op, self.where = op, where

    def dim(self, k, i):
        rank = _rank(self.op.operands[k].type)
        if rank is None or i >= rank:
            raise ContractError(f"{self.where} reads dim({k},{i}), but operand {k} has type {self.op.operands[k].type}")

    def value(self, k):
        t = self.op.operands[k].type
        if _rank(t) != 0 or not isinstance(ir.RankedTensorType(t).element_type, ir.IntegerType):
            raise ContractError(f"{self.where} reads value({k}), but operand {k} is {t}, not a 0-d integer tensor")

    def __getattr__(self, name):  # const, symbol, the operators: nothing to check
        return lambda *args: None


def custom_ops(module) -> list[ir.Operation]:
    """Every `tosa.custom` under `module` (an `ir.Module` or an operation), in order."""
    return collect_ops(module, lambda op: op.name == "tosa.custom")
