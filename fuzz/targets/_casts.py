"""The runtime target's `cast` cases: float narrowing and widening, bit-exact.

OpInfo's logspace in float16 and bfloat16 found compiled code calling
__truncdfhf2 / __truncdfbf2, builtins the JIT found only in some libgcc
versions; the runtime now supplies them. These cases draw a `tosa.cast`
between two of f64, f32, f16 and bf16 over values where rounding is decided:
ties and their neighbours at every exponent of the narrow type, subnormals,
the overflow threshold, signed zeros, infinities. Oracle: the value rounded
once to nearest even (numpy for f16, exact arithmetic for bf16); NaN stays NaN.
"""

from __future__ import annotations

from fractions import Fraction

import numpy as np
from hypothesis import strategies as st

from ..outcome import CORRECT, Defect, Outcome

__all__ = ["strategy", "check", "rounded_once"]

_TYPES = {"f64": "float64", "f32": "float32", "f16": "float16", "bf16": "bfloat16"}
_BITS = {"f16": (5, 10), "bf16": (8, 7), "f32": (8, 23)}  # (exponent, mantissa) of the narrow types


@st.composite
def strategy(draw):
    source, target = draw(st.sampled_from([(a, b) for a in _TYPES for b in _TYPES if a != b]))
    return {"kind": "cast", "source": source, "target": target, "seed": draw(st.integers(0, 2**31)),
            "native": draw(st.booleans()), "vectorize": draw(st.booleans()), "count": draw(st.integers(1, 70))}


def _values(case) -> np.ndarray:
    """Values of the source type at which the target type's rounding is decided."""
    rng = np.random.default_rng(case["seed"])
    e_bits, m_bits = _BITS.get(case["target"], (11, 52))
    bias = 2 ** (e_bits - 1) - 1
    exps = rng.integers(-bias - m_bits - 2, bias + 2, case["count"])
    odd = 2 * rng.integers(0, 2 ** min(m_bits, 20), case["count"]) + 1
    ties = np.ldexp(1.0 + odd / 2.0 ** (min(m_bits, 20) + 1), exps)
    dtype = {"f64": np.float64, "f32": np.float32, "f16": np.float16, "bf16": np.float32}[case["source"]]
    with np.errstate(over="ignore"):
        near = [np.nextafter(ties.astype(dtype), np.inf), np.nextafter(ties.astype(dtype), -np.inf)]
    special = np.array([0.0, -0.0, np.inf, -np.inf, 65504.0, 65520.0, 3.39e38, 3.4e38, 6e-8, 1e-45])
    values = np.concatenate([ties, *near, special, rng.standard_normal(case["count"])])
    return np.concatenate([values, -values]).astype(np.float64)


def rounded_once(x: float, target: str) -> float:
    """x rounded once to nearest even in `target`, as a float (inf past the threshold)."""
    if target in ("f64",) or not np.isfinite(x) or x == 0:
        return x
    if target in ("f16", "f32"):
        with np.errstate(over="ignore"):
            return float(np.array(x).astype(np.float16 if target == "f16" else np.float32))
    e_bits, m_bits = _BITS[target]
    exact, sign = Fraction(abs(x)), 1 if x > 0 else -1
    emin = 2 - 2 ** (e_bits - 1)
    e = max(exact.numerator.bit_length() - exact.denominator.bit_length(), emin)
    while Fraction(2) ** e > exact and e > emin:
        e -= 1
    while Fraction(2) ** (e + 1) <= exact:
        e += 1
    ulp = Fraction(2) ** (e - m_bits)
    q, r = divmod(exact, ulp)
    q += 1 if (r > ulp / 2 or (r == ulp / 2 and q % 2)) else 0
    value = q * ulp
    largest = (2 - Fraction(2) ** -m_bits) * Fraction(2) ** (2 ** (e_bits - 1) - 1)
    return sign * (float("inf") if value > largest else float(value))


def check(case: dict) -> Outcome:
    import torch

    from tosa_custom import runtime

    source, target = case["source"], case["target"]
    x = torch.from_numpy(_values(case)).to(getattr(torch, _TYPES[source]))
    t_in, t_out = f"tensor<{x.numel()}x{source}>", f"tensor<{x.numel()}x{target}>"
    program = runtime.load(f"""func.func @f(%x: {t_in}) -> {t_out} {{
  %0 = tosa.cast %x : ({t_in}) -> {t_out}
  return %0 : {t_out}
}}""", native=case["native"], vectorize=case["vectorize"])
    got = program(x)
    want = torch.tensor([rounded_once(v, target) for v in x.double().tolist()], dtype=torch.float64)
    want = want.to(getattr(torch, _TYPES[target]))  # exact: every value is representable
    same = (got == want) | (got.isnan() & want.isnan())
    same &= torch.signbit(got) == torch.signbit(want)
    if not bool(same.all()):
        bad = (~same).nonzero().flatten()[:4].tolist()
        raise Defect("wrong", f"{source} -> {target}: at {[x[i].item() for i in bad]} got "
                              f"{[got[i].item() for i in bad]}, want {[want[i].item() for i in bad]}")
    return Outcome(CORRECT, f"{x.numel()} values {source} -> {target}")
