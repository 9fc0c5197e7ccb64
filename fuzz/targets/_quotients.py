"""The runtime target's `quotients` cases: rounding and true division,
remainder and fmod compiled from PyTorch, where the quotient is an integer
or just off one.

TOSA divides as x * reciprocal(y): 49 * (1/49) is 0.99999994, so
`49.0 // 49.0` was 0 in float32 in stock and auto mode, and every-sample
OpInfo's div.floor_rounding in bfloat16 was off by one. These cases draw the
op, the divisor's form (a tensor, a constant number, negative or not), the
type and the mode, make x = k * y (+ a fraction or not) for y = 1..99, and
run. Oracle: the exact answer computed in float64 from the same values,
rounded once to the type (eager's bfloat16 trunc division rounds the quotient
to the type first and may be one off it; the program must not be).

True division (`true`) has the same oracle: in float16 and bfloat16 it was
x * reciprocal(y) rounded twice in the half type, an ulp off eager in a
third of these quotients (every-sample OpInfo gradient/float16/6); float32's
x * (1/y) may be an ulp off, which its tolerance allows.
"""

from __future__ import annotations

from hypothesis import strategies as st

from ..outcome import CORRECT, Defect, Outcome

__all__ = ["strategy", "check", "OPS"]

OPS = ("floor", "trunc", "true", "remainder", "fmod")
_TYPES = ("float32", "float16", "bfloat16")
# fmod is decomposed by torch-mlir before the exact rewrite can see it: stock
# mode computes it as x - trunc(x * (1/y)) * y (wrong_lowerings.py says so; auto
# mode keeps it whole).
_KNOWN_WRONG = {("fmod", "stock")}


def _program(op: str, divisor):
    import torch

    def fn(x, y):
        d = y if divisor is None else divisor
        if op in ("floor", "trunc"):
            return torch.div(x, d, rounding_mode=op)
        if op == "true":
            return x / d
        return getattr(torch, op)(x, d)
    return fn


def _exact(op: str, x, y):
    import torch

    x, y = x.double(), y.double()
    if op == "floor":
        return torch.floor(x / y)
    if op == "trunc":
        return torch.trunc(x / y)
    if op == "true":
        return x / y
    return getattr(torch, op)(x, y)  # exact in float64 for these magnitudes


@st.composite
def strategy(draw):
    return {"kind": "quotients", "op": draw(st.sampled_from(OPS)), "type": draw(st.sampled_from(_TYPES)),
            "mode": draw(st.sampled_from(["stock", "auto"])), "divisor": draw(st.sampled_from(
                ["tensor", "number", "negative-tensor", "negative-number"])),
            "fraction": draw(st.sampled_from([0.0, 0.0, 0.5, 0.25])), "seed": draw(st.integers(0, 2**31))}


def check(case: dict) -> Outcome:
    import torch

    import tosa_custom
    from tosa_custom import runtime

    op, dtype = case["op"], getattr(torch, case["type"])
    what = f"{op} by a {case['divisor']} in {case['type']}, {case['mode']} mode"
    if (op, case["mode"]) in _KNOWN_WRONG:
        return Outcome(CORRECT, f"{what}: a known wrong lowering")
    g = torch.Generator().manual_seed(case["seed"])
    sign = -1.0 if case["divisor"].startswith("negative") else 1.0
    if case["divisor"].endswith("number"):
        number = sign * float(torch.randint(1, 100, (), generator=g))
        y = torch.full((96,), number, dtype=dtype)
    else:
        number = None
        y = (sign * torch.randint(1, 100, (96,), generator=g).double()).to(dtype)
    k = torch.randint(-9, 10, (96,), generator=g).double()
    x = (k * y.double() + case["fraction"] * y.double()).to(dtype)
    fn = _program(op, number)
    want = _exact(op, x, y).to(dtype)

    class Model(torch.nn.Module):
        def forward(self, x, y):
            return fn(x, y)

    try:
        compiled = tosa_custom.compile(Model().eval(), (x, y), output_type="tosa",
                                       backend_legal_ops="auto" if case["mode"] == "auto" else None)
        got = runtime.load(compiled)(x, y)
    except Exception as e:  # a float division of a supported type: any failure is a defect
        raise Defect("exception", f"{what}: {type(e).__name__}: {e}") from e
    if not isinstance(got, torch.Tensor) or got.dtype != dtype or got.shape != want.shape:
        raise Defect("wrong", f"{what}: got {got!r}")
    same = got == want
    if op == "true" and dtype == torch.float32:  # x * (1/y) in float32: within an ulp, not correctly rounded
        same |= got == torch.nextafter(want, got)
    if not bool(same.all()):
        i = int((~same).nonzero()[0])
        raise Defect("wrong", f"{what}: {x[i].item()} and {y[i].item()} give {got[i].item()}, "
                              f"exactly {want[i].item()}")
    return Outcome(CORRECT, what)
