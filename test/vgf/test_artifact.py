"""tosa_custom.vgf.save: a directory the SDK's scenario runner runs without
Python (its run.sh), giving eager PyTorch's results."""

from __future__ import annotations

import subprocess
import warnings

import numpy as np
import pytest
import torch

import tosa_custom
from tosa_custom import vgf
from tosa_custom.e2e import Fn
from tosa_custom.tools.example import KEPT_OPS, TransformerBlock

from _tolerance import reduction_tolerance

pytestmark = pytest.mark.usefixtures("vulkan")


def test_saved_directory_runs_with_scenario_runner(tmp_path):
    torch.manual_seed(0)
    model, x = TransformerBlock().eval(), torch.randn(2, 8, 32)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        module = tosa_custom.compile(model, (x,), backend_legal_ops=KEPT_OPS)
    saved = vgf.save(module, tmp_path / "out", inputs=[x])
    names = {p.name for p in (tmp_path / "out").iterdir()}
    assert {"model.vgf", "model.mlirbc", "scenario.json", "run.sh", "inputs", "shaders"} <= names
    assert len(list((tmp_path / "out" / "shaders").glob("*.comp"))) == 4
    assert "scenario-runner --scenario scenario.json" in saved.line and "VK_LAYER_PATH=" in saved.line
    assert [n for n, _ in saved.shaders] == ["torch.aten.layer_norm", "torch.aten.softmax.int",
                                             "torch.aten.layer_norm", "torch.aten.gelu"]
    done = subprocess.run(["sh", str(tmp_path / "out" / "run.sh")], capture_output=True, text=True)
    assert done.returncode == 0, done.stdout + done.stderr
    got = np.load(saved.outputs[0]).view(np.float32).reshape(2, 8, 32)
    with torch.no_grad():
        torch.testing.assert_close(torch.from_numpy(got), model(x), **reduction_tolerance(4 * 32))


def test_save_checks_the_inputs_it_writes(tmp_path):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        module = tosa_custom.compile(torch.nn.GELU().eval(), (torch.randn(3),), backend_legal_ops=["aten.gelu"])
    with pytest.raises(TypeError, match=r"input #0 is float64 \[3\]; the entry takes float32 \[3\]"):
        vgf.save(module, tmp_path / "out", inputs=[np.zeros(3)])


def test_shaders_reading_equal_constants_run_from_a_saved_directory(tmp_path):
    """ConvNeXt's shape: kept LayerNorms of fresh parameters (all-ones weight,
    all-zeros bias) with graph ops between. The SDK merged their equal
    constants into one resource, which the second shader read as garbage at
    every run (vgf/constants.py gives each shader its own)."""
    torch.manual_seed(0)
    ln1, ln2 = torch.nn.LayerNorm(8), torch.nn.LayerNorm(8)

    def model(x):
        return ln2(ln1(x.permute(0, 2, 3, 1)).permute(0, 3, 1, 2).mean((-2, -1)))

    x = torch.randn(2, 8, 8, 8)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        module = tosa_custom.compile(Fn(model), (x,), backend_legal_ops=["aten.layer_norm"])
    saved = vgf.save(module, tmp_path / "out", inputs=[x])
    done = subprocess.run(["sh", str(tmp_path / "out" / "run.sh")], capture_output=True, text=True)
    assert done.returncode == 0, done.stdout + done.stderr
    got = np.load(saved.outputs[0]).view(np.float32).reshape(2, 8)
    with torch.no_grad():
        torch.testing.assert_close(torch.from_numpy(got), model(x), **reduction_tolerance(8))
