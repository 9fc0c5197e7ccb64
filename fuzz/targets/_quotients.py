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
x * (1/y) may be an ulp off, which its tolerance allows. A product by a
number (`times`, a multiple of pi/4) is eager's: a half tensor times a
number in float32, the number unrounded; TorchToTosa rounded the number to
the half type first (every-sample OpInfo poisson_nll_loss/float16/52).

Integers (int8 to int64) draw x and y over the whole type, its ends
included: TorchToTosa decided floor division's correction by the sign of
x * y, which wraps, and added and subtracted int64 in i32 (2**40 + 2**35
gave 0; every-sample OpInfo unravel_index/int64/4). For them the ops are
floor, trunc, remainder, fmod, and add and sub with an alpha; the oracle is
Python's integers, wrapped to the type. x = min with y = -1 is left out:
eager PyTorch itself dies of SIGFPE there. `lt` and `eq` compare with a
tensor or a number, one the type cannot hold included, which eager wraps to
the type: TorchToTosa compared int8 and int16 with a number in int64 (not
TOSA 1.0, and unwrapped: int8 x < 1000 said true where eager's x < -24 does
not), and int32 with the number unwrapped (in auto mode too). int64 takes no
number beyond it: export refuses one.
"""

from __future__ import annotations

import math

from hypothesis import strategies as st

from ..outcome import CORRECT, Defect, Outcome
from ._compiled import run_compiled

__all__ = ["strategy", "check", "OPS"]

OPS = ("floor", "trunc", "true", "remainder", "fmod", "times", "add", "sub", "lt", "eq")
_FLOAT_OPS = ("floor", "trunc", "true", "remainder", "fmod", "times")
_INT_OPS = ("floor", "trunc", "remainder", "fmod", "add", "sub", "lt", "eq")
_COMPARISONS = ("lt", "eq")
_TYPES = ("float32", "float16", "bfloat16", "int64", "int32", "int16", "int8")
# fmod is decomposed by torch-mlir before the exact rewrite can see it: stock
# mode computes it as x - trunc(x * (1/y)) * y (an int64 one through i32) (wrong_lowerings.py says so; auto
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
        if op == "times":
            return x * d
        if op in ("add", "sub"):
            return getattr(torch, op)(x, d, alpha=3)
        return getattr(torch, op)(x, d)  # remainder, fmod and the comparisons
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


def _wrap(value: int, bits: int) -> int:
    half = 1 << (bits - 1)
    return (value + half) % (2 * half) - half


def _integer_exact(op: str, x: int, y: int, bits: int) -> int:
    """Python's integers, wrapped to a signed type of `bits` bits."""
    if op == "floor":
        value = x // y
    elif op == "trunc":
        value = abs(x) // abs(y) * (1 if (x < 0) == (y < 0) else -1)
    elif op == "remainder":
        value = x % y
    elif op == "fmod":
        value = x - abs(x) // abs(y) * (1 if (x < 0) == (y < 0) else -1) * y
    elif op in _COMPARISONS:
        y = _wrap(y, bits)  # eager wraps a number to the type
        return int(x < y if op == "lt" else x == y)
    else:
        value = x + 3 * y if op == "add" else x - 3 * y
    return _wrap(value, bits)


def _integer_values(g, dtype, sign: float, count: int):
    """x over the whole type with its ends; y nonzero, of `sign`, small or
    large; never x = min with y = -1."""
    import torch

    info = torch.iinfo(dtype)
    ends = [info.min, info.min + 1, info.max, info.max - 1, 0, 1, -1]
    whole = lambda: int(torch.randint(info.min, info.max, (), generator=g, dtype=torch.int64))  # noqa: E731
    xs, ys = [], []
    for i in range(count):
        choice = i % 4
        xs.append(ends[i % len(ends)] if choice == 0 else whole() if choice < 3 else int(torch.randint(-99, 100, (), generator=g)))
        y = abs(whole()) if i % 3 == 0 else int(torch.randint(1, 100, (), generator=g)) if i % 3 == 1 else info.max
        y = max(1, min(y, info.max)) * (-1 if sign < 0 else 1)
        if xs[-1] == info.min and y == -1:
            y = -2
        ys.append(y)
    return xs, ys


@st.composite
def strategy(draw):
    dtype = draw(st.sampled_from(_TYPES))
    return {"kind": "quotients", "op": draw(st.sampled_from(_INT_OPS if dtype.startswith("int") else _FLOAT_OPS)),
            "type": dtype,
            "mode": draw(st.sampled_from(["stock", "auto"])), "divisor": draw(st.sampled_from(
                ["tensor", "number", "negative-tensor", "negative-number"])),
            "fraction": draw(st.sampled_from([0.0, 0.0, 0.5, 0.25])), "seed": draw(st.integers(0, 2**31))}


def check(case: dict) -> Outcome:
    import torch

    op, dtype = case["op"], getattr(torch, case["type"])
    what = f"{op} by a {case['divisor']} in {case['type']}, {case['mode']} mode"
    if (op, case["mode"]) in _KNOWN_WRONG:
        return Outcome(CORRECT, f"{what}: a known wrong lowering")
    g = torch.Generator().manual_seed(case["seed"])
    sign = -1.0 if case["divisor"].startswith("negative") else 1.0
    if not dtype.is_floating_point:
        return _check_integers(case, what, g, sign)
    if case["divisor"].endswith("number"):
        number = sign * float(torch.randint(1, 100, (), generator=g))
        if op == "times":  # a number no half type holds
            number *= math.pi / 4
        y = torch.full((96,), number, dtype=dtype)
    else:
        number = None
        y = (sign * torch.randint(1, 100, (96,), generator=g).double()).to(dtype)
    k = torch.randint(-9, 10, (96,), generator=g).double()
    x = (k * y.double() + case["fraction"] * y.double()).to(dtype)
    fn = _program(op, number)
    # A product's answer is eager's: in float32 for the half types, the number unrounded.
    want = fn(x, y) if op == "times" else _exact(op, x, y).to(dtype)
    got = run_compiled(fn, (x, y), case["mode"], what)
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


def _check_integers(case: dict, what: str, g, sign: float) -> Outcome:
    import torch

    op, dtype = case["op"], getattr(torch, case["type"])
    xs, ys = _integer_values(g, dtype, sign, 96)
    number = ys[0] if case["divisor"].endswith("number") else None
    if number is not None and op in ("add", "sub"):
        number = number // 3 or number  # torch.export itself fails when alpha * number leaves int64
    if number is not None and op in _COMPARISONS and case["seed"] % 2 and dtype != torch.int64:
        number += 1 << torch.iinfo(dtype).bits  # a number the type cannot hold: eager wraps it
    if number is not None and op == "eq":
        xs[1::3] = [number] * len(xs[1::3])  # some equal
    if number is not None:
        ys = [number] * len(ys)
        xs = [x if not (x == torch.iinfo(dtype).min and number == -1) else 0 for x in xs]
    bits = torch.iinfo(dtype).bits
    xs = [_wrap(a, bits) for a in xs]
    x, y = torch.tensor(xs, dtype=dtype), torch.tensor([_wrap(b, bits) for b in ys], dtype=dtype)
    result = torch.bool if op in _COMPARISONS else dtype
    want = torch.tensor([_integer_exact(op, a, b, bits) for a, b in zip(xs, ys)], dtype=result)
    got = run_compiled(_program(op, number), (x, y), case["mode"], what)
    if not isinstance(got, torch.Tensor) or got.dtype != result or got.shape != want.shape:
        raise Defect("wrong", f"{what}: got {got!r}")
    same = got == want
    if not bool(same.all()):
        i = int((~same).nonzero()[0])
        raise Defect("wrong", f"{what}: {xs[i]} and {ys[i]} give {got[i].item()}, exactly {want[i].item()}")
    return Outcome(CORRECT, what)
