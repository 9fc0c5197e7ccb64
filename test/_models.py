"""Small real models the tests share (built offline from a random config)."""

from __future__ import annotations

import pytest
import torch


def small_bert(hidden_act: str = "gelu_pytorch_tanh"):
    """A 2-layer BERT (hidden 32) returning last_hidden_state, and input ids of
    shape [2, 8]. Non-persistent buffers (position_ids, token_type_ids) become
    constants, as test/runtime/test_models.py does."""
    transformers = pytest.importorskip("transformers")
    torch.manual_seed(0)  # the same weights every run
    config = transformers.BertConfig(hidden_size=32, num_hidden_layers=2, num_attention_heads=2,
                                     intermediate_size=64, vocab_size=100, max_position_embeddings=32,
                                     hidden_act=hidden_act, attn_implementation="eager")
    bert = transformers.BertModel(config).eval()
    for m in bert.modules():
        m._non_persistent_buffers_set.clear()

    class Bert(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.bert = bert

        def forward(self, ids, mask):
            return self.bert(input_ids=ids, attention_mask=mask).last_hidden_state

    ids = torch.randint(0, 100, (2, 8), generator=torch.Generator().manual_seed(0))
    return Bert().eval(), ids
