"""tosa-custom-audit-compare on two real audit runs of the same cases."""

from pathlib import Path

import pytest

from tosa_custom.e2e import compare

FIXTURES = Path(__file__).parent / "fixtures"

CATEGORIES = str(FIXTURES / "cases_categories.py")
SELECT = "Module_(user_kernel|no_kernel)$"


def test_a_case_right_elsewhere_but_not_here_is_named_until_reviewed(audit, capsys):
    strict = audit("--mode", "dummy", "--cases", CATEGORIES, "--filter", SELECT, "--no-torch-fallback", "-j", "1")
    normal = audit("--mode", "dummy", "--cases", CATEGORIES, "--filter", SELECT, "-j", "1")
    assert strict.case("TanModule_no_kernel")["status"] == "fail"
    assert normal.case("TanModule_no_kernel")["status"] == "pass"

    assert compare.main([str(strict.report), str(normal.report)]) == 1
    out = capsys.readouterr().out
    assert "2 cases in every run; 1 run right elsewhere but not in dummy (1 without a reviewed reason)" in out
    assert "WORSE: TanModule_no_kernel (right in dummy) no-kernel:" in out
    assert "CoshModule" not in out

    reviewed = compare.Comparison(compare.load(strict.report), [compare.load(normal.report)],
                                  reviewed={"^TanModule_": "tan has no kernel without the fallback, by request"})
    assert [r[0] for r in reviewed.regressions] == ["TanModule_no_kernel"] and not reviewed.unreviewed
    assert "REVIEWED: TanModule_no_kernel (right in dummy) reviewed: tan has no kernel" in reviewed.text()
    # The other way round nothing is worse, and the one case only it runs right is counted.
    back = compare.compare(normal.report, [strict.report])
    assert (back.regressions, back.gains, back.cases) == ([], 1, 2)
    # Against several runs (auto against dummy and stock), one of them with a case the others lack.
    rows = compare.load(normal.report)
    extra = (rows[0], {**rows[1], "OtherModule_basic": rows[1]["TanModule_no_kernel"]})
    several = compare.Comparison(compare.load(strict.report), [compare.load(normal.report), extra])
    assert [(r[0], r[2]) for r in several.regressions] == [("TanModule_no_kernel", ["dummy", "dummy"])]
    assert several.missing == ["OtherModule_basic"] and "1 cases cannot be judged: not in every run" in several.text()


def test_other_modes_rerun_only_the_unpassed_cases_of_a_sharded_run(audit, tmp_path):
    """The whole OpInfo suite is too long for one run: the first mode runs in
    shards, each another mode re-runs only the cases it did not run right,
    and the comparison reads the folders of shards as one run each."""
    first = [audit("--mode", "dummy", "--cases", CATEGORIES, "--filter", SELECT, "--no-torch-fallback", "-j", "1",
                   "--shard", f"{k}/2") for k in (1, 2)]
    shards = tmp_path / "first"
    shards.mkdir()
    for k, run in enumerate(first, 1):
        run.report.rename(shards / str(k))
    mode, rows = compare.load(shards)
    assert mode == "dummy" and {n: r["status"] for n, r in rows.items()} == {
        "TanModule_no_kernel": "fail", "CoshModule_user_kernel": "pass"}
    assert compare.unpassed(shards) == {"TanModule_no_kernel"}
    listed = [audit("--mode", "dummy", "--cases", CATEGORIES, "--filter", SELECT, "--list", *more, report=False)
              for more in (["--shard", "2/2"], ["--rerun-unpassed", str(shards)])]
    assert [len(run.stdout.splitlines()) for run in listed] == [1, 1], [run.stderr for run in listed]
    assert listed[1].stdout.startswith("TanModule_no_kernel\t")

    rerun = audit("--mode", "dummy", "--cases", CATEGORIES, "--filter", SELECT, "-j", "1",
                  "--rerun-unpassed", str(shards))
    assert [c["name"] for c in rerun.summary["cases"]] == ["TanModule_no_kernel"], rerun.stderr
    result = compare.compare(shards, [rerun.report])
    assert [r[0] for r in result.regressions] == ["TanModule_no_kernel"] and result.missing == []

    (shards / "2" / "audit.json").write_text((rerun.report / "audit.json").read_text().replace(
        '"mode": "dummy"', '"mode": "stock"'))
    with pytest.raises(compare.ReportError, match="mixes runs of modes dummy, stock"):
        compare.load(shards)


def test_unreadable_report_names_the_fix(tmp_path):
    with pytest.raises(compare.ReportError, match="has no audit.json, nor folders that have one"):
        compare.load(tmp_path)
    (tmp_path / "audit.json").write_text("{")
    with pytest.raises(SystemExit, match="cannot read .*give folders written by tosa-custom-audit --report DIR"):
        compare.main([str(tmp_path), str(tmp_path)])


def _report(folder: Path, cases: dict[str, str], versions: dict, unfinished=()) -> Path:
    """An audit.json with only what `compare.load` reads: its mode, versions, unfinished cases, case rows."""
    import json

    folder.mkdir(parents=True)
    meta = {"mode": "auto", "versions": versions, "unfinished": list(unfinished)}
    rows = [{"name": n, "status": s, "category": None, "message": ""} for n, s in cases.items()]
    (folder / "audit.json").write_text(json.dumps({"meta": meta, "cases": rows}))
    return folder


def test_a_partial_run_resumes_and_runs_of_other_versions_do_not_merge(tmp_path):
    versions = {"torch": "2.13.0", "torch-mlir": "20261001", "tosa-custom": "0.1.0"}
    # A Ctrl-C'd run (Ray) lists what it left: those are unpassed until a later part runs them.
    _report(tmp_path / "run" / "1", {"A_basic": "pass", "B_basic": "fail"}, versions, unfinished=["C_basic", "D_basic"])
    assert compare.unpassed(tmp_path / "run" / "1") == {"B_basic", "C_basic", "D_basic"}
    _report(tmp_path / "run" / "2", {"B_basic": "pass", "C_basic": "pass"}, versions, unfinished=["D_basic"])
    assert compare.unpassed(tmp_path / "run") == {"D_basic"}
    assert {n: r["status"] for n, r in compare.load(tmp_path / "run")[1].items()} == {
        "A_basic": "pass", "B_basic": "pass", "C_basic": "pass"}
    _report(tmp_path / "run" / "3", {"D_basic": "pass"}, {**versions, "torch": "2.14.0"})
    with pytest.raises(compare.ReportError, match=r"mixes runs of different package versions .*torch 2\.14\.0"):
        compare.load(tmp_path / "run")
