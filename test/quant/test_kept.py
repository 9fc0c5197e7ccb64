"""Kept ops in quantized models (CONTRACT.md §18): a small transformer block
quantized with PT2E (XNNPACK's symmetric config, layer_norm/softmax/gelu
annotated) in stock (refused, naming the op), selective, auto and dummy
mode, and the MLP and small CNN in auto and dummy mode: strictly pro_int with
no float tensor inside, kept ops on int8 operands carrying their
quantization, >= 99% of the elements within 1 LSB of PT2E eager on our
runtime, the reference model and IREE (whose kept layer_norm, softmax and
gelu run the built-in int8 native kernels, as the runtime's do; an op the
native library lacks runs its Python kernel, called back); decode() of such an op."""

from __future__ import annotations

import json

import pytest
import torch

from _pt2e import compile_and_check, output_scale, quantize
from _transformer import KEPT_OPS, Block, quantizer

import tosa_custom
from tosa_custom.core.ir import make_context, parse_module
from tosa_custom.e2e.quantized_models import CNN, MLP

_MODES = {"selective": KEPT_OPS, "auto": "auto", "dummy": ["*"]}


@pytest.fixture(scope="module")
def block():
    torch.manual_seed(0)
    args = (torch.randn(1, 8, 32),)
    return quantize(Block(), args, quantizer()), args


# 1 LSB of the output, measured on dequantized floats: each side is (q - zero_point) * scale in float32,
# |q - zero_point| <= 2^8, so each is off by up to 2^8 * scale * 2^-24; 2^-12 of the scale covers both.
_LSB = 1 + 2 ** -12


def _check_within(out: dict, qm, inputs, scale: float) -> None:
    for executor, results in out.items():
        for (x,), got in zip(inputs, results):
            want = qm(x)
            within = ((got - want).abs() <= scale * _LSB).float().mean().item()
            assert within >= 0.99, f"{executor}: {within:.2%} of the elements within 1 LSB"


def _kept_ops(module) -> list[tuple[str, dict, list[str]]]:
    found = []
    for op in tosa_custom.custom_ops(module):
        attrs = json.loads(str(op.attributes["implementation_attrs"]).strip('"').replace('\\22', '"'))
        types = [str(v.type) for v in op.operands] + [str(r.type) for r in op.results]
        found.append((str(op.attributes["operator_name"]).strip('"'), attrs, types))
    return found


def test_block_stock_is_refused(block):
    qm, args = block
    with pytest.raises(tosa_custom.CompileError, match=r"aten.layer_norm \(layer_norm\) computes on quantized values"
                       r".*backend_legal_ops=\[\"aten.layer_norm\"\].*auto"):
        tosa_custom.compile(qm, args)
    with pytest.raises(tosa_custom.CompileError, match=r"aten.softmax \(softmax\) computes on quantized values"):
        tosa_custom.compile(qm, args, backend_legal_ops=["aten.layer_norm"])


@pytest.mark.parametrize("mode", list(_MODES))
def test_block(block, mode):
    qm, args = block
    inputs = [(torch.randn(1, 8, 32) * 2,) for _ in range(2)]
    out, scales, module = compile_and_check(qm, args, inputs, backend_legal_ops=_MODES[mode])
    _check_within(out, qm, inputs, scales[0])
    kept = _kept_ops(module)
    names = {name for name, _, _ in kept}
    assert {"torch.aten.layer_norm", "torch.aten.softmax.int"} <= names
    if mode != "auto":
        assert "torch.aten.gelu" in names
    for name, attrs, types in kept:
        assert attrs["version"] == 5 and "quantization" in attrs, name
        assert all("f32" not in t for t in types), (name, types)
        if name in ("torch.aten.layer_norm", "torch.aten.softmax.int"):
            assert types[0].endswith("xi8>") and types[-1].endswith("xi8>"), (name, types)
            for side in ("operands", "results"):
                assert set(attrs["quantization"][side]["0"]) == {"scale", "zero_point", "quant_min", "quant_max",
                                                                 "dtype"}
    for ex in ("runtime", "refmodel"):
        assert all(torch.equal(a, b) for a, b in zip(out["runtime"], out[ex]))


@pytest.mark.slow
@pytest.mark.parametrize("mode", ["selective", "auto"])
def test_block_on_iree(block, mode):
    """IREE runs every kept op by the built-in int8 native kernels, the same
    the runtime binds: its outputs equal the runtime's, within 1 LSB of PT2E eager."""
    pytest.importorskip("iree.runtime")
    qm, args = block
    inputs = [(torch.randn(1, 8, 32) * 2,) for _ in range(2)]
    out, scales, module = compile_and_check(qm, args, inputs, executors=("runtime", "iree"),
                                            backend_legal_ops=_MODES[mode])
    _check_within(out, qm, inputs, scales[0])
    assert all(torch.equal(a, b) for a, b in zip(out["runtime"], out["iree"]))
    program = tosa_custom.iree.load(parse_module(module.operation.get_asm(binary=True), make_context()))
    expected = {"layer_norm", "softmax"} | ({"gelu"} if mode == "selective" else set())
    assert {k.split(": ")[1].split()[0] for k in program.kernels} == expected, program.kernels
    assert all("int8 (quantized" in k for k in program.kernels), program.kernels


def test_block_dummy_mode_on_iree(block):
    """Dummy mode keeps the linears too, on int8: no native kernel has them,
    so IREE calls back the Python kernel the runtime runs (the generic torch
    kernel on the dequantized values), beside the native int8 ones: IREE's
    outputs equal the runtime's bit for bit."""
    pytest.importorskip("iree.runtime")
    qm, args = block
    inputs = [(torch.randn(1, 8, 32) * 2,) for _ in range(2)]
    out, scales, module = compile_and_check(qm, args, inputs, executors=("runtime", "iree"),
                                            backend_legal_ops=_MODES["dummy"])
    assert all(torch.equal(a, b) for a, b in zip(out["runtime"], out["iree"]))
    _check_within(out, qm, inputs, scales[0])
    text = module.operation.get_asm(binary=True)
    program = tosa_custom.iree.load(parse_module(text, make_context()))
    assert program.kernels == tosa_custom.runtime.load(parse_module(text, make_context())).kernels
    kinds = dict(zip(program.custom_ops, program.kernels))
    assert kinds["torch.aten.linear"] == f"python ({tosa_custom.runtime.torch_kernel.__module__}.torch_kernel)", kinds
    assert "int8 (quantized" in kinds["torch.aten.layer_norm"], kinds


@pytest.mark.slow
@pytest.mark.parametrize("mode", ["auto", "dummy"])
@pytest.mark.parametrize("make,shape", [(MLP, (2, 32)), (CNN, (1, 3, 32, 32))], ids=["mlp", "cnn"])
def test_models(make, shape, mode):
    torch.manual_seed(0)
    args = (torch.randn(shape),)
    qm = quantize(make(), args)
    inputs = [(torch.randn(shape) * 2,) for _ in range(2)]
    executors = ("runtime", "refmodel", "iree") if mode == "auto" else ("runtime", "refmodel")
    out, scales, _ = compile_and_check(qm, args, inputs, executors=executors, backend_legal_ops=_MODES[mode])
    _check_within(out, qm, inputs, scales[0])
    for k, (x,) in enumerate(inputs):
        assert torch.equal(out["runtime"][k].argmax(-1), qm(x).argmax(-1))


def test_decode_quantized_call(block):
    qm, args = block
    module = tosa_custom.compile(qm, args, backend_legal_ops=KEPT_OPS)
    ops = {str(op.attributes["operator_name"]).strip('"'): op for op in tosa_custom.custom_ops(module)}
    call = tosa_custom.decode(ops["torch.aten.softmax.int"])
    q = call.quantization
    assert set(q.operands) == {0} and set(q.results) == {0}
    assert q.operands[0].dtype == torch.int8 and q.results[0].quant_min == -128
    x = torch.randint(-128, 128, (1, 2, 8, 8), dtype=torch.int8)
    from tosa_custom.core.quantization import dequantize, quantize as pt2e_quantize
    want = pt2e_quantize(torch.softmax(dequantize(x, q.operands[0]), -1), q.results[0])
    assert torch.equal(call(x), want)


@pytest.mark.parametrize("change,message", [
    (lambda a: a.update(version=4), "needs contract version 5"),
    (lambda a: a["quantization"]["operands"]["0"].update(dtype="uint4"), "'dtype' must be one of"),
    (lambda a: a["quantization"]["operands"]["0"].update(scale=-1.0), "'scale' must be a positive number"),
    (lambda a: a["quantization"]["operands"]["0"].update(quant_min=5), "quant_min <= zero_point <= quant_max"),
    (lambda a: a["quantization"]["results"].update({"3": a["quantization"]["results"]["0"]}), "names result"),
    (lambda a: a["quantization"]["operands"]["0"].update(extra=1), "unknown fields"),
])
def test_decode_refuses(change, message):
    from tosa_custom.contract.encoding import canonical_json
    q = {"scale": 0.5, "zero_point": 0, "quant_min": -128, "quant_max": 127, "dtype": "int8"}
    attrs = {"args": {"self": {"operand": 0}}, "version": 5, "quantization": {"operands": {"0": dict(q)},
                                                                            "results": {"0": dict(q)}}}
    change(attrs)
    text = canonical_json(attrs).replace('"', '\\22')
    with make_context():
        m = parse_module(f'func.func @f(%x: tensor<4xi8>) -> tensor<4xi8> {{ %y = tosa.custom %x {{domain_name = '
                         f'"torch_mlir", implementation_attrs = "{text}", operator_name = "torch.aten.relu"}} : '
                         f'(tensor<4xi8>) -> tensor<4xi8> return %y : tensor<4xi8> }}', make_context())
        with pytest.raises(tosa_custom.ContractError, match=message):
            tosa_custom.decode(tosa_custom.custom_ops(m)[0])



def test_kept_ops_run_native_kernels(block):
    """The runtime binds each kept int8 op of the block to the built-in native
    kernel; without native kernels, gelu runs by the Python table (integer
    indexing) and the rest by the generic torch kernel, with the same results."""
    qm, args = block
    module = tosa_custom.compile(qm, args, backend_legal_ops=KEPT_OPS)
    scale = output_scale(module)[0]
    text = module.operation.get_asm(binary=True)
    program = tosa_custom.runtime.load(parse_module(text, make_context()))
    assert [k.split(": ")[1] for k in program.kernels] == [
        "layer_norm int8 (quantized))", "softmax int8 (quantized))", "layer_norm int8 (quantized))",
        "gelu int8 (quantized, by table))"], program.kernels
    python = tosa_custom.runtime.load(parse_module(text, make_context()), native=False)
    assert sum("table_kernel" in k for k in python.kernels) == 1, python.kernels
    inputs = [(torch.randn(1, 8, 32) * 2,)]
    _check_within({"runtime": [program(*inputs[0])], "python": [python(*inputs[0])]}, qm, inputs, scale)
    assert (program(*inputs[0]) - python(*inputs[0])).abs().max() <= scale * _LSB


class _NormHead(torch.nn.Module):
    """rms_norm and log_softmax between linears: both kept on their integers."""

    def __init__(self):
        super().__init__()
        self.a, self.b = torch.nn.Linear(32, 32), torch.nn.Linear(32, 16)
        self.w = torch.nn.Parameter(torch.rand(32) + 0.5)

    def forward(self, x):
        return torch.log_softmax(self.b(torch.nn.functional.rms_norm(self.a(x), (32,), self.w, 1e-6)), -1)


def test_kept_rms_norm_and_log_softmax_run_native_kernels():
    """Kept int8 rms_norm (float32 weight) and log_softmax bind the built-in
    native kernels; within 1 LSB of PT2E eager and of the Python kernels,
    the reference model equal to the runtime."""
    torch.manual_seed(0)
    args = (torch.randn(16, 32),)
    qm = quantize(_NormHead().eval(), args,
                  quantizer({torch.ops.aten.rms_norm.default, torch.ops.aten.log_softmax.int}))
    inputs = [(torch.randn(16, 32) * 2,) for _ in range(2)]
    out, scales, module = compile_and_check(qm, args, inputs, backend_legal_ops=["aten.rms_norm", "aten.log_softmax"])
    _check_within(out, qm, inputs, scales[0])
    assert all(torch.equal(a, b) for a, b in zip(out["runtime"], out["refmodel"]))
    text = module.operation.get_asm(binary=True)
    program = tosa_custom.runtime.load(parse_module(text, make_context()))
    assert [k.split(": ")[1] for k in program.kernels] == [
        "rms_norm int8 (quantized))", "log_softmax int8 (quantized))"], program.kernels
    python = tosa_custom.runtime.load(parse_module(text, make_context()), native=False)
    for (x,) in inputs:
        assert (program(x) - python(x)).abs().max() <= scales[0] * _LSB


class _LayerNormWeight(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.a, self.ln, self.b = torch.nn.Linear(32, 32), torch.nn.LayerNorm(32), torch.nn.Linear(32, 8)
        with torch.no_grad():
            self.ln.weight.uniform_(0.5, 1.5)

    def forward(self, x):
        return self.b(self.ln(self.a(x)))


def _weight_quantizer():
    """XNNPACK's config, and layer_norm's input, output and weight quantized
    (the weight per tensor: PT2E's per-channel observer takes weights of two
    dims or more)."""
    from torchao.quantization.pt2e.quantizer import ComposableQuantizer, QuantizationAnnotation, Quantizer
    from torchao.testing.pt2e import _xnnpack_quantizer as xnn
    from tosa_custom.e2e.quantized import CONFIGS

    config = CONFIGS["per-channel"]()

    class WeightToo(Quantizer):
        def annotate(self, model):
            for node in model.graph.nodes:
                if node.op == "call_function" and node.target == torch.ops.aten.layer_norm.default:
                    node.meta["quantization_annotation"] = QuantizationAnnotation(
                        input_qspec_map={node.args[0]: config.output_activation,
                                         node.args[2]: CONFIGS["per-tensor"]().weight},
                        output_qspec=config.output_activation, _annotated=True)
            return model

        def validate(self, model):
            pass

    return ComposableQuantizer([xnn.XNNPACKQuantizer().set_global(config), WeightToo()])


def test_kept_layer_norm_with_a_quantized_weight_runs_native():
    """A kept layer_norm whose weight PT2E quantized arrives with the weight
    as an int8 operand carrying its quantization; the built-in native kernel
    dequantizes it as PT2E does: within 1 LSB of eager and of the Python
    kernel, the reference model equal to the runtime."""
    torch.manual_seed(0)
    args = (torch.randn(16, 32),)
    qm = quantize(_LayerNormWeight().eval(), args, _weight_quantizer())
    inputs = [(torch.randn(16, 32) * 2,) for _ in range(2)]
    out, scales, module = compile_and_check(qm, args, inputs, backend_legal_ops=["aten.layer_norm"])
    _check_within(out, qm, inputs, scales[0])
    assert all(torch.equal(a, b) for a, b in zip(out["runtime"], out["refmodel"]))
    ((name, attrs, types),) = _kept_ops(module)
    assert types[1] == "tensor<32xi8>" and "1" in attrs["quantization"]["operands"], (types, attrs)
    text = module.operation.get_asm(binary=True)
    program = tosa_custom.runtime.load(parse_module(text, make_context()))
    assert [k.split(": ")[1] for k in program.kernels] == ["layer_norm int8 (quantized))"], program.kernels
    python = tosa_custom.runtime.load(parse_module(text, make_context()), native=False)
    for (x,) in inputs:
        assert (program(x) - python(x)).abs().max() <= scales[0] * _LSB


@pytest.mark.parametrize("mode", list(_MODES))
def test_report_counts_the_integer_lowering_apart(block, mode):
    """PT2E's quantize/dequantize ops (and, in auto mode, the gelu the lowering
    tabulates) are carried by the tunnel only for the integer lowering: the
    report counts them as `integer`, never as converted or tunneled."""
    qm, args = block
    report = tosa_custom.CompileReport()
    tosa_custom.compile(qm, args, backend_legal_ops=_MODES[mode], report=report)
    qdq = {k for k in report.ops_seen if k.startswith("torch.quantized_decomposed.")}
    assert qdq and qdq <= set(report.integer), (qdq, report.integer)
    assert not any(k.startswith("torch.quantized_decomposed.") for k in report.converted), report.converted
    assert not any(s.identifier.startswith("torch.quantized_decomposed.") for s in report.tunneled)
    assert {"torch.aten.layer_norm", "torch.aten.softmax.int"} <= set(report.converted), report.converted
    assert ("torch.aten.gelu" in report.integer) == (mode == "auto"), (report.integer, report.converted)


def test_kept_op_of_a_fused_group_is_refused_naming_it():
    """PT2E quantizes linear + relu as one group, so a kept relu alone reads
    the linear's i32 sum, which has no quantization: refused, naming the op
    and the way out; keeping the linear too runs within 1 LSB."""
    torch.manual_seed(0)
    args = (torch.randn(2, 32),)
    qm = quantize(MLP(), args)
    with pytest.raises(tosa_custom.CompileError, match=r"kept aten.relu reads an i32 sum or accumulator \(tosa.add\) "
                       r"no quantize narrowed: .*keep the op before it too, or not this one"):
        tosa_custom.compile(qm, args, backend_legal_ops=["aten.relu"])
    inputs = [(torch.randn(2, 32) * 2,)]
    out, scales, module = compile_and_check(qm, args, inputs, backend_legal_ops=["aten.linear", "aten.relu"])
    assert {name for name, _, _ in _kept_ops(module)} == {"torch.aten.linear", "torch.aten.relu"}
    _check_within(out, qm, inputs, scales[0])
