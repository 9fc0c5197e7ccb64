"""Whole real models from `transformers`, built offline from small random
configurations (nothing is downloaded): encoders, decoders, vision
transformers and convnets. Each is wrapped to take tensors and return the
tensor a user would read (hidden states, logits or pooled features)."""

import os

os.environ.setdefault("HF_HUB_OFFLINE", "1")  # before transformers is imported: never reach the hub
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")

import torch
from torch import nn

from tosa_custom.e2e import case

FAMILY = "model"
VOCAB, SEQ, BATCH = 100, 8, 2


def _transformers():
    import transformers  # imported lazily: loading this file stays cheap

    return transformers


def _tokens():
    """(input_ids, attention_mask): the second sequence is right-padded, so the mask matters."""
    ids = torch.randint(0, VOCAB, (BATCH, SEQ))
    mask = torch.ones(BATCH, SEQ, dtype=torch.int64)
    mask[1, SEQ - 3:] = 0
    return ids, mask


def _images(size=32, channels=3):
    return (torch.randn(BATCH, channels, size, size),)


class _TextModel(nn.Module):
    """forward(input_ids, attention_mask) -> one output field of an HF model."""

    def __init__(self, model: nn.Module, field: str, **kwargs):
        super().__init__()
        self.model, self.field, self.kwargs = model, field, kwargs

    def forward(self, input_ids, attention_mask):
        return getattr(self.model(input_ids=input_ids, attention_mask=attention_mask, **self.kwargs), self.field)


class _VisionModel(nn.Module):
    """forward(pixel_values) -> one output field of an HF model."""

    def __init__(self, model: nn.Module, field: str):
        super().__init__()
        self.model, self.field = model, field

    def forward(self, pixel_values):
        return getattr(self.model(pixel_values=pixel_values), self.field)


def _build(model_class, config):
    torch.manual_seed(0)  # the same weights on every build
    return model_class(config).eval()


@case(inputs=_tokens, family=FAMILY, rtol=1e-4, atol=1e-4,
      selective_ops=["aten.layer_norm", "aten.softmax.int", "aten.gelu"])
def BertModelModule_basic():
    t = _transformers()
    config = t.BertConfig(hidden_size=32, num_hidden_layers=2, num_attention_heads=2, intermediate_size=64,
                          vocab_size=VOCAB, max_position_embeddings=32, attn_implementation="eager")
    return _TextModel(_build(t.BertModel, config), "last_hidden_state")


@case(inputs=_tokens, family=FAMILY, rtol=1e-4, atol=1e-4,
      selective_ops=["aten.layer_norm", "aten.softmax.int"])
def GPT2LMHeadModelModule_basic():
    t = _transformers()
    config = t.GPT2Config(n_embd=32, n_layer=2, n_head=2, vocab_size=VOCAB, n_positions=32,
                          bos_token_id=VOCAB - 1, eos_token_id=VOCAB - 1, attn_implementation="eager")
    return _TextModel(_build(t.GPT2LMHeadModel, config), "logits", use_cache=False)


@case(inputs=_tokens, family=FAMILY, rtol=1e-4, atol=1e-4,
      selective_ops=["aten.layer_norm", "aten.scaled_dot_product_attention"])
def DistilBertModelModule_sdpa():
    t = _transformers()
    config = t.DistilBertConfig(dim=32, n_layers=2, n_heads=2, hidden_dim=64, vocab_size=VOCAB,
                                max_position_embeddings=32, attn_implementation="sdpa")
    return _TextModel(_build(t.DistilBertModel, config), "last_hidden_state")


@case(inputs=_tokens, family=FAMILY, rtol=1e-4, atol=1e-4,
      selective_ops=["aten.rms_norm", "aten.softmax.int", "aten.silu"])
def LlamaModelModule_basic():
    """RMSNorm, rotary embeddings, grouped-query attention, SwiGLU."""
    t = _transformers()
    config = t.LlamaConfig(hidden_size=32, intermediate_size=64, num_hidden_layers=2, num_attention_heads=4,
                           num_key_value_heads=2, vocab_size=VOCAB, max_position_embeddings=32,
                           attn_implementation="eager")
    return _TextModel(_build(t.LlamaModel, config), "last_hidden_state", use_cache=False)


@case(inputs=_tokens, family=FAMILY, rtol=1e-4, atol=1e-4, selective_ops=["aten.softmax.int"])
def T5EncoderModelModule_basic():
    """Relative position buckets and T5's RMS-style layer norm."""
    t = _transformers()
    config = t.T5Config(d_model=32, d_kv=8, d_ff=64, num_layers=2, num_heads=4, vocab_size=VOCAB,
                        relative_attention_num_buckets=8, attn_implementation="eager")
    return _TextModel(_build(t.T5EncoderModel, config), "last_hidden_state")


@case(inputs=_images, family=FAMILY, rtol=1e-4, atol=1e-4,
      selective_ops=["aten.layer_norm", "aten.softmax.int", "aten.gelu"])
def ViTModelModule_basic():
    t = _transformers()
    config = t.ViTConfig(image_size=32, patch_size=8, hidden_size=32, num_hidden_layers=2, num_attention_heads=2,
                         intermediate_size=64, attn_implementation="eager")
    return _VisionModel(_build(t.ViTModel, config), "last_hidden_state")


@case(inputs=_images, family=FAMILY, rtol=1e-4, atol=1e-4,
      selective_ops=["aten._native_batch_norm_legit_no_training"])
def ResNetModelModule_basic():
    t = _transformers()
    config = t.ResNetConfig(num_channels=3, embedding_size=8, hidden_sizes=[8, 16], depths=[1, 1],
                            layer_type="bottleneck")
    return _VisionModel(_build(t.ResNetModel, config), "pooler_output")


@case(inputs=_images, family=FAMILY, rtol=1e-4, atol=1e-4, selective_ops=["aten.hardtanh"])
def MobileNetV2ModelModule_basic():
    """Depthwise convolutions and ReLU6."""
    t = _transformers()
    config = t.MobileNetV2Config(num_channels=3, image_size=32, depth_multiplier=0.25)
    return _VisionModel(_build(t.MobileNetV2Model, config), "pooler_output")


@case(inputs=_images, family=FAMILY, rtol=1e-4, atol=1e-4, selective_ops=["aten.layer_norm", "aten.gelu"])
def ConvNextModelModule_basic():
    """7x7 depthwise convolutions, channels-last LayerNorm, layer scale."""
    t = _transformers()
    config = t.ConvNextConfig(num_channels=3, hidden_sizes=[8, 16], depths=[1, 1], num_stages=2)
    return _VisionModel(_build(t.ConvNextModel, config), "pooler_output")
