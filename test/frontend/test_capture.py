"""Capture (python/tosa_custom/capture.py): what compile() does before torch-mlir.

Two causes found by the static-KV-cache generation test
(test/runtime/test_models.py::test_llama_static_cache_generates_like_eager),
each tested here on a model a few lines long:

- index_put on trailing dimensions (`index_copy_(2, pos, v)`, `k[:, :, pos] = v`)
  failed in stock mode: TorchToTosa lowers index_put only when the index
  tensors start at dimension 0;
- non-strict torch.export took a buffer the model reaches through an object
  that is not a module for a constant, so the write was lost (and
  run_decompositions failed with an AssertionError naming nothing).
"""

from __future__ import annotations

import warnings

import pytest
import torch
from torch import nn

import tosa_custom
from tosa_custom import runtime
from tosa_custom.frontend.capture import decomposition_table
from tosa_custom.frontend.decompositions import _index_put_on_leading_dims
from tosa_custom.core.schema import OpSelection

aten = torch.ops.aten


# --------------------------------------------------------------------------
# index_put on trailing dimensions.
# --------------------------------------------------------------------------


def _g():
    return torch.Generator().manual_seed(0)


@pytest.mark.parametrize("shape,indices,values_shape", [
    ((2, 3, 8, 4), (None, None, torch.tensor([5, 1])), (2, 3, 2, 4)),     # index_copy_(2, ...)
    ((2, 3, 8, 4), (None, None, torch.tensor([5])), (4,)),                 # values broadcast
    ((2, 6, 5), (None, torch.tensor([[0, 2]]), torch.tensor([[1], [4]])), (2, 2, 2)),  # two broadcast indices
    ((3, 6), (None, torch.tensor([-1, 0])), (3, 2)),                       # negative index
])
@pytest.mark.parametrize("accumulate", [False, True])
def test_index_put_on_trailing_dims_equals_eager(shape, indices, values_shape, accumulate):
    x = torch.randn(shape, generator=_g())
    v = torch.randn(values_shape, generator=_g())
    got = _index_put_on_leading_dims(x, list(indices), v, accumulate)
    torch.testing.assert_close(got, aten.index_put(x, list(indices), v, accumulate), rtol=0, atol=0)


@pytest.mark.parametrize("indices", [
    [torch.tensor([1])],                                  # already on dim 0: TorchToTosa's own form
    [None, torch.tensor([True, False, True])],            # a mask
    [None, torch.tensor([0]), None, torch.tensor([1])],   # not one block after the Nones
    [None, None],                                         # no index tensor
])
def test_index_put_other_forms_are_left_alone(indices):
    x = torch.zeros(3, 3, 3, 3)
    assert _index_put_on_leading_dims(x, indices, torch.tensor(1.0)) is NotImplemented


def test_index_put_decomposition_is_not_applied_to_a_listed_index_put():
    assert aten.index_put.default in decomposition_table(OpSelection([]))
    assert aten.index_put.default not in decomposition_table(OpSelection(["aten.index_put"]))


class _CacheWrite(nn.Module):
    """A cache written at a position along dim 2, as transformers' StaticCache does."""

    def __init__(self, how: str):
        super().__init__()
        self.how = how
        self.register_buffer("k", torch.zeros(1, 2, 8, 4))

    def forward(self, v, pos):
        if self.how == "index_copy":
            self.k.index_copy_(2, pos, v)
        else:
            self.k[:, :, pos] = v
        return self.k * 2


@pytest.mark.parametrize("how", ["index_copy", "setitem"])
def test_cache_write_on_dim_2_compiles_in_stock_mode_to_a_scatter(how):
    """Before: `failed to legalize operation 'torch.aten.index_put.hacked_twin'`."""
    module = tosa_custom.compile(_CacheWrite(how).eval(), (torch.zeros(1, 2, 1, 4), torch.tensor([0])))
    text = str(module)
    assert "tosa.scatter" in text and "index_put" not in text and "tosa.custom" not in text
    program, eager = runtime.load(module), _CacheWrite(how).eval()
    for step, pos in enumerate([3, 0, 7]):  # state carried: each call adds a row
        v, p = torch.randn(1, 2, 1, 4, generator=torch.Generator().manual_seed(step)), torch.tensor([pos])
        torch.testing.assert_close(program(v, p), eager(v, p), rtol=0, atol=0)
    torch.testing.assert_close(program.state_dict()["k"], eager.k, rtol=0, atol=0)


# --------------------------------------------------------------------------
# Model state that non-strict export takes for a constant.
# --------------------------------------------------------------------------


class _Holder:
    """Not a module: non-strict export does not see the tensors it holds as buffers."""


class _StateThroughObject(nn.Module):
    def __init__(self):
        super().__init__()
        self.register_buffer("total", torch.zeros(4))
        self.holder = _Holder()
        self.holder.total = self.total  # the same tensor, as StaticCache holds its layers' keys

    def forward(self, x):
        self.holder.total.add_(x)
        return self.holder.total * 2


def test_state_reached_through_an_object_is_carried():
    """Before: CompileError "PyTorch's decompositions failed ... (AssertionError):
    expected compiled_fn to be GraphModule" (with the write lost)."""
    report = tosa_custom.CompileReport()
    program = runtime.load(tosa_custom.compile(_StateThroughObject().eval(), (torch.ones(4),), report=report))
    eager = _StateThroughObject()
    for step in range(3):
        x = torch.full((4,), float(step + 1))
        torch.testing.assert_close(program(x), eager(x), rtol=0, atol=0)
    torch.testing.assert_close(program.state_dict()["total"], eager.total, rtol=0, atol=0)
    assert report.export_mode == "strict"
    assert "'total' for constants" in report.export_nonstrict_error


def test_state_reached_through_an_object_is_left_as_it_was():
    """The non-strict trace writes the model's own buffer through autograd
    (torch's doing); compile() leaves it without that history, as it found it."""
    model = _StateThroughObject().eval()
    model.weight = nn.Parameter(torch.ones(4))
    model.forward = lambda x: _StateThroughObject.forward(model, x * model.weight)
    tosa_custom.compile(model, (torch.ones(4),))
    assert model.total.grad_fn is None and not model.total.requires_grad
    assert model.holder.total is model.total and model.total.tolist() == [0.0] * 4


class _ReadThroughObject(_StateThroughObject):
    def forward(self, x):
        return self.holder.total + x


def test_state_only_read_through_an_object_stays_non_strict():
    """Only a write is lost; a read of the constant is right, so nothing changes."""
    report = tosa_custom.CompileReport()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        module = tosa_custom.compile(_ReadThroughObject().eval(), (torch.ones(4),), report=report)
    assert report.export_mode == "non-strict" and report.export_nonstrict_error == ""
    torch.testing.assert_close(runtime.load(module)(torch.ones(4)), torch.ones(4))


@pytest.mark.parametrize("strict", [True, False])
def test_example_arguments_that_are_one_tensor_make_two_parameters(strict):
    """torch.export gives two arguments that are one tensor (or views of one
    storage) one placeholder: `compile(f, (x, x))` computed `y - y` for any
    call. The program must read each argument it is given."""
    class Sub(nn.Module):
        def forward(self, a, b, c):
            return a - b + c

    x = torch.arange(1.0, 7.0)
    compiled = tosa_custom.compile(Sub(), (x, x, x[:6]), export_strict=strict)
    a, b, c = torch.randn(6), torch.randn(6), torch.randn(6)
    torch.testing.assert_close(runtime.load(compiled)(a, b, c), a - b + c)
    assert torch.equal(x, torch.arange(1.0, 7.0))  # the caller's tensor is not touched


# --------------------------------------------------------------------------
# roll as static slices.
# --------------------------------------------------------------------------


class _Roll(nn.Module):
    def __init__(self, shifts, dims):
        super().__init__()
        self.shifts, self.dims = shifts, dims

    def forward(self, x):
        return torch.roll(x, self.shifts, self.dims) * 2


@pytest.mark.parametrize("shifts,dims", [((-3, -3), (1, 2)), ((5,), None), ((-25, 2), (2, -1)), ((21,), (1,))])
def test_roll_compiles_in_stock_mode_like_eager(shifts, dims):
    """torch-mlir's decomposition of roll typed its slices with a `?` dim
    from static shapes, which TorchToTosa refused (swin_t's shifted windows
    in stock mode); ours keeps the sizes static."""
    model, x = _Roll(shifts, dims), torch.randn(1, 21, 21, 4, generator=_g())
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        module = tosa_custom.compile(model, (x,))
    torch.testing.assert_close(runtime.load(module)(x), model(x))


# --------------------------------------------------------------------------
# adaptive average pooling by its windows.
# --------------------------------------------------------------------------


@pytest.mark.parametrize("size,out", [((1, 1), (6, 6)), ((2, 3), (7, 5)), ((5, 5), (3, 3)), ((4, 6), (2, 3))])
def test_adaptive_avg_pool2d_compiles_conformant_in_stock_mode_like_eager(size, out):
    """PyTorch's decomposition of adaptive pooling whose windows do not tile
    the input gathered them by an index of rank 7, lowered to TOSA of rank 7
    no level allows (AlexNet's 1x1 -> 6x6 and VGG's 2x2 -> 7x7 in stock mode);
    ours takes the mean of each window, and the output validates (tosa_target='auto')."""
    model, x = nn.AdaptiveAvgPool2d(out), torch.randn(2, 3, *size, generator=_g())
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        module = tosa_custom.compile(model, (x,), tosa_target="auto")
    torch.testing.assert_close(runtime.load(module)(x), model(x))



# --------------------------------------------------------------------------
# grouped convolutions as a batched matmul.
# --------------------------------------------------------------------------


@pytest.mark.parametrize("channels,groups,kernel,stride,padding,dilation,size", [
    (440, 55, 3, 2, 1, 1, (4, 4)),  # regnet_y_400mf's, which TorchToTosa refused
    (48, 12, 3, 1, 1, 1, (5, 5)),  # a convolution per group for TorchToTosa: one compiled each
    (12, 3, (1, 3), (2, 1), (0, 1), 2, (6, 7)),  # unequal kernel, stride and padding; dilation
    (16, 2, 3, 3, 0, 1, (8, 8)),  # no padding, stride 3
])
def test_grouped_convolution_compiles_in_stock_mode_like_eager(channels, groups, kernel, stride, padding, dilation,
                                                               size):
    model = nn.Conv2d(channels, channels, kernel, stride=stride, padding=padding, dilation=dilation, groups=groups)
    x = torch.randn(1, channels, *size, generator=_g())
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        module = tosa_custom.compile(model.eval(), (x,), tosa_target="auto")
    torch.testing.assert_close(runtime.load(module)(x), model(x), rtol=1e-5, atol=1e-5)
