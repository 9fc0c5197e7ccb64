"""IREE, a TOSA consumer nobody here wrote, compiles and runs what compile() emits.

Stock-mode output of the example block, a small BERT and a small conv net is
written as MLIR bytecode (`tosa_custom.save_mlir`), compiled with IREE's own
`iree-compile --iree-input-type=tosa` for the CPU and run with `iree.runtime`;
the results match eager PyTorch to 1e-5 (outputs of size ~1, float32: the
differences are summation order and exp/tanh polynomials, measured below
1e-6). A module with a tosa.custom is refused by IREE with its own clear
error, as README.md documents.
"""

from __future__ import annotations

import os
import subprocess
import sys
import warnings
from pathlib import Path

os.environ["HF_HUB_OFFLINE"] = "1"
os.environ["TRANSFORMERS_OFFLINE"] = "1"

import numpy as np
import pytest
import torch

import tosa_custom
from tosa_custom.tools.example import KEPT_OPS, TransformerBlock
from _models import small_bert

iree_runtime = pytest.importorskip("iree.runtime")
pytest.importorskip("iree.compiler")

IREE_COMPILE = Path(sys.executable).with_name("iree-compile")
FLAGS = ["--iree-input-type=tosa", "--iree-hal-target-device=local",
         "--iree-hal-local-target-device-backends=llvm-cpu", "--iree-llvmcpu-target-cpu=host"]
TOLERANCE = 1e-5


def _iree_compile(module, tmp_path: Path) -> subprocess.CompletedProcess:
    source = tmp_path / "model.mlirbc"
    tosa_custom.save_mlir(module, source)
    assert source.read_bytes()[:4] == b"ML\xefR"  # MLIR bytecode
    return subprocess.run([str(IREE_COMPILE), *FLAGS, str(source), "-o", str(tmp_path / "model.vmfb")],
                          capture_output=True, text=True, timeout=300)


def _run_with_iree(model, args, tmp_path: Path) -> float:
    """Compile `model` in stock mode, run it with IREE, return the max |difference| from eager."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        module = tosa_custom.compile(model.eval(), args)
    compiled = _iree_compile(module, tmp_path)
    assert compiled.returncode == 0, compiled.stderr[-3000:]
    vm = iree_runtime.load_vm_flatbuffer_file(str(tmp_path / "model.vmfb"), driver="local-sync")
    # IREE called directly, without our boundary: an int64 input the TOSA carries as int32 (marked
    # tosa_custom.dtype = "int64", CONTRACT.md 13.4d; BERT's ids and mask) is handed over as int32.
    narrowed = str(module).count('tosa_custom.dtype = "int64"')
    inputs = [a.numpy().astype(np.int32) if a.dtype == torch.int64 and narrowed else a.numpy() for a in args]
    got = vm.forward(*inputs).to_host()
    with torch.no_grad():
        expected = model(*args).numpy()
    assert got.shape == expected.shape and got.dtype == expected.dtype
    return float(np.abs(got - expected).max())


def test_example_block(tmp_path):
    torch.manual_seed(0)
    assert _run_with_iree(TransformerBlock(dim=16, heads=2), (torch.randn(2, 4, 16),), tmp_path) < TOLERANCE


def test_small_bert(tmp_path):
    model, ids = small_bert()
    mask = torch.ones(2, 8, dtype=torch.int64)
    mask[1, 6:] = 0
    assert _run_with_iree(model, (ids, mask), tmp_path) < TOLERANCE


def test_small_conv_net(tmp_path):
    torch.manual_seed(0)
    net = torch.nn.Sequential(
        torch.nn.Conv2d(3, 8, 3, padding=1), torch.nn.BatchNorm2d(8), torch.nn.ReLU(), torch.nn.MaxPool2d(2),
        torch.nn.Conv2d(8, 8, 3, padding=1), torch.nn.ReLU(), torch.nn.AdaptiveAvgPool2d(1), torch.nn.Flatten(),
        torch.nn.Linear(8, 10),
    )
    assert _run_with_iree(net, (torch.randn(2, 3, 16, 16),), tmp_path) < TOLERANCE


def test_tosa_custom_is_refused_clearly(tmp_path):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        module = tosa_custom.compile(TransformerBlock(dim=16, heads=2).eval(), (torch.randn(2, 4, 16),),
                                     backend_legal_ops=KEPT_OPS)
    compiled = _iree_compile(module, tmp_path)
    assert compiled.returncode == 1, (compiled.returncode, compiled.stderr[-2000:])  # an error, not a signal
    assert "failed to legalize operation 'tosa.custom'" in compiled.stderr
    assert "torch.aten.layer_norm" in compiled.stderr  # the op is named
