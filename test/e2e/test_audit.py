"""tosa-custom-audit on fixture case files: statuses, categories, exit codes,
crash and hang isolation, and the three report files."""

import contextlib
import io
import json
import re
from pathlib import Path

import pytest

FIXTURES = Path(__file__).parent / "fixtures"

OUTCOMES = str(FIXTURES / "cases_outcomes.py")
CRASHES = str(FIXTURES / "cases_crash.py")
CLASH = str(FIXTURES / "cases_clash.py")


def test_dummy_mode_outcomes_and_report(audit):
    run = audit("--mode", "dummy", "--cases", OUTCOMES, "-j", "2", "--timeout", "120")
    # Unexpected results (a failure, an unexpected pass) fail the run, as in lit.
    assert run.returncode == 1, run.stderr
    expected = {
        "AddTensorModule_basic": ("pass", None),
        "AddTensorModule_xpass": ("xpass", None),
        "CountCallsModule_mismatch": ("fail", "numeric-mismatch"),
        "RaisesModule_xfail": ("xfail", "eager-failed"),
        "RaisesModule_eager": ("fail", "eager-failed"),
        "BrokenInputsModule_basic": ("fail", "case-error"),
        "RandLikeModule_statistics": ("pass", None),
    }
    got = {c["name"]: (c["status"], c["category"]) for c in run.summary["cases"]}
    assert got == expected
    assert run.summary["counts"] == {"pass": 2, "fail": 3, "crash": 0, "timeout": 0, "xfail": 1, "xpass": 1}
    assert sorted(run.summary["unexpected"]) == sorted(
        ["AddTensorModule_xpass", "CountCallsModule_mismatch", "RaisesModule_eager", "BrokenInputsModule_basic"]
    )
    assert "Greatest absolute difference" in run.case("CountCallsModule_mismatch")["message"]
    assert "expected to fail in dummy mode" in run.case("AddTensorModule_xpass")["message"]
    # Per-op facts come from compile()'s report: every op is kept in dummy mode.
    assert run.case("AddTensorModule_basic")["converted"] == {"torch.aten.add.Tensor": 1}
    assert run.case("RandLikeModule_statistics")["converted"] == {"torch.aten.rand_like": 1, "torch.aten.add.Tensor": 1}
    add, mul = run.op("torch.aten.add.Tensor"), run.op("torch.aten.mul.Scalar")
    assert (add["status"], add["category"], add["converted_in"]) == ("converted", None, 3)
    # The mismatch is blamed on the one converted op no passing case vouches for.
    assert (mul["status"], mul["category"], mul["first_failing_case"]) == (
        "failing", "numeric-mismatch", "CountCallsModule_mismatch")
    assert run.summary["by_category"]["numeric-mismatch"] == {"cases": 1, "ops": 1}
    # The progress stream names every unexpected result as it happens.
    assert "FAIL: CountCallsModule_mismatch [numeric-mismatch]" in run.stderr
    assert "XPASS: AddTensorModule_xpass" in run.stderr
    assert "unexpected results (4)" in run.stdout

    md = (run.report / "audit.md").read_text()
    assert "| CountCallsModule_mismatch | misc | fail | numeric-mismatch |" in md
    assert re.search(r"\| `torch\.aten\.mul\.Scalar` \| failing \| 1 \| 1 \| numeric-mismatch \| CountCallsModule_mismatch \|", md)
    assert "| numeric-mismatch | comparison |" in md  # the categories table documents every name

    page = (run.report / "audit.html").read_text()
    assert page.startswith("<!DOCTYPE html>")
    assert page.count("<svg") >= 3  # cases by family, ops by family, failing cases by reason
    assert "Cases by family" in page and "Failing cases by reason" in page
    # Self-contained: no script, no stylesheet link, nothing fetched.
    assert not re.search(r"<script|<link|<img|<iframe|\bsrc=|@import|url\(", page, re.I)
    assert "CountCallsModule_mismatch" in page and "torch.aten.rand_like" in page


def test_crash_and_hang_are_recorded_and_the_run_goes_on(audit):
    # One worker: after the abort and after the hang, fresh workers take over.
    run = audit("--mode", "stock", "--cases", CRASHES, "-j", "1", "--timeout", "8")
    assert run.returncode == 1, run.stderr
    got = {c["name"]: (c["status"], c["category"]) for c in run.summary["cases"]}
    assert got == {
        "AbortModule_crash": ("crash", "crash"),
        "SleepModule_hang": ("timeout", "timeout"),
        "AbortModule_xfail": ("xfail", "crash"),
        "BrokenFactoryModule_after": ("fail", "case-error"),
    }
    crash = run.case("AbortModule_crash")["message"]
    assert crash.startswith("worker died with SIGABRT")
    assert "about to abort" in crash and "cases_crash.py" in crash  # its output and faulthandler's stack
    assert "no result after 8 s" in run.case("SleepModule_hang")["message"]
    assert "KeyError: 'factory failed'" in run.case("BrokenFactoryModule_after")["message"]


def test_all_expected_exits_zero_and_selective_mode(audit):
    run = audit("--mode", "selective", "--ops", "aten.add", "--cases", OUTCOMES,
                "--filter", "AddTensorModule_basic|RandLike|RaisesModule_xfail", "-j", "1")
    assert run.returncode == 0, run.stdout + run.stderr
    assert {c["name"]: c["status"] for c in run.summary["cases"]} == {
        "AddTensorModule_basic": "pass", "RaisesModule_xfail": "xfail", "RandLikeModule_statistics": "pass"}
    assert run.summary["meta"]["ops"] == ["aten.add"]
    assert run.op("torch.aten.add.Tensor")["status"] == "converted"
    rand = run.op("torch.aten.rand_like")
    assert (rand["status"], rand["category"], rand["first_failing_case"], rand["first_case"]) == (
        "not-converted", "not-selected", None, "RandLikeModule_statistics")
    assert json.loads((run.report / "audit.json").read_text())["ok"] is True


def test_stock_mode_keeps_nothing(audit):
    run = audit("--mode", "stock", "--cases", OUTCOMES, "--filter", "^AddTensorModule_basic$", "-j", "1")
    assert run.returncode == 0, run.stderr
    case = run.case("AddTensorModule_basic")
    assert (case["status"], case["legal_ops"], case["converted"]) == ("pass", None, {})
    assert case["ops_seen"] == {"torch.aten.add.Tensor": 1}
    assert run.op("torch.aten.add.Tensor")["category"] == "not-selected"


def test_case_name_clash_names_both_files(audit):
    run = audit("--mode", "stock", "--cases", OUTCOMES, "--cases", CLASH, report=False)
    assert run.returncode == 2
    assert "AddTensorModule_basic is declared in" in run.stderr
    assert "cases_outcomes.py" in run.stderr and "cases_clash.py" in run.stderr


def test_usage_errors(audit, tmp_path):
    missing = audit("--mode", "dummy", "--suite", str(tmp_path / "nowhere"), report=False)
    assert missing.returncode == 2 and "pass --suite DIR" in missing.stderr
    ops = audit("--mode", "dummy", "--ops", "aten.add", "--cases", OUTCOMES, report=False)
    assert ops.returncode == 2 and "--ops applies to --mode selective only" in ops.stderr
    nothing = audit("--mode", "dummy", "--cases", OUTCOMES, "--filter", "NoSuchCase", report=False)
    assert nothing.returncode == 2 and "none matches --filter" in nothing.stderr
    typo = audit("--mode", "selective", "--ops", "aten.layer_nrom", "--cases", OUTCOMES, report=False)
    assert typo.returncode == 2 and "--ops: unknown op 'aten.layer_nrom'" in typo.stderr
    assert "did you mean aten.layer_norm," in typo.stderr  # the nearest spelling first


def test_list(audit):
    run = audit("--mode", "stock", "--cases", CRASHES, "--list", "--filter", "Abort", report=False)
    assert run.returncode == 0
    assert [line.split("\t")[0] for line in run.stdout.splitlines()] == ["AbortModule_crash", "AbortModule_xfail"]


CATEGORIES = str(FIXTURES / "cases_categories.py")


def test_runtime_categories_end_to_end_without_the_torch_fallback(audit):
    """no-kernel and kernel-error from real runs; a kernel the case file
    registers is used by the workers."""
    run = audit("--mode", "dummy", "--cases", CATEGORIES, "--filter", "Module_(user_kernel|no_kernel|kernel_error)$",
                "--no-torch-fallback", "-j", "1")
    assert run.returncode == 1, run.stderr
    got = {c["name"]: (c["status"], c["category"]) for c in run.summary["cases"]}
    assert got == {"CoshModule_user_kernel": ("pass", None), "TanModule_no_kernel": ("fail", "no-kernel"),
                   "SinhModule_kernel_error": ("fail", "kernel-error")}
    assert "the generic torch kernel is off" in run.case("TanModule_no_kernel")["message"]
    assert "sinh kernel is broken" in run.case("SinhModule_kernel_error")["message"]
    assert (run.op("torch.aten.tan")["status"], run.op("torch.aten.tan")["category"]) == ("failing", "no-kernel")
    assert run.summary["meta"]["torch_fallback"] is False
    assert "registered ones only" in (run.report / "audit.md").read_text()


def test_export_and_lowering_categories_end_to_end(audit):
    run = audit("--mode", "selective", "--cases", CATEGORIES, "--filter", "Module_(decomposed|reimported)$", "-j", "1")
    got = {c["name"]: (c["status"], c["category"]) for c in run.summary["cases"]}
    assert got == {"BatchNormModule_decomposed": ("fail", "decomposed-before-import"),
                   "AddScalarModule_reimported": ("fail", "rewritten-by-torch-mlir")}
    assert "PyTorch decomposed it" in run.case("BatchNormModule_decomposed")["message"]
    assert "FX importer" in run.case("AddScalarModule_reimported")["message"]
    assert all(c["export_mode"] == "strict" for c in run.summary["cases"])


def test_console_names_each_failure_and_what_was_not_asked_for(audit):
    """Without --report the console still says why each case failed; selective
    mode's unconverted ops are split into not-asked-for and asked-for (it printed "N never")."""
    run = audit("--mode", "selective", "--ops", "aten.add", "--cases", OUTCOMES, "-j", "2", report=False)
    assert run.returncode == 1, run.stderr
    summary = run.stdout[run.stdout.index("unexpected results"):]
    assert re.search(r"  FAIL: CountCallsModule_mismatch \[numeric-mismatch\] .*Greatest absolute difference", summary)
    assert re.search(r"  FAIL: BrokenInputsModule_basic \[case-error\] \S", summary)
    ops = re.search(r"ops: (\d+) seen, .* (\d+) asked for but never converted, (\d+) not asked for "
                    r"\(lowered by torch-mlir\)", run.stdout)
    assert ops and int(ops[3]) >= 1 and " never\n" not in run.stdout


def test_progress_counts_use_the_summarys_words(monkeypatch):
    import io

    from tosa_custom.e2e import audit as audit_mod, report
    from tosa_custom.e2e.runner import CaseResult

    stream = io.StringIO()
    monkeypatch.setattr("sys.stderr", stream)
    progress = audit_mod._Progress(True)
    results = [CaseResult(n, "dummy", "misc", "", xfail_reason=x) for n, x in [("A", None), ("B", "why"), ("C", None)]]
    for r, status in zip(results, ["pass", "xfail", "fail"]):
        r.status, r.category, r.message = status, None if status == "pass" else "eager-failed", "boom"
    progress.start(results)
    for r in results:
        progress(r)
    progress.close()
    # It printed "pass 2 (xfail 1), fail 1" while the summary said "1 pass, 1 fail, 1 xfail".
    assert "1 pass, 1 fail, 1 xfail" in stream.getvalue()
    assert report.status_counts({"pass": 1, "fail": 1, "xfail": 1}) == "1 pass, 1 fail, 1 xfail"
    assert "FAIL: C [eager-failed] boom" in stream.getvalue()


def test_only_user_kernels_shows_the_ops_without_one(audit):
    run = audit("--mode", "dummy", "--cases", OUTCOMES, "--filter", "AddTensorModule_basic", "--only-user-kernels",
                report=True)
    case = run.case("AddTensorModule_basic")
    assert run.returncode == 1 and case["status"] == "fail", run.stderr
    assert "no kernel for torch_mlir::torch.aten.add.Tensor; kernels='user' leaves out the built-in" in case["message"]
    assert run.summary["meta"]["kernels"] == "user"


def test_version(audit):
    run = audit("--version", report=False)
    assert run.returncode == 0 and re.match(r"tosa-custom-audit \(tosa-custom \d+\.\d+", run.stdout)


@pytest.mark.parametrize("flag,value,message", [
    ("-j", "0", "-j 0: give at least 1 worker process"),
    ("--timeout", "-3", "--timeout -3: give a time limit in seconds above 0"),
])
def test_options_out_of_range_name_the_value_and_the_fix(flag, value, message):
    from tosa_custom.e2e import audit as audit_module

    err = io.StringIO()
    with contextlib.redirect_stderr(err):
        assert audit_module.main(["--mode", "stock", flag, value]) == 2
    assert message in err.getvalue()


def test_conformance_is_held_to_the_cases_listing(audit):
    """A non-conformant output passes only where the case lists it; an unlisted
    one, or a listed one that validates, fails the run (as fail and xpass do)."""
    run = audit("--cases", str(FIXTURES / "cases_conformance.py"), "--mode", "stock", "-j", "1")
    assert run.returncode == 1, run.stderr[-2000:]
    verdicts = {c["name"]: (c["status"], c["conformance"]) for c in run.summary["cases"]}
    assert verdicts == {"ListedF64Module_basic": ("pass", "listed"),
                        "UnlistedF64Module_basic": ("pass", "not-conformant"),
                        "StaleListingModule_basic": ("pass", "validates-listed")}
    assert run.summary["unexpected"] == ["UnlistedF64Module_basic", "StaleListingModule_basic"]
    assert "NOT-CONFORMANT: UnlistedF64Module_basic [not-conformant]" in run.stderr
    assert "VALIDATES-LISTED: StaleListingModule_basic [not-conformant]" in run.stderr
    listed = next(c for c in run.summary["conformance"]["cases"] if c["name"] == "ListedF64Module_basic")
    assert listed["reason"].startswith("computes in float64") and listed["violations"]
    assert "computes in float64 by design" in (run.report / "audit.html").read_text()
