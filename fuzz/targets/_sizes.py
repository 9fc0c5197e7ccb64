"""The runtime target's `sizes` cases: sizes of a `?` dim used as values,
and causal attention on it, compiled from PyTorch with dynamic shapes
(issue 41: a causal mask built from the sizes reached TorchToTosa as
`aten.size.int`; export's range asserts did too).

Each case draws a function of an input [2, T, 8] whose T is
`Dim("t", min, max)` (min 1 or 2): arithmetic on T (add, mul, floordiv, a
difference) consumed by a view/reshape, an expand, a slice, a divisor or a
multiplier; a mask from arange / ones+tril / ones+triu over [T, T] applied
to scores; or `scaled_dot_product_attention` with `is_causal=True` (heads
split by view); a cumsum along T (floats, and RoBERTa's position ids from an
int mask), a bool of `?` dims cast to int64; float positions truncated to
int64 (OPT's) and T5's log buckets, whose i64 casts stock mode narrows only
by the uniform bounds and select guards of tosa/ranges.py. One compile in stock or auto mode, then calls at the
range's ends and inside it, each against eager, and one past the end, which
must be refused with a clean error naming the range.
Oracle: eager PyTorch; the boundary's ValueError outside the range.
"""

from __future__ import annotations

from hypothesis import strategies as st

from ..outcome import CORRECT, Defect, Outcome

__all__ = ["strategy", "check", "PROGRAMS"]


def _programs():
    import math

    import torch
    import torch.nn.functional as F

    def scores(x):
        return x @ x.transpose(1, 2)  # [2, T, T]

    def positions(mask, c):  # RoBERTa's position ids: a cumsum along T of an int mask, int64
        m = mask.int()
        return (torch.cumsum(m, dim=1).type_as(m) * m).long() + c

    def float_positions(x, c):  # OPT's: a cumsum of float ones times a mask, minus c, truncated to int64
        ones = torch.ones(2, x.shape[1])
        return (torch.cumsum(ones, dim=1) * (x[:, :, 0] > 0).float() - c).long()

    def log_buckets(x, c):  # T5's relative position buckets: log(0) = -inf where |i - j| < 2 picks the other branch
        t = torch.arange(x.shape[1])
        n = (t[None, :] - t[:, None]).abs()
        large = (torch.log(n.float() / 2) / math.log(4) * 2).long() + 2
        return torch.where(n < 2, n, torch.min(large, torch.full_like(large, 3 + c)))

    return {
        "float_positions": float_positions,
        "log_buckets": log_buckets,
        "view_mul": lambda x, c: x.view(2 * x.shape[1], 8) * c,
        "reshape_add": lambda x, c: x.reshape(2, x.shape[1] * 8 // (4 * c), 4 * c) + 1,
        "expand": lambda x, c: x[:, :, :1].expand(2, x.shape[1], 8 + 0 * c) * x,
        "slice": lambda x, c: x[:, : x.shape[1] - c + 1] * 2,
        "divisor": lambda x, c: x.sum(1) / (x.shape[1] + c),
        "floordiv": lambda x, c: x * (x.shape[1] // 2 + c),
        "arange_mask": lambda x, c: scores(x).masked_fill(
            torch.arange(x.shape[1])[None, :] > torch.arange(x.shape[1])[:, None] + c - 1, float("-inf")
        ).softmax(-1),
        "tril_mask": lambda x, c: scores(x).masked_fill(
            torch.ones(x.shape[1], x.shape[1], dtype=torch.bool).tril(c - 1).logical_not(), -1e9).softmax(-1),
        "triu_mask": lambda x, c: scores(x) + torch.full((x.shape[1], x.shape[1]), -1e9).triu(c),
        "cumsum_positions": lambda x, c: positions(x[:, :, 0] > 0, c),  # int64: no i64 -> float cast to validate
        "cumsum_float": lambda x, c: x.cumsum(1) * c,
        "bool_to_long": lambda x, c: (x > 0).long() * 16 + c,
        "causal_sdpa": lambda x, c: F.scaled_dot_product_attention(
            *(x.view(2, x.shape[1], 2 ** (c - 1), 8 // 2 ** (c - 1)).transpose(1, 2),) * 3,
            is_causal=True).transpose(1, 2).reshape(2, x.shape[1], 8),
    }


PROGRAMS = ("view_mul", "reshape_add", "expand", "slice", "divisor", "floordiv", "arange_mask", "tril_mask",
            "triu_mask", "causal_sdpa", "cumsum_positions", "cumsum_float", "bool_to_long", "float_positions",
            "log_buckets")


@st.composite
def strategy(draw):
    low = draw(st.sampled_from([1, 2]))
    return {"kind": "sizes", "program": draw(st.sampled_from(PROGRAMS)), "c": draw(st.integers(1, 2)),
            "min": low, "max": draw(st.integers(low + 2, 24)), "mode": draw(st.sampled_from(["stock", "auto"])),
            "inside": draw(st.integers(0, 1000)), "seed": draw(st.integers(0, 2**31))}


def _compile(fn, example, dim, mode: str, what: str):
    import torch

    import tosa_custom
    from tosa_custom import runtime

    class Model(torch.nn.Module):
        def forward(self, x):
            return fn(x)

    try:
        module = tosa_custom.compile(Model().eval(), (example,), dynamic_shapes=({1: dim},),
                                     backend_legal_ops="auto" if mode == "auto" else None)
        return runtime.load(module)
    except Exception as e:
        raise Defect("exception", f"{what}: {type(e).__name__}: {e}") from e


def check(case: dict) -> Outcome:
    import warnings

    import torch
    from torch.export import Dim

    fn = (lambda f, c: (lambda x: f(x, c)))(_programs()[case["program"]], case["c"])
    low, high = case["min"], case["max"]
    if case["program"] == "slice":
        low = max(low, case["c"] + 1 if case["c"] > 1 else low)  # a slice of length 1 torch.export specializes
    what = f"{case['program']}(c={case['c']}) on [2, t, 8], t in [{low}, {high}], {case['mode']} mode"
    g = torch.Generator().manual_seed(case["seed"])
    inside = low + case["inside"] % (high - low + 1)
    example = max(inside, 2)  # torch.export specializes an example size of 1
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        program = _compile(fn, torch.randn(2, example, 8, generator=g), Dim("t", min=low, max=high),
                           case["mode"], what)
    for t in sorted({low, high, inside}):
        x = torch.randn(2, t, 8, generator=g)
        want = fn(x)
        try:
            got = program(x)
        except Exception as e:
            raise Defect("exception", f"{what} at t={t}: {type(e).__name__}: {e}") from e
        if got.shape != want.shape or not torch.allclose(got, want, rtol=1e-4, atol=1e-4, equal_nan=True):
            raise Defect("wrong", f"{what} at t={t}: got {got}, eager {want}")
    try:
        program(torch.randn(2, high + 1, 8))
    except ValueError as e:
        if f"[{low}, {high}]" not in str(e):
            raise Defect("exception", f"{what}: t={high + 1} refused without its range: {e}") from e
    else:
        raise Defect("wrong", f"{what}: t={high + 1}, outside the range, was not refused")
    return Outcome(CORRECT, what)
