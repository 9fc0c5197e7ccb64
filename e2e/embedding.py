"""Embedding lookups: nn.Embedding (padding_idx, 2-d ids), functional
embedding with the table as an input, embedding_bag, one_hot, positions."""

import torch
from torch import nn
from torch.nn import functional as F

from tosa_custom.e2e import Fn, case

FAMILY = "embedding"


@case(inputs=lambda: (torch.randint(0, 10, (3,)),), family=FAMILY)
def EmbeddingModule_basic():
    return nn.Embedding(10, 4)


@case(inputs=lambda: (torch.randint(0, 10, (2, 5)),), family=FAMILY)
def EmbeddingModule_2d_ids():
    return nn.Embedding(10, 6)


@case(inputs=lambda: (torch.tensor([[0, 2, 0, 5], [1, 0, 3, 3]]),), family=FAMILY)
def EmbeddingModule_padding_idx():
    return nn.Embedding(8, 3, padding_idx=0)


@case(inputs=lambda: (torch.randint(0, 10, (2, 4), dtype=torch.int32),), family=FAMILY)
def EmbeddingModule_int32_ids():
    return nn.Embedding(10, 4)


@case(inputs=lambda: (torch.randn(12, 5), torch.randint(0, 12, (3, 4))), family=FAMILY)
def FunctionalEmbeddingModule_table_input():
    return Fn(lambda table, ids: F.embedding(ids, table))


@case(inputs=lambda: (torch.randint(0, 10, (3, 4)),), family=FAMILY,
      xfail={"stock": "torch-mlir has no TOSA lowering for aten.embedding_bag"})
def EmbeddingBagModule_mean():
    """2-d ids: each row is one bag."""
    return nn.EmbeddingBag(10, 5, mode="mean")


@case(inputs=lambda: (torch.randint(0, 10, (3, 4)),), family=FAMILY,
      xfail={"stock": "torch-mlir has no TOSA lowering for aten.embedding_bag"})
def EmbeddingBagModule_sum():
    return nn.EmbeddingBag(10, 5, mode="sum")


@case(inputs=lambda: (torch.randint(0, 6, (2, 4)),), family=FAMILY)
def OneHotModule_basic():
    return Fn(lambda ids: F.one_hot(ids, num_classes=6))


@case(inputs=lambda: (torch.randint(0, 20, (2, 6)),), family=FAMILY)
def TokenAndPositionEmbeddingModule_basic():
    """token + learned position embeddings, positions from arange."""
    class TokPos(nn.Module):
        def __init__(self):
            super().__init__()
            self.tok, self.pos = nn.Embedding(20, 8), nn.Embedding(16, 8)

        def forward(self, ids):
            positions = torch.arange(ids.shape[1]).unsqueeze(0)
            return self.tok(ids) + self.pos(positions)

    return TokPos()


@case(inputs=lambda: (torch.randint(0, 10, (2, 3)),), family=FAMILY)
def EmbeddingTiedLogitsModule_basic():
    """Tied input embedding and output projection (weight used twice)."""
    class Tied(nn.Module):
        def __init__(self):
            super().__init__()
            self.emb = nn.Embedding(10, 4)

        def forward(self, ids):
            return self.emb(ids) @ self.emb.weight.t()

    return Tied()
