"""The runtime target's `extremes` cases: max and min reductions and max
pooling, compiled from PyTorch, of rows of infinities, NaN and the type's
largest finite values.

Every-sample OpInfo found masked.amax of a fully masked row giving -3.4e38
where eager gives -inf: tosa-to-linalg starts a float max from the lowest
finite value, not from -inf. A sample of ordinary values never shows it. These
cases draw a reduction, a row pattern, a type and a mode, compile with
compile() in stock or auto mode and run. Oracle: eager PyTorch, exactly (a
max or min rounds nothing), NaN where it has NaN.
"""

from __future__ import annotations

import math

from hypothesis import strategies as st

from ..outcome import CORRECT, Defect, Outcome
from ._compiled import run_compiled

__all__ = ["strategy", "check", "OPS", "ROWS"]

# name -> f(x) on a [4, 6] tensor: one result per row (or the pooled rows).
_FUNCTIONS = {
    "amax": lambda t, x: t.amax(x, dim=1),
    "amin": lambda t, x: t.amin(x, dim=1),
    "max.dim": lambda t, x: t.max(x, dim=1).values,
    "min.dim": lambda t, x: t.min(x, dim=1).values,
    "max": lambda t, x: t.max(x).reshape(1),
    "max_pool1d": lambda t, x: t.nn.functional.max_pool1d(x[None], 3, 2, padding=1)[0],
    "max_pool2d": lambda t, x: t.nn.functional.max_pool2d(x[None, None], 2, 2, padding=1)[0, 0],
}
OPS = tuple(_FUNCTIONS)
_BIG = "largest"  # the type's largest finite value
# Each row of the input is one of these, cycled (a NaN row's max is NaN, as eager's).
ROWS = {
    "-inf": [-math.inf] * 6,
    "+inf": [math.inf] * 6,
    "mixed-inf": [-math.inf, 1.5, -math.inf, -2.0, -math.inf, 0.25],
    "largest": [_BIG, -math.inf, -1.0, _BIG, 3.0, -math.inf],
    "-largest": ["-" + _BIG, math.inf, 1.0, "-" + _BIG, -3.0, math.inf],
    "nan": [1.0, math.nan, -math.inf, math.inf, 2.0, -1.0],
    "ordinary": [0.5, -1.25, 3.0, -0.0, 2.0, 1.0],
}
_TYPES = ("float32", "float16", "bfloat16")


@st.composite
def strategy(draw):
    rows = draw(st.lists(st.sampled_from(sorted(ROWS)), min_size=1, max_size=4))
    return {"kind": "extremes", "op": draw(st.sampled_from(OPS)), "rows": rows,
            "type": draw(st.sampled_from(_TYPES)), "mode": draw(st.sampled_from(["stock", "auto"]))}


def _value(v, largest: float) -> float:
    if isinstance(v, str):
        return -largest if v.startswith("-") else largest
    return v


def check(case: dict) -> Outcome:
    import torch

    dtype = getattr(torch, case["type"])
    largest = torch.finfo(dtype).max
    rows = [ROWS[case["rows"][i % len(case["rows"])]] for i in range(4)]
    x = torch.tensor([[_value(v, largest) for v in row] for row in rows], dtype=dtype)
    fn = _FUNCTIONS[case["op"]]
    what = f"{case['op']} of rows {case['rows']} in {case['type']}, {case['mode']} mode"
    try:
        want = fn(torch, x)
    except Exception:  # eager refuses the combination: nothing to compare
        return Outcome(CORRECT, f"{what}: eager refuses")

    got = run_compiled(lambda x: fn(torch, x), (x,), case["mode"], what)  # a reduction of a supported type
    if not isinstance(got, torch.Tensor) or got.dtype != want.dtype or got.shape != want.shape:
        raise Defect("wrong", f"{what}: got {got!r}, eager {want!r}")
    same = (got == want) | (got.isnan() & want.isnan())
    if not bool(same.all()):
        bad = tuple((~same).nonzero()[0].tolist())
        raise Defect("wrong", f"{what}: at {bad} got {got[bad].item()}, eager {want[bad].item()}")
    return Outcome(CORRECT, what)
