"""Each op family of a PT2E-quantized model as integer TOSA: strictly
pro_int with no float tensor inside, within 1 LSB of the output's scale
of PT2E eager, and the TOSA reference model equal to our runtime bit for
bit (that checks our integer semantics against the specification)."""

from __future__ import annotations

import pytest
import torch

from _families import FAMILIES
from _pt2e import compile_and_check, lsb_error, quantize

# Families also compiled under the other configs (per-tensor weights; symmetric activations, zero point 0).
_OTHER_CONFIGS = ["conv2d_relu", "depthwise_relu6", "linear", "add", "mean", "table_sigmoid"]


def _check(name: str, config: str) -> None:
    make, shapes = FAMILIES[name]
    torch.manual_seed(0)
    args = tuple(torch.randn(s) for s in shapes)
    qm = quantize(make(), args, config)
    inputs = [tuple(torch.randn(s) * 2 for s in shapes) for _ in range(3)]
    out, scales, _ = compile_and_check(qm, args, inputs)
    for x, got, ref in zip(inputs, out["runtime"], out["refmodel"]):
        assert torch.equal(got, ref), "the reference model and the runtime differ"
        assert lsb_error(got, qm(*x), scales[0]) <= 1.0 + 1e-6


@pytest.mark.parametrize("name", list(FAMILIES))
def test_family(name):
    _check(name, "per-channel")


@pytest.mark.parametrize("config", ["per-tensor", "symmetric-activations"])
@pytest.mark.parametrize("name", _OTHER_CONFIGS)
def test_family_other_configs(name, config):
    _check(name, config)
