"""The real-model list: a dozen transformers architectures, small random
configurations built offline, each wrapped to take (input_ids,
attention_mask) and return its last hidden state, with the ops selective
mode keeps for it (its norm, softmax and activation).

One home for the list: the tests that hold each architecture to a TOSA
target (test/_architectures.py) and the e2e dynamic family (e2e/
dynamic_models.py, one case per architecture and attention) read it here.
transformers is imported only when a model is built.
"""

from __future__ import annotations

import os

os.environ.setdefault("HF_HUB_OFFLINE", "1")  # before transformers is imported: never reach the hub
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")

import torch
from torch import nn

__all__ = ["VOCAB", "SEQ", "BATCH", "HIDDEN", "MAX_POSITIONS", "ARCHITECTURES", "SELECTIVE_OPS", "ATTENTIONS", "TextModel",
           "architecture", "token_inputs"]

VOCAB, SEQ, BATCH, HIDDEN = 100, 8, 2, 32
MAX_POSITIONS = 32  # the smallest max_position_embeddings of the configurations: the longest sequence each takes
LN = ["aten.layer_norm", "aten.softmax.int", "aten.gelu"]
LN_NO_GELU = ["aten.layer_norm", "aten.softmax.int"]
RMS = ["aten.rms_norm", "aten.softmax.int", "aten.silu"]

# name -> the ops selective mode keeps for it; the names, in order, are the list.
SELECTIVE_OPS = {"bert": LN, "roberta": LN, "electra": LN, "albert": LN, "distilbert": LN, "gpt2": LN_NO_GELU,
                 "qwen2": RMS, "opt": LN_NO_GELU, "t5_encoder": ["aten.softmax.int"], "bart_encoder": LN,
                 "llama": RMS, "mistral": RMS}
ARCHITECTURES = tuple(SELECTIVE_OPS)
# transformers' attention implementations every architecture above offers (its default: sdpa; the
# matmul-softmax-matmul one written out: eager).
ATTENTIONS = ("sdpa", "eager")


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


def _configs(t, attention: str) -> dict:
    """name -> (model class, config, wrapper options)."""
    bert = dict(hidden_size=HIDDEN, num_hidden_layers=2, num_attention_heads=2, intermediate_size=64,
                vocab_size=VOCAB, max_position_embeddings=40, attn_implementation=attention)
    llama = dict(hidden_size=HIDDEN, intermediate_size=64, num_hidden_layers=2, num_attention_heads=4,
                 num_key_value_heads=2, vocab_size=VOCAB, max_position_embeddings=MAX_POSITIONS,
                 attn_implementation=attention)
    return {
        "bert": (t.BertModel, t.BertConfig(**bert), {}),
        "roberta": (t.RobertaModel, t.RobertaConfig(**bert), {}),
        "electra": (t.ElectraModel, t.ElectraConfig(embedding_size=HIDDEN, **bert), {}),
        "albert": (t.AlbertModel, t.AlbertConfig(embedding_size=16, **bert), {}),
        "distilbert": (t.DistilBertModel, t.DistilBertConfig(dim=HIDDEN, n_layers=2, n_heads=2, hidden_dim=64,
                                                             vocab_size=VOCAB, max_position_embeddings=MAX_POSITIONS,
                                                             attn_implementation=attention), {}),
        "gpt2": (t.GPT2Model, t.GPT2Config(n_embd=HIDDEN, n_layer=2, n_head=2, vocab_size=VOCAB,
                                           n_positions=MAX_POSITIONS, attn_implementation=attention),
                 {"use_cache": False}),
        "qwen2": (t.Qwen2Model, t.Qwen2Config(**llama), {"use_cache": False}),
        # No mask: OPT's positions are then a cumsum of a float tensor of ones, cast to int64.
        "opt": (t.OPTModel, t.OPTConfig(hidden_size=HIDDEN, num_hidden_layers=2, num_attention_heads=2, ffn_dim=64,
                                        vocab_size=VOCAB, max_position_embeddings=MAX_POSITIONS,
                                        word_embed_proj_dim=HIDDEN, attn_implementation=attention),
                {"use_cache": False, "mask": False}),
        "t5_encoder": (t.T5EncoderModel, t.T5Config(d_model=HIDDEN, d_kv=8, d_ff=64, num_layers=2, num_heads=4,
                                                    vocab_size=VOCAB, relative_attention_num_buckets=8,
                                                    attn_implementation=attention), {}),
        "bart_encoder": (lambda c: t.BartModel(c).get_encoder(),
                         t.BartConfig(d_model=HIDDEN, encoder_layers=2, decoder_layers=1, encoder_attention_heads=2,
                                      decoder_attention_heads=2, encoder_ffn_dim=64, decoder_ffn_dim=64,
                                      vocab_size=VOCAB, max_position_embeddings=MAX_POSITIONS,
                                      attn_implementation=attention),
                         {}),
        "llama": (t.LlamaModel, t.LlamaConfig(**llama), {"use_cache": False}),
        "mistral": (t.MistralModel, t.MistralConfig(sliding_window=4, **llama), {"use_cache": False}),
    }


def token_inputs(batch: int = BATCH, seq: int = SEQ) -> tuple[torch.Tensor, torch.Tensor]:
    """(input_ids, attention_mask), the same for the same sizes; the last
    sequence is right-padded by two (when there are two sequences and more
    than two tokens), so the mask matters."""
    ids = torch.randint(1, VOCAB, (batch, seq), generator=torch.Generator().manual_seed(batch * 100 + seq))
    mask = torch.ones(batch, seq, dtype=torch.int64)
    if batch > 1 and seq > 2:
        mask[-1, seq - 2:] = 0
    return ids, mask


def architecture(name: str, attention: str = "eager") -> tuple[nn.Module, list[str]]:
    """(model, selective ops) of `name` with transformers' `attention`
    implementation (ATTENTIONS); the same weights every build."""
    import transformers  # lazily: loading the e2e suite stays cheap

    if attention not in ATTENTIONS:
        raise ValueError(f"attention {attention!r} is not among {ATTENTIONS}")
    model_class, config, options = _configs(transformers, attention)[name]
    options = dict(options)
    mask = options.pop("mask", True)
    torch.manual_seed(0)
    return TextModel(model_class(config).eval(), mask=mask, **options).eval(), list(SELECTIVE_OPS[name])
