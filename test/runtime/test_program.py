"""The runtime on the built-in example, and its error paths."""

from __future__ import annotations

import numpy as np
import pytest
import torch
from _tolerance import reduction_tolerance

import tosa_custom
from tosa_custom import runtime
from tosa_custom.tools.example import KEPT_OPS, TransformerBlock

BLOCK_TOL = reduction_tolerance(4 * 32)  # the block's longest reduction: its MLP over 4 x dim


@pytest.fixture(scope="module")
def block():
    torch.manual_seed(0)
    return TransformerBlock().eval(), torch.randn(2, 8, 32)


@pytest.mark.parametrize("encoding", ["json", "const"])
@pytest.mark.parametrize("kept", [KEPT_OPS, None], ids=["kept", "stock"])
def test_block_matches_eager(block, encoding, kept):
    model, x = block
    program = runtime.load(tosa_custom.compile(model, (x,), backend_legal_ops=kept, encoding=encoding))
    assert len(program.custom_ops) == (4 if kept else 0)
    with torch.no_grad():
        expected = model(x)
    torch.testing.assert_close(program(x), expected, **BLOCK_TOL)
    # numpy inputs work too, and a second call gives the same answer
    torch.testing.assert_close(program(x.numpy()), expected, **BLOCK_TOL)


def _gelu_module():
    class M(torch.nn.Module):
        def forward(self, x):
            return torch.nn.functional.gelu(x * 2.0) + 1.0

    return tosa_custom.compile(M(), (torch.randn(3, 4),), backend_legal_ops=["aten.gelu"])


def test_inputs_are_checked_before_anything_runs():
    program = runtime.load(_gelu_module())
    with pytest.raises(TypeError, match=r"takes 1 inputs \(\[3, 4\] float32\), got 2"):
        program(torch.zeros(3, 4), torch.zeros(3, 4))
    with pytest.raises(ValueError, match=r"input #0 is \[4, 3\] float32; expected \[3, 4\] float32"):
        program(torch.zeros(4, 3))
    with pytest.raises(ValueError, match=r"input #0 is \[3, 4\] float64; expected \[3, 4\] float32"):
        program(torch.zeros(3, 4, dtype=torch.float64))
    with pytest.raises(TypeError, match=r"input #0 is a list"):
        program([[0.0] * 4] * 3)


def test_non_contiguous_input(block):
    program = runtime.load(_gelu_module())
    x = torch.randn(4, 3).t()
    torch.testing.assert_close(program(x), torch.nn.functional.gelu(x * 2.0) + 1.0)


def test_kernel_exception_surfaces_naming_the_op(monkeypatch):
    from tosa_custom.runtime.kernels import numpy_kernels  # noqa: F401
    from tosa_custom.runtime.kernels import registry as kernels

    def broken(call):
        raise RuntimeError("boom")

    monkeypatch.setitem(kernels._KERNELS._entries, "torch_mlir::torch.aten.gelu", broken)
    program = runtime.load(_gelu_module())
    with pytest.raises(runtime.KernelError, match=r"kernel for torch.aten.gelu at .* failed: RuntimeError: boom"):
        program(torch.randn(3, 4))


@pytest.mark.parametrize("result,message", [
    (torch.zeros(4, 3), r"result #0 is \[4, 3\] float32, expected \[3, 4\] float32"),
    (torch.zeros(3, 4, dtype=torch.float64), r"result #0 is \[3, 4\] float64, expected \[3, 4\] float32"),
    ((torch.zeros(3, 4), torch.zeros(3, 4)), r"returned 2 results, the op has 1"),
    (np.zeros((3, 4), dtype=np.float64), r"float64, expected \[3, 4\] float32"),
])
def test_wrong_kernel_result_is_an_error(monkeypatch, result, message):
    from tosa_custom.runtime.kernels import numpy_kernels  # noqa: F401
    from tosa_custom.runtime.kernels import registry as kernels

    monkeypatch.setitem(kernels._KERNELS._entries, "torch_mlir::torch.aten.gelu", lambda call: result)
    program = runtime.load(_gelu_module())
    with pytest.raises(runtime.KernelError, match=message):
        program(torch.randn(3, 4))


def test_missing_kernel_fails_at_load_naming_the_op():
    text = """
func.func @f(%a: tensor<2xf32>) -> tensor<2xf32> {
  %0 = tosa.custom %a {domain_name = "acme", implementation_attrs = "", operator_name = "fused_thing"} : (tensor<2xf32>) -> tensor<2xf32>
  return %0 : tensor<2xf32>
}"""
    with pytest.raises(tosa_custom.CompileError, match=r"no kernel for acme::fused_thing; registered: .*torch.aten.layer_norm"):
        runtime.load(text)


def test_user_kernel_registered_by_decorator(monkeypatch):
    from tosa_custom.runtime.kernels import registry as kernels

    # A private copy of the registry, so this registration does not outlive the test.
    kernels.registered_kernels()
    monkeypatch.setattr(kernels._KERNELS, "_entries", dict(kernels._KERNELS._entries))
    text = """
func.func @f(%a: tensor<2xf32>) -> tensor<2xf32> {
  %0 = tosa.custom %a {domain_name = "acme", implementation_attrs = "{\\22args\\22:{\\22self\\22:{\\22operand\\22:0}},\\22version\\22:1}", operator_name = "torch.aten.neg"} : (tensor<2xf32>) -> tensor<2xf32>
  return %0 : tensor<2xf32>
}"""

    @runtime.register_kernel("torch.aten.neg", domain_name="acme")
    def acme_neg(call):
        return -call.inputs[0] * 10

    with pytest.raises(ValueError, match=r"cannot register .*acme_neg for acme::torch.aten.neg: the kernel .*acme_neg "
                                         r"is registered for it already; pass register_kernel\(\.\.\., override=True\)"):
        runtime.register_kernel("torch.aten.neg", domain_name="acme")(acme_neg)
    program = runtime.load(text)
    torch.testing.assert_close(program(torch.tensor([1.0, -2.0])), torch.tensor([-10.0, 20.0]))


_TWO_RESULTS = """
func.func @f(%a: tensor<2xf32>) -> tensor<2xf32> {
  %0:2 = tosa.custom %a {domain_name = "acme", implementation_attrs = "", operator_name = "sums_and_bags"} : (tensor<2xf32>) -> (tensor<2xf32>, tensor<5xi64>)
  return %0#RESULT : tensor<2xf32>
}"""


@pytest.mark.parametrize("returned", [0, 1])
def test_a_result_nothing_reads_is_not_checked(monkeypatch, returned):
    """PyTorch's CPU embedding_bag returns an empty offset2bag where its meta
    function (and so the op's result type) says [N]: a program that never
    reads it must run; one that does gets the mismatch."""
    from tosa_custom.runtime.kernels import registry as kernels

    kernels.registered_kernels()
    monkeypatch.setattr(kernels._KERNELS, "_entries", dict(kernels._KERNELS._entries))

    @runtime.register_kernel("sums_and_bags", domain_name="acme")
    def sums_and_bags(call):
        return call.inputs[0] * 2, torch.zeros(0, dtype=torch.int64)

    text = _TWO_RESULTS.replace("%0#RESULT", f"%0#{returned}").replace(
        "-> tensor<2xf32> {", "-> tensor<5xi64> {" if returned else "-> tensor<2xf32> {").replace(
        ": tensor<2xf32>\n}", ": tensor<5xi64>\n}" if returned else ": tensor<2xf32>\n}")
    program = runtime.load(text)
    if returned:
        with pytest.raises(runtime.KernelError, match=r"result #1 is \[0\] int64, expected \[5\] int64"):
            program(torch.tensor([1.0, -2.0]))
    else:
        torch.testing.assert_close(program(torch.tensor([1.0, -2.0])), torch.tensor([2.0, -4.0]))


def test_engine_failure_is_a_compile_error(monkeypatch):
    from tosa_custom.runtime.execute import program as program_mod

    class Refusing:
        def __init__(self, *args, **kwargs):
            raise RuntimeError("Failure while creating the ExecutionEngine.")

    monkeypatch.setattr(program_mod.execution_engine, "ExecutionEngine", Refusing)
    with pytest.raises(tosa_custom.CompileError, match=r"creating the ExecutionEngine failed"):
        runtime.load(_gelu_module())


# --------------------------------------------------------------------------
# Bad input: each refusal names the problem and the fix.
# --------------------------------------------------------------------------


@pytest.mark.parametrize("path", ["nonexistent/", "model.mlir"])
def test_load_of_a_missing_path_says_so(tmp_path, monkeypatch, path):
    monkeypatch.chdir(tmp_path)  # used to be parsed as MLIR: "custom op 'nonexistent' is unknown"
    with pytest.raises(FileNotFoundError, match=rf"no such file or directory: '{path}': load\(\) takes a \.mlir "
                                                r"file, a directory written by Program\.save"):
        runtime.load(path)


@pytest.mark.parametrize("text", ["func.func @", "module", "%0 = tosa.add"])
def test_load_of_truncated_mlir_text_is_a_parse_error_not_a_path(text):
    """The runtime fuzzer: truncated module text was taken for a missing path."""
    from tosa_custom.core.diagnostics import CompileError

    with pytest.raises(CompileError, match="cannot parse the module"):
        runtime.load(text)


def test_load_of_text_ending_in_an_open_resource_string_is_a_parse_error():
    """MLIR's lexer read past the end of such text and the process crashed
    (fuzz: opt, seed 734959; test/tools/opt/unterminated-string-at-end.mlir)."""
    from tosa_custom.core.diagnostics import CompileError

    text = 'module {\n}\n{-#\n  dialect_resources: {\n    builtin: {\n      blob: "0x08'
    with pytest.raises(CompileError, match="cannot parse the module") as info:
        runtime.load(text)
    assert "6:18: error: expected '\"' in string literal" in str(info.value)


def test_load_of_empty_text_says_so():
    with pytest.raises(ValueError, match="load\\(\\) got empty MLIR text"):
        runtime.load("  ")


def test_load_of_a_directory_that_is_no_saved_program(tmp_path):
    with pytest.raises(FileNotFoundError, match=r"is a directory without module\.mlirbc: load\(\) takes a "
                                                r"directory written by Program\.save"):
        runtime.load(tmp_path)


def test_load_of_a_file_reads_it(tmp_path):
    (tmp_path / "m.mlir").write_text(str(_gelu_module()))
    x = torch.randn(3, 4)
    torch.testing.assert_close(runtime.load(str(tmp_path / "m.mlir"))(x), torch.nn.functional.gelu(x * 2.0) + 1.0)


def test_call_with_the_wrong_input_names_the_fix():
    program = runtime.load(_gelu_module())
    with pytest.raises(ValueError, match=r"input #0 is \[3, 4\] float64; expected \[3, 4\] float32: shapes and "
                                         r"dtypes are fixed at compile time, so convert the input or compile"):
        program(torch.randn(3, 4, dtype=torch.float64))
    with pytest.raises(TypeError, match=r"takes 1 inputs \(\[3, 4\] float32\), got 2"):
        program(torch.randn(3, 4), torch.randn(3, 4))
    with pytest.raises(TypeError, match=r"input #0 is a str; expected a tensor \[3, 4\] float32"):
        program("x")


def test_load_weights_without_weight_arguments_says_how_to_get_them():
    program = runtime.load(_gelu_module())
    with pytest.raises(runtime.WeightError, match=r"this program has no weight arguments.*compile with "
                                                  r"weights='arguments'"):
        program.load_weights({"w": torch.zeros(2)})


def test_missing_kernel_error_carries_category_and_op():
    text = """
func.func @f(%a: tensor<2xf32>) -> tensor<2xf32> {
  %0 = tosa.custom %a {domain_name = "acme", implementation_attrs = "", operator_name = "fused_thing"} : (tensor<2xf32>) -> tensor<2xf32>
  return %0 : tensor<2xf32>
}"""
    with pytest.raises(tosa_custom.CompileError) as info:
        runtime.load(text)
    assert (info.value.category, info.value.ops) == ("no-kernel", ("fused_thing",))


def test_pipeline_is_the_text_that_ran():
    """Program.pipeline is the runtime lowering's text: outline, TOSA to linalg, tile, bufferize, LLVM."""
    from tosa_custom.runtime.lower import lowering

    program = runtime.load(_gelu_module())
    assert program.pipeline == lowering.pipeline(vectorize=True, pieces=program.cache.jobs)
    naive = runtime.load(_gelu_module(), vectorize=False)
    assert naive.pipeline == lowering.pipeline(vectorize=False, pieces=naive.cache.jobs)
    for name in ("tosa-custom-outline-custom-ops", "tosa-custom-tile-and-vectorize", "one-shot-bufferize",
                 "tosa-custom-distinct-results", "reconcile-unrealized-casts"):
        assert name in program.pipeline


# --------------------------------------------------------------------------
# Valid modules of every result shape run (issue 13: none crashes the process)
# --------------------------------------------------------------------------

_SHAPES = {
    # what torch.export gives for an input mutation: one value returned twice
    "value_returned_twice": ("""
func.func @f(%a: tensor<4xf32>, %b: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>) {
  %1 = tosa.add %a, %b : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  return %1, %1 : tensor<4xf32>, tensor<4xf32>
}""", lambda a, b: (a + b, a + b)),
    "value_returned_three_times_between_others": ("""
func.func @f(%a: tensor<4x64xf32>, %b: tensor<4x64xf32>) -> (tensor<4x64xf32>, tensor<4x64xf32>, tensor<4x64xf32>, tensor<4x64xf32>) {
  %1 = tosa.mul %a, %b, %s : (tensor<4x64xf32>, tensor<4x64xf32>, tensor<1xi8>) -> tensor<4x64xf32>
  %2 = tosa.sub %a, %b : (tensor<4x64xf32>, tensor<4x64xf32>) -> tensor<4x64xf32>
  return %1, %2, %1, %1 : tensor<4x64xf32>, tensor<4x64xf32>, tensor<4x64xf32>, tensor<4x64xf32>
}""".replace("%1 = tosa.mul", '%s = "tosa.const"() <{values = dense<0> : tensor<1xi8>}> : () -> tensor<1xi8>\n  %1 = tosa.mul'),
        lambda a, b: (a * b, a - b, a * b, a * b)),
    "argument_returned": ("""
func.func @f(%a: tensor<4xf32>) -> tensor<4xf32> {
  return %a : tensor<4xf32>
}""", lambda a: (a,)),
    "argument_returned_twice": ("""
func.func @f(%a: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>) {
  return %a, %a : tensor<4xf32>, tensor<4xf32>
}""", lambda a: (a, a)),
    "constant_returned_twice": ("""
func.func @f(%a: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>, tensor<4xf32>) {
  %c = "tosa.const"() <{values = dense<[1.0, 2.0, 3.0, 4.0]> : tensor<4xf32>}> : () -> tensor<4xf32>
  return %c, %a, %c : tensor<4xf32>, tensor<4xf32>, tensor<4xf32>
}""", lambda a: (torch.tensor([1.0, 2.0, 3.0, 4.0]), a, torch.tensor([1.0, 2.0, 3.0, 4.0]))),
    "results_alias_each_other_and_an_argument": ("""
func.func @f(%a: tensor<2x6xf32>) -> (tensor<2x6xf32>, tensor<3x4xf32>, tensor<2x6xf32>, tensor<12xf32>) {
  %1 = tosa.add %a, %a : (tensor<2x6xf32>, tensor<2x6xf32>) -> tensor<2x6xf32>
  %s = tosa.const_shape {values = dense<[3, 4]> : tensor<2xindex>} : () -> !tosa.shape<2>
  %r = tosa.reshape %1, %s : (tensor<2x6xf32>, !tosa.shape<2>) -> tensor<3x4xf32>
  %s1 = tosa.const_shape {values = dense<[12]> : tensor<1xindex>} : () -> !tosa.shape<1>
  %ra = tosa.reshape %a, %s1 : (tensor<2x6xf32>, !tosa.shape<1>) -> tensor<12xf32>
  return %1, %r, %a, %ra : tensor<2x6xf32>, tensor<3x4xf32>, tensor<2x6xf32>, tensor<12xf32>
}""", lambda a: (a + a, (a + a).reshape(3, 4), a, a.reshape(12))),
    "no_results": ("""
func.func @f(%a: tensor<4xf32>) {
  return
}""", lambda a: ()),
    "unused_arguments": ("""
func.func @f(%a: tensor<4xf32>, %unused: tensor<2x3xf32>, %b: tensor<4xf32>, %also: tensor<5xi32>) -> tensor<4xf32> {
  %1 = tosa.maximum %a, %b : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  return %1 : tensor<4xf32>
}""", lambda a, unused, b, also: (torch.maximum(a, b),)),
    "zero_size_results": ("""
func.func @f(%z: tensor<0x3xf32>, %a: tensor<4xf32>) -> (tensor<0x3xf32>, tensor<4xf32>, tensor<0x4xf32>, tensor<0x3xf32>) {
  %1 = tosa.abs %a : (tensor<4xf32>) -> tensor<4xf32>
  %e = tensor.empty() : tensor<0x4xf32>
  return %z, %1, %e, %z : tensor<0x3xf32>, tensor<4xf32>, tensor<0x4xf32>, tensor<0x3xf32>
}""", lambda z, a: (z, a.abs(), torch.zeros(0, 4), z)),
    "custom_op_result_returned_twice": ("""
func.func @f(%a: tensor<3x4xf32>) -> (tensor<3x4xf32>, tensor<3x4xf32>) {
  %0 = tosa.custom %a {domain_name = "torch_mlir", implementation_attrs = "{\\"args\\":{\\"self\\":{\\"operand\\":0}},\\"version\\":1}", operator_name = "torch.aten.neg"} : (tensor<3x4xf32>) -> tensor<3x4xf32>
  return %0, %0 : tensor<3x4xf32>, tensor<3x4xf32>
}""", lambda a: (-a, -a)),
}


@pytest.mark.parametrize("vectorize", [True, False], ids=["vectorized", "naive"])
@pytest.mark.parametrize("case", sorted(_SHAPES))
def test_every_result_shape_runs_and_matches(case, vectorize):
    text, expected = _SHAPES[case]
    program = runtime.load(text, vectorize=vectorize)
    g = torch.Generator().manual_seed(len(case))
    for _ in range(2):  # the second call reuses the descriptors: still right
        inputs = [torch.randn(s.shape, generator=g).to(s.dtype) for s in program.input_specs]
        result = program(*inputs)
        result = result if isinstance(result, tuple) else (result,)
        want = expected(*inputs)
        assert len(result) == len(want)
        for got, w in zip(result, want):
            torch.testing.assert_close(got, w)
        # results are the program's own tensors, never one of the caller's inputs
        assert not {id(r) for r in result} & {id(x) for x in inputs}
        assert len({r.data_ptr() for r in result if r.numel()}) == len([r for r in result if r.numel()])


class _InPlace(torch.nn.Module):
    def __init__(self, update):
        super().__init__()
        self.update = update

    def forward(self, x, y):
        return self.update(x, y)


def _set_first_row(x, y):
    x[0] = y[0]
    return x


_IN_PLACE = {
    "add_": lambda x, y: x.add_(y),
    "copy_": lambda x, y: x.copy_(y),
    "fill_": lambda x, y: x.fill_(1.0),
    "zero_": lambda x, y: x.zero_(),
    "setitem": _set_first_row,
    "arange_out": lambda x, y: torch.arange(0, 12, out=x.view(12)).view(3, 4),
    "add_and_another_result": lambda x, y: (x.add_(y), y * 2),
}


@pytest.mark.parametrize("mode", ["stock", "dummy"])
@pytest.mark.parametrize("name", sorted(_IN_PLACE))
def test_in_place_models_run_and_return_the_user_values(name, mode):
    """torch.export returns the mutated input as an extra result; the program
    returns only the model's outputs, as eager does, and writes the update
    into the caller's tensor (issue 13)."""
    update = _IN_PLACE[name]
    g = torch.Generator().manual_seed(1)
    x, y = torch.randn(3, 4, generator=g), torch.randn(3, 4, generator=g)
    eager_x = x.clone()
    expected = update(eager_x, y.clone())
    module = tosa_custom.compile(_InPlace(update), (x.clone(), y.clone()),
                                 backend_legal_ops=["*"] if mode == "dummy" else None)
    caller_x = x.clone()
    result = runtime.load(module)(caller_x, y.clone())
    assert type(result) is type(expected)
    for got, want in zip(result if isinstance(result, tuple) else [result],
                         expected if isinstance(expected, tuple) else [expected]):
        torch.testing.assert_close(got, want)
    torch.testing.assert_close(caller_x, eager_x)  # the caller's tensor took the update


def test_loading_a_module_twice_says_it_was_consumed():
    """load() lowers its module in place: a second load of the same module
    object says so and how to keep one (a copy), not "no public function"."""
    module = _gelu_module()
    text = str(module)
    runtime.load(module)
    with pytest.raises(ValueError, match=r"this module was loaded before: .* pass a copy: load\(str\(module\)\)"):
        runtime.load(module, cpu="avx2")
    x = torch.randn(3, 4)
    torch.testing.assert_close(runtime.load(text, cpu="avx2")(x), torch.nn.functional.gelu(x * 2.0) + 1.0)
