"""Dynamic shapes: one compile with symbolic batch or sequence length
(`dynamic_shapes=`, torch.export's spec), then runs at several sizes, the
range's ends and 1 among them, each compared with eager. The programs a user
tries first: an MLP and a conv net over a dynamic batch, a normalization
block, attention over a dynamic sequence (softmax kept in selective mode),
elementwise ops, a mean over a dynamic dim, a reshape that splits heads."""

import torch
from torch import nn
from torch.export import Dim
from torch.nn import functional as F

from tosa_custom.e2e import Fn, case

FAMILY = "dynamic"
BLOCK_OPS = ["aten.layer_norm", "aten.softmax", "aten.gelu"]


def _batch(name="batch", lo=1, hi=64):
    return Dim(name, min=lo, max=hi)


def _rows(*sizes, cols=16):
    """One input tuple per size: a (size, cols) tensor."""
    return lambda: [(torch.randn(n, cols),) for n in sizes]


@case(inputs=lambda: (torch.randn(4, 16),), family=FAMILY, dynamic_shapes=lambda: ({0: _batch()},),
      sizes=_rows(1, 7, 64), selective_ops=["aten.gelu"])
def DynamicMlpModule_batch():
    return nn.Sequential(nn.Linear(16, 32), nn.GELU(), nn.Linear(32, 8))


@case(inputs=lambda: (torch.randn(2, 3, 8, 8),), family=FAMILY, dynamic_shapes=lambda: ({0: _batch(hi=16)},),
      sizes=lambda: [(torch.randn(n, 3, 8, 8),) for n in (1, 5, 16)], selective_ops=["aten.relu"])
def DynamicConvModule_batch():
    return nn.Sequential(nn.Conv2d(3, 4, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2), nn.Flatten(), nn.Linear(64, 5))


def _tokens(*lengths, batch=2, hidden=16):
    return lambda: [(torch.randn(batch, t, hidden),) for t in lengths]


def _seq(hi=32):
    return lambda: ({1: Dim("seq", min=1, max=hi)},)


class _Block(nn.Module):
    """layer_norm, a linear layer, gelu, a residual."""

    def __init__(self, hidden=16):
        super().__init__()
        self.norm = nn.LayerNorm(hidden)
        self.up = nn.Linear(hidden, 2 * hidden)
        self.down = nn.Linear(2 * hidden, hidden)

    def forward(self, x):
        return x + self.down(F.gelu(self.up(self.norm(x))))


@case(inputs=lambda: (torch.randn(2, 5, 16),), family=FAMILY, dynamic_shapes=_seq(), sizes=_tokens(1, 9, 32),
      selective_ops=BLOCK_OPS)
def DynamicBlockModule_sequence():
    return _Block()


class _Attention(nn.Module):
    """Self-attention written out: heads split by a view of (B, T, H, D),
    scores T x T, softmax, heads merged back."""

    def __init__(self, hidden=16, heads=2):
        super().__init__()
        self.heads = heads
        self.qkv = nn.Linear(hidden, 3 * hidden)
        self.out = nn.Linear(hidden, hidden)

    def forward(self, x):
        b, t, c = x.shape
        q, k, v = self.qkv(x).split(c, dim=-1)
        q, k, v = (y.view(b, t, self.heads, c // self.heads).transpose(1, 2) for y in (q, k, v))
        scores = torch.softmax(q @ k.transpose(-1, -2) / (c // self.heads) ** 0.5, dim=-1)
        return self.out((scores @ v).transpose(1, 2).reshape(b, t, c))


@case(inputs=lambda: (torch.randn(2, 5, 16),), family=FAMILY, dynamic_shapes=_seq(), sizes=_tokens(1, 8, 32),
      selective_ops=["aten.softmax"])
def DynamicAttentionModule_sequence():
    return _Attention()


@case(inputs=lambda: (torch.randn(3, 6, 16),), family=FAMILY,
      dynamic_shapes=lambda: ({0: _batch(hi=8), 1: Dim("seq", min=1, max=32)},),
      sizes=lambda: [(torch.randn(b, t, 16),) for b, t in ((1, 1), (8, 3), (2, 32))], selective_ops=["aten.softmax"])
def DynamicAttentionModule_batch_and_sequence():
    """Two symbolic sizes in one view: (B, T, H, D)."""
    return _Attention()


@case(inputs=lambda: (torch.randn(4, 16), torch.randn(4, 16)), family=FAMILY,
      dynamic_shapes=lambda: (({0: (b := _batch())}, {0: b}),),  # Fn's forward(*args): one group
      sizes=lambda: [(torch.randn(n, 16), torch.randn(n, 16)) for n in (1, 3, 64)], selective_ops=["aten.tanh"])
def DynamicElementwiseModule_batch():
    """Two inputs sharing one symbol."""
    return Fn(lambda x, y: torch.tanh(x) * y + torch.sigmoid(y) - 0.5)


@case(inputs=lambda: (torch.randn(2, 6, 16),), family=FAMILY, dynamic_shapes=lambda: (_seq()(),),
      sizes=_tokens(1, 7, 32), selective_ops=["aten.mean.dim"])
def DynamicMeanModule_sequence():
    """A mean over the dynamic dim: its divisor is the run-time length."""
    return Fn(lambda x: x.mean(dim=1))
