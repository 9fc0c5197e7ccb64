"""Our decompositions, on top of torch-mlir's table (capture.decomposition_table:
an op the user keeps is left out of both).

Each replaces one PyTorch op by ops TorchToTosa lowers, where torch-mlir's
own path refuses it or lowers it to TOSA no profile level allows; an
instance it cannot take stays whole (NotImplemented), for auto mode to
tunnel or stock mode to refuse by name.
"""

from __future__ import annotations

import numpy as np
import torch
from torch_mlir.extras.fx_decomp_util import get_decomposition_table

__all__ = ["OUR_DECOMPOSITIONS"]


def _index_put_on_leading_dims(self, indices, values, accumulate=False):
    """index_put whose index tensors follow leading `None`s (`k[:, :, pos] = v`,
    and `index_copy_(2, pos, v)`, which is how transformers' StaticCache
    writes) as an index_put on the leading dimensions between two permutes:
    torch-mlir's TorchToTosa lowers index_put (to tosa.scatter) only when the
    index tensors start at dimension 0. NotImplemented (kept as it is) for
    every other form."""
    lead = 0
    while lead < len(indices) and indices[lead] is None:
        lead += 1
    tensors = list(indices[lead:])
    if lead == 0 or not tensors or any(t is None or t.dtype in (torch.bool, torch.uint8) for t in tensors):
        return NotImplemented
    k = len(tensors)
    block = torch.broadcast_shapes(*(t.shape for t in tensors))
    indexed = (*self.shape[:lead], *block, *self.shape[lead + k:])
    front = list(range(k))
    moved = self.movedim(list(range(lead, lead + k)), front)
    values = values.expand(indexed).movedim(list(range(lead, lead + len(block))), list(range(len(block))))
    out = torch.ops.aten.index_put.default(moved, tensors, values, accumulate)
    return out.movedim(front, list(range(lead, lead + k)))


def _linspace_converting_ends(overload):
    """linspace with a tensor start or end and an integer dtype, as eager
    computes it: the ends converted to the dtype first (4.3 -> 4), then the
    steps. PyTorch's decomposition steps from the float ends, so elements
    land one off eager's (OpInfo linspace.tensor_overload int64); a float
    dtype decomposes as PyTorch does."""
    pytorch = get_decomposition_table()[overload]

    def decompose(start, end, steps, *, dtype=None, layout=None, device=None, pin_memory=False):
        if dtype is not None and not (dtype.is_floating_point or dtype.is_complex):
            start, end = (x.to(dtype) if isinstance(x, torch.Tensor) else int(x) for x in (start, end))
        return pytorch(start, end, steps, dtype=dtype, layout=layout, device=device, pin_memory=pin_memory)

    return decompose


def _roll_as_slices(self, shifts, dims=()):
    """roll as the two slices of each rolled dim, concatenated the other way
    round, sizes static in the graph. torch-mlir decomposes roll that way
    too, but types its slices with a `?` dim even from static shapes, which
    TorchToTosa then refuses (torchvision's Swin Transformer, in stock mode).
    NotImplemented (kept as it is) for a dim of run-time size."""
    if not dims:  # rolled as one flat dim
        return _roll_as_slices(self.flatten(), shifts, [0]).view(self.shape) if self.dim() else self.clone()
    out = self
    for shift, dim in zip(shifts, dims):
        size = self.shape[dim]
        if not isinstance(size, int) or not isinstance(shift, int):
            return NotImplemented
        s = shift % size if size else 0
        if s:
            out = torch.cat([out.narrow(dim, size - s, s), out.narrow(dim, 0, size - s)], dim)
    return out.clone() if out is self else out


def _adaptive_means(x, dim: int, out: int):
    """Adaptive average pooling of `x` along `dim` to `out` positions: the
    mean of each of PyTorch's windows [floor(i*size/out), ceil((i+1)*size/out)), concatenated."""
    size = x.shape[dim]
    windows = [(i * size // out, -(-(i + 1) * size // out)) for i in range(out)]
    return torch.cat([x.narrow(dim, start, end - start).mean(dim, keepdim=True) for start, end in windows], dim)


def _adaptive_avg_pool2d_by_windows(self, output_size):
    """Adaptive average pooling whose windows do not tile the input (AlexNet's
    and VGG's 1x1 or 2x2 feature maps pooled to 6x6 or 7x7) as the mean of
    each window, row windows then column windows (the pooling is separable),
    sizes static. PyTorch's decomposition gathers the windows by an index of
    rank 7, which TorchToTosa lowers to TOSA of rank 7 that no level allows
    (8k: rank 6); a tiling one decomposes as PyTorch's does (to avg_pool2d)."""
    pytorch = get_decomposition_table()[torch.ops.aten._adaptive_avg_pool2d.default]
    (h, w), (oh, ow) = self.shape[-2:], output_size
    if not all(isinstance(v, int) for v in (h, w, oh, ow)) or not self.is_floating_point() or (
            h % oh == 0 and w % ow == 0):
        return pytorch(self, output_size)
    return _adaptive_means(_adaptive_means(self, self.dim() - 2, oh), self.dim() - 1, ow)

def _every(x, dim: int, step: int, count: int):
    """Elements 0, step, ..., (count-1)*step of `x` along `dim` (which holds
    at least (count-1)*step+1), by padding to count*step, splitting the dim
    in two and keeping the first of each step: static slices and reshapes
    only, for a stride TOSA's slice does not take."""
    x = x.narrow(dim, 0, (count - 1) * step + 1)
    if step == 1:
        return x
    pad = [0, 0] * (x.dim() - 1 - dim) + [0, step - 1]
    x = torch.nn.functional.pad(x, pad)
    split = x.reshape(*x.shape[:dim], count, step, *x.shape[dim + 1:])
    return split.narrow(dim + 1, 0, 1).squeeze(dim + 1)


def _grouped_convolution_as_matmul(input, weight, bias, stride, padding, dilation, transposed, output_padding,
                                   groups):
    """A grouped 2-d convolution of several channels per group as one
    batched matmul, a batch per group, of the input's shifted windows
    (padding, static slices, a stack) by the weights. TorchToTosa refuses
    some (regnet_y_400mf's 55 groups of 8 channels) and lowers the others as
    a convolution per group, each compiled on its own (regnet_x_400mf: some
    400 convolutions took over 15 minutes to load). Depthwise ones (one
    channel per group, tosa.depthwise_conv2d), plain and transposed ones are
    left as they are (NotImplemented)."""
    if transposed or groups == 1 or input.dim() != 4 or not input.is_floating_point():
        return NotImplemented
    (n, c, h, w), (o, k, kh, kw) = input.shape, weight.shape
    sizes = (n, c, h, w, o, k, kh, kw, *stride, *padding, *dilation)
    if k == 1 or not all(isinstance(v, int) for v in sizes):
        return NotImplemented
    (sh, sw), (ph, pw), (dh, dw) = stride, padding, dilation
    oh, ow = (h + 2 * ph - dh * (kh - 1) - 1) // sh + 1, (w + 2 * pw - dw * (kw - 1) - 1) // sw + 1
    x = torch.nn.functional.pad(input, (pw, pw, ph, ph))
    taps = [_every(_every(x.narrow(2, i * dh, h + 2 * ph - i * dh), 2, sh, oh).narrow(3, j * dw, w + 2 * pw - j * dw),
                   3, sw, ow) for i in range(kh) for j in range(kw)]
    windows = torch.stack(taps, 2).reshape(n, groups, k * kh * kw, oh * ow)  # per group: channel, then tap
    windows = windows.permute(1, 0, 3, 2).reshape(groups, n * oh * ow, k * kh * kw)
    weights = weight.reshape(groups, o // groups, k * kh * kw).permute(0, 2, 1)
    out = torch.bmm(windows, weights).reshape(groups, n, oh, ow, o // groups)
    out = out.permute(1, 0, 4, 2, 3).reshape(n, o, oh, ow)
    return out if bias is None else out + bias.reshape(1, o, 1, 1)

def _output_sizes(spatial, output_size, scales) -> list[int] | None:
    """The resize's output sizes (static), from `output_size` or from the
    scale factors as PyTorch floors them; None when not static."""
    if not all(isinstance(v, int) and v > 0 for v in spatial):
        return None
    if output_size is None:
        if scales is None or len(scales) != len(spatial) or any(f is None for f in scales):
            return None
        output_size = [int(s * f) for s, f in zip(spatial, scales)]
    out = list(output_size)
    if len(out) != len(spatial) or not all(isinstance(o, int) and o > 0 for o in out):
        return None
    return out


def _source_index(size: int, out: int, scale, exact: bool) -> np.ndarray:
    """The input element each output element of one dim reads, as PyTorch's
    CPU kernels compute it (ATen's UpSample.h, nearest_idx and
    nearest_exact_idx): in float32, the scale 1/factor when a factor is
    given, else size/out, floor((j [+ 0.5]) * scale), clamped to the last."""
    j = np.arange(out)
    if not exact and out == size:
        return j
    if not exact and out == 2 * size:
        return j >> 1
    s = _scale(size, out, scale)
    if exact:  # (j + 0.5) in double, times the float scale, floored as a float
        src = np.floor(((j + 0.5) * np.float64(s)).astype(np.float32))
    else:
        src = np.floor(j.astype(np.float32) * s)
    return np.minimum(src.astype(np.int64), size - 1)


def _scale(size: int, out: int, scale, real_type=np.float32):
    """ATen's compute_scales_value in `real_type`: 1/factor when a factor is given, else size/out."""
    return real_type(1.0 / scale) if scale is not None and scale > 0 else real_type(size) / real_type(out)


def _traced_index(size: int, out: int, scale, exact: bool) -> torch.Tensor:
    """`_source_index` computed by the graph, in float32 (a constant made
    here is not one an ExportedProgram's decomposition may add): f32(j [+ 0.5])
    times the f32 scale is the double product rounded once, as the kernel's."""
    j = torch.arange(out, dtype=torch.float32)
    src = torch.floor((j + 0.5 if exact else j) * float(_scale(size, out, scale)))
    return src.clamp(max=size - 1).to(torch.int64)


def _pick(x, dim: int, scale, exact: bool, out: int):
    """`x` resized along `dim` to `out`: repeats (each element r times) or a
    strided pick where PyTorch's index is one, else a gather by the index."""
    size = x.shape[dim]
    index = _source_index(size, out, scale, exact)
    if np.array_equal(index, np.arange(size)):
        return x
    if out % size == 0 and np.array_equal(index, np.arange(out) // (out // size)):
        r = out // size
        x = x.unsqueeze(dim + 1).expand(*x.shape[:dim + 1], r, *x.shape[dim + 1:])
        return x.reshape(*x.shape[:dim], out, *x.shape[dim + 2:])
    step = size // out
    if step > 1 and size % out == 0 and np.array_equal(index, np.arange(out) * step):
        return _every(x, dim, step, out)
    return torch.index_select(x, dim, _traced_index(size, out, scale, exact))


def _nearest(exact: bool):
    """Nearest (and nearest-exact) resizing as each dim's pick of PyTorch's
    source elements: repeats, strided picks, else a gather by the index the
    graph computes (`_traced_index`; PyTorch's own special cases, a size kept
    or doubled, are the identity and the repeats, so a gather never meets
    them). TorchToTosa refuses torch-mlir's `aten.__interpolate` for it in
    float and in int8 (a segmentation head's or a feature pyramid's
    upsampling, in stock mode). Sizes of run-time value stay whole."""

    def resize(input, output_size, scales):
        spatial = input.shape[2:]
        out = _output_sizes(spatial, output_size, scales)
        if out is None:
            return NotImplemented
        x = input
        for d, (size, o) in enumerate(zip(spatial, out)):
            x = _pick(x, 2 + d, scales[d] if scales else None, exact, o)
        return x.clone() if x is input else x

    def vec(input, output_size, scale_factors):
        return resize(input, output_size, list(scale_factors) if scale_factors is not None else None)

    def default(input, output_size, *scales):
        return resize(input, output_size, list(scales) if any(s is not None for s in scales) else None)

    return vec, default


_NEAREST = {False: _nearest(False), True: _nearest(True)}
_NEAREST_OPS = {
    torch.ops.aten.upsample_nearest1d.vec: _NEAREST[False][0],
    torch.ops.aten.upsample_nearest2d.vec: _NEAREST[False][0],
    torch.ops.aten.upsample_nearest3d.vec: _NEAREST[False][0],
    torch.ops.aten.upsample_nearest2d.default: _NEAREST[False][1],
    torch.ops.aten._upsample_nearest_exact1d.vec: _NEAREST[True][0],
    torch.ops.aten._upsample_nearest_exact2d.vec: _NEAREST[True][0],
    torch.ops.aten._upsample_nearest_exact3d.vec: _NEAREST[True][0],
    torch.ops.aten._upsample_nearest_exact2d.default: _NEAREST[True][1],
}


def _linear_source(size: int, out: int, scale, align_corners: bool, dtype: torch.dtype):
    """The two input elements each output element of one dim reads and their
    weights, as PyTorch's CPU kernel computes them (ATen's UpSample.h,
    area_pixel_compute_source_index and guard_index_and_lambda), by the graph
    in `dtype` (the kernel's opmath: float64 for float64, else float32): the
    source position (j + 0.5) * scale - 0.5, at least 0 (align_corners:
    j * (size - 1) / (out - 1)); its floor, at most the last, and the next,
    at most the last; lambda1 the distance from the floor within [0, 1],
    lambda0 = 1 - lambda1."""
    real_type = np.float64 if dtype == torch.float64 else np.float32
    j = torch.arange(out, dtype=dtype)
    if align_corners:
        real = j * float(real_type(size - 1) / real_type(out - 1)) if out > 1 else j * 0.0
    else:
        real = ((j + 0.5) * float(_scale(size, out, scale, real_type)) - 0.5).clamp(min=0.0)
    first = real.to(torch.int64).clamp(max=size - 1)
    lambda1 = (real - first.to(dtype)).clamp(0.0, 1.0)
    return first, (first + 1).clamp(max=size - 1), 1.0 - lambda1, lambda1


def _interpolate(x, dim: int, scale, align_corners: bool, out: int):
    """`x` linearly interpolated along `dim` to `out`: the two gathered
    neighbours, each times its weight, summed (as the kernel sums them)."""
    size = x.shape[dim]
    if out == size:  # the kernel's own case: each element itself
        return x
    first, second, lambda0, lambda1 = _linear_source(size, out, scale, align_corners, x.dtype)
    shape = [out if d == dim else 1 for d in range(x.dim())]
    return (torch.index_select(x, dim, first) * lambda0.reshape(shape)
            + torch.index_select(x, dim, second) * lambda1.reshape(shape))


def _linear():
    """Linear, bilinear and trilinear resizing, separably: along the last
    dim first, then each dim before it, which is the order of ATen's CPU
    kernel (the outer dim's weights applied last), so each output element
    is the sum the kernel forms. PyTorch's decomposition gathers the four
    (eight) corners at the output's full size: a 4x4 to 64x64 bilinear
    resize of 21 channels (deeplabv3's head) ran 4x slower that way. Sizes
    of run-time value and integer inputs stay whole."""

    def resize(input, output_size, align_corners, scales):
        spatial = input.shape[2:]
        out = _output_sizes(spatial, output_size, scales)
        if out is None or not input.is_floating_point():
            return NotImplemented
        # In the kernel's opmath (float32 for half precision), rounded to the input's dtype once, at the end.
        x = input if input.dtype in (torch.float32, torch.float64) else input.to(torch.float32)
        for d in reversed(range(len(spatial))):
            x = _interpolate(x, 2 + d, scales[d] if scales else None, align_corners, out[d])
        return x.clone() if x is input else x.to(input.dtype)

    def vec(input, output_size, align_corners, scale_factors):
        return resize(input, output_size, align_corners, list(scale_factors) if scale_factors is not None else None)

    def default(input, output_size, align_corners, *scales):
        return resize(input, output_size, align_corners, list(scales) if any(s is not None for s in scales) else None)

    return vec, default


_LINEAR_VEC, _LINEAR_DEFAULT = _linear()
_LINEAR_OPS = {
    overload: decomposition
    for op in (torch.ops.aten.upsample_linear1d, torch.ops.aten.upsample_bilinear2d,
               torch.ops.aten.upsample_trilinear3d)
    for overload, decomposition in ((op.vec, _LINEAR_VEC), (op.default, _LINEAR_DEFAULT))
}


def _exponential_in_float(self, lambd=1.0, generator=None):
    """A float16 / bfloat16 exponential drawn in float32, as eager's kernel
    draws it: torch-mlir computes -log(1 - u) in the tensor's type, where a
    uniform u near 1 rounds to 1 and gives inf (every-sample OpInfo
    exponential/bfloat16: 10 of 4,096 draws). Other dtypes stay whole."""
    if self.dtype not in (torch.float16, torch.bfloat16):
        return NotImplemented
    return torch.ops.aten.exponential.default(self.float(), lambd, generator=generator).to(self.dtype)


OUR_DECOMPOSITIONS = {
    **_NEAREST_OPS,
    **_LINEAR_OPS,
    torch.ops.aten.index_put.default: _index_put_on_leading_dims,
    torch.ops.aten.roll.default: _roll_as_slices,
    torch.ops.aten._adaptive_avg_pool2d.default: _adaptive_avg_pool2d_by_windows,
    torch.ops.aten.convolution.default: _grouped_convolution_as_matmul,
    torch.ops.aten.exponential.default: _exponential_in_float,
    **{o: _linspace_converting_ends(o) for o in (torch.ops.aten.linspace.Tensor_Tensor,
                                                torch.ops.aten.linspace.Tensor_Scalar,
                                                torch.ops.aten.linspace.Scalar_Tensor)},
}
