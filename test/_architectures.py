"""A dozen transformers architectures, small random configurations built
offline, each wrapped to take (input_ids, attention_mask) and return its last
hidden state, with the ops selective mode keeps for it (its norm, softmax and
activation). Shared by the tests that hold them to a TOSA target."""

from __future__ import annotations

import os

os.environ.setdefault("HF_HUB_OFFLINE", "1")  # before transformers is imported: never reach the hub
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")

import pytest
import torch
from torch import nn

VOCAB, SEQ, BATCH, HIDDEN = 100, 8, 2, 32
LN = ["aten.layer_norm", "aten.softmax.int", "aten.gelu"]
LN_NO_GELU = ["aten.layer_norm", "aten.softmax.int"]
RMS = ["aten.rms_norm", "aten.softmax.int", "aten.silu"]


class TextModel(nn.Module):
    """forward(input_ids, attention_mask) -> last_hidden_state. `mask=False`
    leaves the mask out of the call (the model then makes its own positions,
    as OPT does from a float tensor of ones)."""

    def __init__(self, model: nn.Module, mask: bool = True, **kwargs):
        super().__init__()
        self.model, self.mask, self.kwargs = model, mask, kwargs

    def forward(self, input_ids, attention_mask):
        mask = attention_mask if self.mask else None
        return self.model(input_ids=input_ids, attention_mask=mask, **self.kwargs).last_hidden_state


def _configs(t) -> dict:
    """name -> (model class, config, selective ops, wrapper options)."""
    bert = dict(hidden_size=HIDDEN, num_hidden_layers=2, num_attention_heads=2, intermediate_size=64,
                vocab_size=VOCAB, max_position_embeddings=40, attn_implementation="eager")
    llama = dict(hidden_size=HIDDEN, intermediate_size=64, num_hidden_layers=2, num_attention_heads=4,
                 num_key_value_heads=2, vocab_size=VOCAB, max_position_embeddings=32, attn_implementation="eager")
    return {
        "bert": (t.BertModel, t.BertConfig(**bert), LN, {}),
        "roberta": (t.RobertaModel, t.RobertaConfig(**bert), LN, {}),
        "electra": (t.ElectraModel, t.ElectraConfig(embedding_size=HIDDEN, **bert), LN, {}),
        "albert": (t.AlbertModel, t.AlbertConfig(embedding_size=16, **bert), LN, {}),
        "distilbert": (t.DistilBertModel, t.DistilBertConfig(dim=HIDDEN, n_layers=2, n_heads=2, hidden_dim=64,
                                                             vocab_size=VOCAB, max_position_embeddings=32,
                                                             attn_implementation="eager"), LN, {}),
        "gpt2": (t.GPT2Model, t.GPT2Config(n_embd=HIDDEN, n_layer=2, n_head=2, vocab_size=VOCAB, n_positions=32,
                                           attn_implementation="eager"), LN_NO_GELU, {"use_cache": False}),
        "qwen2": (t.Qwen2Model, t.Qwen2Config(**llama), RMS, {"use_cache": False}),
        # No mask: OPT's positions are then a cumsum of a float tensor of ones, cast to int64.
        "opt": (t.OPTModel, t.OPTConfig(hidden_size=HIDDEN, num_hidden_layers=2, num_attention_heads=2, ffn_dim=64,
                                        vocab_size=VOCAB, max_position_embeddings=32, word_embed_proj_dim=HIDDEN,
                                        attn_implementation="eager"), LN_NO_GELU, {"use_cache": False, "mask": False}),
        "t5_encoder": (t.T5EncoderModel, t.T5Config(d_model=HIDDEN, d_kv=8, d_ff=64, num_layers=2, num_heads=4,
                                                    vocab_size=VOCAB, relative_attention_num_buckets=8,
                                                    attn_implementation="eager"), ["aten.softmax.int"], {}),
        "bart_encoder": (lambda c: t.BartModel(c).get_encoder(),
                         t.BartConfig(d_model=HIDDEN, encoder_layers=2, decoder_layers=1, encoder_attention_heads=2,
                                      decoder_attention_heads=2, encoder_ffn_dim=64, decoder_ffn_dim=64,
                                      vocab_size=VOCAB, max_position_embeddings=32, attn_implementation="eager"),
                         LN, {}),
        "llama": (t.LlamaModel, t.LlamaConfig(**llama), RMS, {"use_cache": False}),
        "mistral": (t.MistralModel, t.MistralConfig(sliding_window=4, **llama), RMS, {"use_cache": False}),
    }


ARCHITECTURES = ("bert", "roberta", "electra", "albert", "distilbert", "gpt2", "qwen2", "opt", "t5_encoder",
                 "bart_encoder", "llama", "mistral")


def architecture(name: str) -> tuple[nn.Module, tuple, list[str]]:
    """(model, (input_ids, attention_mask), selective ops). The second
    sequence is right-padded, so the mask matters where it is passed."""
    t = pytest.importorskip("transformers")
    model_class, config, ops, options = _configs(t)[name]
    options = dict(options)
    mask = options.pop("mask", True)
    torch.manual_seed(0)  # the same weights every run
    model = TextModel(model_class(config).eval(), mask=mask, **options).eval()
    ids = torch.randint(1, VOCAB, (BATCH, SEQ), generator=torch.Generator().manual_seed(0))
    attention = torch.ones(BATCH, SEQ, dtype=torch.int64)
    attention[1, SEQ - 3:] = 0
    return model, (ids, attention), ops
