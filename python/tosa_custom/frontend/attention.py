"""A decomposition of `scaled_dot_product_attention` by reshapes, for the
programs PyTorch's own fails on (issue 41, item 1).

PyTorch's decomposition of sdpa views its operands flat (`q.view(B*H, L,
E)`): GPT-2's queries, split from one projection and transposed, are not
contiguous, and with a `?` sequence length the view is refused ("Cannot view
a tensor with shape [2, s, 32] and strides (32, 64, 1)"). This one computes
the same by `matmul`, whose decomposition reshapes (copying where a view
cannot be), with eager's semantics: `scale` defaulting to 1/sqrt(E), a
boolean mask selecting, a float mask added, `is_causal` as a lower
triangle, grouped keys repeated, and a row no key may be attended from
giving zeros (as PyTorch's math attention does). compile() uses it only when
PyTorch's decomposition fails, so other programs keep theirs.
"""

from __future__ import annotations

import math

import torch

__all__ = ["SDPA", "attention_by_reshapes"]

SDPA = torch.ops.aten.scaled_dot_product_attention.default


def attention_by_reshapes(query, key, value, attn_mask=None, dropout_p=0.0, is_causal=False, scale=None,
                          enable_gqa=False):
    if dropout_p != 0.0:
        raise ValueError("scaled_dot_product_attention with dropout_p > 0 is training; compile the model in eval()")
    if enable_gqa and key.shape[-3] != query.shape[-3]:
        groups = query.shape[-3] // key.shape[-3]
        key, value = key.repeat_interleave(groups, -3), value.repeat_interleave(groups, -3)
    factor = 1.0 / math.sqrt(query.shape[-1]) if scale is None else scale
    scores = torch.matmul(query, key.transpose(-2, -1)) * factor
    masked = None
    if is_causal:
        masked = torch.ones(query.shape[-2], key.shape[-2], dtype=torch.bool, device=query.device).tril().logical_not()
    if attn_mask is not None and attn_mask.dtype == torch.bool:
        masked = attn_mask.logical_not() if masked is None else masked.logical_or(attn_mask.logical_not())
    elif attn_mask is not None:
        scores = scores + attn_mask
    if masked is not None:
        scores = scores.masked_fill(masked, float("-inf"))
    weights = torch.softmax(scores, dim=-1)
    weights = torch.where(scores.eq(float("-inf")).all(-1, keepdim=True), torch.zeros_like(weights), weights)
    return torch.matmul(weights, value)
