"""The built-in shaders on Vulkan against eager PyTorch, at odd sizes, rows
longer than a workgroup (64 threads), a softmax over a dim that is not the
last, and more rows than one dispatch dimension holds; what a shader sees of
its op (the prelude); the registry's override rules."""

from __future__ import annotations

import warnings

import pytest
import torch

import tosa_custom
from tosa_custom import vgf
from tosa_custom.e2e import Fn
from tosa_custom.vgf import shaders

F = torch.nn.functional
TOL = {"rtol": 2e-5, "atol": 2e-5}


def _load(fn, args, ops):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return vgf.load(tosa_custom.compile(Fn(fn), args, backend_legal_ops=ops))


def _check(program, fn, args):
    for got, want in zip(program(*args), fn(*args)):
        torch.testing.assert_close(got, want, **TOL)


def test_norms_at_odd_sizes_long_rows_and_many_rows(vulkan):
    torch.manual_seed(0)
    w5, b5, w130 = torch.randn(5), torch.randn(5), torch.randn(130)
    w3 = torch.randn(3)

    def fn(a, b, c, d, e):
        return (F.layer_norm(a, (5,), w5, b5), F.layer_norm(b, (3, 100)), F.layer_norm(c, (1000,)),
                F.rms_norm(d, (130,), w130), F.rms_norm(a, (5,)), F.layer_norm(e, (3,), w3, w3))

    args = (torch.randn(3, 5), torch.randn(2, 3, 100) * 4 + 1, torch.randn(1, 1000), torch.randn(2, 130),
            torch.randn(70001, 3))  # 70001 rows: past 65535 workgroups in x
    program = _load(fn, args, ["aten.layer_norm", "aten.rms_norm"])
    assert len(program.kernels) == 6 and all("built-in" in k for k in program.kernels)
    _check(program, fn, args)


def test_softmaxes_over_last_and_inner_dims(vulkan):
    def fn(a, b, c):
        return (torch.softmax(a, -1), torch.softmax(b, 1), torch.log_softmax(c, -1), torch.log_softmax(b, 2),
                torch.softmax(c * 30, -1))

    torch.manual_seed(1)
    args = (torch.randn(3, 5), torch.randn(2, 67, 3), torch.randn(1, 200))
    _check(_load(fn, args, ["aten.softmax.int", "aten.log_softmax.int"]), fn, args)


def test_activations_odd_counts_and_large_arguments(vulkan):
    def fn(a, b):
        return F.gelu(a), F.gelu(b, approximate="tanh"), F.silu(a), F.gelu(b)

    torch.manual_seed(2)
    a = torch.cat([torch.randn(997) * 3, torch.tensor([-100.0, 100.0, 0.0, -4.5, 4.5, 1.0, -1.0])])
    args = (a, torch.randn(3, 7, 11) * 5)
    _check(_load(fn, args, ["aten.gelu", "aten.silu"]), fn, args)


def test_half_tensors_compute_in_float_and_round_once(vulkan):
    """Half in, half out (float32 arithmetic, as eager's CPU kernels): within one
    half ulp of eager; softmax to float32 from half reads half and writes float."""
    torch.manual_seed(3)
    w, b = torch.randn(67).half(), torch.randn(67).half()

    def fn(a, c):
        return (F.layer_norm(a, (67,), w, b), F.rms_norm(a, (67,)), torch.softmax(a, 1), torch.log_softmax(c, 0),
                F.gelu(c), F.gelu(a, approximate="tanh"), F.silu(c), torch.softmax(c, -1, dtype=torch.float32))

    args = (torch.randn(5, 67).half() * 3, torch.randn(3, 131).half())
    ops = ["aten.layer_norm", "aten.rms_norm", "aten.softmax.int", "aten.log_softmax.int", "aten.gelu", "aten.silu"]
    program = _load(fn, args, ops)
    assert sum("built-in" in k for k in program.kernels) == 8, program.kernels
    for got, want in zip(program(*args), fn(*args)):
        assert got.dtype == want.dtype
        ulp = torch.finfo(torch.float16).eps  # one rounding of a float32 result that differs in its last bits
        torch.testing.assert_close(got.float(), want.float(), rtol=ulp, atol=ulp)


def _op(**arguments) -> shaders.ShaderOp:
    return shaders.ShaderOp("torch.aten.layer_norm", "torch_mlir",
                            (shaders.TensorInfo((2, 3), "f32", 0), shaders.TensorInfo((3,), "f32", 1)),
                            (shaders.TensorInfo((2, 3), "f32", 2),), arguments, frozenset({"input", "weight", "bias"}))


def test_the_prelude_describes_operands_bindings_and_arguments():
    prelude = _op(input=0, normalized_shape=[3], weight=1, bias=None, eps=1e-5, cudnn_enable=True).prelude()
    assert prelude.startswith("#version 450\n")
    for line in ["#define TC_INPUT0_BINDING 0", "#define TC_INPUT0_NUMEL 6u", "#define TC_INPUT0_DIM1 3u",
                 "#define TC_INPUT1_RANK 1", "#define TC_OUTPUT0_BINDING 2", "#define TC_HAS_weight 1",
                 "#define TC_ARG_weight_INPUT 1", "#define TC_HAS_bias 0", "#define TC_ARG_eps 1e-05",
                 "#define TC_ARG_normalized_shape_LEN 1", "#define TC_ARG_normalized_shape_0 3",
                 "#define TC_ARG_cudnn_enable 1"]:
        assert line + "\n" in prelude, line
    assert shaders.Shader("#version 460\nvoid main() {}", (1, 1, 1)).source(_op()).count("#version") == 1


def test_a_users_shader_needs_override_to_replace_a_builtin_one():
    builtin = shaders.find_shader("torch.aten.silu", "torch_mlir")
    with pytest.raises(ValueError, match="the built-in shader .* is registered for it already.*override=True"):
        vgf.register_shader("torch.aten.silu", "void main() {}", workgroups=(1, 1, 1))
    try:
        vgf.register_shader("torch.aten.silu", "void main() {}", workgroups=(4, 1, 1), override=True)
        mine = shaders.find_shader("torch.aten.silu", "torch_mlir")
        assert not shaders.is_builtin(mine) and mine(_op()).workgroups == (4, 1, 1)
        assert "torch_mlir::torch.aten.silu" in vgf.registered_shaders(builtin=False)
        with pytest.raises(ValueError, match="cannot register a shader for torch_mlir::torch.aten.silu: the shader"):
            vgf.register_shader("torch.aten.silu", "void main() {}", workgroups=(1, 1, 1))
    finally:
        shaders.register_shader("torch.aten.silu", override=True)(builtin)
    assert shaders.is_builtin(shaders.find_shader("torch.aten.silu", "torch_mlir"))


def test_a_static_shader_needs_its_dispatch_and_code_of_a_known_kind():
    with pytest.raises(TypeError, match="needs the dispatch"):
        vgf.register_shader("acme.op", "void main() {}", domain_name="acme")
    with pytest.raises(TypeError, match="GLSL source .* or SPIR-V"):
        vgf.register_shader("acme.op", 42, workgroups=(1, 1, 1), domain_name="acme")
    assert shaders.groups_1d(70000) == (65535, 2, 1) and shaders.groups_1d(0) == (1, 1, 1)
