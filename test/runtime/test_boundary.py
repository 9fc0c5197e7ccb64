"""The program behaves like eager PyTorch at its boundary (runtime/execute/boundary.py):
inputs the model writes are written back, buffers it writes are state carried
to the next call, outputs come back in the model's structure and Python types.

Tests marked `returns_twice` compile models whose function returns one value
twice (an input update that is also an output); they need the runtime's fix
for such modules (issue 13 item 3) to load with the default lowering.
"""

from __future__ import annotations

import collections
import warnings

import numpy as np
import pytest
import torch

import tosa_custom
from tosa_custom import runtime
from tosa_custom.e2e import Fn


def _compile(model, args, **kw):
    """These tests are about the program boundary, and their models count in
    int64 and take Python floats (f64), which no TOSA 1.0 profile allows: the
    target check (test/tosa/test_target.py) is not their subject."""
    kw.setdefault("tosa_target", None)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return tosa_custom.compile(model, args, **kw)


MODES = [None, ["*"]]  # stock, dummy


class AddInPlace(torch.nn.Module):
    def forward(self, x, y):
        x.add_(y)
        return x * 2


@pytest.mark.parametrize("ops", MODES)
def test_an_input_the_model_writes_is_written_into_the_callers_tensor(ops):
    program = runtime.load(_compile(AddInPlace(), (torch.zeros(3), torch.ones(3)), backend_legal_ops=ops))
    x, y = torch.zeros(3), torch.arange(3.0)
    got = program(x, y)
    xe = torch.zeros(3)
    expected = AddInPlace()(xe, y)
    torch.testing.assert_close(got, expected)
    torch.testing.assert_close(x, xe)  # the caller's own tensor, as eager


def test_a_numpy_input_is_written_too_and_a_read_only_one_is_refused_before_running():
    program = runtime.load(_compile(AddInPlace(), (torch.zeros(3), torch.ones(3))))
    x = np.zeros(3, dtype=np.float32)
    program(x, np.ones(3, dtype=np.float32))
    np.testing.assert_array_equal(x, np.ones(3, dtype=np.float32))
    x.flags.writeable = False
    with pytest.raises(ValueError, match="input #0 is written by the model in place, but the array is read-only"):
        program(x, np.ones(3, dtype=np.float32))


def test_a_non_contiguous_view_is_written_where_it_points_and_an_expanded_one_is_refused():
    program = runtime.load(_compile(AddInPlace(), (torch.zeros(3), torch.ones(3))))
    base = torch.zeros(3, 2)
    view = base[:, 1]  # stride 2
    program(view, torch.arange(3.0))
    expected = torch.zeros(3, 2)
    expected[:, 1] += torch.arange(3.0)
    torch.testing.assert_close(base, expected)
    with pytest.raises(ValueError, match="more than one of its elements refer to the same memory"):
        program(torch.zeros(1).expand(3), torch.ones(3))
    with pytest.raises(TypeError, match="pass a tensor or a numpy array"):
        program([0.0, 0.0, 0.0], torch.ones(3))


class Counter(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.register_buffer("n", torch.zeros((), dtype=torch.int64))
        self.register_buffer("scratch", torch.zeros(3), persistent=False)

    def forward(self, x):
        self.n += 1
        self.scratch.add_(x)
        return x * self.n, self.scratch * 2.0


@pytest.mark.parametrize("weights", ["inline", "arguments"])
@pytest.mark.parametrize("ops", MODES)
def test_buffers_the_model_writes_are_state_carried_to_the_next_call(weights, ops):
    torch.manual_seed(0)
    xs = [torch.randn(3) for _ in range(5)]
    module = _compile(Counter(), (xs[0],), weights=weights, backend_legal_ops=ops)
    program = runtime.load(module, weights=Counter() if weights == "arguments" else None)
    eager = Counter()
    for x in xs:
        got, expected = program(x), eager(x)
        assert isinstance(got, tuple) and len(got) == 2
        for g, e in zip(got, expected):
            torch.testing.assert_close(g, e)
    assert program.state_dict()["n"].item() == 5
    torch.testing.assert_close(program.state_dict()["scratch"], eager.scratch)
    program.reset_state()
    assert program.state_dict()["n"].item() == 0
    torch.testing.assert_close(program(xs[0])[0], Counter()(xs[0])[0])


def test_state_survives_save_and_load(tmp_path):
    module = _compile(Counter(), (torch.ones(3),), weights="arguments")
    program = runtime.load(module, weights=Counter())
    for _ in range(3):
        program(torch.ones(3))
    program.save(tmp_path / "p")
    again = runtime.load(tmp_path / "p")
    assert again.state_dict()["n"].item() == 3
    torch.testing.assert_close(again(torch.ones(3))[0], torch.full((3,), 4.0))


def test_loading_weights_sets_the_state_and_reset_returns_to_what_was_loaded():
    module = _compile(Counter(), (torch.ones(3),), weights="arguments")
    program = runtime.load(module)
    start = Counter()
    start.n.fill_(10)
    program.load_weights(start)  # `scratch` is not in a checkpoint: the module's value is used
    torch.testing.assert_close(program(torch.ones(3))[0], torch.full((3,), 11.0))
    assert start.n.item() == 10  # the tensors the user loaded are never written
    program.reset_state()
    assert program.state_dict()["n"].item() == 10


Pair = collections.namedtuple("Pair", ["first", "second"])


class Structured(torch.nn.Module):
    def forward(self, x):
        return {"sum": x.sum(), "nested": (x + 1, [x * 2, (x.shape[0],)]), "pair": Pair(x - 1, x.shape[0] > 2)}


@pytest.mark.parametrize("ops", MODES)
def test_outputs_come_back_in_the_models_structure_with_python_numbers(ops):
    x = torch.randn(3)
    got = runtime.load(_compile(Structured(), (x,), backend_legal_ops=ops))(x)
    expected = Structured()(x)
    assert type(got) is dict and list(got) == list(expected)
    assert type(got["nested"]) is tuple and type(got["nested"][1]) is list
    assert got["nested"][1][1] == (3,) and type(got["nested"][1][1][0]) is int
    assert type(got["pair"]) is Pair and got["pair"].second is True
    torch.testing.assert_close(got, expected)


def test_python_number_types_int_float_bool():
    model = Fn(lambda x: (x.shape[0], x.shape[1] / 2, x.shape[0] == 3, x * 2))
    x = torch.ones(3, 5)
    got = runtime.load(_compile(model, (x,)))(x)
    expected = model(x)
    assert [type(g) for g in got] == [type(e) for e in expected] == [int, float, bool, torch.Tensor]
    assert got[:3] == expected[:3]


def test_a_model_output_comes_back_as_its_class():
    from transformers.modeling_outputs import BaseModelOutput

    model = Fn(lambda x: BaseModelOutput(last_hidden_state=x * 2, hidden_states=(x, x + 1)))
    x = torch.randn(2, 3)
    got = runtime.load(_compile(model, (x,)))(x)
    assert type(got) is BaseModelOutput
    torch.testing.assert_close(got.last_hidden_state, x * 2)
    torch.testing.assert_close(got.hidden_states[1], x + 1)
    assert got.attentions is None


def test_a_module_without_marks_returns_flat_results_as_before():
    text = """
    func.func @forward(%a: tensor<2xf32>) -> (tensor<2xf32>, tensor<2xf32>) {
      %0 = tosa.add %a, %a : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
      %1 = tosa.mul %a, %a, %s : (tensor<2xf32>, tensor<2xf32>, tensor<1xi8>) -> tensor<2xf32>
      return %0, %1 : tensor<2xf32>, tensor<2xf32>
    }"""
    text = text.replace("%1 = tosa.mul", '%s = "tosa.const"() <{values = dense<0> : tensor<1xi8>}> : () -> tensor<1xi8>\n'
                                          "      %1 = tosa.mul")
    got = runtime.load(text)(torch.ones(2))
    assert isinstance(got, tuple) and len(got) == 2


@pytest.mark.returns_twice
def test_an_input_update_that_is_also_returned():
    model = Fn(lambda x: x.mul_(3))
    x = torch.ones(2)
    got = runtime.load(_compile(model, (torch.ones(2),)))(x)
    torch.testing.assert_close(x, torch.full((2,), 3.0))
    torch.testing.assert_close(got, torch.full((2,), 3.0))


class AddInto(torch.nn.Module):
    def forward(self, x, y):
        torch.add(y, 1, out=x)
        return x * 2


def test_an_input_written_with_another_shape_is_resized_as_eager_resizes_it():
    """`out=` of another shape (issue 41): eager resizes the tensor, warning
    when it held elements; the program does the same to the caller's tensor."""
    program = runtime.load(_compile(AddInto(), (torch.zeros(3, 4), torch.ones(5))))
    x, y = torch.zeros(3, 4), torch.arange(5.0)
    with pytest.warns(UserWarning, match=r"resized since it had shape \[3, 4\].*output shape \[5\]"):
        got = program(x, y)
    assert x.shape == (5,)
    torch.testing.assert_close(x, y + 1)
    torch.testing.assert_close(got, (y + 1) * 2)
    program = runtime.load(_compile(AddInto(), (torch.zeros(0), torch.ones(5))))
    empty = torch.zeros(0)
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # an empty tensor is resized silently, as eager does
        program(empty, y)
    torch.testing.assert_close(empty, y + 1)


def test_a_numpy_input_written_with_another_shape_is_refused_before_running():
    program = runtime.load(_compile(AddInto(), (torch.zeros(3, 4), torch.ones(5))))
    x = np.zeros((3, 4), dtype=np.float32)
    with pytest.raises(ValueError, match=r"input #0 is written by the model with a value of shape \[5\] where the "
                                         r"array has shape \[3, 4\].*pass a tensor"):
        program(x, np.ones(5, dtype=np.float32))
    np.testing.assert_array_equal(x, np.zeros((3, 4), dtype=np.float32))  # nothing written


@pytest.mark.parametrize("ops", [None, ["*"]])
def test_a_python_number_export_baked_in_is_refused_when_another_is_given(ops):
    """torch.export bakes a Python float or bool into the graph: the argument
    stays, unread, and a call with another number computed with the baked
    one, silently (found by PythonFloatInputModule_basic on Vulkan)."""
    fn = Fn(lambda x, s, flip: (x * s + 1) if flip else x)
    x = torch.randn(3, 4)
    module = _compile(fn, (x, 2.5, True), backend_legal_ops=ops)
    assert 'tosa_custom.baked = "2.5"' in str(module) and 'tosa_custom.baked = "true"' in str(module)
    program = runtime.load(module)
    torch.testing.assert_close(program(x, 2.5, True), fn(x, 2.5, True))
    torch.testing.assert_close(program(x, torch.tensor(2.5, dtype=torch.float64), True), fn(x, 2.5, True))
    with pytest.raises(ValueError, match=r"input #1 is 3.0, but torch.export baked the Python number 2.5 into the "
                                         r"program .* call it with 2.5, or compile the model taking the number as a "
                                         r"0-d tensor"):
        program(x, 3.0, True)
    with pytest.raises(ValueError, match=r"input #2 is False, but torch.export baked the Python number True"):
        program(x, 2.5, False)
