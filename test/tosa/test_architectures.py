"""A dozen transformers architectures compile to TOSA that validates for the
default target, in every mode, and compute what eager PyTorch does.

Stock and selective mode need the narrowing passes here: RoBERTa gathers its
token-type buffer with its position ids as i64, OPT casts a cumsum of f32 ones
to i64, T5 casts |i - j| to f32 and a log of it back to i64, where log(0) is
-inf on the diagonal and selected away (tosa/ranges.py). Dummy and auto mode
tunnel those ops or lower them likewise.

Run time: 12 architectures x 4 modes, each compiled and run: 48 tests, about
2 minutes of CPU (5 minutes of wall time on the shared 2-core machine, -n 1).
"""

from __future__ import annotations

import re
import warnings

import pytest
import torch
from _architectures import ARCHITECTURES, HIDDEN, architecture
from _tolerance import reduction_tolerance

import tosa_custom
from tosa_custom import runtime

# The longest reduction is the MLP's 64 terms (attention sums 8 keys, the norms 32), through 2 layers.
TOL = reduction_tolerance(64, depth=2)


@pytest.mark.parametrize("mode", ["stock", "selective", "dummy", "auto"])
@pytest.mark.parametrize("name", ARCHITECTURES)
def test_conformant_in_every_mode_and_matches_eager(name, mode):
    model, args, selective = architecture(name)
    legal = {"stock": None, "selective": selective, "dummy": ["*"], "auto": "auto"}[mode]
    report = tosa_custom.CompileReport()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        module = tosa_custom.compile(model, args, backend_legal_ops=legal, report=report)  # the default target
    # Strictly valid for it (test/conftest.py checks every output apart from compile()). Positions, ids and
    # masks are computed in i32 (tosa-custom-narrow-i64-values), and then, as pro_fp moves and compares
    # floats only, in f32 (tosa-custom-integers-in-float): pro_fp alone, TOSA 1.0.
    assert report.tosa_target == "profiles=pro_fp level=8k specification_version=1.0", report.tosa_target
    assert mode == "dummy" or not re.search(r"[x<]i64>", module.operation.get_asm(large_elements_limit=4))
    text = module.operation.get_asm(large_elements_limit=4)
    assert "f64" not in text
    if mode == "stock":
        assert "tosa.custom" not in text
    with torch.no_grad():
        expected = model(*args)
    out = runtime.load(module)(*args)
    assert out.shape == expected.shape[:-1] + (HIDDEN,)
    torch.testing.assert_close(out, expected, **TOL)
