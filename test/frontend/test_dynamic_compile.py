"""compile(dynamic_shapes=...): `?` exactly where torch.export keeps a dim
symbolic, the boundary attributes (CONTRACT.md §15.1), the 1.1 draft target
with EXT-DYNAMIC (validated by compile()), and sizes resolved before TorchToTosa."""

from __future__ import annotations

import math
import re

import pytest
import torch
import torch.nn.functional as F
from _compile import compile_with_report
from torch import nn
from torch.export import Dim

import tosa_custom
from tosa_custom.core.ir import public_functions

# The 1.1 draft with EXT-DYNAMIC and EXT-SHAPE (a reshape of ? dims states its sizes with shape ops,
# tosa-custom-explicit-reshape-sizes); beside them what the program strictly needs (positions of unknown
# extent stay i64: EXT-INT64, and pro_int for integer ops). Strictly valid for it: test/conftest.py.
DYNAMIC = re.compile(r"profiles=(pro_int,)?pro_fp extensions=dynamic,(int64,)?shape level=8k "
                     r"specification_version=1\.1\.draft")
STATIC = "profiles=pro_fp level=8k specification_version=1.0"
MODES = {"stock": None, "auto": "auto"}


class _MLP(nn.Module):
    def __init__(self):
        super().__init__()
        self.a, self.b = nn.Linear(16, 32), nn.Linear(32, 8)

    def forward(self, x):
        return self.b(F.relu(self.a(x)))


class _Block(nn.Module):  # layer_norm + gelu, and a view with two run-time sizes
    def __init__(self):
        super().__init__()
        self.ln, self.fc = nn.LayerNorm(32), nn.Linear(32, 32)

    def forward(self, x):
        b, t, c = x.shape
        return F.gelu(self.fc(self.ln(x).view(b * t, c))).view(b, t, c)


class _Attention(nn.Module):
    def __init__(self):
        super().__init__()
        self.qkv, self.h = nn.Linear(32, 96), 4

    def forward(self, x):
        b, t, c = x.shape
        q, k, v = (y.view(b, t, self.h, c // self.h).transpose(1, 2) for y in self.qkv(x).split(c, dim=2))
        a = F.softmax(q @ k.transpose(-2, -1) / math.sqrt(c // self.h), dim=-1)
        return (a @ v).transpose(1, 2).reshape(b, t, c)


class _Mean(nn.Module):
    def forward(self, x):
        return x.sum(dim=1) / x.shape[1] + torch.arange(x.shape[1], dtype=x.dtype).sum()


def _entry(module):
    return public_functions(module)[0]


def _text(module) -> str:
    return module.operation.get_asm(large_elements_limit=4)


@pytest.mark.parametrize("mode", MODES)
def test_dynamic_batch_is_the_only_question_mark_and_the_boundary_says_its_range(mode):
    module, report = compile_with_report(_MLP(), (torch.randn(4, 16),), dynamic_shapes=({0: Dim("b", min=1, max=64)},),
                                         backend_legal_ops=MODES[mode])
    func = _entry(module)
    assert str(func.attributes["function_type"]) == "(tensor<?x16xf32>) -> tensor<?x8xf32>"
    (symbol,) = [a.name for a in func.attributes["tosa_custom.symbols"]]
    assert str(func.attributes["tosa_custom.symbols"]) == f"{{{symbol} = array<i64: 1, 64>}}"
    assert f'tosa_custom.shape = ["{symbol}", 16]' in str(func.attributes["arg_attrs"])
    assert f'tosa_custom.shape = ["{symbol}", 8]' in str(func.attributes["res_attrs"])
    assert DYNAMIC.fullmatch(report.tosa_target), report.tosa_target


def test_a_static_program_keeps_tosa_1_0_and_no_boundary_attributes():
    module, report = compile_with_report(_MLP(), (torch.randn(4, 16),))
    assert report.tosa_target == STATIC
    assert "tosa_custom.symbols" not in _entry(module).attributes


def test_ignore_traced_shapes_leaves_dims_the_model_fixes_static():
    """Every dim Dim.AUTO, but the Linear fixes the features: only the batch is `?`."""
    module = tosa_custom.compile(_MLP().eval(), torch.randn(4, 16), use_tracing=True, ignore_traced_shapes=True)
    assert str(_entry(module).attributes["function_type"]) == "(tensor<?x16xf32>) -> tensor<?x8xf32>"


def test_dynamic_shapes_with_ignore_traced_shapes_is_refused():
    with pytest.raises(ValueError, match="dynamic_shapes"):
        tosa_custom.compile(_MLP().eval(), torch.randn(4, 16), use_tracing=True, ignore_traced_shapes=True,
                            dynamic_shapes=({0: Dim.AUTO},))


@pytest.mark.parametrize("mode", ["stock", "selective", "auto"])
def test_view_of_two_run_time_sizes_is_a_reshape_by_tosa_shape_ops(mode):
    legal = {"stock": None, "selective": ["aten.layer_norm", "aten.gelu"], "auto": "auto"}[mode]
    dims = {0: Dim("b", min=1, max=8), 1: Dim("t", min=2, max=16)}
    module, report = compile_with_report(_Block(), (torch.randn(2, 5, 32),), dynamic_shapes=(dims,),
                                         backend_legal_ops=legal)
    text = _text(module)
    assert "(tensor<?x?x32xf32>) -> tensor<?x?x32xf32>" in str(_entry(module).attributes["function_type"])
    assert "tosa.concat_shape" in text and "tosa.dim" in text and re.search(r"= torch(\.|_c\.)", text) is None
    assert DYNAMIC.fullmatch(report.tosa_target), report.tosa_target
    if mode == "selective":
        assert text.count("tosa.custom") == 2


@pytest.mark.parametrize("mode", ["stock", "selective", "auto"])
def test_attention_with_dynamic_sequence_length(mode):
    legal = {"stock": None, "selective": ["aten.softmax.int"], "auto": "auto"}[mode]
    module, report = compile_with_report(_Attention(), (torch.randn(2, 6, 32),),
                                         dynamic_shapes=({1: Dim("t", min=2, max=32)},), backend_legal_ops=legal)
    assert str(_entry(module).attributes["function_type"]) == "(tensor<2x?x32xf32>) -> tensor<2x?x32xf32>"
    assert DYNAMIC.fullmatch(report.tosa_target), report.tosa_target
    customs = [line for line in _text(module).splitlines() if "tosa.custom" in line]
    if mode == "selective":
        assert len(customs) == 1 and "softmax" in customs[0] and "tensor<2x4x?x?xf32>" in customs[0]
    elif mode == "stock":
        assert not customs


def test_a_size_used_as_a_number_is_computed_at_run_time():
    """The divisor x.shape[1] and arange(x.shape[1]): from the input's dim at
    run time (tosa.dim), not the traced 7."""
    module, report = compile_with_report(_Mean(), (torch.randn(3, 7),), dynamic_shapes=({1: Dim("t", min=2, max=32)},))
    text = _text(module)
    assert "tosa.tile" in text and "tosa.reduce_sum" in text and "tosa.dim" in text
    assert "dense<7" not in text and "7.0" not in text
    assert DYNAMIC.fullmatch(report.tosa_target), report.tosa_target


class _MaskedSelect(nn.Module):
    def forward(self, x, mask):
        return torch.masked_select(x, mask)


@pytest.mark.parametrize("legal", [["*"], "auto"], ids=["dummy", "auto"])
def test_a_result_sized_by_the_data_is_refused_naming_the_op_and_the_fix(legal):
    args = (torch.randn(4, 4), torch.rand(4, 4) > 0.5)
    with pytest.raises(tosa_custom.CompileError) as info:
        compile_with_report(_MaskedSelect(), args, backend_legal_ops=legal)
    assert info.value.category == "dynamic-result-shape"
    assert info.value.ops == ("torch.aten.masked_select",)
    message = str(info.value)
    assert message.startswith("torch.aten.masked_select: the size of its result depends on the values of its inputs")
    assert "Compute it outside the compiled program" in message


class _CatDynamic(nn.Module):
    def forward(self, x):
        return torch.cat([x, x * 2], dim=0)


def test_an_op_torch_to_tosa_refuses_on_question_marks_is_named_with_the_fix_in_stock_mode():
    """cat along the `?` dim: no pass lowers it, TorchToTosa refuses it; stock
    mode names it and the ways out, auto mode tunnels it."""
    dims = ({0: Dim("n", min=1, max=16)},)
    with pytest.raises(tosa_custom.CompileError) as info:
        compile_with_report(_CatDynamic(), (torch.randn(3, 4),), dynamic_shapes=dims)
    assert info.value.ops == ("torch.aten.cat",) and info.value.category == "lowering-failed"
    assert str(info.value).startswith("torch.aten.cat has dims of run-time size (?) here and TorchToTosa lowers it "
                                      "only from static shapes")
    assert "backend_legal_ops='auto'" in str(info.value)
    module, _ = compile_with_report(_CatDynamic(), (torch.randn(3, 4),), dynamic_shapes=dims, backend_legal_ops="auto")
    assert re.findall(r'operator_name = "([^"]+)"', _text(module)) == ["torch.aten.cat"]
