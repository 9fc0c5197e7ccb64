"""tosa_custom.vgf.load: programs on Vulkan (Arm's ML SDK, lavapipe in CI)
against eager PyTorch and the reference runtime: the example block, a small
BERT and a stock MLP; a user's shader (GLSL and SPIR-V) overriding a
built-in one; equal constants on one shader (the SDK binds a value once);
what is refused at load, and why."""

from __future__ import annotations

import warnings

import pytest
import torch

import tosa_custom
from tosa_custom import runtime, vgf
from tosa_custom.core.diagnostics import CompileError
from tosa_custom.e2e import Fn
from tosa_custom.tools.example import KEPT_OPS, TransformerBlock
from tosa_custom.vgf import shaders, spirv

from _models import small_bert
from _out_resize import check_out_resize
from _tolerance import reduction_tolerance

pytestmark = pytest.mark.usefixtures("vulkan")  # skipped, saying why, where no Vulkan device can be made

F = torch.nn.functional


def _compile(model, args, ops=None, **kwargs):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return tosa_custom.compile(model.eval(), args, backend_legal_ops=ops, **kwargs)


def test_example_block_matches_eager_and_the_runtime():
    torch.manual_seed(0)
    model, x = TransformerBlock(), torch.randn(2, 8, 32)
    program = vgf.load(_compile(model, (x,), KEPT_OPS))
    assert program.custom_ops == ["torch.aten.layer_norm", "torch.aten.softmax.int", "torch.aten.layer_norm",
                                  "torch.aten.gelu"]
    assert all(k.startswith("vulkan shader, built-in") for k in program.kernels)
    tol = reduction_tolerance(4 * 32)
    with torch.no_grad():
        torch.testing.assert_close(program(x), model(x), **tol)
        torch.testing.assert_close(program(x), runtime.load(_compile(model, (x,), KEPT_OPS))(x), **tol)


def test_small_bert_with_layer_norm_and_gelu_kept():
    model, ids = small_bert("gelu")
    mask = torch.ones_like(ids)
    mask[1, 6:] = 0
    program = vgf.load(_compile(model, (ids, mask), ["aten.layer_norm", "aten.gelu"]))
    assert program.custom_ops.count("torch.aten.layer_norm") == 5 and "torch.aten.gelu" in program.custom_ops
    with torch.no_grad():
        torch.testing.assert_close(program(ids, mask), model(ids, mask), **reduction_tolerance(64, depth=2))


def test_stock_mlp_is_the_converters_alone():
    torch.manual_seed(0)
    model = torch.nn.Sequential(torch.nn.Linear(8, 16), torch.nn.ReLU(), torch.nn.Linear(16, 4))
    x = torch.randn(3, 8)
    program = vgf.load(_compile(model, (x,)))
    assert program.kernels == []
    with torch.no_grad():
        torch.testing.assert_close(program(x.numpy()), model(x), **reduction_tolerance(16))


# Equal constants on one shader: LayerNorm with weight == bias (both ones, or
# both zeros). The SDK merges equal constants and binds the value once, so
# the second binding read garbage (3.7 off); the pass shares the binding.
@pytest.mark.parametrize("fill", [0.0, 1.0])
def test_equal_constant_operands_share_one_binding(fill):
    torch.manual_seed(0)
    model = torch.nn.Sequential(torch.nn.Linear(16, 32), torch.nn.LayerNorm(32))
    with torch.no_grad():
        model[1].weight.fill_(fill)
        model[1].bias.fill_(fill)
    x = torch.randn(4, 16)
    module = _compile(model, (x,), ["aten.layer_norm"])
    program = vgf.load(module)
    assert "operands\\22:[0,1,1]" in str(module)  # the pass merged the bias into the weight's binding
    with torch.no_grad():
        torch.testing.assert_close(program(x), model(x), **reduction_tolerance(32))


class _TwoLayerNorms(torch.nn.Module):
    """ConvNeXt's shape of program: kept LayerNorms of fresh (all-ones weight,
    all-zeros bias) parameters with graph ops between."""

    def __init__(self):
        super().__init__()
        self.ln1, self.ln2 = torch.nn.LayerNorm(8), torch.nn.LayerNorm(8)

    def forward(self, x):
        return self.ln2(self.ln1(x.permute(0, 2, 3, 1)).permute(0, 3, 1, 2).mean((-2, -1)))


def test_shaders_reading_equal_or_splat_constants_match_eager_at_every_load():
    """The SDK merges equal constants two shaders read into one resource (the
    second read garbage at every load), and a splat constant a shader reads
    made later loads in a process wrong (vgf/constants.py): several loads in
    this process, each matching eager."""
    torch.manual_seed(0)
    model, x = _TwoLayerNorms().eval(), torch.randn(2, 8, 8, 8)
    module = _compile(model, (x,), ["aten.layer_norm"])
    text = str(module)
    with torch.no_grad():
        want = model(x)
    programs = []
    for _ in range(4):
        programs.append(vgf.load(text))
        torch.testing.assert_close(programs[-1](x), want, **reduction_tolerance(8))


GELU = """
layout(local_size_x = 64) in;
layout(std430, binding = TC_INPUT0_BINDING) readonly buffer X { float x[]; };
layout(std430, binding = TC_OUTPUT0_BINDING) writeonly buffer Y { float y[]; };
void main() {
    uint i = gl_GlobalInvocationID.x;
    if (i < TC_OUTPUT0_NUMEL) {
        y[i] = MARK * x[i] / (1.0 + exp(-1.702 * x[i]));  // a sigmoid gelu, MARK times: not the built-in one
    }
}
"""


def _workgroups(op):
    return (-(-op.outputs[0].numel // 64), 1, 1)


@pytest.mark.parametrize("language", ["GLSL", "SPIR-V"])
def test_a_users_shader_overrides_the_builtin_one(language):
    builtin = shaders.find_shader("torch.aten.gelu", "torch_mlir")
    x = torch.randn(3, 70)
    source = "#define MARK 2.0\n" + GELU
    if language == "SPIR-V":  # fixed sizes: SPIR-V gets no prelude
        prelude = "#define TC_INPUT0_BINDING 0\n#define TC_OUTPUT0_BINDING 1\n#define TC_OUTPUT0_NUMEL 210u\n"
        source = spirv.compile_glsl("#version 450\n" + prelude + source, "test")
    try:
        vgf.register_shader("torch.aten.gelu", source, workgroups=_workgroups, override=True)
        program = vgf.load(_compile(Fn(lambda t: F.gelu(t)), (x,), ["aten.gelu"]))
        assert program.kernels[0].startswith("vulkan shader, user")
        torch.testing.assert_close(program(x), 2 * x * torch.sigmoid(1.702 * x), rtol=1e-5, atol=1e-5)
    finally:
        shaders.register_shader("torch.aten.gelu", override=True)(builtin)


def test_a_kept_op_without_a_shader_is_refused_naming_it_and_the_executors():
    x = torch.randn(2, 3)
    with pytest.raises(CompileError) as e:
        vgf.load(_compile(Fn(lambda t: torch.relu(t) + 1), (x,), ["aten.relu"]))
    assert e.value.category == "no-kernel" and e.value.ops == ("torch.aten.relu",)
    message = str(e.value)
    assert "no Vulkan shader is registered for torch.aten.relu" in message
    assert "tosa_custom.runtime.load" in message and "tosa_custom.iree.load" in message
    assert "register_shader" in message


def test_a_builtin_shader_refuses_what_it_does_not_take():
    x = torch.randn(2, 3, dtype=torch.bfloat16)
    with pytest.raises(CompileError, match="torch.aten.gelu cannot run on Vulkan: operand #0 is bf16; the shader "
                                           "takes f32/f16") as e:
        vgf.load(_compile(Fn(lambda t: F.gelu(t)), (x,), ["aten.gelu"]))
    assert e.value.category == "no-kernel"


@pytest.mark.parametrize("code, expected", [
    ("void main() { undefined_thing(); }", r"the GLSL does not compile:\n(?s:.*)'undefined_thing'"),
    (GELU.replace("TC_OUTPUT0_BINDING", "7").replace("MARK", "1.0"),
     r"the shader binds buffers at \(set, binding\) \[\(0, 7\)\], which are not the op's.*results at \[1\]"),
    ("layout(local_size_x = 1) in;\nvoid main() {}", r"the shader declares no buffer at binding\(s\) \[1\] of set 0"),
])
def test_a_shader_that_does_not_compile_or_fit_its_op_is_refused_at_load(code, expected):
    builtin = shaders.find_shader("torch.aten.silu", "torch_mlir")
    try:
        vgf.register_shader("torch.aten.silu", code, workgroups=(1, 1, 1), override=True)
        with pytest.raises(CompileError, match=r"the Vulkan shader of torch.aten.silu, user \(GLSL registered for torch.aten.silu\), is refused: " +
                                               expected) as e:
            vgf.load(_compile(Fn(lambda t: F.silu(t)), (torch.randn(4),), ["aten.silu"]))
        assert e.value.category == "kernel-error" and e.value.ops == ("torch.aten.silu",)
    finally:
        shaders.register_shader("torch.aten.silu", override=True)(builtin)


def test_a_dynamic_program_is_refused_at_load():
    from torch.export import Dim

    x = torch.randn(2, 8)
    module = _compile(Fn(lambda t: F.gelu(t)), (x,), ["aten.gelu"], dynamic_shapes=(({0: Dim("n", min=1, max=9)},),))
    with pytest.raises(CompileError, match="a VGF is static") as e:
        vgf.load(module)
    assert e.value.category == "dynamic-shape"


def test_int64_at_the_boundary_and_zero_sizes_are_refused_and_bfloat16_runs():
    """The runner sizes an i64 tensor at 4 bytes an element (it refused the
    upload), the converter fails on a zero-size tensor (exit 255, no
    message); numpy has no bfloat16, whose bits travel as int16."""
    x = torch.arange(12).reshape(2, 6)
    with pytest.raises(CompileError, match="takes or returns a value of type tensor<2x6xi64>: the ML SDK's tensors "
                                           "have no 64-bit integers") as e:
        vgf.load(_compile(Fn(lambda t: torch.cumsum(t, 1)), (x,), []))
    assert e.value.category == "executor-limit"
    with pytest.raises(CompileError, match=r"a value of type tensor<0x3xf32>: the ML SDK's converter takes no "
                                           "zero-size tensor") as e:
        vgf.load(_compile(Fn(lambda t: t + 1), (torch.randn(0, 3),), []))
    assert e.value.category == "executor-limit"
    a, b = torch.randn(4, 5, dtype=torch.bfloat16), torch.rand(4, 5, dtype=torch.bfloat16) + 0.5
    fn = Fn(lambda s, t: s / t - s)
    got = vgf.load(_compile(fn, (a, b), []))(a, b)
    assert got.dtype == torch.bfloat16
    torch.testing.assert_close(got, fn(a, b))


def test_a_value_returned_twice_comes_back_in_every_position():
    """The SDK left the first output of a value returned twice unwritten
    (zeros): `a / b` and `torch.div(a, b)` are one value after CSE."""
    a, b = torch.randn(6, 5), torch.rand(6, 5) + 0.5
    fn = Fn(lambda s, t: (s / t, F.gelu(s), torch.div(s, t, rounding_mode=None), s / t))
    outs = vgf.load(_compile(fn, (a, b), ["aten.gelu"]))(a, b)
    for got, want in zip(outs, fn(a, b)):
        torch.testing.assert_close(got, want)
    assert outs[0].data_ptr() != outs[2].data_ptr() != outs[3].data_ptr()  # distinct tensors, as eager's


def test_kept_ops_feeding_each_other_directly():
    """Each op's operand is the previous kept op's result: the pass reads its
    operands when it rewrites it (it crashed on a value erased before)."""
    x = torch.randn(2, 8, 32)
    fn = Fn(lambda t: torch.softmax(F.gelu(F.layer_norm(t, (32,))), -1))
    program = vgf.load(_compile(fn, (x,), ["aten.layer_norm", "aten.gelu", "aten.softmax.int"]))
    assert len(program.kernels) == 3
    torch.testing.assert_close(program(x), fn(x), rtol=1e-5, atol=1e-5)


def test_out_of_another_size_is_resized_and_inputs_stay_resizable():
    check_out_resize(vgf.load)
