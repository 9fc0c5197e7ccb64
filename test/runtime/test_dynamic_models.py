"""transformers BERT (dynamic batch and sequence length), GPT-2 and Llama
(dynamic sequence length), small random configs: one compile per mode, run at
several sizes including the range's ends, each against eager; the TOSA is
declared for and validates under the 1.1 draft with EXT-DYNAMIC (issue 23).

Run time: 3 models x 3 modes, each compiled once and run at 4 sizes: about
3 minutes of wall time on the shared 2-core machine."""

from __future__ import annotations

import warnings

import pytest
import torch
from _architectures import VOCAB, architecture
from _tolerance import reduction_tolerance
from torch.export import Dim

import tosa_custom
from tosa_custom import runtime

TOL = reduction_tolerance(64, depth=2)
MAX_SEQ = 32  # the smallest max_position_embeddings of the three configs
# (batch, sequence) sizes each program runs at: the range's ends among them.
SIZES = {"bert": [(2, 8), (1, 1), (8, 13), (3, MAX_SEQ)], "gpt2": [(2, 8), (2, 1), (2, 17), (2, MAX_SEQ)],
         "llama": [(2, 8), (2, 1), (2, 11), (2, MAX_SEQ)]}


def _inputs(batch: int, seq: int) -> tuple[torch.Tensor, torch.Tensor]:
    ids = torch.randint(1, VOCAB, (batch, seq), generator=torch.Generator().manual_seed(batch * 100 + seq))
    mask = torch.ones(batch, seq, dtype=torch.int64)
    if batch > 1 and seq > 2:
        mask[-1, seq - 2:] = 0  # a right-padded row: the mask matters
    return ids, mask


def _dynamic(name: str) -> dict:
    seq = Dim("seq", min=1, max=MAX_SEQ)
    dims = {0: Dim("batch", min=1, max=8), 1: seq} if name == "bert" else {1: seq}
    return {"input_ids": dims, "attention_mask": dims}


@pytest.mark.parametrize("mode", ["stock", "selective", "auto"])
@pytest.mark.parametrize("name", list(SIZES))
def test_one_compile_runs_at_every_size(name, mode):
    model, _, selective = architecture(name)
    legal = {"stock": None, "selective": selective, "auto": "auto"}[mode]
    report = tosa_custom.CompileReport()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        module = tosa_custom.compile(model, _inputs(*SIZES[name][0]), backend_legal_ops=legal, report=report,
                                     dynamic_shapes=_dynamic(name))
    assert "specification_version=1.1.draft" in report.tosa_target and "dynamic" in report.tosa_target
    text = module.operation.get_asm(large_elements_limit=4)
    assert "tensor<2x?xi64>" in text or "tensor<?x?xi64>" in text  # the inputs stayed symbolic
    if mode == "stock":
        assert "tosa.custom" not in text
    program = runtime.load(module)
    for batch, seq in SIZES[name]:
        args = _inputs(batch, seq)
        with torch.no_grad():
            expected = model(*args)
        torch.testing.assert_close(program(*args), expected, **TOL, msg=lambda m: f"at {batch}x{seq}: {m}")
