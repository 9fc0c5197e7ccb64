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


class _Semaphore:
    """A semaphore that reaches its value after `ready` queries, or fails
    (IREE's query raises on a failed semaphore)."""

    def __init__(self, ready: int, fail: bool = False):
        self.ready, self.fail, self.queries = ready, fail, 0

    def query(self) -> int:
        self.queries += 1
        if self.queries > self.ready and self.fail:
            raise RuntimeError("querying semaphore: UNKNOWN; boom")
        return 1 if self.queries > self.ready else 0


class _Clock:
    """Time that passes only when the waiter sleeps."""

    def __init__(self):
        self.now, self.sleeps = 0.0, []

    def sleep(self, seconds: float) -> None:
        self.sleeps.append(seconds)
        self.now += seconds


def test_polled_wait_sleeps_through_most_of_the_recent_calls_then_polls():
    """A call done at submission (local-sync) costs one query and no sleep;
    until `history` calls are known it polls every `poll`; then it first
    sleeps `bulk` of the fastest recent call, less the time already gone."""
    from tosa_custom.iree.calls import PolledWait

    clock = _Clock()
    wait = PolledWait(poll=1e-4, bulk=0.5, history=2, sleep=clock.sleep, clock=lambda: clock.now)
    wait(_Semaphore(ready=0), 1, clock.now)
    assert clock.sleeps == []
    for polls in (10, 20):  # calls of 1 ms and 2 ms (a first query, then one per poll)
        clock.sleeps.clear()
        wait(_Semaphore(ready=polls + 1), 1, clock.now)
        assert clock.sleeps == [1e-4] * polls
    clock.sleeps.clear()
    started = clock.now
    clock.now += 2e-4  # the submission took 0.2 ms
    wait(_Semaphore(ready=2), 1, started)
    assert clock.sleeps[0] == pytest.approx(0.5 * 1e-3 - 2e-4) and clock.sleeps[1:] == [1e-4]


def test_polled_wait_raises_the_semaphore_failure():
    from tosa_custom.iree.calls import PolledWait

    clock = _Clock()
    with pytest.raises(RuntimeError, match="boom"):
        PolledWait(sleep=clock.sleep, clock=lambda: clock.now)(_Semaphore(ready=3, fail=True), 1, 0.0)
    assert len(clock.sleeps) == 2


@pytest.mark.parametrize("threads", [1, 2])
def test_both_waits_give_the_same_answer(threads):
    """wait="poll" (async-external functions, the caller polls) and
    wait="iree" (IREE's own wait): the same results, call after call."""
    torch.manual_seed(0)
    x = torch.randn(256, 256)
    programs = [iree.load(_compile(_Norm(), (x,), ["aten.layer_norm"]), threads=threads, wait=w)
                for w in ("poll", "iree")]
    assert [p.wait for p in programs] == ["poll", "iree"]
    for _ in range(3):
        got = [p(x) for p in programs]
        torch.testing.assert_close(got[0], _Norm()(x), **TOL)
        torch.testing.assert_close(got[0], got[1], rtol=0, atol=0)


def test_an_unknown_wait_is_refused_naming_the_choices():
    x = torch.randn(4, 8)
    with pytest.raises(ValueError, match=r"wait='spin': expected one of 'poll', 'iree'"):
        iree.load(_compile(_Norm(), (x,), ["aten.layer_norm"]), wait="spin")


def test_tosa_to_linalg_fixes_run_before_iree_compile():
    """IREE lowers TOSA with MLIR's tosa-to-linalg too: a float16 depthwise
    convolution rounded its sum to float16 and added the bias after (the
    reference runtime's tosa_fixes), several ulps off where they cancel."""
    from tosa_custom.runtime.lower.tosa_fixes import TOSA_FIXES

    torch.manual_seed(0)
    conv = torch.nn.Conv2d(6, 12, 3, groups=6, padding=1).half()
    x = 4 * torch.randn(2, 6, 9, 9).half()
    program = iree.load(_compile(conv, (x,), []))
    assert all(fix in program.pipeline for fix in TOSA_FIXES)
    exact = torch.nn.functional.conv2d(x.double(), conv.weight.double(), conv.bias.double(), padding=1, groups=6)
    # one rounding of the float32 sum to float16: half an ulp, 2**-11 of the result
    assert ((program(x).double() - exact).abs() <= 2 ** -11 * exact.abs() + 1e-6).all()
