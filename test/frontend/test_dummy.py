"""Dummy mode (`backend_legal_ops=["*"]`): every op a tosa.custom, run by the
runtime's kernels, compared with eager PyTorch; and what CompileReport says."""

from __future__ import annotations

import pytest
import torch
import torch.utils._pytree as pytree

import tosa_custom
from tosa_custom import runtime
from tosa_custom.e2e import Fn


U8 = torch.tensor([[200, 100, 5, 255]], dtype=torch.uint8)

CASES = {
    "broadcast_tensors": (lambda a, b: torch.broadcast_tensors(a, b), (torch.randn(3, 1), torch.randn(4))),
    "meshgrid": (lambda a, b: torch.meshgrid(a, b, indexing="ij"), (torch.randn(3), torch.randn(4))),
    "unbind": (lambda a: [t * 2 for t in a.unbind(0)], (torch.randn(3, 4),)),
    "item": (lambda a: a * a.sum().item(), (torch.randn(3, 4),)),
    "complex": (lambda a: torch.view_as_real(torch.view_as_complex(a) * 2), (torch.randn(3, 2),)),
    "scalar_input": (lambda a, s: a * s, (torch.randn(3), 2.5)),
    "zero_size": (lambda a: a + 1, (torch.randn(0, 4),)),
    "zero_size_operand": (lambda a, b: torch.cat([a, b]) * 2, (torch.randn(0, 4), torch.randn(2, 4))),
    "uint8_sign": (lambda a: (a > 100).to(torch.float32) + a.to(torch.float32), (U8,)),
    "uint8_max": (lambda a: a.max(), (U8,)),
    # Complex arguments and results of the model travel as real pairs (CONTRACT.md 4.7).
    "complex_io": (torch.mul, (torch.randn(3, 4, dtype=torch.complex64), torch.randn(3, 4, dtype=torch.complex64))),
    "complex128_to_real": (lambda z: (torch.conj(z) * z).real + z.imag, (torch.randn(2, 3, dtype=torch.complex128),)),
    # Numbers the trace fixed: the IR returns 0-d tensors, the program Python numbers.
    "constant_numbers_out": (lambda a: (a + 1, a.shape[0], 0.5, a.shape[1] > 2), (torch.randn(3, 4),)),
}


# Python floats and complex128 are f64 by the contract (CONTRACT.md 4.7), which
# no TOSA profile has: these outputs cannot validate (CONTRACT.md 13.1).
F64_BY_DESIGN = {"item", "complex128_to_real"}
# A float the trace fixed (0.5) is exact in f32: tosa-custom-narrow-f64 returns it as f32 (CONTRACT.md 13.2).
# Every result zero-size: nothing to compute, so no tosa.custom (CONTRACT.md 3.4).
NOTHING_TO_COMPUTE = {"zero_size"}


@pytest.mark.parametrize("name", sorted(F64_BY_DESIGN))
def test_f64_by_design_says_no_profile_has_it(name):
    """complex128 is an input (said before lowering); item's Python float
    reaches tosa.custom ops (said first in the validation error)."""
    fn, args = CASES[name]
    with pytest.raises(tosa_custom.CompileError, match="which no TOSA profile or extension has|and no TOSA profile "
                       "or extension has it: keeping ops as tosa.custom cannot help") as info:
        tosa_custom.compile(Fn(fn), args, backend_legal_ops=["*"], strict=True)
    assert info.value.category == "no-tosa-profile" and "tosa_target=None" in str(info.value)


@pytest.mark.parametrize("name", sorted(CASES))
def test_dummy_matches_eager(name):
    fn, args = CASES[name]
    report = tosa_custom.CompileReport()
    module = tosa_custom.compile(Fn(fn), args, backend_legal_ops=["*"], strict=True, report=report,
                                 tosa_target=None if name in F64_BY_DESIGN else "auto")
    assert report.tosa_target or name in F64_BY_DESIGN  # every other dummy output validated
    program = runtime.load(module)
    assert bool(program.custom_ops) != (name in NOTHING_TO_COMPUTE)
    assert set(program.custom_ops) <= set(report.converted)
    assert not report.skipped
    expected = pytree.tree_leaves(Fn(fn)(*args))
    got = pytree.tree_leaves(program(*args))
    assert len(got) == len(expected)
    for g, e in zip(got, expected):
        if not isinstance(e, torch.Tensor):  # a Python number comes back as the same Python type
            assert type(g) is type(e) and g == e, (g, e)
            continue
        assert g.dtype == e.dtype, (g.dtype, e.dtype)
        torch.testing.assert_close(g, e)


def test_report_counts_seen_and_skipped_ops():
    report = tosa_custom.CompileReport()
    module = tosa_custom.compile(Fn(lambda a: torch.tanh(a) + 1), (torch.randn(2, 3),),
                                 backend_legal_ops=["aten.tanh"], report=report)
    assert report.export_mode == "non-strict"
    assert report.ops_seen == {"torch.aten.tanh": 1, "torch.aten.add.Scalar": 1}
    assert report.converted == {"torch.aten.tanh": 1}
    assert runtime.load(module).custom_ops == ["torch.aten.tanh"]


def test_export_auto_retries_non_strict_and_reports_why():
    def breaks_graph(x):
        torch._dynamo.graph_break()  # strict export refuses it; non-strict traces through
        return x * 2

    report = tosa_custom.CompileReport()
    module = tosa_custom.compile(Fn(breaks_graph), (torch.randn(3),), backend_legal_ops=["*"],
                                 export_strict="auto", report=report)
    assert report.export_mode == "non-strict"
    assert "graph_break" in report.export_strict_error
    x = torch.randn(3)
    torch.testing.assert_close(runtime.load(module)(x), x * 2)
    strict = tosa_custom.CompileReport()
    tosa_custom.compile(Fn(torch.neg), (torch.randn(3),), export_strict="auto", report=strict)
    assert (strict.export_mode, strict.export_strict_error) == ("strict", "")


def test_export_strict_bad_value():
    with pytest.raises(ValueError, match="export_strict must be True, False or 'auto'"):
        tosa_custom.compile(Fn(torch.neg), (torch.randn(3),), export_strict="maybe")


def test_a_float_the_trace_fixed_validates():
    """0.5 is exact in f32, so its 0-d result is f32, not f64 (CONTRACT.md 13.2): the output validates."""
    fn, args = CASES["constant_numbers_out"]
    report = tosa_custom.CompileReport()
    tosa_custom.compile(Fn(fn), args, backend_legal_ops=["*"], strict=True, report=report)
    assert report.tosa_target.startswith("profiles=pro_fp")
