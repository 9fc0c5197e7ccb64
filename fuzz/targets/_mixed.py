"""The runtime target's `mixed` cases: ops whose operands mix dtypes, and
`out=` arguments of another shape, compiled from PyTorch.

Two shapes of input found on programs nobody here wrote (issue 41):
`threshold_backward` of an int64 grad and a float32 self returned int64
where eager returns float32 (PyTorch's meta kernel, which types the exported
graph, promotes otherwise than its eager kernel), and `torch.arange(1, 13,
out=x)` with a [3, 4] `x` failed writing `x` back (eager leaves it [3, 4];
an `out=` of another element count it resizes). These cases draw an op, a
dtype per operand (bool, uint8, int32, int64, float16, float32), broadcast
shapes, and whether the result goes to an `out=` tensor of the result's
shape, of another shape with as many elements, of another count, or empty;
compiled in stock or auto mode. Oracle: eager PyTorch: the result's dtype,
shape and values, and the `out=` tensor's shape and values after the call.
Stock mode may refuse with a clean error; auto mode must compile.

The every-sample OpInfo run found two more: `sum_to_size(bool x, [1])`
returned bool (its size list read as an int operand made it "mixed"), and
`clamp_max` / `clamp_min` of bool tensors ran as i1 signed order in stock
mode. Both are drawn here: one operand and a size list, and the clamps.
"""

from __future__ import annotations

from hypothesis import strategies as st

from ..outcome import CORRECT, Defect, Outcome
from ._compiled import run_compiled

__all__ = ["strategy", "check", "OPS", "OUTS", "TYPES"]

# name -> (operand count, whether it takes out=)
_OPS = {"add": (2, True), "sub": (2, True), "mul": (2, True), "div": (2, True), "maximum": (2, True),
        "minimum": (2, True), "lt": (2, True), "where": (3, True), "clamp": (3, True),
        "threshold_backward": (2, False), "arange": (0, True), "clamp_max": (2, True), "clamp_min": (2, True),
        "sum_to_size": (1, False)}
OPS = tuple(_OPS)
OUTS = ("none", "same", "reshaped", "other_count", "empty")
TYPES = ("bool", "uint8", "int32", "int64", "float16", "float32")
_SHAPES = ([3, 4], [4], [1, 4], [])


@st.composite
def strategy(draw):
    op = draw(st.sampled_from(OPS))
    count, takes_out = _OPS[op]
    return {"kind": "mixed", "op": op, "types": [draw(st.sampled_from(TYPES)) for _ in range(count)],
            "shapes": [[3, 4]] + [draw(st.sampled_from(_SHAPES)) for _ in range(count - 1)],
            "out": draw(st.sampled_from(OUTS)) if takes_out else "none",
            "mode": draw(st.sampled_from(["stock", "auto"])), "seed": draw(st.integers(0, 2**31))}


def _operand(dtype, shape, generator):
    """Values of `dtype` without zeros (a zero divisor's answer is not what is tested)."""
    import torch

    if dtype == torch.bool:
        return torch.rand(shape, generator=generator) < 0.5
    if dtype.is_floating_point:
        return (torch.randn(shape, generator=generator) * 3).to(dtype)
    values = torch.randint(1, 4, shape, generator=generator)
    if dtype != torch.uint8:
        values = values * (torch.randint(0, 2, shape, generator=generator) * 2 - 1)
    return values.to(dtype)


def _call(op: str, operands: list, out):
    import torch

    kw = {} if out is None else {"out": out}
    if op == "arange":
        return torch.arange(1, 13, **kw)
    if op == "threshold_backward":
        return torch.ops.aten.threshold_backward(operands[0], operands[1], 0.5)
    if op == "where":
        return torch.where(operands[0] != 0, operands[1], operands[2], **kw)
    if op == "clamp":
        return torch.clamp(operands[0], operands[1], operands[2], **kw)
    if op == "sum_to_size":  # [3, 4] -> [1, 1]: a sum in eager's dtype for the input's (at the
        return operands[0].sum_to_size(1, 1)  # promotion's shrunken [1, 1] it would return its input)
    return getattr(torch, op)(*operands, **kw)


# The out= tensor's shape per kind, by the result's shape (every result is
# [3, 4], the first operand's, or arange's [12]). An out= of another rank
# than the result, for any op but a range factory, torch.export's non-strict
# capture itself fails on (an IndexError producing its guards): not drawn.
_OUT_SHAPES = {(3, 4): {"same": [3, 4], "reshaped": [4, 3], "other_count": [2, 2], "empty": [0, 0]},
               (12,): {"same": [12], "reshaped": [3, 4], "other_count": [5], "empty": [0]}}


def _out_shape(kind: str, shape: list[int]) -> list[int]:
    return _OUT_SHAPES[tuple(shape)][kind]


def _function(op: str, with_out: bool):
    def fn(*xs):
        if not with_out:
            return _call(op, list(xs), None)
        *operands, out = xs
        _call(op, operands, out)
        return out * 1  # the written tensor, read after the write
    return fn


def check(case: dict) -> Outcome:
    import torch

    g = torch.Generator().manual_seed(case["seed"])
    operands = [_operand(getattr(torch, t), s, g) for t, s in zip(case["types"], case["shapes"])]
    what = (f"{case['op']} of {'/'.join(case['types']) or 'no operand'} {case['shapes'][:len(operands)]}, "
            f"out={case['out']}, {case['mode']} mode")
    try:
        plain = _call(case["op"], operands, None)
    except Exception:  # eager refuses the combination (uint8 - bool, ...): nothing to compare
        return Outcome(CORRECT, f"{what}: eager refuses")
    args = list(operands)
    if case["out"] != "none":
        args.append(torch.zeros(_out_shape(case["out"], list(plain.shape)), dtype=plain.dtype))
    fn = _function(case["op"], case["out"] != "none")
    eager_args = [a.clone() for a in args]
    want = fn(*eager_args)
    got_args = [a.clone() for a in args]
    got = run_compiled(fn, tuple(got_args), case["mode"], what, stock_may_refuse=True)
    if isinstance(got, Outcome):
        return got
    _compare(what, got, want)
    if case["out"] != "none":
        _compare(f"{what}: the out= tensor", got_args[-1], eager_args[-1])
    return Outcome(CORRECT, what)


def _compare(what: str, got, want) -> None:
    import torch

    if not isinstance(got, torch.Tensor) or got.dtype != want.dtype or got.shape != want.shape:
        raise Defect("wrong", f"{what}: got {got!r}, eager {want!r}")
    tol = 1e-2 if want.dtype == torch.float16 else 1e-5
    if not torch.allclose(got.double(), want.double(), rtol=tol, atol=tol, equal_nan=True):
        raise Defect("wrong", f"{what}: got {got}, eager {want}")
