"""Small models, one op family each, as PT2E quantizes them: the XNNPACK-style
quantizer annotates conv, linear, add, mul, pooling, cat and fused relus;
an op it leaves alone between quantized ones (permute, sigmoid, matmul) is a
dequantize -> op -> quantize group all the same."""

from __future__ import annotations

import torch
import torch.nn.functional as F
from torch import nn

__all__ = ["FAMILIES"]


class _Fn(nn.Module):
    def __init__(self, fn, *modules):
        super().__init__()
        self.fn = fn
        self.mods = nn.ModuleList(modules)

    def forward(self, *xs):
        return self.fn(self.mods, *xs)


def _conv(groups=1, act=None):
    def fn(m, x):
        y = m[0](x)
        return act(y) if act else y
    return _Fn(fn, nn.Conv2d(8, 8, 3, padding=1, groups=groups))


_IMG = ((1, 8, 8, 8),)
_VEC = ((4, 16),)

# name -> (model maker, input shapes)
FAMILIES = {
    "conv2d": (lambda: _conv(), _IMG),
    "conv2d_relu": (lambda: _conv(act=F.relu), _IMG),
    "depthwise_relu6": (lambda: _conv(groups=8, act=F.relu6), _IMG),
    "depthwise_hardtanh": (lambda: _conv(groups=8, act=lambda y: F.hardtanh(y, -1.0, 2.0)), _IMG),
    "linear": (lambda: _Fn(lambda m, x: m[0](x), nn.Linear(16, 8)), _VEC),
    "linear_relu": (lambda: _Fn(lambda m, x: F.relu(m[0](x)), nn.Linear(16, 8)), _VEC),
    # matmul is not annotated: the adds before and after quantize its operands and its result
    "matmul": (lambda: _Fn(lambda m, a, b, c: torch.matmul(a + a, b + b) + c), ((2, 4, 6), (2, 6, 5), (2, 4, 5))),
    "bmm": (lambda: _Fn(lambda m, a, b, c: torch.bmm(a + a, b + b) + c), ((2, 4, 6), (2, 6, 5), (2, 4, 5))),
    "add": (lambda: _Fn(lambda m, a, b: a + b), ((2, 8), (2, 8))),
    "add_relu": (lambda: _Fn(lambda m, a, b: F.relu(a + b)), ((2, 8), (2, 8))),
    "mul": (lambda: _Fn(lambda m, a, b: a * b), ((2, 8), (2, 8))),
    "max_pool2d": (lambda: _Fn(lambda m, x: F.max_pool2d(m[0](x), 2), nn.Conv2d(8, 8, 1)), _IMG),
    "avg_pool2d": (lambda: _Fn(lambda m, x: F.avg_pool2d(m[0](x), 2), nn.Conv2d(8, 8, 1)), _IMG),
    "adaptive_avg_pool2d": (lambda: _Fn(lambda m, x: F.adaptive_avg_pool2d(m[0](x), 1), nn.Conv2d(8, 8, 1)), _IMG),
    "mean": (lambda: _Fn(lambda m, x: m[0](x).mean((2, 3)), nn.Conv2d(8, 8, 1)), _IMG),
    "cat": (lambda: _Fn(lambda m, x: m[2](torch.cat([m[0](x), m[1](x)], 1)), nn.Conv2d(8, 4, 1), nn.Conv2d(8, 4, 1),
                        nn.Conv2d(8, 4, 1)), _IMG),
    "data_movement": (lambda: _Fn(lambda m, x: m[1](F.pad(m[0](x).permute(0, 2, 3, 1)[:, 1:, :, :], (0, 0, 1, 1))
                                                 .flatten(1).view(1, 8, -1)[..., :16]),
                                  nn.Conv2d(8, 8, 1), nn.Linear(16, 4)), _IMG),
    **{f"table_{name}": (lambda fn=fn: _Fn(lambda m, x: m[1](fn(m[0](x))), nn.Linear(16, 16), nn.Linear(16, 4)),
                         _VEC)
       for name, fn in [("sigmoid", torch.sigmoid), ("tanh", torch.tanh), ("hardswish", F.hardswish),
                        ("gelu", F.gelu), ("silu", F.silu), ("exp", torch.exp)]},
}
