"""The pass registry and its one wrapper (python/tosa_custom/passes.py)."""

from __future__ import annotations

import pytest
from torch_mlir import ir, passmanager

from tosa_custom.core import ir as _ir
from tosa_custom.core.diagnostics import CompileError, DiagnosticLog
from tosa_custom.core.passes import (
    Option,
    PassFailure,
    PythonPass,
    build_pass_manager,
    lookup_pass,
    parse_count,
    parse_flag,
    register_pass,
    registered_passes,
    run_pipeline,
    split_pipeline,
)

_MODULE = """
func.func @f(%a: tensor<2xf32>) -> tensor<2xf32> {
  %0 = tosa.abs %a : (tensor<2xf32>) -> tensor<2xf32> loc("m.py":3:5)
  return %0 : tensor<2xf32>
}"""


def _body(op, ctx):
    abs_op = _ir.collect_ops(op, lambda o: o.name == "tosa.abs")[0]
    if ctx.options.mode == "fail":
        raise PassFailure("this abs is not allowed", abs_op)
    if ctx.options.mode == "crash":
        raise KeyError("oops")
    if ctx.options.mode == "collect":
        ctx.error(abs_op, "first")
        ctx.error(op, "second")
        return None
    ctx.warn(abs_op, f"saw {ctx.options.count} abs")
    return ctx.options.count


_TEST_PASS = PythonPass("tosa-custom-test-pass", "A pass for these tests", _body, (
    Option("mode", "what to do", "ok"),
    Option("count", "a number", 1, parse_count),
    Option("flag", "a flag", False, parse_flag, implicit="true"),
))


def _run(options: str):
    ctx = _ir.make_context()
    log = DiagnosticLog()
    results = []
    with ctx:
        module = ir.Module.parse(_MODULE)
        pm = passmanager.PassManager.parse("builtin.module()")
        _TEST_PASS.add_to(pm, options, log, results.append)
        try:
            pm.run(module.operation)
            return None, log, results
        except ir.MLIRError as e:
            return e, log, results


def test_options_are_parsed_once_with_defaults_and_types():
    o = _TEST_PASS.parse_options("count=3 flag")
    assert (o.mode, o.count, o.flag) == ("ok", 3, True)
    assert _TEST_PASS.parse_options("{mode=x flag=false}").flag is False
    assert _TEST_PASS.parse_options({"count": 5}).count == 5


@pytest.mark.parametrize("text,message", [
    ("colour=red", "unknown option 'colour' for tosa-custom-test-pass: expected mode=, count=, flag="),
    ("count=x", "count= takes a whole number, not 'x'"),
    ("count=-1", "count= takes a number >= 0, not '-1'"),
    ("flag=maybe", "flag= takes true or false, not 'maybe'"),
    ("count", "option 'count' of tosa-custom-test-pass needs a value (count=...)"),
    ('mode="open', "cannot read the options of tosa-custom-test-pass"),
])
def test_bad_options_name_the_option_and_what_it_takes(text, message):
    with pytest.raises(ValueError) as info:
        _TEST_PASS.parse_options(text)
    assert message in str(info.value)


def test_a_result_goes_to_on_result_and_warnings_to_the_log():
    error, log, results = _run("count=2")
    assert error is None and results == [2]
    assert [(d.severity, d.message) for d in log.diagnostics] == [("warning", "saw 2 abs")]
    assert "m.py" in log.diagnostics[0].location


def test_pass_failure_is_an_error_on_the_op_and_fails_the_pass():
    error, _, results = _run("mode=fail")
    assert error is not None and results == []
    [d] = error.error_diagnostics
    assert str(d.message) == "tosa-custom-test-pass: this abs is not allowed"
    assert "m.py" in str(d.location) and ":3:5" in str(d.location)


def test_every_error_is_reported_before_the_pass_fails():
    error, _, _ = _run("mode=collect")
    assert [str(d.message) for d in error.error_diagnostics] == ["first", "second"]


def test_an_internal_error_is_reported_on_the_module_not_raised():
    error, _, _ = _run("mode=crash")
    [d] = error.error_diagnostics
    assert "internal error in tosa-custom-test-pass (KeyError: 'oops'); please report this with the IR" in str(d.message)


def test_registry_refuses_duplicates_and_lists_every_pass():
    with pytest.raises(ValueError, match="pass 'tosa-custom-verify-tosa' is registered twice"):
        register_pass("tosa-custom-verify-tosa", "again")(lambda op, ctx: None)
    passes = registered_passes()
    assert {"convert-torch-backend-legal-to-tosa-custom", "tosa-custom-verify-tosa",
            "tosa-custom-lift-weights"} <= set(passes)
    assert lookup_pass("no-such-pass") is None


def test_pipeline_text_splices_ours_between_cxx_passes_and_refuses_nesting():
    ctx = _ir.make_context()
    with ctx:
        pm = build_pass_manager("builtin.module(canonicalize, tosa-custom-verify-tosa, func.func(cse))")
        assert pm is not None
        with pytest.raises(ValueError, match="put them at the top level"):
            build_pass_manager(["func.func(tosa-custom-verify-tosa)"])
        with pytest.raises(ValueError, match="no-such-pass"):
            build_pass_manager(["no-such-pass"])
    assert split_pipeline("builtin.module(a, b{x=1,y=2}, func.func(c, d))") == ["a", "b{x=1,y=2}", "func.func(c, d)"]
    with pytest.raises(ValueError, match="unbalanced"):
        split_pipeline("builtin.module(a{)")


def _retype(result: str):
    """A pass setting @f's result type: `tensor<3xf32>` breaks the IR (its
    return yields a tensor<2xf32>), `tensor<2xf32>` mends it."""
    def body(op, ctx):
        fn = _ir.public_functions(op)[0]
        arg = ir.Type.parse("tensor<2xf32>")
        fn.attributes["function_type"] = ir.TypeAttr.get(ir.FunctionType.get([arg], [ir.Type.parse(result)]))
    return body


register_pass("tosa-custom-test-break", "Break @f's type (for these tests)")(_retype("tensor<3xf32>"))
register_pass("tosa-custom-test-mend", "Mend @f's type (for these tests)")(_retype("tensor<2xf32>"))


@pytest.mark.parametrize("verify_each", [True, False])
def test_verify_each_or_once_at_the_end(verify_each):
    ctx = _ir.make_context()
    with ctx:
        broken = ir.Module.parse(_MODULE)
        with pytest.raises(CompileError, match=r"lowering failed:\n.*doesn't match function result type"):
            run_pipeline(broken, ["tosa-custom-test-break"], "lowering", verify_each=verify_each)
        # IR broken by one pass and mended by the next: only verifying after each pass sees it.
        module = ir.Module.parse(_MODULE)
        if verify_each:
            with pytest.raises(CompileError, match="doesn't match function result type"):
                run_pipeline(module, ["tosa-custom-test-break", "tosa-custom-test-mend"], "lowering")
        else:
            run_pipeline(module, ["tosa-custom-test-break", "tosa-custom-test-mend"], "lowering", verify_each=False)
            assert "-> tensor<2xf32>" in str(module)
