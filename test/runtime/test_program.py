"""The runtime on the built-in example, and its error paths."""

from __future__ import annotations

import numpy as np
import pytest
import torch
from _tolerance import reduction_tolerance

import tosa_custom
from tosa_custom import runtime
from tosa_custom.example import KEPT_OPS, TransformerBlock

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
    from tosa_custom.runtime import numpy_kernels  # noqa: F401
    from tosa_custom.runtime import kernels

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
    from tosa_custom.runtime import numpy_kernels  # noqa: F401
    from tosa_custom.runtime import kernels

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
    from tosa_custom.runtime import kernels

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


def test_engine_failure_is_a_compile_error(monkeypatch):
    from tosa_custom.runtime import program as program_mod

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
