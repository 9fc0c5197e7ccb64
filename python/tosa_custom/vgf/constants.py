"""The pass `tosa-custom-vulkan-shader-constants`: each shader constant its own, never a splat.

Two defects of the ML SDK 0.11.0, measured on lavapipe, both met by every
fresh LayerNorm (all-ones weight, all-zeros bias), so by a ConvNeXt with
its LayerNorms kept:
- The converter folds each shader operand's reshape into its constant and
  merges constants of equal type and value, so two shaders with equal
  constant operands read one intermediate resource, bound in both compute
  segments: the second then reads garbage (two LayerNorms with a mean
  between returned values near 4e30 at every load).
- A splat constant that a shader reads makes a program loaded after
  another one in the same process wrong at some loads (zeros or another
  value's elements; 1 to 3 loads in 8), though right in a fresh process.
(A computed value two shaders read is not merged: each shader reads its
own reshape of it.)

So a shader constant that is a splat, or equal to one an earlier shader
reads, becomes a copy padded with k trailing elements unequal to its
first (the smallest k that no other shader constant has): its own
resource, and no splat. A shader reads a binding's first TC_INPUTi_NUMEL
elements, which the op's types give (shaders.py), so the padding is never
read. With this, 44 loads of those programs in one process all matched
eager. (Passing such constants as extra inputs of the entry was tried
first: a splat still reached the shader.)
"""

from __future__ import annotations

from torch_mlir import ir

from ..core import ir as _ir
from ..core.builders import create
from ..core.passes import PassContext, register_pass
from ..weights.blobs import ResourceBlobs
from .lowering import VULKAN_DOMAIN, constant_bytes

__all__ = ["VULKAN_SHADER_CONSTANTS", "shader_constants"]

VULKAN_SHADER_CONSTANTS = "tosa-custom-vulkan-shader-constants"


def _folded(value: ir.Value) -> ir.Value:
    """The constant a shader operand is once the converter folds the reshape
    the shader pass put before it (or the operand itself)."""
    owner = value.owner
    if not isinstance(owner, ir.Block) and owner.operation.name == "tosa.reshape":
        source = owner.operation.operands[0]
        if not isinstance(source.owner, ir.Block) and source.owner.operation.name == "tosa.const":
            return source
    return value


def _shader_ops(func: ir.Operation) -> list[ir.Operation]:
    return _ir.collect_ops(func, lambda op: op.name == "tosa.custom"
                           and ir.StringAttr(op.attributes["domain_name"]).value == VULKAN_DOMAIN)


def _padded_type(t: ir.RankedTensorType, extra: int) -> ir.RankedTensorType:
    shape = list(t.shape)
    shape[-1] += extra
    return ir.RankedTensorType.get(shape, t.element_type)


def _element_bytes(t: ir.RankedTensorType) -> int | None:
    width = t.element_type.width if hasattr(t.element_type, "width") else None
    if width is None:
        width = {"f32": 32, "f16": 16, "bf16": 16}.get(str(t.element_type))
    return width // 8 if width and width % 8 == 0 else None


def _splat(data: bytes, size: int) -> bool:
    return len(data) >= size and data == data[:size] * (len(data) // size)


def _pad(data: bytes, size: int, extra: int) -> bytes:
    """`data` and `extra` elements that are not all equal to its first (so
    a splat becomes one that is not)."""
    fill = b"\x01" * size if data[:size] != b"\x01" * size else b"\x02" * size
    return data + fill * extra


def _distinct_copy(op: ir.Operation, index: int, data: bytes, taken: set, serial: list[int]) -> tuple | None:
    """Make operand `index` of `op` a padded constant of its own; its key."""
    t = ir.RankedTensorType(op.operands[index].type)
    size = _element_bytes(t)
    if size is None:
        return None
    extra = 1
    while (str(_padded_type(t, extra)), _pad(data, size, extra)) in taken:
        extra += 1
    padded, payload = _padded_type(t, extra), _pad(data, size, extra)
    serial[0] += 1
    attr = ir.DenseResourceElementsAttr.get_from_buffer(memoryview(payload), f"tosa_custom_vulkan_copy_{serial[0]}",
                                                       padded)
    with ir.InsertionPoint(op), op.location:
        op.operands[index] = create("tosa.const", padded, [], attributes={"values": attr})
    return (str(padded), payload)


def _separate(func: ir.Operation, blobs: ResourceBlobs, serial: list[int]) -> None:
    ops = _shader_ops(func)
    taken: set[tuple[str, bytes]] = set()
    for op in ops:  # every shader constant as the converter keys it
        for operand in op.operands:
            data = constant_bytes(_folded(operand), blobs)
            if data is not None:
                taken.add((str(operand.type), data))
    seen: set[tuple[str, bytes]] = set()
    for op in ops:
        mine: set[tuple[str, bytes]] = set()
        for i, operand in enumerate(list(op.operands)):
            data = constant_bytes(_folded(operand), blobs)
            if data is None:
                continue
            key = (str(operand.type), data)
            size = _element_bytes(ir.RankedTensorType(operand.type))
            if (key in seen and key not in mine) or (size and _splat(data, size)):
                made = _distinct_copy(op, i, data, taken, serial)
                if made is not None:
                    taken.add(made)
                    continue
            mine.add(key)
        seen |= mine


@register_pass(VULKAN_SHADER_CONSTANTS,
               "Give each Vulkan shader constant that is a splat, or equal to one an earlier shader reads, a copy "
               "padded with trailing elements unequal to its first: its own resource, never a splat (the ML SDK "
               "merges equal constants into one resource, which a second compute segment reads as garbage, and a "
               "splat shader constant makes later loads in a process wrong)")
def shader_constants(module_op, ctx: PassContext) -> None:
    blobs, serial = ResourceBlobs(module_op), [0]
    for func in _ir.public_functions(module_op):
        with func.location:
            _separate(func, blobs, serial)
