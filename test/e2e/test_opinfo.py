"""The OpInfo suite (tosa_custom.e2e.opinfo): how samples become cases, and
CI's quick slice of it through the real audit CLI in stock and dummy modes.

The full suite is the audit's job (`tosa-custom-audit --suite opinfo`); the
slice crosses each kind of outcome once: ops stock lowers, ops it cannot
lower (expected failures that dummy mode fixes), int64 and a random op.
"""

import math
import re
from pathlib import Path

import pytest
import torch

pytest.importorskip("expecttest", reason="the OpInfo database needs expecttest (pip install -e '.[test]')")

from tosa_custom.e2e import opinfo, opinfo_expectations  # noqa: E402
from tosa_custom.e2e.registry import MODES, NAME_PATTERN, get_case  # noqa: E402
from tosa_custom.tosa.wrong_lowerings import WRONG_LOWERINGS, WrongLowering  # noqa: E402

# op ids of the slice, each with what it stands for: every kind of outcome
# once, in stock and dummy mode, in about a minute (the audit loads only
# these entries of op_db: --opinfo-ops).
SLICE = {
    "add": "binary op with alpha, both dtypes, lowered by stock",
    "acos": "no TOSA lowering in torch-mlir: xfail in stock, passes in dummy",
    "logcumsumexp": "a wrong lowering (tosa_custom.wrong_lowerings): xfail in stock, passes in dummy",
    "nn.functional.relu": "int64 not lowered by stock, float32 is",
    "nn.functional.dropout2d": "a seeded random op, compared by statistics",
    "zeros": "a factory: its samples are not cases, the report says why",
}


def test_spec_round_trip_and_errors():
    text = opinfo.spec(("float32", "int64"), 2, "^add$")
    assert opinfo.is_spec(text) and not opinfo.is_spec("/some/file.py")
    assert opinfo.parse_spec(text) == (("float32", "int64"), 2, "^add$")
    with pytest.raises(ValueError, match="not a torch dtype"):
        opinfo.parse_spec(opinfo.spec(("float32", "floaty")))
    with pytest.raises(ValueError, match="samples"):
        opinfo.parse_spec(opinfo.spec(("float32",), 0))


def test_every_sample_and_every_dtype_can_be_asked_for():
    text = opinfo.spec(opinfo.ALL_DTYPES, "all", "^abs$")
    assert opinfo.parse_spec(text) == (opinfo.ALL_DTYPES, None, "^abs$")
    assert opinfo.parse_samples("all") is None and opinfo.parse_samples("3") == 3
    with pytest.raises(ValueError, match="number >= 1 or 'all'"):
        opinfo.parse_samples("some")


def test_samples_all_registers_each_sample_of_the_op():
    """Every sample OpInfo generates is a case or a skip with its reason, at each dtype asked for."""
    text = opinfo.spec(("float32", "bool"), None, "^nn.functional.relu$")
    names = [c.name for c in opinfo.load(text)]
    op = opinfo._op_db()["nn.functional.relu"]
    for dtype in (torch.float32, torch.bool):
        count = len(list(op.sample_inputs("cpu", dtype))) if dtype in op.supported_dtypes("cpu") else 0
        dname = str(dtype).replace("torch.", "")
        ran = [n for n in names if n.endswith(tuple(f"_{dname}_{i}" for i in range(count)))]
        left_out = [s for s in opinfo.skipped(text) if s.dtype == dname]
        assert len(ran) + len(left_out) == count
    assert len(names) > 2  # more than the first sample


def test_samples_are_made_without_walking_the_stack(monkeypatch):
    """OpInfo's sample iterator looks for a unittest on the Python stack, about
    half of loading every sample; outside a test it finds none, so the load skips it."""
    import inspect

    walks = []
    real = inspect.stack
    monkeypatch.setattr(inspect, "stack", lambda *a: walks.append(1) or real(*a))
    op = opinfo._op_db()["nn.functional.relu"]
    opinfo._SAMPLE_CACHE.pop((opinfo.op_id(op), torch.int32), None)
    assert len(opinfo._samples(op, torch.int32, None)) > 1
    assert walks == []
    list(op.sample_inputs("cpu", torch.int32))
    assert walks  # what the load avoids


def test_a_load_narrowed_to_pairs_makes_the_same_cases_in_a_fresh_process():
    """What an audit worker does for a shard: load only the (op, dtype) pairs
    of its cases, and get each under the same name with the same sample."""
    import subprocess
    import sys

    text = opinfo.spec(("float32", "int32", "bool"), None, "^(abs|nn.functional.relu|logical_not)$")
    full = [c.name for c in opinfo.load(text)]
    wanted = full[1::3]
    pairs = opinfo.pairs_of(wanted + ["NotAnOpInfoCase"])
    assert pairs == {(opinfo.sample_of(n).op, opinfo.sample_of(n).dtype) for n in wanted}

    def digest(name):
        return repr([float(t.double().sum()) for t in get_case(name).inputs()])

    program = (f"from tosa_custom.e2e import opinfo\n"
               f"for c in opinfo.load({text!r}, frozenset({sorted(pairs)!r})):\n"
               f"    print(c.name, repr([float(t.double().sum()) for t in c.inputs()]))\n")
    out = subprocess.run([sys.executable, "-c", program], capture_output=True, text=True, check=True).stdout
    narrowed = dict(line.split(" ", 1) for line in out.splitlines())
    expected = [n for n in full if (opinfo.sample_of(n).op, opinfo.sample_of(n).dtype) in pairs]
    assert list(narrowed) == expected and len(expected) < len(full)
    assert {n: digest(n) for n in expected} == narrowed


def test_case_names_are_well_formed_and_distinct():
    names = [opinfo.case_name(op, "float32", 0) for op in ("__rsub__", "rsub", "T", "t", "max.reduction_with_dim")]
    assert len(set(names)) == len(names), names
    assert all(NAME_PATTERN.match(n) for n in names), names
    assert names[-1] == "OpInfoModule_max_reduction_with_dim_float32_0"


class _FakeOp:
    def __init__(self, decorators):
        self.decorators = decorators


def test_declared_tolerance_takes_cpu_overrides_for_the_dtype():
    from torch.testing._internal.common_device_type import tol, toleranceOverride
    from torch.testing._internal.opinfo.core import DecorateInfo

    loose = DecorateInfo(toleranceOverride({torch.float32: tol(atol=1e-3, rtol=2e-4)}), "TestCommon", "test_x",
                         device_type="cpu")
    cuda_only = DecorateInfo(toleranceOverride({torch.float32: tol(atol=1.0, rtol=1.0)}), "TestCommon", "test_y",
                             device_type="cuda")
    op = _FakeOp([loose, cuda_only])
    assert opinfo.declared_tolerance(op, torch.float32) == (2e-4, 1e-3)
    assert opinfo.declared_tolerance(op, torch.int64) is None
    assert opinfo.declared_tolerance(_FakeOp([]), torch.float32) is None


def test_tolerance_follows_the_result_dtype():
    """Exact for integer results; an int64 sample with a float result (atan) is compared as floats are."""
    from torch.testing._internal.common_methods_invocations import op_db

    def tol_of(name, dtype):
        op = next(o for o in op_db if o.name == name and not o.variant_test_name)
        sample = opinfo._samples(op, dtype, 1)[0]
        return opinfo.tolerance(op, dtype, opinfo.SampleModule(op.op, sample), sample)

    assert tol_of("add", torch.int64) == (0.0, 0.0)
    assert tol_of("atan", torch.int64) == (1e-5, 1e-5)
    assert tol_of("add", torch.float32) == (1e-5, 1e-5)
    # Half types: one rounding of the dtype, as torch.testing.assert_close holds them (not float32's 1e-5).
    assert tol_of("add", torch.float16) == (1e-3, 1e-5)
    assert tol_of("add", torch.bfloat16) == (0.016, 1e-5)
    # Declared tolerances loosen, never tighten: matmul's float32 atol=0 is for one kernel against itself.
    assert tol_of("matmul", torch.float32) == (1e-5, 1e-5)


def test_sample_module_calls_the_op_with_the_sample():
    from torch.testing._internal.common_methods_invocations import op_db

    op = next(o for o in op_db if o.name == "add" and not o.variant_test_name)
    for sample in opinfo._samples(op, torch.float32, 3):
        module = opinfo.SampleModule(op.op, sample)
        expected = op.op(sample.input, *sample.args, **sample.kwargs)
        torch.testing.assert_close(module(*opinfo.SampleModule.tensors(sample)), expected)


def test_expectations_most_specific_selector_wins(monkeypatch):
    wrong = WrongLowering("torch.aten.fake", (), "off by three", "fake/int64/1", 3.0)
    monkeypatch.setattr(opinfo_expectations, "WRONG_LOWERINGS", (wrong,))
    monkeypatch.setattr(opinfo_expectations, "XFAIL", {"stock": {"fake": "op-wide"}, "dummy": {"fake/float32": "f32"}})
    assert opinfo_expectations.expected_failures("fake", "float32", 0) == {"stock": "op-wide", "dummy": "f32"}
    derived = opinfo_expectations.expected_failures("fake", "int64", 1)  # the sample beats the op-wide entry
    assert derived == {"stock": opinfo_expectations.wrong_lowering_reason(wrong)}
    assert derived["stock"].startswith("wrong-lowering") and "torch.aten.fake" in derived["stock"]


def test_table_is_well_formed():
    """Every mode is a real one, every reason starts with a category and says
    more, every op exists, and no entry duplicates a derived one."""
    from torch.testing._internal.common_methods_invocations import op_db

    from tosa_custom.e2e.categories import CATEGORIES

    ids = {opinfo.op_id(op) for op in op_db}
    assert set(opinfo_expectations.XFAIL) <= set(MODES)
    for mode, table in opinfo_expectations.XFAIL.items():
        for selector, reason in table.items():
            assert selector.split("/")[0] in ids, (mode, selector)
            category = reason.split(":")[0].split(" (")[0]
            assert category in CATEGORIES and len(reason) > len(category) + 20, (mode, selector, reason)
            assert "loc(" not in reason and ".py:" not in reason, (mode, selector)  # a cause, not a location
    for mode, table in opinfo_expectations.derived().items():
        assert not set(table) & set(opinfo_expectations.XFAIL.get(mode, {})), mode


def test_every_wrong_lowering_names_a_sample_of_the_suite():
    """auto mode trusts each entry; its sample is the evidence, so it must
    be a case the suite runs (and, in stock, expects to fail as a wrong lowering)."""
    e2e_sources = "".join(p.read_text() for p in (Path(__file__).parents[2] / "e2e").glob("*.py"))
    for w in WRONG_LOWERINGS:
        assert w.op.startswith("torch.") and w.detail and (w.max_diff > 0 or math.isnan(w.max_diff)), w
        if w.sample.startswith("e2e:"):  # an e2e case, declared (with its xfail) in e2e/
            assert f"def {w.sample[4:]}(" in e2e_sources, w
            continue
        op, dtype, index = w.sample.split("/")
        text = opinfo.spec((dtype,), int(index) + 1, "^" + re.escape(op) + "$")
        names = {c.name: c for c in opinfo.load(text)}
        case = names.get(opinfo.case_name(op, dtype, int(index)))
        assert case is not None, w
        assert case.expected_failure("stock").startswith("wrong-lowering"), w


def test_find_matches_name_and_dtype_of_the_first_tensor_operand():
    from torch_mlir import ir

    from tosa_custom.core import ir as _ir
    from tosa_custom.tosa.wrong_lowerings import find

    text = """func.func @f(%a: !torch.vtensor<[5],f32>, %b: !torch.vtensor<[5],si64>) -> !torch.vtensor<[5],f32> {
      %int0 = torch.constant.int 0
      %0 = torch.aten.logcumsumexp %a, %int0 : !torch.vtensor<[5],f32>, !torch.int -> !torch.vtensor<[5],f32>
      %1 = torch.aten.cumsum %a, %int0, %int0 : !torch.vtensor<[5],f32>, !torch.int, !torch.int -> !torch.vtensor<[5],f32>
      return %0 : !torch.vtensor<[5],f32>
    }"""
    with _ir.make_context():
        module = ir.Module.parse(text)
    ops = {op.operation.name: op for op in module.body.operations[0].regions[0].blocks[0].operations}
    assert find(ops["torch.aten.logcumsumexp"]).sample == "logcumsumexp/float32/0"
    assert find(ops["torch.aten.cumsum"]) is None and find(ops["torch.constant.int"]) is None
    only_i64 = WrongLowering("torch.aten.logcumsumexp", ("si64",), "x", "logcumsumexp/float32/0", 1.0)
    assert not only_i64.matches("torch.aten.logcumsumexp", "f32") and only_i64.matches("torch.aten.logcumsumexp", "si64")


def test_load_registers_cases_and_states_skips():
    text = opinfo.spec(("float32", "int64"), 2, "^(add|nn.functional.dropout2d|zeros|empty_like|bernoulli)$")
    by_name = {c.name: c for c in opinfo.load(text)}
    assert opinfo.load(text) and len(opinfo.load(text)) == len(by_name)  # once per process
    assert {"OpInfoModule_add_float32_0", "OpInfoModule_add_float32_1", "OpInfoModule_add_int64_0"} <= set(by_name)
    assert by_name["OpInfoModule_add_int64_0"].rtol == 0 and by_name["OpInfoModule_add_int64_0"].atol == 0
    assert by_name["OpInfoModule_add_float32_0"].selective_ops == ("aten.add",)
    assert by_name["OpInfoModule_nn_functional_dropout2d_float32_0"].compare == "statistics"
    reasons = {(s.op, s.dtype): s.reason for s in opinfo.skipped(text)}
    assert "factory" in reasons[("zeros", "float32")]
    assert "uninitialized" in reasons[("empty_like", "float32")]
    assert "statistics" in reasons[("bernoulli", "float32")]  # too few values to compare
    assert opinfo.sample_of("OpInfoModule_add_float32_1") == opinfo.OpInfoSample("add", "float32", 1)


@pytest.mark.parametrize("mode", ["stock", "dummy"])
def test_quick_slice(mode, audit):
    ops = "^(" + "|".join(map(re.escape, SLICE)) + ")$"
    run = audit("--suite", "opinfo", "--opinfo-ops", ops, "--mode", mode, "-j", "2", "--timeout", "300")
    assert run.summary is not None, run.stderr[-2000:]
    cases = {c["name"]: c for c in run.summary["cases"]}
    missing = [op for op in SLICE if op != "zeros"
               and not any(opinfo.case_name(op, d, 0) in cases for d in ("float32", "int64"))]
    assert not missing, missing  # every op of the slice ran
    assert set(run.summary["by_family"]) == {"opinfo-float32", "opinfo-int64"}
    unexpected = {n: f"{c['status']} [{c['category']}] {c['message'][:300]}"
                  for n, c in cases.items() if c["status"] not in ("pass", "xfail")}
    assert run.returncode == 0 and not unexpected, unexpected
    acos, wrong = cases["OpInfoModule_acos_float32_0"], cases["OpInfoModule_logcumsumexp_float32_0"]
    if mode == "stock":
        assert acos["status"] == "xfail" and acos["category"] == "lowering-failed", acos
        assert acos["failing_ops"] == ["torch.aten.acos"]
        assert wrong["status"] == "xfail" and wrong["category"] == "numeric-mismatch", wrong
        assert wrong["xfail_reason"].startswith("wrong-lowering"), wrong
    else:
        assert acos["status"] == "pass" and acos["converted"], acos
        assert wrong["status"] == "pass" and "torch.aten.logcumsumexp" in wrong["converted"], wrong
    add = cases["OpInfoModule_add_float32_0"]
    assert add["status"] == "pass" and add["export_mode"] == "non-strict" and not add["export_strict_error"]
    skipped = {(s["op"], s["dtype"]): s["reason"] for s in run.summary["skipped_samples"]}
    assert "factory" in skipped[("zeros", "float32")], skipped
    assert "Samples not run" in (run.report / "audit.md").read_text()


def test_report_lists_samples_not_run_with_reasons():
    from tosa_custom.e2e import report, report_html
    from tosa_custom.e2e.audit import AuditRun

    text = opinfo.spec(("float32",), 1, "^(zeros|add)$")
    results = []  # what ran does not matter: the samples left out are the suite's
    summary = report.build(AuditRun("stock", None, results, 1.0, 1, 60.0, [text]))
    assert summary["skipped_samples"] == [
        {"op": "zeros", "dtype": "float32", "index": 0,
         "reason": "no tensor argument (a factory call): nothing for the program to take as input"}]
    assert "not run: 1 OpInfo samples" in report.text_summary(summary)
    assert "| `zeros/float32/0` | no tensor argument" in report.to_markdown(summary)
    assert "zeros/float32/0" in report_html.to_html(summary)
    filtered = report.build(AuditRun("stock", None, results, 1.0, 1, 60.0, [text], filter="add"))
    assert filtered["skipped_samples"] == []


def test_no_reviewed_expectation_is_a_crash():
    """A crash is a defect to fix (a check before the crashing pass), never
    an expected failure: the table says why a case fails, not that it dies."""
    crashes = [(mode, selector) for mode, table in opinfo_expectations.XFAIL.items()
               for selector, reason in table.items() if reason.startswith("crash")]
    assert crashes == []
