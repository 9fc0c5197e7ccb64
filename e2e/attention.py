"""Attention: scaled_dot_product_attention with masks, causality, scale and
grouped-query heads; nn.MultiheadAttention; attention written out by hand."""

import math

import torch
from torch import nn
from torch.nn import functional as F

from tosa_custom.e2e import Fn, case

FAMILY = "attention"
SDPA = ["aten.scaled_dot_product_attention"]


def _qkv(b=2, h=2, s=5, d=8, kv_heads=None, kv_len=None):
    kv_heads = kv_heads or h
    kv_len = kv_len or s
    return lambda: (torch.randn(b, h, s, d), torch.randn(b, kv_heads, kv_len, d), torch.randn(b, kv_heads, kv_len, d))


@case(inputs=_qkv(), family=FAMILY, selective_ops=SDPA)
def ScaledDotProductAttentionModule_basic():
    return Fn(F.scaled_dot_product_attention)


@case(inputs=_qkv(s=6), family=FAMILY, selective_ops=SDPA)
def ScaledDotProductAttentionModule_causal():
    return Fn(lambda q, k, v: F.scaled_dot_product_attention(q, k, v, is_causal=True))


@case(inputs=lambda: _qkv(s=4, kv_len=6)() + (torch.rand(4, 6) > 0.3,), family=FAMILY, selective_ops=SDPA)
def ScaledDotProductAttentionModule_bool_mask():
    """A bool mask (True = attend), query and key lengths differ."""
    def attend(q, k, v, mask):
        mask = mask.clone()
        mask[:, 0] = True  # every query attends to something
        return F.scaled_dot_product_attention(q, k, v, attn_mask=mask)

    return Fn(attend)


@case(inputs=lambda: _qkv()() + (torch.randn(2, 1, 5, 5),), family=FAMILY, selective_ops=SDPA)
def ScaledDotProductAttentionModule_float_mask_broadcast():
    """An additive float mask broadcast over heads."""
    return Fn(lambda q, k, v, m: F.scaled_dot_product_attention(q, k, v, attn_mask=m))


@case(inputs=_qkv(), family=FAMILY, selective_ops=SDPA)
def ScaledDotProductAttentionModule_scale():
    return Fn(lambda q, k, v: F.scaled_dot_product_attention(q, k, v, scale=0.5))


@case(inputs=_qkv(h=4, kv_heads=2), family=FAMILY, selective_ops=SDPA)
def ScaledDotProductAttentionModule_gqa():
    """Grouped-query attention: 4 query heads share 2 key/value heads."""
    return Fn(lambda q, k, v: F.scaled_dot_product_attention(q, k, v, enable_gqa=True))


@case(inputs=lambda: (torch.randn(1, 5, 8),) * 1, family=FAMILY, selective_ops=SDPA)
def ScaledDotProductAttentionModule_3d():
    """Unbatched-heads (B, S, D) self-attention."""
    return Fn(lambda x: F.scaled_dot_product_attention(x, x * 0.5, x))


@case(inputs=lambda: (torch.randn(2, 5, 16),), family=FAMILY)
def MultiheadAttentionModule_self():
    class SelfAttention(nn.Module):
        def __init__(self):
            super().__init__()
            self.mha = nn.MultiheadAttention(16, 4, batch_first=True)

        def forward(self, x):
            out, weights = self.mha(x, x, x)
            return out, weights

    return SelfAttention()


@case(inputs=lambda: (torch.randn(5, 2, 16), torch.randn(7, 2, 16)), family=FAMILY)
def MultiheadAttentionModule_cross_no_weights():
    class CrossAttention(nn.Module):
        def __init__(self):
            super().__init__()
            self.mha = nn.MultiheadAttention(16, 2, kdim=16, vdim=16)

        def forward(self, q, kv):
            return self.mha(q, kv, kv, need_weights=False)[0]

    return CrossAttention()


@case(inputs=_qkv(s=6), family=FAMILY, selective_ops=["aten.softmax.int"])
def ManualAttentionModule_causal():
    """matmul -> scale -> causal mask -> softmax -> matmul, as eager HF code writes it."""
    def attend(q, k, v):
        scores = q @ k.transpose(-2, -1) / math.sqrt(q.shape[-1])
        s = q.shape[-2]
        causal = torch.ones(s, s, dtype=torch.bool).tril()
        scores = scores.masked_fill(~causal, torch.finfo(scores.dtype).min)
        return torch.softmax(scores, dim=-1) @ v

    return Fn(attend)


@case(inputs=lambda: (torch.randn(2, 6, 16),), family=FAMILY)
def TransformerEncoderLayerModule_basic():
    layer = nn.TransformerEncoderLayer(16, 2, dim_feedforward=32, dropout=0.0, batch_first=True)
    return layer
