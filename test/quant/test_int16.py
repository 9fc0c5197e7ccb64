"""int16 activations with int8 weights (a16w8, ExecuTorch's 16x8 configs)
as integer TOSA under EXT-INT16: each op family strictly pro_int + int16,
i16 x i8 convolutions and i16 x i16 matmuls into i48 accumulators, within
1 LSB of PT2E eager, the reference model equal to our runtime bit for bit;
elementwise functions as the specification's interpolated int16 TABLE where
that is within 1 LSB of PT2E at every input; and what int16 cannot do (such
a table further off, asymmetric int16 products) refused, naming the op and
the fix."""

from __future__ import annotations

import dataclasses
import json
import re

import pytest
import torch
from torch import nn

from _families import FAMILIES
from _pt2e import CONFIGS, compile_and_check, lsb_error, quantize, xnn
from torchao.quantization.pt2e.observer import HistogramObserver
from torchao.quantization.pt2e.quantizer import QuantizationSpec

import tosa_custom
from tosa_custom.core.diagnostics import CompileError

# The families whose float op becomes an i48 product (conv, depthwise, linear, matmul; avg pools by ones).
_PRODUCTS = {"conv2d", "conv2d_relu", "depthwise_relu6", "depthwise_hardtanh", "linear", "linear_relu", "matmul",
             "bmm", "max_pool2d", "avg_pool2d", "adaptive_avg_pool2d", "mean", "cat", "data_movement"}
# Tables whose interpolated int16 TABLE is more than 1 LSB off PT2E at these scales (refused).
_OFF_TABLES = ["table_exp"]


def _compile(name: str, config="a16w8", **kw):
    make, shapes = FAMILIES[name]
    torch.manual_seed(0)
    args = tuple(torch.randn(s) for s in shapes)
    qm = quantize(make(), args, config)
    inputs = [tuple(torch.randn(s) * 2 for s in shapes) for _ in range(3)]
    return qm, inputs, compile_and_check(qm, args, inputs, **kw)


def _int16_boundary(module) -> None:
    text = str(module)
    assert re.search(r'tosa_custom.tosa_target = "profiles=pro_int extensions=int16 ', text), "not pro_int + int16"
    assert 'dtype = "int16"' in text and "xi16>" in text


# Families whose int16 path another family already takes (slow: the whole suite runs them).
_TWINS = {"conv2d", "depthwise_hardtanh", "linear_relu", "bmm", "add", "adaptive_avg_pool2d", "table_tanh",
          "table_gelu", "table_silu"}


@pytest.mark.parametrize("name", [pytest.param(n, marks=[pytest.mark.slow] if n in _TWINS else [])
                                  for n in FAMILIES if n not in _OFF_TABLES])
def test_family_a16w8(name):
    qm, inputs, (out, scales, module) = _compile(name)
    _int16_boundary(module)
    if name in _PRODUCTS - {"max_pool2d", "avg_pool2d", "cat", "data_movement", "mean", "adaptive_avg_pool2d"}:
        assert "xi48>" in str(module), "the product of int16 activations accumulates in i48"
    if name.startswith("table_"):
        assert re.search(r"tosa.table .*\(tensor<[0-9x]*xi16>, tensor<513xi16>\) -> tensor<[0-9x]*xi32>", str(module))
    _check_outputs(qm, inputs, out, scales)


@pytest.mark.parametrize("name", ["conv2d", "linear", "matmul"])
def test_family_a16w8_full_range(name):
    """Activation scales down to 2^-24, so outputs use int16's whole range: the i48 narrowing and the
    final RESCALE keep full precision (a table is within 1 LSB of PT2E's op at every input; an op after it
    sees that difference, up to 2 LSB measured through a linear, so tables are left out here)."""
    qm, inputs, (out, scales, module) = _compile(name, "a16w8-fine")
    _int16_boundary(module)
    assert max(float(qm(*x).abs().max()) for x in inputs) / scales[0] > 16384, "not using int16's range"
    _check_outputs(qm, inputs, out, scales)


@pytest.mark.parametrize("config", ["a16w8", "a16w8-fine"])
def test_long_sum_narrowed_by_a_power_of_two(config):
    """A linear of 600 inputs: |sum| may reach 32768 x 127 x 600 > 2^30, so the i48 accumulator is
    narrowed to i32 by 2^-2 (i16 multiplier 2^14, shift 16), the last two bits rounded away; still
    within 1 LSB of PT2E eager at int16's whole range."""
    torch.manual_seed(0)
    model = nn.Sequential(nn.Linear(600, 8), nn.ReLU())
    args = (torch.randn(2, 600),)
    qm = quantize(model, args, config)
    inputs = [(torch.randn(2, 600) * 2,) for _ in range(3)]
    out, scales, module = compile_and_check(qm, args, inputs)
    text = str(module)
    assert re.search(r"dense<16384> : tensor<1xi16>.*\n.*dense<16> : tensor<1xi8>.*\n(.*\n)*.*tosa.rescale "
                     r".*scale32 = false.*tensor<[0-9x]*xi48>", text), "no narrowing by 2^-2"
    _check_outputs(qm, inputs, out, scales)


def test_int16_needs_the_int16_extension():
    """Strict validation: the same program for pro_int without EXT-INT16 is refused, naming it per op."""
    make, shapes = FAMILIES["linear"]
    torch.manual_seed(0)
    args = tuple(torch.randn(s) for s in shapes)
    with pytest.raises(CompileError, match=r"'tosa.matmul' op illegal: requires any of \[int16\]") as refused:
        tosa_custom.compile(quantize(make(), args, "a16w8"), args, tosa_target="profiles=pro_int")
    assert {"tosa.matmul", "tosa.rescale"} <= set(refused.value.ops)


def test_conv_transpose_a16w8():
    """A strided transposed convolution of int16 input (weights per output channel, ch_axis=1)."""
    base = CONFIGS["a16w8"]()
    config = dataclasses.replace(base, weight=dataclasses.replace(base.weight, ch_axis=1))
    model = nn.Sequential(nn.ConvTranspose2d(8, 6, 3, stride=2, padding=1), nn.ReLU())
    torch.manual_seed(0)
    args = (torch.randn(1, 8, 6, 6),)
    qm = quantize(model, args, xnn.XNNPACKQuantizer().set_global(config))
    inputs = [(torch.randn(1, 8, 6, 6) * 2,) for _ in range(2)]
    out, scales, module = compile_and_check(qm, args, inputs)
    assert re.search(r"tosa.transpose_conv2d .*xi16>.*xi8>.*-> tensor<[0-9x]*xi48>", str(module))
    _check_outputs(qm, inputs, out, scales)


def test_int16_table_off_by_more_than_1_lsb_is_refused():
    """exp's steep end bends inside TABLE's 128-input segments: refused, saying by how much, naming the fixes."""
    with pytest.raises(CompileError, match=r"aten.exp of an int16 value: its interpolated int16 TABLE is up to "
                                           r"[0-9]+ LSB off PT2E's .*checked at every int16 input.* Keep it as a "
                                           r'tosa.custom on the integers \(backend_legal_ops=\["aten.exp"\].*'
                                           r"quantize its input and output to int8"):
        _compile("table_exp")


def _kept_dtypes(module) -> set[str]:
    """The dtypes the kept ops' JSON gives their quantized operands and results (CONTRACT.md §18.2)."""
    block = module.body.operations[0].regions[0].blocks[0]
    kept = [op for op in block.operations if op.name == "tosa.custom"]
    assert kept, "no kept op"
    found = set()
    for op in kept:
        quantization = json.loads(op.attributes["implementation_attrs"].value)["quantization"]
        found |= {q["dtype"] for side in quantization.values() for q in side.values()}
    return found


def _check_outputs(qm, inputs, out, scales) -> None:
    for x, got, ref in zip(inputs, out["runtime"], out["refmodel"]):
        assert torch.equal(got, ref), "the reference model and the runtime differ"
        assert lsb_error(got, qm(*x), scales[0]) <= 1.0 + 1e-6


def test_int16_table_kept_on_the_integers():
    """The refusal's first fix: exp kept as a tosa.custom on int16 (CONTRACT.md §18), exactly PT2E eager."""
    qm, inputs, (out, scales, module) = _compile("table_exp", backend_legal_ops=["aten.exp"])
    _int16_boundary(module)
    assert _kept_dtypes(module) == {"int16"}
    _check_outputs(qm, inputs, out, scales)


def test_auto_mode_keeps_an_int16_table_it_cannot_lower():
    """Auto mode keeps exp (whose int16 TABLE would be refused) whole on the int16 integers, beside integer TOSA."""
    qm, inputs, (out, scales, module) = _compile("table_exp", backend_legal_ops="auto")
    _int16_boundary(module)
    assert "torch.aten.exp" in str(module) and "tosa.table" not in str(module)
    assert _kept_dtypes(module) == {"int16"}
    _check_outputs(qm, inputs, out, scales)


class _Normed(nn.Module):
    def __init__(self):
        super().__init__()
        self.a, self.norm, self.b = nn.Linear(16, 32), nn.LayerNorm(32), nn.Linear(32, 8)

    def forward(self, x):
        return self.b(self.norm(self.a(x)))


def test_kept_layer_norm_a16w8():
    """Selective mode: layer_norm (no integer form) kept on int16 integers between int16 linears."""
    torch.manual_seed(0)
    model = _Normed()
    with torch.no_grad():
        model.norm.weight.uniform_(0.5, 1.5)
        model.norm.bias.uniform_(-0.5, 0.5)
    args = (torch.randn(4, 16),)
    qm = quantize(model, args, "a16w8")
    inputs = [(torch.randn(4, 16) * 2,) for _ in range(2)]
    out, scales, module = compile_and_check(qm, args, inputs, backend_legal_ops=["aten.layer_norm"])
    _int16_boundary(module)
    assert "torch.aten.layer_norm" in str(module) and "xi48>" in str(module)
    assert _kept_dtypes(module) == {"int16"}
    _check_outputs(qm, inputs, out, scales)


def test_int16_kept_op_on_iree():
    """exp kept on int16 integers (no native kernel takes int16) runs on IREE
    by the Python kernel the runtime runs, called back: equal to the runtime."""
    pytest.importorskip("iree.runtime")
    qm, inputs, (out, scales, module) = _compile("table_exp", backend_legal_ops=["aten.exp"],
                                                 executors=("runtime", "refmodel", "iree"))
    assert _kept_dtypes(module) == {"int16"}
    _check_outputs(qm, inputs, out, scales)
    assert all(torch.equal(a, b) for a, b in zip(out["runtime"], out["iree"]))
    program = tosa_custom.iree.load(module.operation.get_asm())
    assert program.kernels == [f"python ({tosa_custom.runtime.torch_kernel.__module__}.torch_kernel)"], program.kernels


def _asymmetric_int16():
    """int16 activations with a zero point (per_tensor_affine): TOSA's int16 products take zero point 0."""
    base = CONFIGS["a16w8"]()
    act = QuantizationSpec(dtype=torch.int16, quant_min=-32768, quant_max=32767, qscheme=torch.per_tensor_affine,
                           observer_or_fake_quant_ctr=HistogramObserver.with_args(eps=2 ** -12))
    return xnn.XNNPACKQuantizer().set_global(dataclasses.replace(base, input_activation=act, output_activation=act))


def test_asymmetric_int16_product_is_refused():
    with pytest.raises(CompileError, match=r"tosa.conv2d: the input is int16 with zero point -?[1-9][0-9]*; TOSA's "
                                           r"int16 products take zero point 0 only: quantize int16 activations "
                                           r"symmetrically \(qscheme=torch.per_tensor_symmetric"):
        _compile("conv2d_relu", _asymmetric_int16())
