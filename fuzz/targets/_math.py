"""The runtime target's `math` cases: elementwise math in every float type.

OpInfo's special.ndtr in bfloat16 found erf, which LLVM has no intrinsic
for, reaching LLVM as vector extracts on half-precision vectors (the libm
call per lane was made after the vectors were lowered). These cases draw a
TOSA math op (the ones that become libm calls and the ones expand-math
rewrites) over f32, f16 or bf16 vectors of any length, vectorized or not.
Oracle: torch's op in float64 on the same values, within a few roundings of
the type (f32 math is computed by polynomials, half types in f32).
"""

from __future__ import annotations

from hypothesis import strategies as st

from ..outcome import CORRECT, Defect, Outcome

__all__ = ["strategy", "check"]

# TOSA op -> (torch function on float64, domain of the drawn values).
_OPS = {
    "erf": ("erf", (-4.0, 4.0)), "tanh": ("tanh", (-6.0, 6.0)), "exp": ("exp", (-10.0, 10.0)),
    "log": ("log", (1e-3, 100.0)), "sigmoid": ("sigmoid", (-10.0, 10.0)), "sin": ("sin", (-6.0, 6.0)),
    "cos": ("cos", (-6.0, 6.0)), "rsqrt": ("rsqrt", (1e-2, 100.0)), "reciprocal": ("reciprocal", (0.1, 100.0)),
}
_TYPES = {"f32": "float32", "f16": "float16", "bf16": "bfloat16"}


@st.composite
def strategy(draw):
    return {"kind": "math", "op": draw(st.sampled_from(sorted(_OPS))), "type": draw(st.sampled_from(sorted(_TYPES))),
            "count": draw(st.integers(1, 70)), "seed": draw(st.integers(0, 2**31)),
            "native": draw(st.booleans()), "vectorize": draw(st.booleans())}


def check(case: dict) -> Outcome:
    import torch

    from tosa_custom import runtime

    op, element = case["op"], case["type"]
    dtype = getattr(torch, _TYPES[element])
    low, high = _OPS[op][1]
    g = torch.Generator().manual_seed(case["seed"])
    x = (low + (high - low) * torch.rand(case["count"], generator=g, dtype=torch.float64)).to(dtype)
    t = f"tensor<{case['count']}x{element}>"
    try:  # a valid program of supported types: any failure is a defect
        program = runtime.load(f"""func.func @f(%x: {t}) -> {t} {{
  %0 = tosa.{op} %x : ({t}) -> {t}
  return %0 : {t}
}}""", native=case["native"], vectorize=case["vectorize"])
        got = program(x)
    except Exception as e:
        raise Defect("exception", f"tosa.{op} on {element}: {type(e).__name__}: {e}") from e
    want = getattr(torch, _OPS[op][0])(x.double())
    eps = torch.finfo(dtype).eps
    # A half type: one rounding of the f32 result, which is within a few f32
    # ulps; f32: the polynomial's own error, a few ulps.
    tol = 2 * eps if dtype != torch.float32 else 8 * eps
    if got.dtype != dtype or not torch.allclose(got.double(), want, rtol=tol, atol=tol):
        bad = (got.double() - want).abs().argmax().item()
        raise Defect("wrong", f"tosa.{op} on {element}: at {x[bad].item()} got {got[bad].item()}, "
                              f"want {want[bad].item()}")
    return Outcome(CORRECT, f"tosa.{op} of {case['count']} {element}")
