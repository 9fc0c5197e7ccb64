"""tosa_custom.iree's per-call marshalling (iree/calls.py): inputs imported
in place when IREE can read them, results handed out as IREE's own buffers.
What it must not change: every call's answer, results that stay valid and
private after later calls, and no result sharing memory with an input, a
weight or another result (IREE returns an argument's buffer for a function
that returns the argument)."""

from __future__ import annotations

import warnings

import numpy as np
import pytest
import torch

import tosa_custom
from tosa_custom import runtime

pytest.importorskip("iree.runtime")
pytest.importorskip("iree.compiler")

from tosa_custom import iree  # noqa: E402
from tosa_custom.iree.calls import ALIGNMENT  # noqa: E402

F = torch.nn.functional
TOL = dict(rtol=1e-5, atol=1e-5)  # one gelu / layer_norm per element, f32


def _compile(model, args, ops, **kwargs):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return tosa_custom.compile(model.eval(), args, backend_legal_ops=ops, **kwargs)


class _Norm(torch.nn.Module):
    def forward(self, x):
        return F.layer_norm(x, (x.shape[-1],)) * 2


@pytest.mark.parametrize("threads", [1, 2])
def test_results_stay_valid_and_private_across_calls(threads):
    """A result is IREE's buffer, not a copy: a later call must not write
    it, and writing it must not reach a later call."""
    torch.manual_seed(0)
    xs = [torch.randn(64, 256) for _ in range(3)]
    program = iree.load(_compile(_Norm(), (xs[0],), ["aten.layer_norm"]), threads=threads)
    got = [program(x) for x in xs]
    for x, y in zip(xs, got):
        torch.testing.assert_close(y, _Norm()(x), **TOL)
    got[0].fill_(7.0)
    torch.testing.assert_close(program(xs[0]), _Norm()(xs[0]), **TOL)
    torch.testing.assert_close(got[1], _Norm()(xs[1]), **TOL)


def test_inputs_in_any_layout_give_the_same_answer():
    """Imported in place only when contiguous and aligned: a misaligned
    view, a transposed view, a read-only array and a tensor that requires
    grad are copied first, and answer as the plain tensor does."""
    torch.manual_seed(0)
    x = torch.randn(64, 256)
    program = iree.load(_compile(_Norm(), (x,), ["aten.layer_norm"]), threads=1)
    expected = _Norm()(x)
    storage = torch.empty(x.numel() + 1)
    misaligned = storage[1:].view(64, 256).copy_(x)
    assert misaligned.data_ptr() % ALIGNMENT
    readonly = x.numpy().copy()
    readonly.flags.writeable = False
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # torch.from_numpy warns about the read-only array
        for given in (x, misaligned, x.t().contiguous().t(), readonly, x.clone().requires_grad_()):
            torch.testing.assert_close(program(given), expected, **TOL)


class _Returns(torch.nn.Module):
    """Results IREE may hand back as an argument's own buffer."""

    def __init__(self):
        super().__init__()
        self.c = torch.nn.Parameter(torch.arange(6.0).reshape(2, 3))
        self.register_buffer("b", torch.ones(3))

    def forward(self, x):
        return F.gelu(x), x, self.c, self.b, x.reshape(3, 2)


@pytest.mark.parametrize("weights", ["inline", "arguments"])
def test_no_result_shares_memory_with_an_input_or_a_weight(weights):
    x = torch.randn(2, 3)
    state = _Returns().state_dict()
    program = iree.load(_compile(_Returns(), (x,), ["aten.gelu"], weights=weights),
                        weights=state if weights == "arguments" else None)
    reference = runtime.load(_compile(_Returns(), (x,), ["aten.gelu"], weights=weights),
                             weights=state if weights == "arguments" else None)
    got, expected = program(x), reference(x)
    for g, e in zip(got, expected):
        torch.testing.assert_close(g, e, **TOL)
        assert not np.shares_memory(g.numpy(), x.numpy())
    for g in got[1:]:
        g.add_(100.0)  # the caller owns its results: the program's inputs and weights stay as they were
    torch.testing.assert_close(x, expected[1])
    for g, e in zip(program(x), expected):
        torch.testing.assert_close(g, e, **TOL)


@pytest.mark.parametrize("threads, workgroups", [(1, 1), (2, 8), (3, 12), (32, 64)])
def test_workgroups_follow_the_thread_count(threads, workgroups):
    """One piece per kernel on the caller's thread alone (local-sync runs the
    pieces one after another), else a few per worker, at most the pass's 64;
    the answer is the same."""
    from tosa_custom.iree.dispatch import workgroups_for

    assert workgroups_for(threads) == workgroups
    if threads > 2:
        return
    torch.manual_seed(0)
    x = torch.randn(256, 256)  # 4 pieces of the pass's grain (16384 elements) at 2 threads
    program = iree.load(_compile(_Norm(), (x,), ["aten.layer_norm"]), threads=threads)
    assert f"workgroups={workgroups}" in program.pipeline
    torch.testing.assert_close(program(x), _Norm()(x), **TOL)
