"""CI's fuzz budget: a short run of every target through the real supervisor
(worker process, crash and hang detection) must find zero defects; the
supervisor must count an abort, a segfault and a hang instead of dying; and
the generators run under hypothesis in-process too.

FUZZ_CASES / FUZZ_SEED make the run longer or different (`python -m fuzz`
is the long-run entry point).
"""

from __future__ import annotations

import json
import os

import pytest
from hypothesis import HealthCheck, given, settings

from fuzz import supervisor
from fuzz.outcome import DEFECT_KINDS, Defect
from fuzz.targets import DEFAULT_TARGETS, load_target

CASES = int(os.environ.get("FUZZ_CASES", "40"))
SEED = int(os.environ.get("FUZZ_SEED", "0"))


def test_short_run_of_every_target_has_no_defects(tmp_path):
    stats = supervisor.run(list(DEFAULT_TARGETS), CASES, seed=SEED, timeout=60, findings_dir=str(tmp_path))
    table = supervisor.format_table(stats)
    print(table)
    for s in stats:
        assert s.tried == CASES
        assert s.correct + s.clean + s.defect_count == s.tried
        details = [json.load(open(f))["detail"][:3000] for f in s.findings]
        assert s.defect_count == 0, f"{s.target}:\n{table}\n" + "\n\n".join(details)
        assert s.correct > 0 and s.clean > 0, f"{s.target} exercises only one outcome:\n{table}"


def test_supervisor_counts_crashes_and_hangs_and_carries_on(tmp_path):
    sup = supervisor.Supervisor(timeout=5, findings_dir=str(tmp_path))
    try:
        outcomes = [sup.run_case("selftest", 0, i, {"action": a})[:1] for i, a in
                    enumerate(["correct", "abort", "correct", "segfault", "hang", "exit", "bare-exception",
                               "wrong", "clean"])]
    finally:
        sup.close()
    assert [o[0] for o in outcomes] == ["correct", "crash", "correct", "crash", "hang", "crash", "exception",
                                        "wrong", "clean"]


def test_defects_are_saved_with_their_reproducer(tmp_path):
    stats = supervisor.run(["selftest"], 16, seed=1, timeout=5, findings_dir=str(tmp_path))[0]
    assert stats.defect_count == len(stats.findings) == len(os.listdir(tmp_path))
    for path in stats.findings:
        record = json.load(open(path))
        assert record["kind"] in DEFECT_KINDS and record["case"]["action"] not in ("correct", "clean")
        if record["case"]["action"] == "abort":
            assert "SIGABRT" in record["detail"] and "Fatal Python error" in record["detail"]


def _run_in_process(target: str, case):
    try:
        load_target(target).check(case)
    except Defect as d:
        pytest.fail(f"{d.kind}: {d.detail[:3000]}\ncase: {case!r}"[:6000])


@settings(max_examples=30, deadline=None, suppress_health_check=list(HealthCheck))
@given(case=load_target("decode").strategy())
def test_decode_hypothesis(case):
    _run_in_process("decode", case)


@settings(max_examples=15, deadline=None, suppress_health_check=list(HealthCheck))
@given(case=load_target("opt").strategy())
def test_opt_hypothesis(case):
    _run_in_process("opt", case)


@settings(max_examples=20, deadline=None, suppress_health_check=list(HealthCheck))
@given(case=load_target("pass").strategy())
def test_pass_hypothesis(case):
    _run_in_process("pass", case)


_PASS = load_target("pass")


@settings(max_examples=20, deadline=None, suppress_health_check=list(HealthCheck))
@given(case=_PASS.inplace_strategy_().map(_PASS._emit_inplace))
def test_pass_inplace_hypothesis(case):
    _run_in_process("pass", case)


def _add_inplace_case(**overrides):
    """add_.Tensor with its operands through torch.copy.to_tensor and a gelu beside it."""
    from _emit import T  # test/contract, on the path once fuzz is imported

    case = {"kind": "inplace", "op": "torch.aten.add_.Tensor", "values": "", "text": None,
            "style": {"form": "auto", "derefine": False, "scalar_as_number": False}, "form": "copy",
            "gelu_beside": True, "encoding": "json", "selection": "SELF,aten.gelu", "strict": False,
            "_values": [T((2, 3), "f32"), T((2, 3), "f32"), 1]}
    return _PASS._emit_inplace({**case, **overrides})


def test_pass_inplace_case_is_the_non_value_ir_torch_mlir_writes():
    case = _add_inplace_case()
    text = case["text"]
    assert "%nv0 = torch.copy.to_tensor %arg0 : !torch.tensor<[2,3],f32>" in text
    assert "torch.aten.add_.Tensor %nv0, %nv1, " in text and "-> !torch.tensor<[2,3],f32>" in text
    assert "torch.copy.to_vtensor %r : !torch.vtensor<[2,3],f32>" in text
    outcome = _PASS.check(case)
    assert (outcome.kind, outcome.detail) == ("correct", "gelu converted beside torch.aten.add_.Tensor [mutating-op]")
    strict = _PASS.check(_add_inplace_case(strict=True, form="copy-returned"))
    assert strict.kind == "clean" and "[mutating-op]" in strict.detail


def test_pass_inplace_oracle_flags_a_converted_mutating_op(monkeypatch):
    """The check can fail: a pass that took the in-place op's schema as it is."""
    from tosa_custom.contract import encoding as contract
    from tosa_custom.tunnel import conversion
    from tosa_custom.core import schema

    def unchecked(identifier):
        overload = schema.overload_for(identifier)
        return overload, tuple((a, contract.arg_type(a.real_type)) for a in overload._schema.arguments)

    monkeypatch.setattr(conversion, "_signature", unchecked)
    value_types = _add_inplace_case(form="value", style={"form": "operator", "derefine": False,
                                                         "scalar_as_number": False})
    with pytest.raises(Defect, match="the mutating op torch.aten.add_.Tensor became a tosa.custom"):
        _PASS.check(value_types)
    with pytest.raises(Defect, match=r"skipped as \['unsupported-tensor-type'\], not \[mutating-op\]"):
        _PASS.check(_add_inplace_case())


def test_pass_inplace_ops_include_the_named_in_place_and_out_overloads():
    names = {str(o) for o in _PASS.inplace_ops()}
    assert {"aten.add_.Tensor", "aten.copy_.default", "aten.fill_.Scalar", "aten.zero_.default",
            "aten.index_put_.default", "aten.add.out", "aten.arange.start_out", "aten.gelu_.default"} <= names
    assert all(o._schema.is_mutable for o in _PASS.inplace_ops())
