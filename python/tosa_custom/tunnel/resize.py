"""Bilinear upsampling as one `tosa.resize`, not as gathers.

PyTorch's decomposition of `aten.upsample_bilinear2d.vec` (F.interpolate,
bilinear) computes each output's source rows and columns with arange,
floor and clamp, and TorchToTosa lowers the indexing that follows by
materializing the full index grid of every dim: constants of
N x C x OH x OW int32 each (5.5 MB apiece for a 21-class 256x256 map),
then tile, concat, multiply and sum them per call into gather indices.
DeepLabV3's final upsampling from 32x32 to 256x256 took 53 ms that way,
against 1.8 ms in eager, and its TOSA carried the grids.

TOSA has the op: `tosa.resize` in BILINEAR mode maps output row o to input
row (o * scale_d + offset) / scale_n, exactly, and clamps the neighbours to
the edges as PyTorch clamps its source index. PyTorch's half-pixel mapping
(align_corners=False), (o + 0.5) * I / O - 0.5, is scale 2O / 2I with
offset I - O; align_corners=True, o * (I - 1) / (O - 1), is scale
(O - 1) / (I - 1) with offset 0 (both reduced by their common divisor).
An instance becomes one resize (in NHWC, between two transposes) when its
shapes are static, its element type f32, its scale one PyTorch computes from
the sizes (given scale factors: only when I x s = O, where 1 / s is I / O),
and the parameters within TOSA 1.0's bounds (`resize_parameters`); the
decomposition is skipped for exactly those instances (frontend/capture.py
asks `fits`), and the rest decompose as before.
"""

from __future__ import annotations

import math

from torch_mlir import ir

from ..core import builders as _b
from ..core import ir as _ir
from ..core.dtypes import vtensor_element as _element
from ..core.passes import PassContext, register_pass
from ..core.torch_ir import NOT_CONSTANT, constant, constant_list
from .sizes import _dims, _replace_by_builtin, _to_builtin

__all__ = ["LOWER_BILINEAR_UPSAMPLE", "BILINEAR_OPS", "fits", "resize_parameters", "lower_bilinear_upsample"]

LOWER_BILINEAR_UPSAMPLE = "tosa-custom-lower-bilinear-upsample"
BILINEAR_OPS = ("torch.aten.upsample_bilinear2d.vec",)
_MAX_SCALE_N = 1 << 11  # TOSA 1.0: scale_y_n, scale_x_n <= 2^11
_MAX_SCALE = 256  # level 8K: scale_n / scale_d <= MAX_SCALE


def _axis(size: int, out: int, align_corners: bool) -> tuple[int, int, int, int] | None:
    """(scale_n, scale_d, offset, border) of one spatial axis, or None."""
    if align_corners:
        if size < 2 or out < 2:  # PyTorch then reads row 0 for every output; no scale expresses it
            return None
        n, d, offset = out - 1, size - 1, 0
    else:
        n, d, offset = 2 * out, 2 * size, size - out
    g = math.gcd(n, d, offset)
    n, d, offset = n // g, d // g, offset // g
    border = (out - 1) * d - (size - 1) * n + offset  # the output size's equation, solved for it
    if not (0 < n <= _MAX_SCALE_N and n <= _MAX_SCALE * d and d < 16 * n):
        return None
    if not (-n <= offset < 16 * n and -16 * n <= border < n):
        return None
    return n, d, offset, border


def resize_parameters(size: tuple[int, int], out: tuple[int, int], align_corners: bool):
    """tosa.resize's scale [yn, yd, xn, xd], offset [y, x] and border [y, x]
    for PyTorch's bilinear mapping from `size` to `out` (H, W), or None where
    TOSA 1.0 cannot state it."""
    axes = [_axis(s, o, align_corners) for s, o in zip(size, out)]
    if None in axes:
        return None
    (yn, yd, yo, yb), (xn, xd, xo, xb) = axes
    return [yn, yd, xn, xd], [yo, xo], [yb, xb]


def _out_size(size, output_size, scale_factors) -> tuple[int, int] | None:
    """The output (H, W) when the mapping is the sizes' own: given sizes, or
    scale factors s with I x s = O (PyTorch maps by 1 / s, then I / O)."""
    if output_size is not None:
        return tuple(int(o) for o in output_size)
    if scale_factors is None or len(scale_factors) != 2:
        return None
    out = tuple(math.floor(i * s) for i, s in zip(size, scale_factors))
    return out if all(i * s == o for i, s, o in zip(size, scale_factors, out)) else None


def fits(shape, dtype: str, output_size, align_corners, scale_factors) -> bool:
    """Whether an `upsample_bilinear2d.vec(input, output_size, align_corners,
    scale_factors)` of an input of `shape` and element type `dtype` (torch-mlir's
    spelling) becomes one tosa.resize."""
    if dtype != "f32" or len(shape) != 4 or not all(isinstance(d, int) for d in shape):
        return False
    if not isinstance(align_corners, bool):
        return False
    out = _out_size(tuple(shape[2:]), output_size, scale_factors)
    return out is not None and resize_parameters(tuple(shape[2:]), out, align_corners) is not None


def _lower(op: ir.Operation) -> bool:
    x, size_arg, align_arg, scales_arg = list(op.operands)[:4]
    shape, out_shape = _dims(x.type), _dims(op.results[0].type)
    if shape is None or out_shape is None or None in shape + out_shape:
        return False
    align = constant(align_arg)
    output_size = None if constant(size_arg) is None else constant_list(size_arg)
    scales = None if constant(scales_arg) is None else constant_list(scales_arg)
    if align is NOT_CONSTANT or (output_size is None and scales is None):
        return False
    if not fits(shape, _element(x.type), output_size, align, scales):
        return False
    out = _out_size(tuple(shape[2:]), output_size, scales)
    if list(out) != out_shape[2:]:
        return False
    scale, offset, border = resize_parameters(tuple(shape[2:]), out, align)
    n, c, h, w = shape
    f32 = ir.F32Type.get()
    nhwc = _b.create("tosa.transpose", ir.RankedTensorType.get([n, h, w, c], f32), [_to_builtin(x)],
                     {"perms": ir.DenseI32ArrayAttr.get([0, 2, 3, 1])})
    resized = _b.create("tosa.resize", ir.RankedTensorType.get([n, *out, c], f32),
                        [nhwc, _b.tosa_const_shape(scale), _b.tosa_const_shape(offset), _b.tosa_const_shape(border)],
                        {"mode": ir.Attribute.parse("#tosa.resize_mode<BILINEAR>")})
    nchw = _b.create("tosa.transpose", ir.RankedTensorType.get([n, c, *out], f32), [resized],
                     {"perms": ir.DenseI32ArrayAttr.get([0, 3, 1, 2])})
    _replace_by_builtin(op, nchw)
    return True


@register_pass(LOWER_BILINEAR_UPSAMPLE,
               "Lower aten.upsample_bilinear2d.vec of static shapes and f32 to one tosa.resize (BILINEAR) between "
               "NCHW <-> NHWC transposes, where TOSA 1.0 states PyTorch's mapping exactly (the instances compile() "
               "kept from PyTorch's decomposition, whose gathers carry full index grids)")
def lower_bilinear_upsample(module, ctx: PassContext | None = None) -> int:
    """Returns how many were lowered."""
    root = getattr(module, "operation", module)
    lowered = 0
    with root.context:
        for op in _ir.collect_ops(root, lambda o: o.name in BILINEAR_OPS):
            with ir.InsertionPoint(op), op.location:
                lowered += _lower(op)
    return lowered
