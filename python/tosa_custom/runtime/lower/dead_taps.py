"""Convolution taps that only ever read padding, dropped before lowering.

A dilated convolution on a feature map smaller than its dilation reads
padding through most of its kernel: DeepLabV3's ASPP head runs 3x3
convolutions of dilation 12, 24 and 36 (padded as much) on the backbone's
output, 4x4 at a 64x64 input and 32x32 at 512x512, where every tap but the
centre row and column reads zeros for every output. Lowered as written, each
tap is computed over a padded copy of the input, 9x the work the centre does
(at 64x64, the head took 8 ms against eager's 5).

For each spatial dim, a tap k is live when some output o reads inside the
input (0 <= o*stride + k*dilation - pad_before < size). The kernel is cut to
its live taps' range and the padding by the dead taps' extent on each side:
the output size, and every product that reads the input, are unchanged. A
dead tap contributes weight x 0 (a float convolution pads with 0, an integer
one with the input's zero point, which it subtracts), so the result is the
same but for a weight that is not finite (inf x 0 is NaN): taps are dropped
only from a constant weight whose dropped elements are finite, and padding
is never made negative. Dims of unknown size keep their taps.
"""

from __future__ import annotations

import numpy as np
from torch_mlir import ir

from ...core.builders import create, tosa_const
from ...core.ir import defining_op, replace_each
from ...core.passes import PassContext, register_pass

__all__ = ["DROP_PADDING_TAPS", "drop_padding_taps", "live_taps"]

DROP_PADDING_TAPS = "tosa-custom-drop-padding-taps"
# Op -> the weight's spatial dims (conv2d: [OC, KH, KW, IC]; depthwise: [KH, KW, C, M]).
_KERNEL_DIMS = {"tosa.conv2d": (1, 2), "tosa.depthwise_conv2d": (0, 1)}


def live_taps(size: int, out: int, taps: int, stride: int, dilation: int, before: int) -> tuple[int, int] | None:
    """The first and last tap some output reads the input through, or None
    if none does."""
    live = []
    for k in range(taps):
        # 0 <= o*stride + k*dilation - before < size, for some 0 <= o < out
        first = max(0, -(-(before - k * dilation) // stride))
        last = min(out - 1, (size - 1 + before - k * dilation) // stride)
        if first <= last:
            live.append(k)
    return (live[0], live[-1]) if live else None


def _weights(value: ir.Value) -> np.ndarray | None:
    op = defining_op(value)
    if op is None or op.name != "tosa.const":
        return None
    attr = op.attributes["values"]
    if not isinstance(attr, ir.DenseElementsAttr) or attr.is_splat:
        return None
    try:
        return np.array(attr).reshape(tuple(ir.RankedTensorType(value.type).shape))
    except (TypeError, ValueError):  # an element type numpy cannot hold (bf16, i4...)
        return None


def _cut(op: ir.Operation) -> ir.Value | None:
    x, weight = op.operands[0], op.operands[1]
    in_shape = ir.RankedTensorType(x.type).shape
    out_shape = ir.RankedTensorType(op.results[0].type).shape
    pad = list(ir.DenseI64ArrayAttr(op.attributes["pad"]))
    stride = list(ir.DenseI64ArrayAttr(op.attributes["stride"]))
    dilation = list(ir.DenseI64ArrayAttr(op.attributes["dilation"]))
    dims = _KERNEL_DIMS[op.name]
    array = _weights(weight)
    if array is None:
        return None
    keep, new_pad = [slice(None)] * array.ndim, list(pad)
    for axis, (dim, size, out) in enumerate(zip(dims, in_shape[1:3], out_shape[1:3])):
        if ir.ShapedType.is_dynamic_size(size) or ir.ShapedType.is_dynamic_size(out):
            continue
        taps = array.shape[dim]
        live = live_taps(size, out, taps, stride[axis], dilation[axis], pad[2 * axis])
        if live is None or live == (0, taps - 1):
            continue
        before = pad[2 * axis] - live[0] * dilation[axis]
        after = pad[2 * axis + 1] - (taps - 1 - live[1]) * dilation[axis]
        if before < 0 or after < 0:
            continue
        keep[dim], new_pad[2 * axis], new_pad[2 * axis + 1] = slice(live[0], live[1] + 1), before, after
    if new_pad == pad:
        return None
    kept = np.zeros(array.shape, dtype=bool)
    kept[tuple(keep)] = True
    if array.dtype.kind == "f" and not np.isfinite(array[~kept]).all():
        return None
    cut = np.ascontiguousarray(array[tuple(keep)])
    element = ir.RankedTensorType(weight.type).element_type
    new_weight = tosa_const(ir.DenseElementsAttr.get(cut, type=element, shape=list(cut.shape)))
    attrs = {name: op.attributes[name] for name in op.attributes}
    attrs["pad"] = ir.DenseI64ArrayAttr.get(new_pad)
    operands = list(op.operands)
    operands[1] = new_weight
    return create(op.name, op.results[0].type, operands, attrs)


@register_pass(DROP_PADDING_TAPS,
               "Cut a tosa.conv2d or tosa.depthwise_conv2d's constant kernel to the taps that read the input for "
               "some output, and its padding by the rest (a dilated convolution on a map smaller than its "
               "dilation reads padding through most taps); exact, except that a kernel with non-finite values "
               "in the dropped taps is kept")
def drop_padding_taps(module, ctx: PassContext | None = None) -> int:
    """Returns how many convolutions were cut."""
    root = getattr(module, "operation", module)
    with root.context:
        return replace_each(root, lambda op: op.name in _KERNEL_DIMS, _cut)
