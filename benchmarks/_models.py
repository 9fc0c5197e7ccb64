"""Models the benchmarks share (benchmarks cannot import the tests' helpers)."""

from __future__ import annotations

import os

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")

import torch


def bert(layers: int = 2, extra=None, *, hidden: int = 64, heads: int = 2, intermediate: int = 128, seq: int = 16):
    """A small random BERT (offline) and its inputs (batch 2, `seq` tokens);
    `extra(hidden)` is applied to its last hidden state (to add ops torch-mlir
    cannot lower)."""
    import transformers

    torch.manual_seed(0)
    config = transformers.BertConfig(hidden_size=hidden, num_hidden_layers=layers, num_attention_heads=heads,
                                     intermediate_size=intermediate, vocab_size=1000,
                                     max_position_embeddings=max(64, seq), attn_implementation="eager")
    model = transformers.BertModel(config).eval()
    for m in model.modules():
        m._non_persistent_buffers_set.clear()

    class Bert(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.bert = model

        def forward(self, ids, mask):
            hidden = self.bert(input_ids=ids, attention_mask=mask).last_hidden_state
            return extra(hidden) if extra else hidden

    return Bert().eval(), (torch.randint(0, 1000, (2, seq)), torch.ones(2, seq, dtype=torch.int64))
