"""Pooling: max/avg in 1d/2d/3d with stride, padding, dilation, ceil_mode,
count_include_pad, divisor_override, indices, and adaptive pooling."""

from torch import nn
from torch.nn import functional as F

from tosa_custom.e2e import Fn, case, randn_inputs

FAMILY = "pooling"


@case(inputs=randn_inputs(1, 3, 8, 8), family=FAMILY)
def MaxPool2dModule_basic():
    return nn.MaxPool2d(2)


@case(inputs=randn_inputs(2, 2, 9, 7), family=FAMILY)
def MaxPool2dModule_stride_padding():
    return nn.MaxPool2d(3, stride=2, padding=1)


@case(inputs=randn_inputs(1, 2, 10, 10), family=FAMILY,
      xfail={"stock": "torch-mlir has no TOSA lowering for dilated aten.max_pool2d"})
def MaxPool2dModule_dilation():
    return nn.MaxPool2d(2, stride=1, dilation=2)


@case(inputs=randn_inputs(1, 2, 7, 7), family=FAMILY)
def MaxPool2dModule_ceil_mode():
    return nn.MaxPool2d(2, stride=2, ceil_mode=True)


@case(inputs=randn_inputs(1, 2, 6, 6), family=FAMILY,
      xfail={"stock": "torch-mlir has no TOSA lowering for aten.max_pool2d_with_indices"})
def MaxPool2dWithIndicesModule_basic():
    """(values, int64 indices into each flattened plane)."""
    return nn.MaxPool2d(2, return_indices=True)


@case(inputs=randn_inputs(2, 3, 10), family=FAMILY)
def MaxPool1dModule_basic():
    return nn.MaxPool1d(3, stride=2)


@case(inputs=randn_inputs(1, 2, 4, 6, 6), family=FAMILY)
def MaxPool3dModule_basic():
    return nn.MaxPool3d(2)


@case(inputs=randn_inputs(1, 3, 8, 8), family=FAMILY)
def AvgPool2dModule_basic():
    return nn.AvgPool2d(2)


@case(inputs=randn_inputs(1, 2, 7, 7), family=FAMILY)
def AvgPool2dModule_count_include_pad_false():
    return nn.AvgPool2d(3, stride=2, padding=1, count_include_pad=False)


@case(inputs=randn_inputs(1, 2, 7, 7), family=FAMILY)
def AvgPool2dModule_ceil_mode():
    return nn.AvgPool2d(2, ceil_mode=True)


@case(inputs=randn_inputs(1, 2, 6, 6), family=FAMILY,
      xfail={"stock": "torch-mlir has no TOSA lowering for aten.avg_pool2d with divisor_override"})
def AvgPool2dModule_divisor_override():
    return nn.AvgPool2d(2, divisor_override=3)


@case(inputs=randn_inputs(2, 3, 9), family=FAMILY)
def AvgPool1dModule_basic():
    return nn.AvgPool1d(3, stride=2, padding=1)


@case(inputs=randn_inputs(1, 2, 4, 4, 4), family=FAMILY, xfail={"stock": "torch-mlir has no TOSA lowering for aten.avg_pool3d"})
def AvgPool3dModule_basic():
    return nn.AvgPool3d(2)


@case(inputs=randn_inputs(2, 4, 7, 7), family=FAMILY)
def AdaptiveAvgPool2dModule_output_1():
    return nn.AdaptiveAvgPool2d(1)


@case(inputs=randn_inputs(1, 3, 7, 9), family=FAMILY)
def AdaptiveAvgPool2dModule_non_divisible():
    """Output size that does not divide the input: overlapping windows."""
    return nn.AdaptiveAvgPool2d((3, 4))


@case(inputs=randn_inputs(1, 3, 8, 8), family=FAMILY)
def AdaptiveMaxPool2dModule_basic():
    return nn.AdaptiveMaxPool2d((2, 2))


_LARGER_STOCK = ("torch-mlir decomposes adaptive max pooling to a larger output into a max pool of stride 0, on "
                 "which TorchToTosa divides by zero (SIGFPE): refused before the lowering")
_INDICES_STOCK = "torch-mlir has no TOSA lowering for aten.max_pool2d_with_indices (adaptive max pooling's indices)"
_UNEVEN = ("torch-mlir decomposes adaptive max pooling to an output size that does not divide the input only for "
           "windows of one stride: otherwise it leaves torch.runtime.assert false ('only support cases with fixed "
           "stride size'), which TorchToTosa cannot lower")
@case(inputs=randn_inputs(1, 3, 8, 8), family=FAMILY, xfail={"stock": _LARGER_STOCK})
def AdaptiveMaxPool2dModule_larger_output():
    """Output larger than the input: windows of one element, repeated (auto
    mode used to crash the process probing the decomposition's max_pool2d)."""
    return nn.AdaptiveMaxPool2d((16, 16))


@case(inputs=randn_inputs(2, 3, 6, 8), family=FAMILY, xfail={"stock": _LARGER_STOCK})
def AdaptiveMaxPool2dModule_larger_output_indices():
    """One output dim larger, one smaller; the indices too."""
    return nn.AdaptiveMaxPool2d((9, 4), return_indices=True)


@case(inputs=randn_inputs(2, 3, 10), family=FAMILY, xfail={"stock": _LARGER_STOCK})
def AdaptiveMaxPool1dModule_larger_output():
    return nn.AdaptiveMaxPool1d(20)


@case(inputs=randn_inputs(2, 3, 5), family=FAMILY, xfail={"stock": _LARGER_STOCK})
def AdaptiveMaxPool1dModule_larger_output_indices():
    return nn.AdaptiveMaxPool1d(7, return_indices=True)


@case(inputs=randn_inputs(1, 3, 8, 8), family=FAMILY, xfail={"stock": _INDICES_STOCK})
def AdaptiveMaxPool2dModule_indices():
    return nn.AdaptiveMaxPool2d((4, 2), return_indices=True)


@case(inputs=randn_inputs(1, 3, 7, 9), family=FAMILY, xfail={"stock": _INDICES_STOCK})
def AdaptiveMaxPool2dModule_size_one():
    """Output size 1 (a global max), on sizes no stride divides."""
    return nn.AdaptiveMaxPool2d(1, return_indices=True)


@case(inputs=randn_inputs(1, 3, 7, 9), family=FAMILY)
def AdaptiveMaxPool2dModule_same_size():
    return nn.AdaptiveMaxPool2d((7, 9))


@case(inputs=randn_inputs(1, 3, 8, 8), family=FAMILY, xfail={"stock": _UNEVEN})
def AdaptiveMaxPool2dModule_non_divisible():
    """8 -> 3: windows of 3 or 4 elements, overlapping."""
    return nn.AdaptiveMaxPool2d((3, 3))


@case(inputs=randn_inputs(2, 3, 10), family=FAMILY, xfail={"stock": _UNEVEN})
def AdaptiveMaxPool1dModule_non_divisible():
    return nn.AdaptiveMaxPool1d(7, return_indices=True)


@case(inputs=randn_inputs(2, 3, 10), family=FAMILY)
def AdaptiveMaxPool1dModule_size_one():
    return nn.AdaptiveMaxPool1d(1)


@case(inputs=randn_inputs(2, 3, 10), family=FAMILY)
def AdaptiveAvgPool1dModule_basic():
    return nn.AdaptiveAvgPool1d(5)


@case(inputs=randn_inputs(1, 3, 8, 8), family=FAMILY)
def LpPool2dModule_basic():
    return Fn(lambda x: F.lp_pool2d(x.abs() + 0.1, 2.0, 2))


@case(inputs=randn_inputs(1, 2, 8, 8), family=FAMILY)
def MaxPool2dModule_negative_input_padding():
    """Every value negative: padding must act as -inf, not 0."""
    return Fn(lambda x: F.max_pool2d(-x.abs() - 1, 3, stride=2, padding=1))


# An empty stride is the kernel size. torch-mlir read it past its end when it
# expanded a one-element padding: a stride of two addresses (every-sample
# OpInfo avg_pool2d float32/4).
@case(inputs=randn_inputs(2, 3, 8, 6), family=FAMILY,
      xfail={"stock": "torch-mlir has no TOSA lowering for aten.avg_pool2d with divisor_override"})
def AvgPool2dModule_empty_stride_one_padding():
    return Fn(lambda x: F.avg_pool2d(x, (2, 3), (), (0,), False, True, -2))


@case(inputs=randn_inputs(2, 3, 8, 6), family=FAMILY)
def MaxPool2dModule_empty_stride_one_padding():
    return Fn(lambda x: F.max_pool2d(x, (2, 3), (), (1,)))
