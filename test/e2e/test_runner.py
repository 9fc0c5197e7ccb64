"""The runner's comparison and classification, and the category table, in
process (no worker, no case file loaded into the registry)."""

import dataclasses
import pytest
import torch

import tosa_custom
from tosa_custom.core.diagnostics import CompileError
from tosa_custom.e2e import categories as cat
from tosa_custom.e2e import runner
from tosa_custom.e2e.registry import Case


def _fails(category, fn, *args, **kwargs):
    with pytest.raises(runner._Failure) as info:
        fn(*args, **kwargs)
    assert info.value.category == category, str(info.value)
    return str(info.value)


def test_values_compare_with_tolerance_and_scalars():
    x = torch.randn(4, 3)
    runner.compare_outputs([x + 1e-7, torch.tensor(3), torch.tensor(2.5)], [x, 3, 2.5])
    msg = _fails("numeric-mismatch", runner.compare_outputs, [x + 1e-3], [x])
    assert msg.startswith("result #0:") and "Greatest absolute difference" in msg
    runner.compare_outputs([x + 1e-3], [x], rtol=0, atol=1e-2)
    # NaN where eager has NaN is a match, not a mismatch.
    nan = torch.tensor([float("nan"), 1.0])
    runner.compare_outputs([nan.clone()], [nan])
    _fails("numeric-mismatch", runner.compare_outputs, [torch.tensor(4)], [3])  # a wrong Python int


def test_structure_shape_and_dtype_are_result_mismatches():
    x = torch.zeros(2, 3)
    assert "returned 1 results, eager returned 2" in _fails("result-mismatch", runner.compare_outputs, [x], [x, x])
    assert "[3, 2] float32, eager's is [2, 3] float32" in _fails(
        "result-mismatch", runner.compare_outputs, [x.t()], [x])
    assert "int8, eager's is [2, 3] uint8" in _fails(
        "result-mismatch", runner.compare_outputs, [x.to(torch.int8)], [x.to(torch.uint8)])


def test_statistics_compare_distributions_not_draws():
    torch.manual_seed(0)
    a, b = torch.rand(10000), torch.rand(10000)
    assert not torch.equal(a, b)
    runner.compare_outputs([a], [b], compare="statistics")
    msg = _fails("numeric-mismatch", runner.compare_outputs, [a * 2], [b], compare="statistics")
    assert "mean" in msg and "std" in msg
    _fails("result-mismatch", runner.compare_outputs, [a[:10]], [b], compare="statistics")
    # bernoulli-like bool results compare by their rate
    runner.compare_outputs([a < 0.5], [b < 0.5], compare="statistics")


def test_compile_and_load_errors_are_classified_with_the_op():
    """compile() files its errors where it raises them; the runner reads the
    category and ops, not the message (test/frontend checks compile() sets them)."""
    f = runner._classify_compile_error(CompileError(
        "backend_legal_ops lists aten.native_dropout.default, but PyTorch decomposed it during export",
        category="decomposed-before-import", ops=["torch.aten.native_dropout.default"]))
    assert (f.category, f.failing_ops) == ("decomposed-before-import", ["torch.aten.native_dropout.default"])
    f = runner._classify_compile_error(CompileError("torch.export (non-strict) could not capture the model (X): y",
                                                    category="export-failed"))
    assert f.category == "export-failed"
    f = runner._classify_compile_error(CompileError("Lowering to TOSA failed:", [], category="lowering-failed"))
    assert (f.category, f.failing_ops) == ("lowering-failed", [])
    f = runner._classify_compile_error(CompileError("Something else", category="no-such-category"))
    assert f.category == "compile-failed"
    f = runner._classify_compile_error(ValueError("odd"))
    assert (f.category, str(f)) == ("compile-failed", "ValueError: odd")
    # runtime.load files its errors where it raises them too: classify what it really raises.
    f = runner._classify_load_error(_load_error("""
func.func @f(%a: tensor<4xf32>) -> tensor<4xf32> {
  %0 = tosa.custom %a {domain_name = "myteam", implementation_attrs = "", operator_name = "torch.aten.gelu"} : (tensor<4xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}"""))
    assert (f.category, f.failing_ops) == ("no-kernel", ["torch.aten.gelu"])
    assert "no kernel for myteam::torch.aten.gelu" in str(f)
    f = runner._classify_load_error(_load_error("""
func.func @f(%a: tensor<4xf32>) -> tensor<4xf32> {
  %0 = tosa.custom %a {domain_name = "torch_mlir", implementation_attrs = "not json", operator_name = "torch.aten.gelu"} : (tensor<4xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}"""))
    assert (f.category, f.failing_ops) == ("decode-failed", ["torch.aten.gelu"])
    f = runner._classify_load_error(_load_error("func.func @f(%a: tensor<4xf32>, %n: i64) -> i64 { return %n : i64 }"))
    assert f.category == "non-tensor-interface"
    # `?` dims load since issue 23; an unranked tensor is still refused as a dynamic shape
    f = runner._classify_load_error(_load_error("func.func @f(%a: tensor<*xf32>) -> tensor<*xf32> { return %a : tensor<*xf32> }"))
    assert f.category == "dynamic-shape"
    f = runner._classify_load_error(_load_error("""
func.func @f(%a: tensor<4xf32>) -> tensor<4xf32> {
  %0 = tosa.custom %a {domain_name = "acme", implementation_attrs = "", operator_name = "dyn"} : (tensor<4xf32>) -> tensor<?xf32>
  %1 = tensor.cast %0 : tensor<?xf32> to tensor<4xf32>
  return %1 : tensor<4xf32>
}"""))
    assert (f.category, f.failing_ops) == ("dynamic-shape", ["dyn"])
    f = runner._classify_load_error(ValueError("expected one public function to run"))
    assert (f.category, str(f)) == ("runtime-lowering-failed", "ValueError: expected one public function to run")
    f = runner._classify_load_error(CompileError("lowering to LLVM failed:", category="runtime-lowering-failed"))
    assert f.category == "runtime-lowering-failed"


def _load_error(text: str) -> BaseException:
    from tosa_custom import runtime

    with pytest.raises(CompileError) as info:
        runtime.load(text)
    return info.value


def test_kernel_errors_carry_their_op():
    """A failing kernel's KernelError names its op (the runner files it by `e.op`, not the message)."""
    from tosa_custom import runtime

    @runtime.register_kernel("explode", domain_name="runner_test")
    def _explode(call):
        raise ZeroDivisionError("boom")

    program = runtime.load("""
func.func @f(%a: tensor<4xf32>) -> tensor<4xf32> {
  %0 = tosa.custom %a {domain_name = "runner_test", implementation_attrs = "", operator_name = "explode"} : (tensor<4xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}""")
    with pytest.raises(runtime.KernelError, match="ZeroDivisionError: boom") as info:
        program(torch.ones(4))
    assert info.value.op == "explode"


def test_xfail_turns_failures_expected_and_passes_unexpected():
    c = Case("XModule_basic", torch.nn.Identity, lambda: (), "misc", {"dummy": "why"})
    assert runner.final_status(c, "dummy", "pass") == "xpass"
    assert runner.final_status(c, "dummy", "crash") == "xfail"
    assert runner.final_status(c, "stock", "fail") == "fail"
    assert runner.legal_ops_for(c, "stock", None) is None
    assert runner.legal_ops_for(c, "dummy", None) == ["*"]
    assert runner.legal_ops_for(Case("X", None, None, "m", {}, selective_ops=("aten.gelu",)), "selective", None) == [
        "aten.gelu"]
    with pytest.raises(ValueError, match="unknown mode 'fast'"):
        runner.legal_ops_for(c, "fast", None)


def test_selective_mode_inherits_stock_failures_without_strictness():
    stock_only = Case("YModule_basic", torch.nn.Identity, lambda: (), "misc", {"stock": "no TOSA lowering"})
    assert runner.final_status(stock_only, "selective", "fail") == "xfail"
    assert runner.final_status(stock_only, "selective", "timeout") == "xfail"
    assert runner.final_status(stock_only, "selective", "crash") == "crash"  # inherited: failing, not crashing
    assert runner.final_status(stock_only, "selective", "pass") == "pass"  # a kept op fixed it: no error
    assert runner.expected_reason(stock_only, "selective") == "as in stock mode: no TOSA lowering"
    assert runner.final_status(stock_only, "dummy", "fail") == "fail"  # dummy keeps everything: nothing inherited
    own = Case("ZModule_basic", torch.nn.Identity, lambda: (), "misc", {"stock": "a", "selective": "b"})
    assert (runner.final_status(own, "selective", "pass"), runner.expected_reason(own, "selective")) == ("xpass", "b")


def test_run_case_in_process_fills_timings_and_ops():
    class Gelu(torch.nn.Module):
        def forward(self, x):
            return torch.nn.functional.gelu(x) * 2

    c = Case("GeluModule_basic", Gelu, lambda: (torch.randn(4, 5),), "activation", {}, rtol=1e-4, atol=1e-4)
    r = runner.run_case(c, "selective", ["aten.gelu"])
    assert (r.status, r.category) == ("pass", None), r.message
    assert r.converted == {"torch.aten.gelu": 1}
    assert {"build", "eager", "compile", "load", "run", "compare", "total"} <= set(r.timings)
    assert runner.CaseResult.from_json(r.to_json()) == r


def test_every_category_has_a_row_in_contract_md():
    """Issue 4: every reason an op does not convert is explained in CONTRACT.md
    (§7 for the pass's own, §7.1 for the rest), with its stage."""
    import pathlib
    import re

    text = (pathlib.Path(__file__).resolve().parents[2] / "CONTRACT.md").read_text(encoding="utf-8")
    text = text[text.index("## 7. "):text.index("### 7.2.")]  # §7.2's rows say why an op IS tunneled
    rows = {m[1]: m[2] for m in re.finditer(r"^\| `([a-z-]+)` \|(.*)\|$", text, re.M)}
    for c in cat.categories():
        assert c.name in rows, f"category {c.name} has no row in CONTRACT.md"
        cells = [cell.strip() for cell in rows[c.name].split("|")]
        assert len(" ".join(cells)) > 40, f"{c.name}: its sentence is missing"
        if c.stage != "conversion":
            assert cells[0] == c.stage, (c.name, cells)


def test_category_table_is_complete_and_documented():
    names = [c.name for c in cat.categories()]
    assert len(names) == len(set(names))
    for skip in tosa_custom.SKIP_CATEGORIES:  # the pass's reasons, verbatim
        assert skip in names and tosa_custom.SKIP_CATEGORIES[skip] in cat.describe(skip)
    for c in cat.categories():
        assert c.stage in cat.STAGES and c.description.strip()
    stages = [cat.STAGES.index(c.stage) for c in cat.categories()]
    assert stages == sorted(stages)
    # Everything the runner and the report can emit is in the table.
    for name in ("export-failed", "decomposed-before-import", "rewritten-by-torch-mlir", "lowering-failed",
                 "no-kernel", "kernel-error", "numeric-mismatch", "crash", "timeout", "not-selected"):
        assert name in names
    with pytest.raises(KeyError, match="no failure category 'nope'"):
        cat.category("nope")


def test_structure_and_python_types_compare_exactly():
    x = torch.ones(2)
    runner.compare_structure({"a": x, "b": (3, 2.5, True)}, {"a": x, "b": (3, 2.5, True)})
    assert "leaf #0 is a tensor, eager's is a int" in _fails(
        "result-mismatch", runner.compare_structure, (torch.tensor(3),), (3,))
    _fails("result-mismatch", runner.compare_structure, (x, x), {"a": x, "b": x})
    _fails("result-mismatch", runner.compare_structure, [x], (x,))
    _fails("result-mismatch", runner.compare_structure, (1,), (True,))


def test_a_case_over_several_calls_compares_inputs_written_and_state():
    class Counter(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.register_buffer("n", torch.zeros(()))

        def forward(self, x, y):
            self.n += 1
            y.add_(x)
            return x * self.n

    c = Case("CounterModule_calls", Counter, lambda: (torch.randn(3), torch.zeros(3)), "inplace", {}, calls=4)
    r = runner.run_case(c, "stock")
    assert (r.status, r.category) == ("pass", None), r.message


def test_case_records_conformance_to_its_tosa_target():
    class Norm(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.norm = torch.nn.LayerNorm(8)

        def forward(self, x):
            return self.norm(x)

    class Double(torch.nn.Module):
        def forward(self, x):
            return (x.double() * 3).sum(-1)

    ok = runner.run_case(Case("Norm_basic", Norm, lambda: (torch.randn(2, 8),), "norm", {}), "stock")
    assert (ok.status, ok.conformant, ok.violations) == ("pass", True, [])
    assert ok.tosa_target.startswith("profiles=pro_fp")
    # The output's non-conformance is recorded, and the case still runs
    # (without the check) and is compared with eager, in every mode.
    double = Case("Double_basic", Double, lambda: (torch.randn(2, 8),), "cast", {})
    bad = runner.run_case(double, "stock")
    assert (bad.status, bad.conformant) == ("pass", False)
    # An f64 result no profile has: said before lowering (category no-tosa-profile), recorded the same way.
    assert [["result", "0", "float64: no TOSA profile has f64"]] == bad.violations
    assert runner.CaseResult.from_json(bad.to_json()) == bad
    # Not listed: the run fails on conformance alone, saying which rule broke.
    assert bad.conformance == "not-conformant" and bad.failed
    assert "does not list stock mode as nonconformant" in bad.message and "no TOSA profile has f64" in bad.message
    dummy = runner.run_case(double, "dummy")
    assert (dummy.status, dummy.conformant) == ("pass", False) and dummy.violations
    # Listed with its reason: expected, not a failure.
    listed = dataclasses.replace(double, nonconformant={"stock": "computes in f64 by design"})
    expected = runner.run_case(listed, "stock")
    assert (expected.status, expected.conformance, expected.failed) == ("pass", "listed", False)
    assert expected.nonconformant_reason == "computes in f64 by design"


def test_conformance_verdicts_follow_the_listing_as_statuses_follow_xfail():
    listed = Case("Double_basic", torch.nn.Identity, lambda: (), "cast", {},
                  nonconformant={"stock": "f64 by design"})
    verdict = runner.conformance_verdict
    assert verdict(listed, "stock", False) == "listed"
    assert verdict(listed, "stock", True) == "validates-listed"  # stale listing: news
    assert verdict(listed, "selective", False) == "listed"  # inherits stock's listing
    assert verdict(listed, "selective", True) == "validated"  # keeping ops fixed it: not an error
    assert verdict(listed, "dummy", False) == "not-conformant"
    assert verdict(listed, "dummy", None) is None  # nothing was validated
    unreviewed = dataclasses.replace(listed, nonconformant=None)
    assert verdict(unreviewed, "stock", False) == "unreviewed"
    result = runner.CaseResult("Double_basic", "stock", status="xfail", conformance="validates-listed")
    assert result.failed


def test_case_decorator_lists_nonconformance_per_mode_or_for_all():
    from tosa_custom.e2e import registry

    every = registry.case(inputs=lambda: (), family="cast", nonconformant="f64 by design",
                          name="EveryModeModule_nonconformant")(torch.nn.Identity)
    assert registry.get_case("EveryModeModule_nonconformant").nonconformant == dict.fromkeys(
        registry.MODES, "f64 by design")
    assert every is torch.nn.Identity
    with pytest.raises(ValueError, match="nonconformant modes"):
        registry.case(inputs=lambda: (), family="cast", nonconformant={"eager": "x"},
                      name="BadModeModule_nonconformant")(torch.nn.Identity)


def test_random_statistics_are_judged_against_eagers_other_draws():
    """dropout2d on 2 channels keeps 0, 1 or 2 of them: a correct draw may be
    far from eager's first one (every-sample OpInfo dropout2d/float16/2 was
    called wrong), but not from the spread of eager's draws with other seeds,
    and a wrong distribution still is (unscaled, another p)."""
    x = torch.randn(2, 2, 8, 8) * 4 + 1

    class Dropout2d(torch.nn.Module):
        def __init__(self, p=0.5, scale=True):
            super().__init__()
            self.p, self.scale = p, scale

        def forward(self, x):
            y = torch.nn.functional.dropout2d(x, self.p, training=True)
            return y if self.scale else y * (1 - self.p)

    case = Case("Dropout2dModule_two_channels", Dropout2d, lambda: (x,), "random", {}, compare="statistics")
    redraw = runner._redraw_calls(case, Dropout2d(), (x,))
    first = runner._eager_calls(case, Dropout2d(), (x,))[0][0][0]
    for seed in range(40, 80):  # a correct draw whose statistics are far from eager's first
        torch.manual_seed(seed)
        other = Dropout2d()(x)
        try:
            runner.compare_outputs([other], [first], compare="statistics")
        except runner._Failure:
            break
    else:
        pytest.fail("no draw far from the first")
    runner._compare_values(case, other, first, lambda: None, "statistics", lambda: redraw(0))
    torch.manual_seed(seed)
    unscaled = Dropout2d(scale=False)(x)
    msg = _fails("numeric-mismatch", runner._compare_values, case, unscaled, first, lambda: None, "statistics",
                 lambda: redraw(0))
    assert "24 eager draws with other seeds" in msg
    torch.manual_seed(seed)
    _fails("numeric-mismatch", runner._compare_values, case, Dropout2d(p=0.9)(x), first, lambda: None,
           "statistics", lambda: redraw(0))


def test_what_a_random_op_writes_into_its_input_is_judged_as_a_draw():
    """exponential_ writes its draw into its input: the input after the call
    is judged by statistics against eager's other draws, as the result is
    (every-sample OpInfo exponential/*/2 failed on the written input's
    values), and a wrong distribution written there still fails."""

    class Exponential(torch.nn.Module):
        def __init__(self, rate=1.0):
            super().__init__()
            self.rate = rate

        def forward(self, x):
            return x.exponential_(self.rate) * 1

    x = torch.zeros(256)
    case = Case("ExponentialModule_in_place", Exponential, lambda: (x,), "random", {}, compare="statistics")
    redraw = runner._redraw_calls(case, Exponential(), (x,))
    (expected, eager_args), = runner._eager_calls(case, Exponential(), (x,))[0]

    def draw(seed, rate=1.0):
        torch.manual_seed(seed)
        args = (x.clone(),)
        return Exponential(rate)(*args), args

    got, args = draw(123)
    assert not torch.equal(args[0], eager_args[0])  # another draw, by value
    runner._compare_call(case, 0, got, expected, args, eager_args, redraw=lambda part: redraw(0, part))
    got, args = draw(123)
    wrong = (args[0] * 3,)  # a result of eager's distribution, an input written with another
    msg = _fails("numeric-mismatch", runner._compare_call, case, 0, got, expected, wrong, eager_args,
                 redraw=lambda part: redraw(0, part))
    assert "eager draws with other seeds" in msg
