"""tosa_custom.refmodel.load: the TOSA between kept ops run by TOSA's
reference model (tosa-tools), each tosa.custom by our kernels, against eager
PyTorch and the reference runtime; the runtime's result semantics (in-place
write-back, state, structure, weights as arguments); the element types and
odd results at the boundary; what is refused at load, and why."""

from __future__ import annotations

import collections
import warnings

import pytest
import torch

import tosa_custom
from tosa_custom import refmodel, runtime
from tosa_custom.core.diagnostics import CompileError
from tosa_custom.e2e import Fn
from tosa_custom.tools.example import KEPT_OPS, TransformerBlock

from _out_resize import check_out_resize
from _tolerance import reduction_tolerance

pytestmark = pytest.mark.usefixtures("tosa_tools")  # skipped, saying how to install it, without tosa-tools

F = torch.nn.functional
BLOCK_TOL = reduction_tolerance(4 * 32)  # the MLP's 4 x dim contraction


def _compile(model, args, ops=None, **kwargs):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return tosa_custom.compile(model.eval(), args, backend_legal_ops=ops, **kwargs)


def test_stock_mlp_is_one_segment_and_matches_eager_and_the_runtime():
    torch.manual_seed(0)
    model = torch.nn.Sequential(torch.nn.Linear(8, 16), torch.nn.ReLU(), torch.nn.Linear(16, 4))
    x = torch.randn(3, 8)
    program = refmodel.load(_compile(model, (x,)))
    assert [s.kind for s in program.segments] == ["segment"] and program.kernels == []
    assert program.segments[0].inputs == ("tensor<3x8xf32>",) and program.segments[0].outputs == ("tensor<3x4xf32>",)
    with torch.no_grad():
        torch.testing.assert_close(program(x), model(x), **reduction_tolerance(16))
    torch.testing.assert_close(program(x), runtime.load(_compile(model, (x,)))(x), **reduction_tolerance(16))


def test_example_block_runs_segments_and_kept_ops_on_their_kernels():
    torch.manual_seed(0)
    model, x = TransformerBlock(dim=32, heads=4), torch.randn(2, 8, 32)
    program = refmodel.load(_compile(model, (x,), KEPT_OPS))
    kinds = [s.kind for s in program.segments]
    # Each kept op feeds the next through TOSA: four kept ops, a segment after each.
    assert kinds == ["kept", "segment"] * 4
    assert [s.kept for s in program.segments if s.kind == "kept"] == program.custom_ops == [
        "torch.aten.layer_norm", "torch.aten.softmax.int", "torch.aten.layer_norm", "torch.aten.gelu"]
    assert program.kernels == [s.kernel for s in program.segments if s.kind == "kept"]
    assert all(k.startswith("native (") for k in program.kernels), program.kernels
    with torch.no_grad():
        expected = model(x)
    torch.testing.assert_close(program(x), expected, **BLOCK_TOL)
    torch.testing.assert_close(program(x.numpy()), expected, **BLOCK_TOL)  # numpy in, same answer
    torch.testing.assert_close(program(x), runtime.load(_compile(model, (x,), KEPT_OPS))(x), **BLOCK_TOL)


def test_independent_ops_run_in_the_first_segment_they_can():
    """`w` reads only the input, though the model computes it last: it runs
    before the first kept op, not in the segment after the second."""
    model = Fn(lambda x: (F.gelu(F.gelu(x) * 2) + 1, x.abs() - 1))
    x = torch.randn(4, 8)
    program = refmodel.load(_compile(model, (x,), ["aten.gelu"]))
    assert [s.kind for s in program.segments] == ["segment", "kept", "segment", "kept", "segment"]
    first = program.segments[0]
    assert first.inputs == first.outputs == ("tensor<4x8xf32>",) and first.ops == 3  # abs, const 1, sub
    for got, expected in zip(program(x), model(x)):
        torch.testing.assert_close(got, expected)


class _Decay(torch.nn.Module):
    """Writes its input in place, and a buffer whose new value is a kept op's
    result: the state comes out of a kernel, between two segments."""

    def __init__(self):
        super().__init__()
        self.register_buffer("memory", torch.zeros(4, 32))

    def forward(self, x, y):
        x.mul_(y)
        self.memory.copy_(F.layer_norm(self.memory * 0.5 + x, (32,)))
        return F.gelu(x) - self.memory.sum()


@pytest.mark.parametrize("weights", ["inline", "arguments"])
def test_in_place_updates_and_state(weights):
    torch.manual_seed(0)
    x0, ys = torch.randn(4, 32), [torch.randn(4, 32) for _ in range(3)]
    module = _compile(_Decay(), (x0.clone(), ys[0]), ["aten.gelu", "aten.layer_norm"], weights=weights)
    program = refmodel.load(module, weights=_Decay() if weights == "arguments" else None)
    assert sorted(program.custom_ops) == ["torch.aten.gelu", "torch.aten.layer_norm"]
    eager = _Decay()
    for y in ys:
        xe, xp = x0.clone(), x0.clone()
        with torch.no_grad():
            expected = eager(xe, y)
        torch.testing.assert_close(program(xp, y), expected, **reduction_tolerance(32))
        torch.testing.assert_close(xp, xe)  # the caller's tensor was written, as eager writes it
    torch.testing.assert_close(program.state_dict()["memory"], eager.memory, **reduction_tolerance(32))
    program.reset_state()
    assert not program.state_dict()["memory"].any()


def test_state_survives_save_and_load(tmp_path):
    module = _compile(_Decay(), (torch.ones(4, 32), torch.ones(4, 32)), ["aten.layer_norm"], weights="arguments")
    program = refmodel.load(module, weights=_Decay())
    program(torch.ones(4, 32), torch.ones(4, 32))
    program.save(tmp_path / "p")
    again, eager = refmodel.load(tmp_path / "p"), _Decay()
    eager(torch.ones(4, 32), torch.ones(4, 32))
    torch.testing.assert_close(again.state_dict()["memory"], eager.memory)
    torch.testing.assert_close(again(torch.ones(4, 32), torch.ones(4, 32)), eager(torch.ones(4, 32), torch.ones(4, 32)))


Pair = collections.namedtuple("Pair", ["first", "second"])


def test_outputs_come_back_in_the_models_structure_with_python_numbers():
    model = Fn(lambda x: {"sum": x.sum(), "nested": (F.relu(x), [x * 2, x.shape[0]]), "pair": Pair(x - 1, True)})
    x = torch.randn(3)
    got = refmodel.load(_compile(model, (x,), ["aten.relu"]))(x)
    expected = model(x)
    assert type(got) is dict and type(got["nested"][1]) is list and type(got["pair"]) is Pair
    assert got["nested"][1][1] == 3 and type(got["nested"][1][1]) is int and got["pair"].second is True
    torch.testing.assert_close(got, expected)


def test_weights_as_arguments_swap_without_reloading():
    torch.manual_seed(0)
    model, x = TransformerBlock(dim=32, heads=2), torch.randn(2, 8, 32)
    program = refmodel.load(_compile(model, (x,), KEPT_OPS, weights="arguments"), weights=model.state_dict())
    assert [s.kind for s in program.segments] == ["kept", "segment"] * 4  # the weights pass as arguments
    other = TransformerBlock(dim=32, heads=2).eval()
    program.load_weights(other.state_dict())
    with torch.no_grad():
        torch.testing.assert_close(program(x), other(x), **BLOCK_TOL)


class _Dtypes(torch.nn.Module):
    """A 0-d input, uint8 in and out, bfloat16 in and out, beside a kept gelu."""

    def forward(self, scale, small, half, x):
        return F.gelu(x) * scale, small + 3, (half * 2).exp()


def test_zero_rank_uint8_and_bfloat16_at_the_boundary():
    args = (torch.tensor(1.5), torch.tensor([250, 1, 7], dtype=torch.uint8),
            torch.randn(2, 3).to(torch.bfloat16), torch.randn(2, 8))
    program = refmodel.load(_compile(_Dtypes(), args, ["aten.gelu"]))
    got, expected = program(*args), _Dtypes()(*args)
    assert [t.dtype for t in got] == [torch.float32, torch.uint8, torch.bfloat16]
    torch.testing.assert_close(got[0], expected[0], rtol=1e-5, atol=1e-5)
    torch.testing.assert_close(got[1], expected[1], rtol=0, atol=0)  # 253, 4, 10: wraps as eager's would
    torch.testing.assert_close(got[2], expected[2], rtol=1.6e-2, atol=1e-2)  # bfloat16's 8-bit mantissa


# Element types in and out, a constant from a resource blob, a constant
# returned, an argument returned, a value returned twice, a zero-size result.
_TYPES = """
func.func @f(%a: tensor<2xbf16>, %b: tensor<3xi1>, %c: tensor<2xf16>, %d: tensor<2xi8>, %e: tensor<2xi64>,
             %x: tensor<2xf32>) -> (tensor<2xf32>, tensor<2xbf16>, tensor<3xi1>, tensor<2xf16>, tensor<2xi8>,
             tensor<2xi64>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<0x3xf32>, tensor<2xf32>) {
  %0 = tosa.cast %a : (tensor<2xbf16>) -> tensor<2xf32>
  %1 = tosa.cast %x : (tensor<2xf32>) -> tensor<2xbf16>
  %2 = tosa.logical_not %b : (tensor<3xi1>) -> tensor<3xi1>
  %3 = tosa.abs %c : (tensor<2xf16>) -> tensor<2xf16>
  %4 = tosa.identity %d : (tensor<2xi8>) -> tensor<2xi8>
  %5 = tosa.add %e, %e : (tensor<2xi64>, tensor<2xi64>) -> tensor<2xi64>
  %r = "tosa.const"() <{values = dense_resource<blob> : tensor<2xf32>}> : () -> tensor<2xf32>
  %6 = tosa.add %r, %x : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
  %z = tensor.empty() : tensor<0x3xf32>
  return %0, %1, %2, %3, %4, %5, %6, %r, %x, %z, %6 : tensor<2xf32>, tensor<2xbf16>, tensor<3xi1>, tensor<2xf16>,
      tensor<2xi8>, tensor<2xi64>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<0x3xf32>, tensor<2xf32>
}
{-#
  dialect_resources: { builtin: { blob: "0x040000000000803F00000040" } }
#-}
"""


def test_element_types_constants_and_returned_arguments_as_the_runtime_gives_them():
    args = (torch.tensor([1.5, -2], dtype=torch.bfloat16), torch.tensor([True, False, True]),
            torch.tensor([-1, 2], dtype=torch.float16), torch.tensor([-3, 4], dtype=torch.int8),
            torch.tensor([2 ** 40, -5]), torch.tensor([0.25, -1.0]))
    got = refmodel.load(_TYPES)(*args)
    torch.testing.assert_close(list(got), list(runtime.load(_TYPES)(*args)), rtol=0, atol=0)
    torch.testing.assert_close(got[7], torch.tensor([1.0, 2.0]))  # the blob's values, a constant result
    assert got[8] is not args[5] and got[6] is not got[10]  # each result a tensor of its own
    assert got[9].shape == (0, 3)


def test_a_dynamic_shape_is_refused_at_load_saying_why():
    dynamic = """
func.func @f(%a: tensor<?x4xf32>) -> tensor<?x4xf32> {
  %0 = tosa.abs %a : (tensor<?x4xf32>) -> tensor<?x4xf32>
  return %0 : tensor<?x4xf32>
}"""
    with pytest.raises(CompileError, match=r"tensor<\?x4xf32>: the TOSA reference model interprets graphs of "
                                           r"static shapes only") as info:
        refmodel.load(dynamic)
    assert info.value.category == "dynamic-shape"


def test_a_graph_the_reference_model_cannot_run_is_refused_at_load_with_its_reason():
    i64_cast = """
func.func @f(%a: tensor<2xi64>) -> tensor<2xf32> {
  %0 = tosa.cast %a : (tensor<2xi64>) -> tensor<2xf32>
  return %0 : tensor<2xf32>
}"""
    with pytest.raises(CompileError, match=r"(?s)segment 0: the TOSA reference model refused it.*"
                                           r"could not allocate op\s+CAST input=\(INT64") as info:
        refmodel.load(i64_cast)
    assert info.value.category == "runtime-lowering-failed"
    program = refmodel.load(i64_cast, check=False)  # unchecked: the first call says it
    with pytest.raises(refmodel.ReferenceModelError, match="refused it") as info:
        program(torch.tensor([1, 2]))
    assert info.value.refused


def test_kept_ops_take_their_kernels_as_the_runtime_chooses_them():
    module = _compile(Fn(lambda x: torch.atan2(x, x + 1)), (torch.randn(3, 4),), ["aten.atan2"])
    with pytest.raises(CompileError, match="no kernel for torch_mlir::torch.aten.atan2") as info:
        refmodel.load(module, kernels="user")
    assert info.value.category == "no-kernel" and tuple(info.value.ops) == ("torch.aten.atan2",)


def test_out_of_another_size_is_resized_and_inputs_stay_resizable():
    check_out_resize(refmodel.load)
