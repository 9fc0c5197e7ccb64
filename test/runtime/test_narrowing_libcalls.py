"""f64 -> f16 / bf16 in compiled code: LLVM calls __truncdfhf2 / __truncdfbf2,
which the runtime supplies (lib/runtime.c) so that every host rounds the
same, once, to nearest even (OpInfo's logspace in half types found the JIT
missing them)."""

from __future__ import annotations

import numpy as np
import pytest
import torch

from fuzz.targets._casts import rounded_once
from tosa_custom import runtime


def _program(dtype: str, n: int):
    t64, out = f"tensor<{n}xf64>", f"tensor<{n}x{dtype}>"
    return runtime.load(f"""
func.func @main(%x: {t64}) -> {out} {{
  %0 = tosa.cast %x : ({t64}) -> {out}
  return %0 : {out}
}}""")


def _doubles() -> np.ndarray:
    """Ties and near-ties at every f16/bf16 exponent, subnormals, overflow, specials."""
    rng = np.random.default_rng(0)
    exps = np.arange(-150, 130)
    base = np.ldexp(1.0, exps)
    # x.5 ulp ties for bf16 (8 significant bits) and f16 (11), nudged by one f64 ulp either way.
    ties = np.concatenate([base * (1 + (2 * k + 1) / 2 ** b) for b in (8, 11) for k in (0, 1, 5)])
    near = np.concatenate([np.nextafter(ties, np.inf), np.nextafter(ties, -np.inf)])
    noise = rng.standard_normal(4000) * np.ldexp(1.0, rng.integers(-30, 20, 4000))
    edges = np.array([0.0, -0.0, 65504.0, 65519.99, 65520.0, 1e6, 3.4e38, 3.5e38, 5.96e-8, 2.98e-8, 2.99e-8,
                      np.inf, -np.inf, 1e-300, -1e-300, 9.2e-41, 4.6e-41])
    values = np.concatenate([ties, near, noise, edges])
    return np.concatenate([values, -values])


@pytest.mark.parametrize("dtype", ["f16", "bf16"])
def test_f64_narrowing_rounds_once_to_nearest_even(dtype):
    x = _doubles()
    got = _program(dtype, len(x))(torch.from_numpy(x))
    if dtype == "f16":
        with np.errstate(over="ignore"):
            want = torch.from_numpy(x.astype(np.float16))  # numpy rounds f64 -> f16 directly
    else:
        want = torch.tensor([rounded_once(float(v), "bf16") for v in x], dtype=torch.float64).to(torch.bfloat16)
    assert got.dtype == want.dtype
    same = (got.view(torch.int16) == want.view(torch.int16))
    assert bool(same.all()), f"{int((~same).sum())} of {len(x)} differ, e.g. {x[~same.numpy()][:5]}"


@pytest.mark.parametrize("dtype", ["f16", "bf16"])
def test_nan_stays_nan(dtype):
    got = _program(dtype, 2)(torch.tensor([float("nan"), -float("nan")], dtype=torch.float64))
    assert bool(torch.isnan(got).all())


@pytest.mark.parametrize("dtype, name", [("bf16", "tck_truncsfbf2"), ("f16", "tck_truncsfhf2")])
def test_f32_narrowing_builtins_round_once(dtype, name):
    """__truncsfbf2 / __truncsfhf2, which LLVM calls where the JIT has no
    instruction (bf16 without AVX512-BF16, which the JIT leaves out)."""
    import ctypes

    from tosa_custom.runtime.kernels import native

    fn = getattr(native._runtime(), name)
    fn.argtypes, fn.restype = [ctypes.c_float], ctypes.c_float
    with np.errstate(over="ignore"):
        x = _doubles().astype(np.float32)
    bits = np.array([np.float32(fn(float(v))).view(np.uint32) & 0xFFFF for v in x], dtype=np.uint16)
    torch_dtype = torch.bfloat16 if dtype == "bf16" else torch.float16
    want = torch.tensor(x, dtype=torch.float32).to(torch_dtype).view(torch.int16).numpy().view(np.uint16)
    nan = np.isnan(x)
    assert np.array_equal(bits[~nan], want[~nan]), f"{int((bits != want)[~nan].sum())} of {len(x)} differ"
    assert set(native._LIBCALLS) >= {"__truncsfbf2", "__truncsfhf2"}
