"""The per-op table and the three report formats, from hand-made results
(the CLI tests in test_audit.py check the same report end to end)."""

import json
import re
import xml.etree.ElementTree as ET

from tosa_custom.e2e import report, report_html
from tosa_custom.e2e.audit import AuditRun
from tosa_custom.e2e.runner import CaseResult, SkippedOp

ADD, MUL, COPY, SIN = "torch.aten.add.Tensor", "torch.aten.mul.Tensor", "torch.aten.copy_", "torch.aten.sin"


def _result(name, status, category=None, *, seen=(), converted=(), skipped=(), failing=(), loaded=True,
            legal=("*",), family="elementwise", message=""):
    r = CaseResult(name, "dummy", family, "cases.py", status=status, category=category, message=message)
    r.legal_ops = list(legal) if legal is not None else None
    r.ops_seen = {op: 1 for op in seen}
    r.converted = {op: 1 for op in converted}
    r.skipped = [SkippedOp(op, cat, f"{op} skipped: {cat}") for op, cat in skipped]
    r.failing_ops = list(failing)
    r.timings = {"compile": 0.5, "total": 1.0, **({"load": 0.1} if loaded else {})}
    return r


def _summary(results, mode="dummy"):
    return report.build(AuditRun(mode, None, results, 3.0, 2, 60.0, ["cases.py"]))


def test_op_table_reasons():
    summary = _summary([
        _result("AddModule_basic", "pass", seen=[ADD], converted=[ADD]),
        # copy_ skipped by the pass in one case, converted nowhere
        _result("CopyModule_basic", "pass", seen=[ADD, COPY], converted=[ADD], skipped=[(COPY, "mutating-op")]),
        # mul converted but the result is wrong; add passed elsewhere, so mul is blamed
        _result("MulModule_basic", "fail", "numeric-mismatch", seen=[ADD, MUL], converted=[ADD, MUL]),
        # export failed before anything converted: sin was never reached
        _result("SinModule_basic", "fail", "lowering-failed", seen=[SIN], loaded=False, message="boom"),
        _result("SinModule_other", "xfail", "kernel-error", seen=[SIN, ADD], converted=[SIN, ADD], failing=[SIN]),
    ])
    ops = {o["identifier"]: o for o in summary["ops"]}
    assert (ops[ADD]["status"], ops[ADD]["converted_in"], ops[ADD]["cases"]) == ("converted", 4, 4)
    assert (ops[COPY]["status"], ops[COPY]["category"], ops[COPY]["first_failing_case"]) == (
        "not-converted", "mutating-op", "CopyModule_basic")
    assert (ops[MUL]["status"], ops[MUL]["category"], ops[MUL]["failed_in"]) == ("failing", "numeric-mismatch", 1)
    # sin: not reached in one case, converted but failing in its kernel in another
    assert ops[SIN]["status"] == "partial"
    assert (ops[SIN]["category"], ops[SIN]["first_failing_case"]) == ("kernel-error", "SinModule_other")
    assert ops[SIN]["categories"] == {"not-reached": 1, "kernel-error": 1}
    assert [o["status"] for o in summary["ops"]] == ["converted", "failing", "partial", "not-converted"]
    assert summary["by_category"] == {
        "mutating-op": {"cases": 0, "ops": 1}, "lowering-failed": {"cases": 1, "ops": 0},
        "kernel-error": {"cases": 1, "ops": 1}, "numeric-mismatch": {"cases": 1, "ops": 1}}
    assert summary["unexpected"] == ["MulModule_basic", "SinModule_basic"] and summary["ok"] is False


def test_stock_and_selective_ops_are_not_selected():
    summary = _summary([
        _result("AddModule_basic", "pass", seen=[ADD, MUL], converted=[MUL], legal=["aten.mul"]),
        _result("SinModule_basic", "fail", "lowering-failed", seen=[SIN], failing=[SIN], legal=None, loaded=False),
    ], mode="selective")
    ops = {o["identifier"]: o for o in summary["ops"]}
    assert (ops[ADD]["category"], ops[ADD]["first_failing_case"], ops[ADD]["first_case"]) == (
        "not-selected", None, "AddModule_basic")
    assert ops[MUL]["status"] == "converted"
    # torch-mlir named the op it could not lower: that outranks "not selected"
    assert (ops[SIN]["category"], ops[SIN]["first_failing_case"]) == ("lowering-failed", "SinModule_basic")


def test_formats_agree_and_escape():
    summary = _summary([
        _result("AddModule_basic", "pass", seen=[ADD], converted=[ADD]),
        _result("MulModule_basic", "fail", "numeric-mismatch", seen=[MUL], converted=[MUL],
                message="result #0: <b>x</b> | y\nsecond line"),
    ])
    data = json.loads(report.to_json(summary))
    assert data["counts"]["fail"] == 1 and data["cases"][1]["message"].startswith("result #0")
    md = report.to_markdown(summary)
    assert "| MulModule_basic | elementwise | fail | numeric-mismatch | result #0: <b>x</b> \\| y second line |" in md
    page = report_html.to_html(summary)
    assert "&lt;b&gt;x&lt;/b&gt;" in page and "<b>x</b>" not in page
    assert not re.search(r"<script|<link|\bsrc=", page)
    assert page.count("<svg") == 4  # cases and ops by family, failing cases and failing ops by reason
    for svg in re.findall(r"<svg.*?</svg>", page, re.S):  # each chart is well-formed SVG with labelled bars
        root = ET.fromstring(svg)
        bars = root.findall("{http://www.w3.org/2000/svg}rect/{http://www.w3.org/2000/svg}title")
        assert bars, svg
    assert "MulModule_basic" in page and "numeric-mismatch" in page


def test_export_modes_are_counted_and_fallbacks_listed_with_the_strict_error():
    strict = _result("AddModule_basic", "pass", seen=[ADD], converted=[ADD])
    strict.export_mode = "strict"
    fallback = _result("SinModule_basic", "pass", seen=[SIN], converted=[SIN])
    fallback.export_mode, fallback.export_strict_error = "non-strict", "Unsupported: graph_break() | here"
    summary = _summary([strict, fallback])
    assert summary["export"] == {"strict": 1, "non-strict": 1, "fallbacks": [
        {"case": "SinModule_basic", "strict_error": "Unsupported: graph_break() | here"}]}
    assert "export: 1 strict, 1 non-strict after strict failed" in report.text_summary(summary)
    md = report.to_markdown(summary)
    assert "## Exported non-strict" in md and "| SinModule_basic | Unsupported: graph_break() \\| here |" in md
    assert "<h2>Exported non-strict</h2>" in report_html.to_html(summary)
    quiet = _summary([strict])
    assert "## Exported non-strict" not in report.to_markdown(quiet)


def test_auto_mode_ranks_the_ops_a_backend_needs_kernels_for():
    """The list a backend team reads first: each tunneled op, by how many
    cases need it, with why; and per case what was tunneled."""
    results = []
    for name, sites in [("AModule_basic", [[SIN, "no-tosa-lowering"], [SIN, "no-tosa-lowering"]]),
                        ("BModule_basic", [[SIN, "no-tosa-lowering"], [MUL, "wrong-lowering"]]),
                        ("CModule_basic", [])]:
        r = _result(name, "pass", seen=[SIN, MUL, ADD], converted=sorted({op for op, _ in sites}), legal=["auto"])
        r.mode, r.tunneled = "auto", sites
        results.append(r)
    results[0].kept_from_decomposition = ["torch.aten.scaled_dot_product_attention"]
    summary = _summary(results, mode="auto")
    needed = summary["kernels_needed"]
    assert needed["cases_with_custom_ops"] == 2
    assert [(e["op"], e["cases"], e["sites"], e["categories"]) for e in needed["ranked"]] == [
        (SIN, 2, 3, {"no-tosa-lowering": 3}), (MUL, 1, 1, {"wrong-lowering": 1})]
    assert needed["kept_from_decomposition"] == {"torch.aten.scaled_dot_product_attention": 1}
    assert "tunneled: 2 cases need custom ops, 2 distinct; most needed: aten.sin (2), aten.mul.Tensor (1)" in \
        report.text_summary(summary)
    markdown = report.to_markdown(summary)
    assert "| 1 | `torch.aten.sin` | 2 | 3 | no-tosa-lowering 3 | AModule_basic |" in markdown
    assert "| AModule_basic | pass | `aten.sin` (no-tosa-lowering) x2 |" in markdown
    html = report_html.to_html(summary)
    assert "<h2>Ops a backend needs kernels for</h2>" in html and "<code>torch.aten.mul.Tensor</code>" in html
    assert _summary(results, mode="dummy")["kernels_needed"] is None


def _validated(name, conformance, *, reason=None, violations=()):
    r = _result(name, "pass", seen=[ADD], converted=[ADD])
    r.tosa_target = "profiles=pro_fp level=8k specification_version=1.0"
    r.conformant = conformance in ("validated", "validates-listed")
    r.conformance, r.nonconformant_reason = conformance, reason
    r.violations = [list(v) for v in violations]
    return r


def test_conformance_is_counted_listed_and_shown_in_every_format():
    f64 = ("tosa.add", "loc(x.py:1)", "'tosa.add' op is not profile-aligned: element type 'f64' is not legal")
    summary = _summary([
        _validated("AddModule_basic", "validated"),
        _validated("AddF64Module_basic", "listed", reason="computes in f64 by design", violations=[f64]),
        _validated("AddI64Module_basic", "not-conformant", violations=[f64]),
        _validated("AddF32Module_basic", "validates-listed", reason="stale <entry>"),
    ])
    conformance = summary["conformance"]
    assert conformance["counts"] == {"validated": 1, "listed": 1, "unreviewed": 0, "not-conformant": 1,
                                     "validates-listed": 1}
    assert conformance["unexpected"] == ["AddI64Module_basic", "AddF32Module_basic"]
    assert summary["unexpected"] == ["AddI64Module_basic", "AddF32Module_basic"] and not summary["ok"]
    listed = next(c for c in conformance["cases"] if c["name"] == "AddF64Module_basic")
    assert listed["reason"] == "computes in f64 by design" and listed["violations"] == [list(f64)]
    text = report.text_summary(summary)
    assert ("TOSA target: 2 outputs validated, 1 listed as not conformant, 1 not conformant and not listed, "
            "1 listed as not conformant but validated: AddI64Module_basic, AddF32Module_basic") in text
    assert "NOT-CONFORMANT: AddI64Module_basic [not-conformant] the TOSA does not validate" in text
    assert "VALIDATES-LISTED: AddF32Module_basic [not-conformant]" in text
    md = report.to_markdown(summary)
    assert "## Not conformant to the TOSA target" in md
    assert "| AddF64Module_basic | profiles=pro_fp level=8k specification_version=1.0 | listed | computes in f64 " \
           "by design | tosa.add: 'tosa.add' op is not profile-aligned: element type 'f64' is not legal |" in md
    page = report_html.to_html(summary)
    assert "<h2>Conformance to the TOSA target</h2>" in page and "stale &lt;entry&gt;" in page
    section = page[page.index("<h2>Conformance to the TOSA target</h2>"):]
    svg = ET.fromstring(re.search(r"<svg.*?</svg>", section, re.S)[0])
    titles = [t.text for t in svg.iter("{http://www.w3.org/2000/svg}title")]
    assert titles == ["outputs: 1 validated", "outputs: 1 listed", "outputs: 1 not-conformant",
                      "outputs: 1 validates-listed"]
    for name in ("AddF64Module_basic", "AddI64Module_basic", "AddF32Module_basic"):
        assert f"<td>{name}</td>" in section
    assert "<td>AddModule_basic</td>" not in section  # validated as expected: counted, not listed


def test_no_conformance_section_without_validated_outputs():
    summary = _summary([_result("AddModule_basic", "pass", seen=[ADD], converted=[ADD])])
    assert "Conformance to the TOSA target" not in report_html.to_html(summary)
    assert "TOSA target:" not in report.text_summary(summary)


def test_counts_per_executor():
    """An IREE run says how many cases ran there (by status) and how many
    IREE refused by design, by category, with the ops lacking a native kernel."""
    ran = _result("GeluModule_basic", "pass")
    refused = [_result(f"Atan2Module_{i}", "xfail", "no-kernel", failing=["torch.aten.atan2"]) for i in range(2)]
    f64 = _result("DoubleModule_basic", "xfail", "not-conformant")
    stopped = _result("SinModule_basic", "xfail", "lowering-failed", loaded=False)  # never reached IREE
    for r in [ran, *refused, f64, stopped]:
        r.executor = "iree"
    for r in [*refused, f64]:
        r.refused = True
    summary = report.build(AuditRun("selective", None, [ran, *refused, f64, stopped], 3.0, 1, 60.0, ["cases.py"],
                                    executor="iree"))
    assert summary["by_executor"] == {"iree": {"ran": {"pass": 1}, "not_reached": 1,
                                               "refused": {"no-kernel": 2, "not-conformant": 1},
                                               "refused_ops": {"torch.aten.atan2": 2}}}
    text = report.text_summary(summary)
    assert text.startswith("selective mode on iree: 5 cases")
    assert ("on iree: 1 ran (1 pass), 1 stopped before it (compile); refused at load: 2 no-kernel "
            "(torch.aten.atan2 (2)), 1 not-conformant") in text
    assert report.to_markdown(summary).startswith("# tosa-custom audit: selective mode on iree")
    # A reference run's summary has no executor line.
    assert "on reference" not in report.text_summary(_summary([_result("GeluModule_basic", "pass")]))
