"""Quantized models (PT2E): each family where int8 quantization means
something, quantized inside the case with torchao's XNNPACK-style quantizer
(weights per channel unless the case says per tensor), compiled from the
convert_pt2e GraphModule, and compared within 1 LSB of PT2E eager
(compare="quantized"): convolutions (with folded batch norm), linear and
matmul, add and mul, pooling, activations as TABLEs, data movement,
normalization."""

import torch
from torch import nn
from torch.nn import functional as F

from tosa_custom.e2e import Fn, case
from tosa_custom.e2e.quantized import pt2e

FAMILY = "quantized"

_IMG = (1, 8, 8, 8)
_VEC = (4, 16)
_NO_INTEGER_LAYER_NORM = ("layer_norm has no integer TOSA form: stock mode refuses it, naming the fix (keep it); "
                          "selective and auto mode keep it whole on the integers")


def _inputs(*shapes):
    return lambda: tuple(torch.randn(*s) * 2 for s in shapes)


def _quantized(*shapes, config="per-channel"):
    """A case factory quantizing what the decorated function builds."""
    def wrap(build):
        def factory():
            return pt2e(build(), shapes, config)
        factory.__name__ = build.__name__
        return factory
    return wrap


class _Seq(nn.Module):
    """Modules applied in turn, then `fn` (identity by default)."""

    def __init__(self, *mods, fn=None):
        super().__init__()
        self.mods = nn.ModuleList(mods)
        self.fn = fn

    def forward(self, x):
        for m in self.mods:
            x = m(x)
        return self.fn(x) if self.fn else x


# --- Convolutions ---------------------------------------------------------------------------------

@case(inputs=_inputs(_IMG), family=FAMILY, compare="quantized")
@_quantized(_IMG)
def QuantizedConv2dModule_relu():
    return _Seq(nn.Conv2d(8, 8, 3, padding=1), nn.ReLU())


@case(inputs=_inputs(_IMG), family=FAMILY, compare="quantized")
@_quantized(_IMG, config="per-tensor")
def QuantizedConv2dModule_per_tensor():
    return _Seq(nn.Conv2d(8, 8, 3, padding=1))


@case(inputs=_inputs(_IMG), family=FAMILY, compare="quantized")
@_quantized(_IMG)
def QuantizedConv2dModule_stride_no_bias():
    return _Seq(nn.Conv2d(8, 16, 3, stride=2, padding=1, bias=False))


@case(inputs=_inputs(_IMG), family=FAMILY, compare="quantized")
@_quantized(_IMG)
def QuantizedDepthwiseConv2dModule_relu6():
    return _Seq(nn.Conv2d(8, 8, 3, padding=1, groups=8), nn.ReLU6())


# --- Linear and matmul -----------------------------------------------------------------------------

@case(inputs=_inputs(_VEC), family=FAMILY, compare="quantized")
@_quantized(_VEC)
def QuantizedLinearModule_basic():
    return nn.Linear(16, 8)


@case(inputs=_inputs(_VEC), family=FAMILY, compare="quantized")
@_quantized(_VEC, config="per-tensor")
def QuantizedLinearModule_relu_per_tensor():
    return _Seq(nn.Linear(16, 8), nn.ReLU())


@case(inputs=_inputs((2, 4, 6), (2, 6, 5), (2, 4, 5)), family=FAMILY, compare="quantized")
@_quantized((2, 4, 6), (2, 6, 5), (2, 4, 5))
def QuantizedMatmulModule_basic():
    """matmul itself is not annotated: the adds around it quantize its operands and result."""
    return Fn(lambda a, b, c: torch.matmul(a + a, b + b) + c)


@case(inputs=_inputs((2, 4, 6), (2, 6, 5), (2, 4, 5)), family=FAMILY, compare="quantized")
@_quantized((2, 4, 6), (2, 6, 5), (2, 4, 5))
def QuantizedBmmModule_basic():
    return Fn(lambda a, b, c: torch.bmm(a + a, b + b) + c)


# --- Elementwise add and mul -----------------------------------------------------------------------

@case(inputs=_inputs((2, 8), (2, 8)), family=FAMILY, compare="quantized")
@_quantized((2, 8), (2, 8))
def QuantizedAddModule_basic():
    return Fn(torch.add)


@case(inputs=_inputs((2, 8), (2, 8)), family=FAMILY, compare="quantized")
@_quantized((2, 8), (2, 8))
def QuantizedAddModule_relu():
    return Fn(lambda a, b: F.relu(a + b))


@case(inputs=_inputs(_IMG), family=FAMILY, compare="quantized")
@_quantized(_IMG)
def QuantizedAddModule_residual():
    """A residual: x + conv(x), the two on different scales."""
    return _Residual(nn.Conv2d(8, 8, 3, padding=1))


class _Residual(nn.Module):
    def __init__(self, body):
        super().__init__()
        self.body = body

    def forward(self, x):
        return x + self.body(x)


@case(inputs=_inputs((2, 8), (2, 8)), family=FAMILY, compare="quantized")
@_quantized((2, 8), (2, 8))
def QuantizedMulModule_basic():
    return Fn(torch.mul)


# --- Pooling --------------------------------------------------------------------------------------

@case(inputs=_inputs(_IMG), family=FAMILY, compare="quantized")
@_quantized(_IMG)
def QuantizedMaxPool2dModule_basic():
    return _Seq(nn.Conv2d(8, 8, 1), nn.MaxPool2d(2))


@case(inputs=_inputs(_IMG), family=FAMILY, compare="quantized")
@_quantized(_IMG)
def QuantizedAvgPool2dModule_basic():
    """The pool's result is not annotated: the conv after it quantizes it."""
    return _Seq(nn.Conv2d(8, 8, 1), nn.AvgPool2d(2), nn.Conv2d(8, 8, 1))


@case(inputs=_inputs(_IMG), family=FAMILY, compare="quantized")
@_quantized(_IMG)
def QuantizedAdaptiveAvgPool2dModule_basic():
    """The output shares its input's parameters: sums of four divided with ties to even."""
    return _Seq(nn.Conv2d(8, 8, 1), nn.AdaptiveAvgPool2d(1), nn.Flatten(), nn.Linear(8, 4))


@case(inputs=_inputs(_IMG), family=FAMILY, compare="quantized")
@_quantized(_IMG)
def QuantizedMeanModule_dims():
    return _Seq(nn.Conv2d(8, 8, 1), fn=lambda y: y.mean((2, 3)))


# --- Activations through TABLE ----------------------------------------------------------------------

class _Around(nn.Module):
    """Linear, `fn`, linear: the function's input and output are quantized."""

    def __init__(self, fn):
        super().__init__()
        self.a, self.b, self.fn = nn.Linear(16, 16), nn.Linear(16, 4), fn

    def forward(self, x):
        return self.b(self.fn(self.a(x)))


@case(inputs=_inputs(_VEC), family=FAMILY, compare="quantized")
@_quantized(_VEC)
def QuantizedSigmoidModule_table():
    return _Around(torch.sigmoid)


@case(inputs=_inputs(_VEC), family=FAMILY, compare="quantized")
@_quantized(_VEC)
def QuantizedTanhModule_table():
    return _Around(torch.tanh)


@case(inputs=_inputs(_VEC), family=FAMILY, compare="quantized")
@_quantized(_VEC)
def QuantizedHardswishModule_table():
    return _Around(F.hardswish)


@case(inputs=_inputs(_VEC), family=FAMILY, compare="quantized")
@_quantized(_VEC)
def QuantizedGeluModule_table():
    return _Around(F.gelu)


@case(inputs=_inputs(_VEC), family=FAMILY, compare="quantized")
@_quantized(_VEC)
def QuantizedSiluModule_table():
    return _Around(F.silu)


# --- Data movement --------------------------------------------------------------------------------

class _Cat(nn.Module):
    def __init__(self):
        super().__init__()
        self.a, self.b, self.c = nn.Conv2d(8, 4, 1), nn.Conv2d(8, 4, 1), nn.Conv2d(8, 4, 1)

    def forward(self, x):
        return self.c(torch.cat([self.a(x), self.b(x)], 1))


@case(inputs=_inputs(_IMG), family=FAMILY, compare="quantized")
@_quantized(_IMG)
def QuantizedCatModule_basic():
    return _Cat()


class _Moves(nn.Module):
    """permute, slice, pad, flatten, view between a conv and a linear."""

    def __init__(self):
        super().__init__()
        self.conv, self.lin = nn.Conv2d(8, 8, 1), nn.Linear(16, 4)

    def forward(self, x):
        y = F.pad(self.conv(x).permute(0, 2, 3, 1)[:, 1:, :, :], (0, 0, 1, 1))
        return self.lin(y.flatten(1).view(1, 8, -1)[..., :16])


@case(inputs=_inputs(_IMG), family=FAMILY, compare="quantized")
@_quantized(_IMG)
def QuantizedPermuteModule_slice_pad_view():
    return _Moves()


class _Upsample(nn.Module):
    def __init__(self):
        super().__init__()
        self.a, self.b = nn.Conv2d(8, 8, 1), nn.Conv2d(8, 8, 1)

    def forward(self, x):
        return self.b(F.interpolate(self.a(x), size=(16, 16), mode="nearest"))


@case(inputs=_inputs(_IMG), family=FAMILY, compare="quantized")
@_quantized(_IMG)
def QuantizedUpsampleNearestModule_basic():
    return _Upsample()


# --- Normalization --------------------------------------------------------------------------------

@case(inputs=_inputs(_IMG), family=FAMILY, compare="quantized")
@_quantized(_IMG)
def QuantizedBatchNorm2dModule_folded():
    """Batch norm after a conv: PT2E folds it into the conv's weights and bias."""
    bn = nn.BatchNorm2d(8)
    bn.running_mean.uniform_(-0.5, 0.5)
    bn.running_var.uniform_(0.5, 2.0)
    return _Seq(nn.Conv2d(8, 8, 3, padding=1), bn, nn.ReLU())


class _LayerNorm(nn.Module):
    def __init__(self):
        super().__init__()
        self.a, self.norm, self.b = nn.Linear(16, 16), nn.LayerNorm(16), nn.Linear(16, 4)

    def forward(self, x):
        return self.b(self.norm(self.a(x)))


@case(inputs=_inputs(_VEC), family=FAMILY, compare="quantized", selective_ops=["aten.layer_norm"],
      xfail={"stock": _NO_INTEGER_LAYER_NORM})
@_quantized(_VEC)
def QuantizedLayerNormModule_kept():
    return _LayerNorm()
