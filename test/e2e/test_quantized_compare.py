"""compare="quantized": a PT2E case's results within 1 LSB of each output's
scale, the scale read from the model's own last dequantize."""

from __future__ import annotations

import pathlib
import runpy

import pytest
import torch

pytest.importorskip("torchao")

from tosa_custom.e2e import cases, get_case  # noqa: E402
from tosa_custom.e2e.quantized import output_scales, pt2e, quantized_mismatch  # noqa: E402
from tosa_custom.e2e.runner import run_case  # noqa: E402

SUITE = pathlib.Path(__file__).resolve().parents[2] / "e2e" / "quantized.py"


def test_output_scales_are_the_last_dequantizes():
    torch.manual_seed(0)
    model = pt2e(torch.nn.Linear(4, 3), [(2, 4)])
    last = [n for n in model.graph.nodes if n.target == torch.ops.quantized_decomposed.dequantize_per_tensor.default][-1]
    assert output_scales(model) == [float(last.args[1])]


def test_mismatch_is_measured_in_lsb():
    want = torch.zeros(4)
    assert quantized_mismatch([want + 0.1], [want], [0.1], 1e-5) is None
    why = quantized_mismatch([want + torch.tensor([0, 0, 0.15, 0])], [want], [0.1], 1e-5)
    assert why == "result #0: off by up to 1.5 LSB of scale 0.1 (1 LSB allowed)"
    assert "off by up to 0.001" in quantized_mismatch([want + 1e-3], [want], [None], 1e-5)  # a float output: atol


def test_a_quantized_case_passes_in_stock_mode():
    if not any(c.source == str(SUITE) for c in cases()):  # loaded once per process (test_cases_eager loads it too)
        runpy.run_path(str(SUITE))
    result = run_case(get_case("QuantizedAddModule_relu"), "stock")
    assert result.status == "pass", result.message
