"""The runtime target's `resize` cases: F.interpolate, bilinear, compiled
from PyTorch in stock or auto mode, against eager.

Bilinear upsampling became one tosa.resize where TOSA 1.0 states PyTorch's
mapping (tunnel/resize.py) and stays PyTorch's decomposition elsewhere; the
line between them is arithmetic on the sizes (a scale's common divisor, its
bounds, a scale factor PyTorch maps by 1 / s). These cases draw the sizes
on both sides of it: up and down by any ratio, the identity, one-row
inputs and outputs, scale factors that do and do not give the sizes' own
mapping, align_corners either way, float32 (the resize) and float16 (the
decomposition). Oracle: eager; each output is a convex sum of four inputs,
so the two differ by a few roundings of the largest input.
"""

from __future__ import annotations

from hypothesis import strategies as st

from ..outcome import CORRECT, Defect, Outcome
from ._compiled import run_compiled

__all__ = ["strategy", "check"]

_FACTORS = (0.25, 0.5, 1.5, 2.0, 3.0, 16.0)


@st.composite
def strategy(draw):
    by_factor = draw(st.booleans())
    return {"kind": "resize", "n": draw(st.integers(1, 2)), "c": draw(st.integers(1, 4)),
            "h": draw(st.integers(1, 12)), "w": draw(st.integers(1, 12)),
            "out": None if by_factor else [draw(st.integers(1, 40)), draw(st.integers(1, 40))],
            "factor": draw(st.sampled_from(_FACTORS)) if by_factor else None,
            "align_corners": draw(st.booleans()), "type": draw(st.sampled_from(["float32"] * 3 + ["float16"])),
            "mode": draw(st.sampled_from(["stock", "auto"])), "seed": draw(st.integers(0, 2**31))}


def check(case: dict) -> Outcome:
    import torch
    import torch.nn.functional as F

    dtype = getattr(torch, case["type"])
    size = dict(size=tuple(case["out"])) if case["out"] else dict(scale_factor=case["factor"])
    what = (f"bilinear {case['h']}x{case['w']} by {size}, align_corners={case['align_corners']}, "
            f"{case['type']}, {case['mode']} mode")
    if case["factor"] and min(int(case["h"] * case["factor"]), int(case["w"] * case["factor"])) < 1:
        return Outcome(CORRECT, f"{what}: an empty output, which eager refuses")
    g = torch.Generator().manual_seed(case["seed"])
    x = torch.randn(case["n"], case["c"], case["h"], case["w"], generator=g).to(dtype)

    def fn(x):
        return F.interpolate(x, mode="bilinear", align_corners=case["align_corners"], **size)

    want = fn(x)
    got = run_compiled(fn, (x,), case["mode"], what)
    if not isinstance(got, torch.Tensor) or got.dtype != dtype or got.shape != want.shape:
        raise Defect("wrong", f"{what}: got {type(got).__name__} {getattr(got, 'dtype', '')} "
                              f"{tuple(getattr(got, 'shape', ()))}, expected {dtype} {tuple(want.shape)}")
    bound = 8 * torch.finfo(dtype).eps * (x.abs().max().item() + 1)
    error = (got.double() - want.double()).abs().max().item() if want.numel() else 0.0
    if not error <= bound:
        raise Defect("wrong", f"{what}: max |difference| from eager {error:.3g}, over {bound:.3g}")
    return Outcome(CORRECT, what)
