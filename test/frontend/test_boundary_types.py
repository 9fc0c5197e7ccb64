"""Types no TOSA profile has are said first and plainly, in every mode.

float64 (and complex128, carried as f64 pairs, and uint16/32/64) at the
program's boundary can never validate: compile() says which inputs, results
or weights have them, by the names the user knows, before lowering
(category "no-tosa-profile"); f64 that reaches a tosa.custom inside the
program is said first in the validation error. Other rejections stay
"not-conformant", with their own advice.
"""

from __future__ import annotations

import warnings

import pytest
import torch

import tosa_custom
from tosa_custom.e2e import Fn
from tosa_custom.frontend.boundary import untyped_boundary
from tosa_custom.tosa.target import ELEMENT_TYPES, NO_PROFILE

MODES = {"stock": None, "listed": ["aten.mul.Tensor"], "dummy": ["*"], "auto": "auto"}
F64_FIX = "float32 instead of float64 (model.float() and float32 inputs"
SKIP_FIX = "skip the check (tosa_target=None)"


def _compile(model, args, **kw):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return tosa_custom.compile(model, args, **kw)


def _refused(model, args, **kw) -> str:
    with pytest.raises(tosa_custom.CompileError) as info:
        _compile(model, args, **kw)
    assert info.value.category == NO_PROFILE, str(info.value)
    return str(info.value)


class _Scaled(torch.nn.Module):
    def forward(self, x, scale):
        return x * scale, (x * 2).float()


@pytest.mark.parametrize("mode", MODES)
def test_f64_inputs_and_results_are_named_before_lowering(mode):
    text = _refused(_Scaled(), (torch.randn(2, 3, dtype=torch.float64), torch.randn(3, dtype=torch.float64)),
                    backend_legal_ops=MODES[mode])
    assert text.startswith("The program takes or returns float64 (f64 in TOSA), which no TOSA profile or "
                           "extension has, so no tosa_target can validate it:\n")
    lines = text.splitlines()[1:4]
    assert lines == ["  input 'x': float64", "  input 'scale': float64", "  result 0: float64"]  # result 1 is f32
    assert F64_FIX in text and SKIP_FIX in text
    assert "tosa-validate" not in text and "backend_legal_ops" not in text  # nothing was lowered; no tunnel helps


@pytest.mark.parametrize("mode", MODES)
def test_other_types_no_profile_has(mode):
    text = _refused(Fn(lambda z, u: ((torch.conj(z) * z).real, u.to(torch.int32) + 1)),
                    (torch.randn(2, 3, dtype=torch.complex128), torch.arange(6).to(torch.uint16)),
                    backend_legal_ops=MODES[mode])
    assert text.startswith("The program takes or returns complex128 (f64 in TOSA), float64 (f64 in TOSA), "
                           "uint16 (ui16 in TOSA), which no TOSA profile or extension has")
    assert "  input 'args_0': complex128\n  input 'args_1': uint16\n  result 0: float64\n" in text
    assert "complex64 instead of complex128" in text
    assert "a dtype TOSA has (int8, int16, int32, float16, float32) instead of uint16" in text


class _F64Weight(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.w = torch.nn.Parameter(torch.linspace(0.5, 2.0, 3, dtype=torch.float64))
        self.register_buffer("shift", torch.ones(3, dtype=torch.float64))

    def forward(self, x):
        return x * self.w.float() + self.shift.float()


@pytest.mark.parametrize("weights", ["inline", "arguments"])
@pytest.mark.parametrize("mode", ["stock", "auto"])
def test_f64_weights_are_named(mode, weights):
    """Inline, a weight is a dense_resource constant no narrowing rewrites: f64 either way."""
    text = _refused(_F64Weight(), (torch.randn(2, 3),), backend_legal_ops=MODES[mode], weights=weights)
    assert text.splitlines()[1:] [:2] == ["  weight 'w': float64", "  buffer 'shift': float64"]
    assert "input 'args_0'" not in text and "result" not in text


@pytest.mark.parametrize("mode", MODES)
def test_f64_reaching_a_tunneled_op_is_said_first(mode):
    """f64 computed inside an f32 program: stock and auto narrow it to f32;
    kept as tosa.custom (listed, dummy) no pass may narrow it, and the error
    says first that no profile has it, without the tunnel advice."""
    model, x = Fn(lambda x: (x.double() * x.double()).float()), torch.randn(2, 3)
    if mode in ("stock", "auto"):
        module = _compile(model, (x,), backend_legal_ops=MODES[mode])
        torch.testing.assert_close(tosa_custom.runtime.load(module)(x), model(x))
        return
    text = _refused(model, (x,), backend_legal_ops=MODES[mode])
    first, rest = text.split("\n", 1)
    assert first.startswith("The program computes in f64 where TOSA must carry it")
    assert "keeping ops as tosa.custom cannot help" in first and F64_FIX in first and SKIP_FIX in first
    assert "'tosa.custom' op is not profile-aligned: element type 'f64' is not legal" in rest
    assert "keep the source op as tosa.custom" not in text


def test_a_wider_target_does_not_help_and_none_skips_the_check():
    args = (torch.randn(2, 3, dtype=torch.float64), torch.randn(3, dtype=torch.float64))
    _refused(_Scaled(), args, tosa_target="profiles=pro_int,pro_fp extensions=int64,bf16 "
                                          "specification_version=1.1.draft")
    module = _compile(_Scaled(), args, tosa_target=None)
    assert "tosa_custom.tosa_target" not in module.operation.attributes


def test_types_a_profile_has_are_not_flagged():
    """int64 (EXT-INT64), uint8 (carried as i8), bool, bf16, fp8 and complex64
    (f32 pairs) have a profile or extension: the check leaves them to validation."""
    args = [torch.zeros(2, dtype=d) for d in (torch.int64, torch.uint8, torch.bool, torch.bfloat16,
                                              torch.float8_e4m3fn, torch.complex64, torch.float16, torch.int16)]
    program = torch.export.export(Fn(lambda *a: a[0] + 1), tuple(args), strict=False)
    assert untyped_boundary(program) == []
    assert "f64" not in ELEMENT_TYPES and "i64" in ELEMENT_TYPES
