"""compile(tosa_target=...): the output is declared for a TOSA target and validated against it.

The example block and a 2-layer BERT validate for pro_fp in stock and
selective mode (after the narrowing passes of narrow.py); what cannot be made
conformant fails with category "not-conformant", naming every op, its rule,
the torch op it came from and the fixes.
"""

from __future__ import annotations

import os
import re

os.environ["HF_HUB_OFFLINE"] = "1"
os.environ["TRANSFORMERS_OFFLINE"] = "1"

import pytest
import torch

import tosa_custom
from tosa_custom.e2e import Fn
from tosa_custom.tools.example import KEPT_OPS, TransformerBlock
from tosa_custom.tosa.target import TosaTarget, parse_target
from _models import small_bert
from _compile import compile_with_report

PRO_FP = "profiles=pro_fp level=8k specification_version=1.0"


def _bert():
    model, ids = small_bert()
    return model, (ids, torch.ones(2, 8, dtype=torch.int64))


@pytest.mark.parametrize("ops", [None, KEPT_OPS], ids=["stock", "selective"])
def test_example_block_validates_for_pro_fp(ops):
    torch.manual_seed(0)
    module, report = compile_with_report(TransformerBlock(dim=32, heads=4).eval(), (torch.randn(2, 8, 32),),
                              backend_legal_ops=ops)
    assert report.tosa_target == PRO_FP
    assert str(module.operation.attributes["tosa_custom.tosa_target"]) == f'"{PRO_FP}"'
    assert "tosa.target_env" not in module.operation.attributes  # MLIR could not read it back (CONTRACT.md 13.1)
    assert "f64" not in module.operation.get_asm(large_elements_limit=4)


@pytest.mark.parametrize("ops", [None, ["aten.layer_norm", "aten.softmax.int", "aten.gelu"]],
                         ids=["stock", "selective"])
def test_bert_validates_strictly_with_its_int64_inputs_carried_as_int32(ops):
    """Strictly, TOSA 1.0 has no 64-bit integer: the input ids and mask travel
    as int32 (tosa-custom-narrow-i64-values). pro_fp moves and compares floats
    only, so the ids, positions and masks are then computed in f32
    (tosa-custom-integers-in-float): pro_fp alone. The program still takes
    int64, as the model does, and refuses values int32 cannot hold, or f32
    cannot hold exactly."""
    model, args = _bert()
    module, report = compile_with_report(model, args, backend_legal_ops=ops)
    assert report.tosa_target == PRO_FP
    text = module.operation.get_asm(large_elements_limit=4)
    assert "f64" not in text and "xi64>" not in text
    assert text.count('tosa_custom.dtype = "int64"') == 2  # both inputs
    assert text.count("tosa_custom.range = array<i64: -16777216, 16777216>") == 2
    program = tosa_custom.runtime.load(module)
    with torch.no_grad():
        torch.testing.assert_close(program(*args), model(*args), rtol=1e-5, atol=1e-5)
    big = args[0].clone()
    big[0, 0] = 2 ** 40
    with pytest.raises(ValueError, match=r"input #0 holds values outside -16777216 to 16777216 \(\d+ to 1099511627776\)"):
        program(big, args[1])
    big[0, 0] = 2 ** 24 + 1  # within int32, not within f32's integers
    with pytest.raises(ValueError, match=r"input #0 holds values outside -16777216 to 16777216 .*float32"):
        program(big, args[1])
    with pytest.raises(ValueError, match="input #1 is float32; expected int64"):
        program(args[0], args[1].float())


def test_bert_for_pro_int_keeps_its_positions_in_i32():
    """A target with pro_int computes the positions and masks in i32, as
    torch-mlir made them, and assumes nothing of the inputs beyond int32."""
    model, args = _bert()
    target = "profiles=pro_int,pro_fp level=8k specification_version=1.0"
    module, report = compile_with_report(model, args, tosa_target=target)
    assert report.tosa_target == target
    text = module.operation.get_asm(large_elements_limit=4)
    assert "tosa_custom.range" not in text and "tosa.greater" in text and re.search(r"tosa.reshape .*xi32>", text)
    with torch.no_grad():
        torch.testing.assert_close(tosa_custom.runtime.load(module)(*args), model(*args), rtol=1e-5, atol=1e-5)


def test_float_program_declared_pro_int_is_refused():
    """Strict alignment: a float Linear is not pro_int (without it, MLIR's
    validator accepted it): each op is named with its rule and the fixes."""
    with pytest.raises(tosa_custom.CompileError) as info:
        compile_with_report(torch.nn.Linear(4, 3), (torch.randn(2, 4),), tosa_target="profiles=pro_int")
    e, text = info.value, str(info.value)
    assert e.category == "not-conformant" and "tosa.matmul" in e.ops
    assert "does not conform to the target (profiles=pro_int level=8k specification_version=1.0)" in text
    assert "'tosa.matmul' op illegal: requires any of [pro_fp]" in text
    for fix in ("backend_legal_ops", "tosa_target=", "tosa_target=None"):
        assert fix in text


class _F64(torch.nn.Module):
    def forward(self, x):
        return (x.double() * 3).sum(-1)


def test_f64_result_is_said_before_lowering():
    """No profile has f64 and no narrowing touches a result: said first, by
    name, with fixes that help (test/frontend/test_boundary_types.py has the rest)."""
    with pytest.raises(tosa_custom.CompileError) as info:
        compile_with_report(_F64(), (torch.randn(2, 3),))
    assert info.value.category == "no-tosa-profile" and "  result 0: float64" in str(info.value)


class _AddBig(torch.nn.Module):
    def forward(self, x):
        return x + 2 ** 40


def test_not_conformant_names_every_op_rule_location_and_fix():
    """int64 arithmetic of unknown range, declared TOSA 1.0: every
    rejected op with its rule, its location in the model's source, the
    torch op and the fixes."""
    with pytest.raises(tosa_custom.CompileError) as info:
        compile_with_report(_AddBig(), (torch.randint(0, 9, (2, 5)),), tosa_target="profiles=pro_int")
    e = info.value
    text = str(e)
    assert e.category == "not-conformant" and "tosa.add" in e.ops
    assert "does not conform to the target (profiles=pro_int level=8k specification_version=1.0)" in text
    assert "'tosa.add' op illegal: requires specification version compatible with 1.1.draft" in text
    assert "test_target.py:" in text  # each op's location, in the model's source
    assert "lowered from torch.aten.add" in text
    for fix in ("backend_legal_ops", "tosa_target=", "tosa_target=None"):
        assert fix in text


def test_auto_moves_what_cannot_narrow_to_the_draft_with_ext_int64():
    """The smallest target such a program strictly validates for: the 1.1
    draft with EXT-INT64 (a backend on TOSA 1.0 keeps the op, or declares 1.0
    and gets the error above)."""
    x = torch.randint(0, 9, (2, 5))
    module, report = compile_with_report(Fn(lambda x: x + 2 ** 40), (x,))
    assert report.tosa_target == "profiles=pro_int extensions=int64 level=8k specification_version=1.1.draft"
    assert torch.equal(tosa_custom.runtime.load(module)(x), x + 2 ** 40)


def test_none_skips_the_check_and_attaches_no_target():
    module, report = compile_with_report(_F64(), (torch.randn(2, 3),), tosa_target=None)
    assert report.tosa_target == ""
    assert "tosa_custom.tosa_target" not in module.operation.attributes


class _Gather(torch.nn.Module):
    def forward(self, table, index):
        return torch.gather(table, 1, index)


def test_int64_gather_of_an_input_table_is_named():
    """The gathered table is int64 the model returns: eager's whole range is
    kept (no narrowing), and no TOSA target has TorchToTosa's gather of i64
    by i32 indices (EXT-INT64 gathers by i64): named, with its source."""
    args = (torch.randint(0, 9, (2, 5)), torch.randint(0, 5, (2, 3)))
    with pytest.raises(tosa_custom.CompileError) as info:
        compile_with_report(_Gather(), args)
    assert info.value.category == "not-conformant" and info.value.ops == ("tosa.gather",)
    assert "got (i64,i32,i64), did you mean (i64,i64,i64)" in str(info.value)
    assert "lowered from torch.aten.gather" in str(info.value)
    # Kept as tosa.custom, the gather is the backend's business.
    module, report = compile_with_report(_Gather(), args, backend_legal_ops=["aten.gather"])
    assert report.tosa_target.startswith("profiles=pro_int")
    assert torch.equal(tosa_custom.runtime.load(module)(*args), torch.gather(args[0], 1, args[1]))


def test_bf16_model_needs_the_bf16_extension():
    model = torch.nn.Linear(8, 4).to(torch.bfloat16)
    _, report = compile_with_report(model, (torch.randn(2, 8, dtype=torch.bfloat16),))
    assert report.tosa_target == "profiles=pro_fp extensions=bf16 level=8k specification_version=1.0"


def test_float_model_with_int16_tensors_gets_pro_int_for_the_int16_extension():
    """EXT-INT16 extends pro_int: tosa-validate refuses it under pro_fp alone."""
    module, report = compile_with_report(Fn(lambda x, y: (x * 2, y.to(torch.int16))),
                              (torch.randn(2, 3), torch.randint(-9, 9, (2, 3), dtype=torch.int32)))
    assert report.tosa_target == "profiles=pro_int,pro_fp extensions=int16 level=8k specification_version=1.0"


def test_small_integer_arithmetic_and_positions_validate_after_the_rewrites():
    """int8 wraparound (widen-int-arithmetic), an arange cast to float
    (narrow-i64-casts) and a Python float result (narrow-f64) all validate
    and compute what eager does."""
    a, b = torch.tensor([100, -100, 7], dtype=torch.int8), torch.tensor([100, -100, 9], dtype=torch.int8)
    module, _ = compile_with_report(Fn(lambda a, b: a + b), (a, b))
    assert torch.equal(tosa_custom.runtime.load(module)(a, b), a + b)
    x = torch.randn(2, 4)
    module, report = compile_with_report(Fn(lambda x: (x + torch.arange(4.0), x.shape[1] / 8)), (x,))
    assert report.tosa_target == PRO_FP
    y, half = tosa_custom.runtime.load(module)(x)
    assert torch.allclose(y, x + torch.arange(4.0)) and half == 0.5 and type(half) is float


@pytest.mark.parametrize("spec", [
    "profiles=pro_fp extensions=bf16",
    "tosa-attach-target{profiles=pro_fp extensions=bf16}",
    {"profiles": ["pro_fp"], "extensions": ["bf16"]},
    TosaTarget(profiles=("pro_fp",), extensions=("bf16",)),
])
def test_target_forms(spec):
    assert parse_target(spec) == TosaTarget(("pro_fp",), ("bf16",), "8k", "1.0")
    assert parse_target(spec).pipeline() == [
        "tosa-attach-target{profiles=pro_fp extensions=bf16 level=8k specification_version=1.0}",
        "tosa-validate{strict-op-spec-alignment=true}",
        "tosa-custom-record-target"]


@pytest.mark.parametrize("spec,message", [
    ("profiles=pro_float", "unknown profile 'pro_float'"),
    ("profiles=pro_fp extensions=bf61", "unknown extension 'bf61'"),
    ("level=9k", "level must be one of 8k, none"),
    ("colour=blue", "cannot read 'colour=blue'"),
    ({"profile": "pro_fp"}, "unknown key(s) profile"),
])
def test_bad_targets_are_refused_before_compiling(spec, message):
    with pytest.raises(ValueError, match=message.replace("(", r"\(").replace(")", r"\)")):
        tosa_custom.compile(torch.nn.ReLU(), (torch.randn(2),), tosa_target=spec)


def test_verbose_pipeline_ends_with_the_target(capsys):
    compile_with_report(torch.nn.Linear(4, 4), (torch.randn(2, 4),), verbose=True)
    pipeline = capsys.readouterr().out.split("==== pipeline")[1].splitlines()[1]
    assert pipeline.endswith(
        f"tosa-custom-verify-tosa, tosa-attach-target{{{PRO_FP}}}, tosa-validate{{strict-op-spec-alignment=true}}, "
        "tosa-custom-record-target)")


def test_the_fitted_target_is_validated_once(monkeypatch):
    """tosa_target="auto" (the default) validates while it fits the target;
    the module as fitted is not validated again (most of a small model's
    compile passes), while the recorded pipeline still validates on replay.
    A module no target takes is still refused by the final validation."""
    from tosa_custom.core import passes

    build, runs = passes.build_pass_manager, []

    def counting(elements, *args, **kwargs):
        elements = passes.split_pipeline(elements) if isinstance(elements, str) else elements
        runs.extend(e for e in elements if e.startswith("tosa-validate"))
        return build(elements, *args, **kwargs)

    monkeypatch.setattr(passes, "build_pass_manager", counting)
    module, report = compile_with_report(torch.nn.Linear(4, 4), (torch.randn(2, 4),))
    assert report.tosa_target == PRO_FP and len(runs) == 1, runs
    runs.clear()
    _, report = compile_with_report(Fn(lambda x: x + 2 ** 40), (torch.randint(0, 9, (2, 5)),))
    assert report.tosa_target.endswith("specification_version=1.1.draft") and len(runs) == 2, runs  # 1.0, the draft
    runs.clear()
    with pytest.raises(tosa_custom.CompileError) as info:  # rank 8: over level 8k's MAX_RANK, whatever the profile
        compile_with_report(Fn(lambda x: x.reshape(1, 1, 1, 1, 1, 2, 3, 4) + 1), (torch.randn(24),))
    assert info.value.category == "not-conformant" and "level=8k" in str(info.value)
    assert len(runs) == 2, runs  # fitting, then the final validation that says why
