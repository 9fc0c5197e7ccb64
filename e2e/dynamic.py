"""Dynamic shapes: one compile with symbolic batch or sequence length
(`dynamic_shapes=`, torch.export's spec), then runs at several sizes, the
range's ends and 1 among them, each compared with eager. The programs a user
tries first: an MLP and a conv net over a dynamic batch, a normalization
block, attention over a dynamic sequence (softmax kept in selective mode),
elementwise ops, a mean over a dynamic dim, a reshape that splits heads;
scaled_dot_product_attention causal, plain and masked, with each way of
declaring the length (Dim.AUTO, Dim.DYNAMIC, ranges from 1 and from 2)."""

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


# scaled_dot_product_attention over a dynamic length T, in the three shapes a
# model writes it (causal, plain, an explicit boolean mask of T x T), with each
# way of declaring T: torch.export's hints (whose range is [2, inf): run at 2
# and 64) and Dims whose range starts at 1 or at 2 (run at both ends).
# Float32 sums of at most 64 products of unit-size terms: 1e-4 covers their rounding.
_SDPA_TOL = {"rtol": 1e-4, "atol": 1e-4}
_SDPA_DIMS = {"auto": (lambda: Dim.AUTO, 2, 64), "dynamic": (lambda: Dim.DYNAMIC, 2, 64),
              "from1": (lambda: Dim("t", min=1, max=32), 1, 32), "from2": (lambda: Dim("t", min=2, max=32), 2, 32)}


class _Sdpa(nn.Module):
    """q, k, v of (B, H, T, D), and for `shape == "masked"` a (T, T) boolean mask."""

    def __init__(self, shape: str):
        super().__init__()
        self.shape = shape

    def forward(self, q, k, v, mask=None):
        return F.scaled_dot_product_attention(q, k, v, attn_mask=mask, is_causal=self.shape == "causal")


def _sdpa_inputs(shape: str, t: int) -> tuple:
    qkv = tuple(torch.randn(2, 4, t, 8) for _ in range(3))
    if shape != "masked":
        return qkv
    mask = torch.rand(t, t) < 0.7
    return qkv + (mask | torch.eye(t, dtype=torch.bool),)  # no row masked whole: its softmax would be NaN


def _sdpa_case(shape: str, dims: str) -> None:
    make, low, high = _SDPA_DIMS[dims]

    def spec():
        t = make()
        return ({2: t},) * 3 + (({0: t, 1: t},) if shape == "masked" else ())

    def factory():
        return _Sdpa(shape)

    case(inputs=lambda: _sdpa_inputs(shape, 8), family=FAMILY, dynamic_shapes=spec,
         sizes=lambda: [_sdpa_inputs(shape, t) for t in (low, high)], selective_ops=["aten.softmax.int"],
         name=f"DynamicSdpaModule_{shape}_{dims}", **_SDPA_TOL)(factory)


for _shape in ("causal", "plain", "masked"):
    for _dims in _SDPA_DIMS:
        _sdpa_case(_shape, _dims)
