"""Floating results judged by their distance from the exact answer.

Eager PyTorch computes a float16 or bfloat16 op in float32 and rounds once;
a compiled program computes the op's TOSA in the half type itself, rounding
after each step, and so may differ from eager by several of the type's ulps
while being as close to the exact answer (OpInfo's layer_norm in bfloat16:
eager is 0.001 off the float64 result, the compiled program exact; eager's
trunc division in float16 off by 1, the compiled one exact). Comparing with
eager alone calls such results wrong.

So a half-precision result that fails the usual comparison gets a second
one, the rule PyTorch's own reference tests use: run eager again with the
floating inputs and the model's weights in float64, and accept each element
whose distance from that result is within the type's tolerance of eager's
own distance. A lowering that is really wrong (a float16 norm whose squares
overflow to inf where the exact norm is 8.5) stays wrong.

A float32 result that sums many terms is judged the same way, as a whole, the rule PyTorch's compiler benchmarks use (`torch._dynamo.utils.same`
with a float64 reference): its root-mean-square distance from the float64
result within twice eager's own (plus atol). Rounding in a sum is relative to
the terms, not to a result that cancels: a transposed 3-d convolution summing
108 products up to 80 gives 0.4 off by 5e-5 in another summation order, with
eager itself 1e-4 off the exact answer elsewhere (every-sample OpInfo
conv_transpose3d/float32/8). An element that is wrong, not rounded, moves
the mean square by far more than rounding does; non-finite values must be
eager's.
"""

from __future__ import annotations

import copy
from typing import Callable, Sequence

import torch
import torch.utils._pytree as pytree

__all__ = ["HALF", "RMS_MULTIPLIER", "has_half", "has_float", "in_float64", "as_accurate_as_eager"]

HALF = (torch.float16, torch.bfloat16)
# How much farther from the float64 result than eager's, in root mean square, a
# float result may be (torch._dynamo.utils.same's default).
RMS_MULTIPLIER = 2.0
# Eager's float32 result is the float64 one to about 7 digits; one further off
# than this (relative, in root mean square) was not computed the same way.
_SAME_CALL = 1e-3


def has_half(value) -> bool:
    return any(isinstance(x, torch.Tensor) and x.dtype in HALF for x in pytree.tree_leaves(value))


def has_float(value) -> bool:
    return any(isinstance(x, torch.Tensor) and x.is_floating_point() for x in pytree.tree_leaves(value))


def _wide(x):
    return x.double() if isinstance(x, torch.Tensor) and x.is_floating_point() else x


def _widen_dtypes(module: torch.nn.Module) -> None:
    """A half dtype the model holds as an argument (`torch.logspace(...,
    dtype=torch.bfloat16)` in an OpInfo sample) becomes float64 too: else the
    re-run rounds to the half type again and cannot show which of eager and
    the program is nearer the exact answer."""
    def widen(x):
        return torch.float64 if isinstance(x, torch.dtype) and x in HALF else x

    for m in module.modules():
        for name, value in list(vars(m).items()):
            if not name.startswith("_"):
                wide = pytree.tree_map(widen, value)
                if pytree.tree_leaves(wide) != pytree.tree_leaves(value):
                    setattr(m, name, wide)


def in_float64(model, inputs: tuple, run: Callable[[object, tuple], list]) -> list | None:
    """`run(model, inputs)` with floating inputs, weights and buffers, and
    the half dtypes it takes as arguments, in float64; None when the model
    cannot run so (it then decides nothing)."""
    try:
        wide = copy.deepcopy(model)
        if isinstance(wide, torch.nn.Module):
            wide = wide.double()
            _widen_dtypes(wide)
        return run(wide, pytree.tree_map(_wide, inputs))
    except Exception:  # an op without a float64 kernel, a dtype the model asserts
        return None


def _leaf_ok(actual: torch.Tensor, expected: torch.Tensor, precise, rtol: float, atol: float) -> bool:
    if not isinstance(precise, torch.Tensor) or precise.shape != expected.shape or expected.dtype not in HALF:
        return False
    a, e, p = actual.double(), expected.double(), precise.double()
    close_to_eager = (a - e).abs() <= atol + rtol * e.abs()
    as_accurate = (a - p).abs() <= (e - p).abs() + atol + rtol * p.abs()
    same = (a == e) | (a.isnan() & e.isnan())
    return bool((close_to_eager | as_accurate | same).all())


def _rms_ok(actual: torch.Tensor, expected: torch.Tensor, precise, atol: float) -> bool:
    """The whole result no farther from `precise` in root mean square than
    RMS_MULTIPLIER times eager's (plus atol); where eager or the exact result
    is not finite, eager's values exactly. Not for a half result, judged
    element by element: there eager's error is often a rounding to an integer
    (trunc of a quotient rounded to 3 where the exact one is 2.9993), and
    twice that is no rounding."""
    if (not isinstance(precise, torch.Tensor) or precise.shape != expected.shape or actual.shape != expected.shape
            or not expected.is_floating_point() or expected.dtype in HALF):
        return False
    a, e, p = actual.double(), expected.double(), precise.double()
    finite = e.isfinite() & p.isfinite()
    if not bool(((a == e) | (a.isnan() & e.isnan()))[~finite].all()) or not bool(a[finite].isfinite().all()):
        return False
    if not bool(finite.any()):
        return True

    def rms(x: torch.Tensor) -> float:
        return x.square().mean().sqrt().item()

    eager_error = rms(e[finite] - p[finite])
    if eager_error > _SAME_CALL * rms(p[finite]) + atol:
        return False  # the float64 run is not the same computation (a Python side effect, a count of calls)
    return rms(a[finite] - p[finite]) <= RMS_MULTIPLIER * eager_error + atol


def as_accurate_as_eager(actual: Sequence, expected: Sequence, precise: Sequence, rtol: float, atol: float) -> bool:
    """Every floating leaf no farther from `precise` than eager's: a half
    leaf element by element within (rtol, atol), another float leaf as a whole
    (`_rms_ok`); False if the structures differ or another leaf (an integer,
    a bool: compared with eager alone) differs from eager."""
    if not (len(actual) == len(expected) == len(precise)):
        return False
    floating = [isinstance(e, torch.Tensor) and e.is_floating_point() for e in expected]
    for a, e, is_float in zip(actual, expected, floating):
        if is_float:
            continue
        try:  # already compared and passed, or the mismatch is there: check again
            torch.testing.assert_close(a, e, rtol=rtol, atol=atol, equal_nan=True, check_dtype=False)
        except (AssertionError, TypeError, ValueError):
            return False
    pairs = [(torch.as_tensor(a), e, p) for a, e, p, f in zip(actual, expected, precise, floating) if f]
    return bool(pairs) and all(_leaf_ok(a, e, p, rtol, atol) or _rms_ok(a, e, p, atol) for a, e, p in pairs)
