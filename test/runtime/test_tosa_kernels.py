"""TOSA ops upstream tosa-to-linalg cannot lower (tosa.scatter), run by the
runtime's own kernels: values against eager PyTorch and a hand-made oracle,
and the inputs TOSA forbids refused with the offending index."""

from __future__ import annotations

import pytest
import torch

import tosa_custom
from tosa_custom import runtime
from tosa_custom.e2e import Fn

_SCATTER = """
func.func @main(%values: tensor<2x5x3xf32>, %indices: tensor<2x2xi32>, %input: tensor<2x2x3xf32>) -> tensor<2x5x3xf32> {
  %0 = tosa.scatter %values, %indices, %input : (tensor<2x5x3xf32>, tensor<2x2xi32>, tensor<2x2x3xf32>) -> tensor<2x5x3xf32>
  return %0 : tensor<2x5x3xf32>
}
"""


def _oracle(values, indices, updates):
    out = values.clone()
    for n in range(values.shape[0]):
        for w in range(indices.shape[1]):
            out[n, indices[n, w]] = updates[n, w]
    return out


def test_scatter_writes_the_indexed_rows_and_keeps_the_rest():
    program = runtime.load(_SCATTER)
    assert program.custom_ops == [] and program.kernels == []  # the runtime's business, not the model's
    values, updates = torch.randn(2, 5, 3), torch.randn(2, 2, 3)
    indices = torch.tensor([[4, 0], [1, 3]], dtype=torch.int32)
    torch.testing.assert_close(program(values, indices, updates), _oracle(values, indices, updates), rtol=0, atol=0)


@pytest.mark.parametrize("indices, message", [
    ([[5, 0], [1, 3]], r"indices\[0, 0\] = 5 is outside \[0, 5\)"),
    ([[0, 1], [-1, 3]], r"indices\[1, 0\] = -1 is outside \[0, 5\)"),
    ([[2, 2], [1, 3]], "each row written once"),
])
def test_scatter_refuses_what_tosa_forbids(indices, message):
    program = runtime.load(_SCATTER)
    with pytest.raises(runtime.KernelError, match=rf"tosa\.scatter.*{message}"):
        program(torch.randn(2, 5, 3), torch.tensor(indices, dtype=torch.int32), torch.randn(2, 2, 3))


@pytest.mark.parametrize("fn, args", [
    (lambda x: torch.sort(x, dim=1, descending=True), (torch.randn(3, 6),)),
    (lambda x: torch.topk(x, 3, dim=0), (torch.randn(6, 3),)),
    (lambda x, i, v: x.index_put((i,), v), (torch.randn(4, 5), torch.tensor([1, 3]), torch.randn(2, 5))),
    (lambda x: torch.nn.functional.pad(x, (1, 2, 2, 1), mode="circular"), (torch.randn(1, 2, 4, 5),)),
])
def test_stock_lowerings_through_tosa_scatter_match_eager(fn, args):
    module = tosa_custom.compile(Fn(fn), args)
    assert "tosa.scatter" in str(module)
    got, expected = runtime.load(module)(*args), fn(*args)
    got = got if isinstance(got, tuple) else (got,)
    expected = tuple(expected) if isinstance(expected, tuple) else (expected,)
    for g, e in zip(got, expected):
        assert g.dtype == e.dtype
        torch.testing.assert_close(g, e)
