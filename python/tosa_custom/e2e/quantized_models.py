"""The whole models issue 38 holds to integer TOSA, in one place for the
tests (test/quant), the benchmark and its table (benchmarks/quantized.py):
an MLP, a small CNN with depthwise convolutions, batch norm and residuals,
a transformer block whose layer_norm/softmax/gelu have no integer TOSA form
(quantized around them, so each can be kept on its integers), and
torchvision's MobileNetV2 and ResNet18 (random weights, 64 x 64)."""

from __future__ import annotations

import dataclasses
from typing import Callable

import torch
from torch import nn

from .quantized import CONFIGS

__all__ = ["MLP", "CNN", "Block", "KEPT_OPS", "block_quantizer", "QuantizedModel", "MODELS"]


class MLP(nn.Module):
    def __init__(self):
        super().__init__()
        self.net = nn.Sequential(nn.Linear(32, 64), nn.ReLU(), nn.Linear(64, 64), nn.ReLU(), nn.Linear(64, 10))

    def forward(self, x):
        return self.net(x)


class _Inverted(nn.Module):
    """MobileNetV2's inverted residual: expand, depthwise, project, add."""

    def __init__(self, c: int, expand: int = 4):
        super().__init__()
        h = c * expand
        self.body = nn.Sequential(
            nn.Conv2d(c, h, 1, bias=False), nn.BatchNorm2d(h), nn.ReLU6(),
            nn.Conv2d(h, h, 3, padding=1, groups=h, bias=False), nn.BatchNorm2d(h), nn.ReLU6(),
            nn.Conv2d(h, c, 1, bias=False), nn.BatchNorm2d(c))

    def forward(self, x):
        return x + self.body(x)


class CNN(nn.Module):
    def __init__(self):
        super().__init__()
        self.stem = nn.Sequential(nn.Conv2d(3, 16, 3, stride=2, padding=1), nn.BatchNorm2d(16), nn.ReLU())
        self.blocks = nn.Sequential(_Inverted(16), _Inverted(16))
        self.down = nn.Sequential(nn.Conv2d(16, 16, 3, stride=2, padding=1, groups=16), nn.ReLU(),
                                  nn.Conv2d(16, 32, 1), nn.ReLU())
        self.pool = nn.MaxPool2d(2)
        self.head = nn.Linear(32, 10)

    def forward(self, x):
        x = self.pool(self.down(self.blocks(self.stem(x))))
        return self.head(torch.flatten(nn.functional.adaptive_avg_pool2d(x, 1), 1))


# The ops a transformer block keeps in selective mode.
KEPT_OPS = ["aten.layer_norm", "aten.softmax", "aten.gelu"]


class Block(nn.Module):
    """A small transformer block: Linear, layer_norm, softmax attention, gelu MLP, residuals."""

    def __init__(self, d: int = 32, heads: int = 2):
        super().__init__()
        self.heads = heads
        self.embed = nn.Linear(d, d)
        self.ln1, self.ln2 = nn.LayerNorm(d), nn.LayerNorm(d)
        self.qkv, self.proj = nn.Linear(d, 3 * d), nn.Linear(d, d)
        self.fc1, self.fc2 = nn.Linear(d, 2 * d), nn.Linear(2 * d, d)

    def forward(self, x):
        x = self.embed(x)
        b, t, d = x.shape
        q, k, v = (z.reshape(b, t, self.heads, d // self.heads).transpose(1, 2)
                   for z in self.qkv(self.ln1(x)).chunk(3, -1))
        a = torch.softmax(q @ k.transpose(-1, -2), -1)
        x = x + self.proj((a @ v).transpose(1, 2).reshape(b, t, d))
        return x + self.fc2(nn.functional.gelu(self.fc1(self.ln2(x))))


def block_quantizer(annotated=None):
    """XNNPACK's per-channel config, plus the annotation XNNPACK's quantizer
    lacks for the ops without an integer TOSA form (`annotated`; by default
    layer_norm, softmax, gelu: their inputs and outputs quantized, as the
    quantizers of integer NPUs annotate them), so each sits in a
    `dequantize -> op -> quantize` group a kept op can take on integers."""
    from torchao.quantization.pt2e.quantizer import ComposableQuantizer, QuantizationAnnotation, Quantizer
    from torchao.testing.pt2e import _xnnpack_quantizer as xnn

    if annotated is None:
        annotated = {torch.ops.aten.layer_norm.default, torch.ops.aten.softmax.int, torch.ops.aten.gelu.default}

    class Unquantized(Quantizer):
        def annotate(self, model: torch.fx.GraphModule) -> torch.fx.GraphModule:
            act = CONFIGS["per-channel"]().output_activation
            for node in model.graph.nodes:
                if node.op == "call_function" and node.target in annotated \
                        and "quantization_annotation" not in node.meta:
                    node.meta["quantization_annotation"] = QuantizationAnnotation(
                        input_qspec_map={node.args[0]: act}, output_qspec=act, _annotated=True)
            return model

        def validate(self, model: torch.fx.GraphModule) -> None:
            pass

    return ComposableQuantizer([xnn.XNNPACKQuantizer().set_global(CONFIGS["per-channel"]()), Unquantized()])


def _torchvision(name: str) -> Callable[[], nn.Module]:
    def make():
        from .vision import torchvision  # raises TorchvisionUnavailable, saying why, when it cannot be had
        return getattr(torchvision().models, name)(weights=None)
    return make


@dataclasses.dataclass(frozen=True)
class QuantizedModel:
    """How a model of the table is made, fed and quantized, and what its
    selective mode keeps (`selective`: ops a user would keep; for a model
    without ops lacking an integer form, one it has, kept on its integers)."""

    make: Callable[[], nn.Module]
    shape: tuple[int, ...]
    config: str | Callable = "per-channel"  # a name in CONFIGS, or a quantizer maker
    selective: tuple[str, ...] = ()

    def quantizer(self):
        return self.config if isinstance(self.config, str) else self.config()


MODELS: dict[str, QuantizedModel] = {
    # PT2E quantizes linear + relu as one group: relu alone has no quantized input (refused, naming it)
    "mlp": QuantizedModel(MLP, (2, 32), selective=("aten.linear", "aten.relu")),
    "cnn": QuantizedModel(CNN, (1, 3, 32, 32), selective=("aten.max_pool2d",)),
    "block": QuantizedModel(Block, (1, 8, 32), block_quantizer, selective=tuple(KEPT_OPS)),
    "mobilenet_v2": QuantizedModel(_torchvision("mobilenet_v2"), (1, 3, 64, 64),
                                   selective=("aten.adaptive_avg_pool2d",)),
    "resnet18": QuantizedModel(_torchvision("resnet18"), (1, 3, 64, 64), selective=("aten.max_pool2d",)),
}
