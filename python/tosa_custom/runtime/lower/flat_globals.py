"""Constant globals reach LLVM as flat arrays.

`finalize-memref-to-llvm` gives a memref global of shape AxBxCxD the type
`[A x [B x [C x [D x T]]]]`, and the translation to LLVM IR builds that as
nested constants: one ConstantDataArray per innermost row, each uniqued in
LLVM's context, and the code generator emits them one by one. With a small
innermost dim this is most of LLVM's time for a CNN: a convolution's bias or
batch-norm scale is 1xCx1x1 (C arrays of one element), a 1x1 convolution's
filter Fx1x1xC. Measured on one million f32 elements, ExecutionEngine
creation plus first lookup: 0.05 s as `[1000000 x f32]` or `[1000 x [1000 x
f32]]`, 1.6 s as 1000000x1, 4.2 s as 100000x10x1x1.

Nothing reads a global by its type: `memref.get_global` lowers to the
global's address and a GEP of all-zero indices (the same address, whatever
the type), and the memref descriptor carries the shape. So each constant
global of rank > 1 takes the flat type `[N x T]` and its elements, the same
bytes in the same order (a splat stays a splat). efficientnet_b0's load
22.1 -> 21.5 s (245k rows of one element before, 63k after; AVX-512 host).
A `dense_resource` global is flattened when its blob is one this package
made (weights/blobs.py `resource_array`: the importer's literals, bound
weights): a second blob of the flat type on the same memory, no copy, so
whatever its rows. Every weight of a program whose convolutions run as
kernels (dummy mode) is such a global, and a 3x3 filter was rows of 3:
WideResNet-50-2's dummy-mode load took 140 s, ~23M rows. Any other blob
(parsed from text or a file) keeps its nesting: the bindings can neither read
it nor give it another type, and printing the module to read it costs more
than it saves.
"""

from __future__ import annotations

import math

import numpy as np
from torch_mlir import ir

from ...core.passes import PassContext, register_pass
from ...weights.blobs import resource_array, resource_attr, resource_key
from .constants import numpy_holds

__all__ = ["FLATTEN_CONSTANT_GLOBALS", "LONG_ROWS", "flatten_constant_globals"]

FLATTEN_CONSTANT_GLOBALS = "tosa-custom-flatten-constant-globals"
LONG_ROWS = 16
"""An innermost dim this long or longer is left nested: LLVM's cost is per
row (~1.6 us), so rows of 16 elements or more cost it no more than the
flat copy costs here (numpy round trip of the elements)."""


def _nested(shape: list[int], element: str) -> str:
    text = element
    for d in reversed(shape):
        text = f"array<{d} x {text}>"
    return "!llvm." + text


def _flat_value(value: ir.Attribute, flat: ir.RankedTensorType) -> ir.Attribute | None:
    """`value` (elements of rank > 1) as the same elements of type `flat`, or
    None for a kind of attribute this does not know."""
    if not isinstance(value, ir.DenseElementsAttr):
        array = resource_array(value)
        return None if array is None else resource_attr(array.reshape(-1), f"{resource_key(value)}_flat", flat)
    if value.is_splat:
        return ir.DenseElementsAttr.get_splat(flat, value.get_splat_value())
    if not numpy_holds(flat.element_type):
        return None
    try:
        return ir.DenseElementsAttr.get(np.ascontiguousarray(np.array(value)).reshape(-1), type=flat)
    except (TypeError, ValueError):
        return None


def _globals(top: ir.Operation) -> list[ir.Operation]:
    """The module's llvm.mlir.global ops, as plain Operations: iterating the
    block would make an OpView of each op, and a global's type as an ir.Type
    an LLVM dialect type, either of which imports the LLVM dialect's Python
    module (0.03-0.05 s of a cold load; nothing else needs it). Types are
    read and written as text for the same reason."""
    found = []

    def visit(op):
        if op.name == "llvm.mlir.global":
            found.append(op)
        return ir.WalkResult.ADVANCE if op == top else ir.WalkResult.SKIP

    top.walk(visit, ir.WalkOrder.PRE_ORDER)
    return found


@register_pass(FLATTEN_CONSTANT_GLOBALS,
               "Give each constant llvm.mlir.global of nested arrays the flat array of its elements (LLVM builds "
               "and emits nested constants row by row: seconds for a CNN's 1xCx1x1 weights)")
def flatten_constant_globals(module, ctx: PassContext | None = None) -> int:
    """Returns how many globals were flattened. Only the module's top level
    is read (globals live there), never the functions' bodies."""
    flattened = 0
    with module.context, ir.Location.unknown():
        for op in _globals(getattr(module, "operation", module)):
            if "constant" not in op.attributes or "value" not in op.attributes:
                continue
            value = op.attributes["value"]
            shaped = getattr(value, "type", None)
            if not isinstance(shaped, ir.RankedTensorType) or shaped.rank < 2:
                continue
            if shaped.shape[-1] >= LONG_ROWS and isinstance(value, ir.DenseElementsAttr):
                continue  # few rows: nothing to gain, and the copy costs (BERT's weights: 0.05 s)
            element = str(shaped.element_type)
            if str(op.attributes["global_type"]) != _nested(shaped.shape, element):  # printed: no Type made
                continue  # not the nesting of the value's shape (vectors inside, say): left as it is
            count = math.prod(shaped.shape)
            flat_value = _flat_value(value, ir.RankedTensorType.get([count], shaped.element_type))
            if flat_value is None:
                continue
            op.attributes["global_type"] = ir.Attribute.parse(_nested([count], element))
            op.attributes["value"] = flat_value
            flattened += 1
    return flattened
