"""The real-model list (tosa_custom.e2e.architectures, its one home) as the
tests use it: a model with eager attention and the example inputs its tests
were written against, skipped where transformers is not installed."""

from __future__ import annotations

import pytest
import torch
from torch import nn

from tosa_custom.e2e.architectures import ARCHITECTURES, BATCH, HIDDEN, SEQ, VOCAB, TextModel
from tosa_custom.e2e.architectures import architecture as _architecture

__all__ = ["ARCHITECTURES", "BATCH", "HIDDEN", "SEQ", "VOCAB", "TextModel", "architecture"]


def architecture(name: str, attention: str = "eager") -> tuple[nn.Module, tuple, list[str]]:
    """(model, (input_ids, attention_mask), selective ops). The second
    sequence is right-padded, so the mask matters where it is passed."""
    pytest.importorskip("transformers")
    model, ops = _architecture(name, attention)
    ids = torch.randint(1, VOCAB, (BATCH, SEQ), generator=torch.Generator().manual_seed(0))
    attention_mask = torch.ones(BATCH, SEQ, dtype=torch.int64)
    attention_mask[1, SEQ - 3:] = 0
    return model, (ids, attention_mask), ops
