"""What declaring and validating the TOSA target costs compile().

Compiles the example block and a small BERT (stock mode) with the default
`tosa_target="auto"` (attach the target, run `tosa-validate`) and with
`tosa_target=None`, interleaved, and prints the best of `--repeat` wall-clock
times of each and their ratio. Target: validation costs under 5% of compile().
The narrowing passes run in both (they make the output, the check only checks).

    python benchmarks/validation.py [--repeat 5]
"""

from __future__ import annotations

import argparse
import os
import time
import warnings

os.environ["HF_HUB_OFFLINE"] = "1"
os.environ["TRANSFORMERS_OFFLINE"] = "1"

import torch

import tosa_custom
from tosa_custom.example import TransformerBlock


def _bert():
    import transformers

    torch.manual_seed(0)
    config = transformers.BertConfig(hidden_size=64, num_hidden_layers=2, num_attention_heads=2,
                                     intermediate_size=128, vocab_size=1000, max_position_embeddings=64,
                                     attn_implementation="eager")
    bert = transformers.BertModel(config).eval()
    for m in bert.modules():
        m._non_persistent_buffers_set.clear()

    class Bert(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.bert = bert

        def forward(self, ids, mask):
            return self.bert(input_ids=ids, attention_mask=mask).last_hidden_state

    return Bert().eval(), (torch.randint(0, 1000, (2, 16)), torch.ones(2, 16, dtype=torch.int64))


def _time(model, args, target) -> float:
    start = time.perf_counter()
    tosa_custom.compile(model, args, tosa_target=target)
    return time.perf_counter() - start


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=5)
    repeat = parser.parse_args().repeat
    warnings.simplefilter("ignore")
    torch.manual_seed(0)
    cases = {"example block": (TransformerBlock().eval(), (torch.randn(2, 8, 32),)), "BERT 2 layers": _bert()}
    print(f"{'model':<16}{'without (s)':>12}{'with (s)':>10}{'cost':>8}")
    for name, (model, args) in cases.items():
        _time(model, args, None)  # warm up
        without, with_ = [], []
        for _ in range(repeat):
            without.append(_time(model, args, None))
            with_.append(_time(model, args, "auto"))
        a, b = min(without), min(with_)
        print(f"{name:<16}{a:>12.3f}{b:>10.3f}{(b / a - 1) * 100:>7.1f}%")


if __name__ == "__main__":
    main()
