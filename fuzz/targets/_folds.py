"""The runtime target's `folds` cases: an op with a constant operand, compiled
from PyTorch, on NaN, infinities and signed zeros.

Every-sample OpInfo found addr with alpha=0 returning 0 where eager returns
NaN: TOSA canonicalization folds `x * 0` to 0 (and more folds like it can
exist, in TOSA, in torch-mlir or in our own passes). A per-instance sample of
ordinary values never shows one. These cases draw an elementwise op, the
constant it meets (0, -0, 1, -1, 0.5, 2, inf, NaN) and its side, compile the
program with compile() in stock or auto mode, and run it on every special
value in f32, f16 or bf16. Oracle: eager PyTorch, NaN where it has NaN (the
sign of a zero is not compared: TOSA 1.0 does not define it for every op).
"""

from __future__ import annotations

import math

from hypothesis import strategies as st

from ..outcome import CORRECT, Defect, Outcome
from ._compiled import run_compiled

__all__ = ["strategy", "check", "OPS", "CONSTANTS"]

# name -> f(x, c); c is a Python number, on the side the case draws (`swap`).
_ARITHMETIC = {"mul": lambda x, c: x * c, "add": lambda x, c: x + c, "sub": lambda x, c: x - c,
               "div": lambda x, c: x / c, "pow": lambda x, c: x ** c}
OPS = (*_ARITHMETIC, "maximum", "minimum", "addcmul", "lerp")
CONSTANTS = [0.0, -0.0, 1.0, -1.0, 0.5, 2.0, math.inf, math.nan]
_TYPES = ("float32", "float16", "bfloat16")
_VALUES = [math.nan, math.inf, -math.inf, 0.0, -0.0, 1.0, -1.0, 2.5, -3.0, 1e-3]


def _function(op: str, constant: float, swap: bool):
    import torch

    def fn(x):
        c = constant
        if op in ("maximum", "minimum"):
            other = torch.full_like(x, c)
            return getattr(torch, op)(other, x) if swap else getattr(torch, op)(x, other)
        if op == "addcmul":  # x + c * x * x: the constant scales a product
            return torch.addcmul(x, x, x, value=c)
        if op == "lerp":
            return torch.lerp(x, torch.zeros_like(x), c)
        return _ARITHMETIC[op](c, x) if swap else _ARITHMETIC[op](x, c)
    return fn


@st.composite
def strategy(draw):
    return {"kind": "folds", "op": draw(st.sampled_from(sorted(OPS))), "constant": draw(st.sampled_from(CONSTANTS)),
            "swap": draw(st.booleans()), "type": draw(st.sampled_from(_TYPES)),
            "mode": draw(st.sampled_from(["stock", "auto"]))}


def check(case: dict) -> Outcome:
    import torch

    dtype = getattr(torch, case["type"])
    fn = _function(case["op"], case["constant"], case["swap"])
    x = torch.tensor(_VALUES, dtype=dtype)
    what = (f"{case['op']} of x and {case['constant']!r}{' (constant first)' if case['swap'] else ''} "
            f"in {case['type']}, {case['mode']} mode")
    try:
        want = fn(x)
    except Exception:  # eager refuses the combination (an op without this dtype): nothing to compare
        return Outcome(CORRECT, f"{what}: eager refuses")

    got = run_compiled(fn, (x,), case["mode"], what)  # an elementwise op of a supported type
    if not isinstance(got, torch.Tensor) or got.dtype != want.dtype or got.shape != want.shape:
        raise Defect("wrong", f"{what}: got {got!r}, eager {want!r}")
    # One op, rounded once to the type (or in f32 and rounded: a few roundings of a half type).
    tol = 4 * torch.finfo(dtype).eps
    close = torch.isclose(got.double(), want.double(), rtol=tol, atol=tol, equal_nan=True)
    if case["op"] == "pow" and not case["swap"] and abs(case["constant"]) == 0.5:
        # Eager computes x ** 0.5 as sqrt(x) (NaN at -inf); TOSA defines pow for x >= 0 only, and C's
        # pow(-inf, 0.5) is inf: a base of -inf has no answer both agree on.
        close |= x == -math.inf
    if not bool(close.all()):
        bad = (~close).nonzero()[0].item()
        raise Defect("wrong", f"{what}: at x={x[bad].item()} got {got[bad].item()}, eager {want[bad].item()}")
    return Outcome(CORRECT, what)
