"""The gelu rows of lib/kernels.c at every vector width a host may run:
the library picks a clone by the CPU (AVX-512, AVX2 + FMA, baseline
x86-64), so the host running the suite exercises one of them; here each
width is built on its own (-DGELU_HOT= and its -march) and held to the
accuracy test_native_kernels holds the library to."""

from __future__ import annotations

import ctypes
import platform
from pathlib import Path

import numpy as np
import pytest
import torch
import torch.nn.functional as F

from tosa_custom.runtime.kernels import native

KERNELS = Path(__file__).parents[2] / "lib" / "kernels.c"
FLAGS = ["-O3", "-fopenmp-simd", "-fno-math-errno", "-fno-trapping-math", "-DGELU_HOT="]  # CMakeLists' _fast
WIDTHS = {"x86-64": "sse2", "x86-64-v3": "avx2", "x86-64-v4": "avx512f"}

pytestmark = pytest.mark.skipif(platform.machine() != "x86_64" or not KERNELS.exists(),
                                reason="x86-64 widths of the source tree's lib/kernels.c")

_HARNESS = """
#include "{kernels}"
void gelu_rows(int tanh_form, const float *x, float *y, int64_t n) {{
    row_params p = {{0}};
    (tanh_form ? gelu_tanh_row : gelu_erf_row)(x, y, n, &p);
}}
"""


def _host_has(flag: str) -> bool:
    with open("/proc/cpuinfo") as f:
        return any(line.startswith("flags") and flag in line.split() for line in f)


@pytest.fixture(scope="module")
def builds(tmp_path_factory) -> dict:
    tmp = tmp_path_factory.mktemp("gelu_widths")
    source = tmp / "harness.c"
    source.write_text(_HARNESS.format(kernels=KERNELS))
    libraries = {}
    for march, flag in WIDTHS.items():
        if not _host_has(flag):
            continue
        so = native.compile_kernel_library([source], tmp / f"gelu_{march}.so", [*FLAGS, f"-march={march}"])
        library = ctypes.CDLL(str(so))
        library.gelu_rows.argtypes = [ctypes.c_int, ctypes.c_void_p, ctypes.c_void_p, ctypes.c_int64]
        libraries[march] = library
    return libraries


def _gelu(library, x: torch.Tensor, approximate: str) -> torch.Tensor:
    y = torch.empty_like(x)
    library.gelu_rows(int(approximate == "tanh"), x.data_ptr(), y.data_ptr(), x.numel())
    return y


@pytest.mark.parametrize("approximate", ["none", "tanh"])
@pytest.mark.parametrize("march", list(WIDTHS))
def test_every_width_is_as_accurate_as_the_library(builds, march, approximate):
    if march not in builds:
        pytest.skip(f"this host has no {WIDTHS[march]}")
    dense = torch.linspace(-12, 12, 100001)  # every region of the approximations, odd length: a vector tail too
    got = _gelu(builds[march], dense, approximate)
    torch.testing.assert_close(got, F.gelu(dense.double(), approximate=approximate).float(), rtol=1e-5, atol=5e-7)
    special = torch.tensor([0.0, -0.0, float("inf"), -float("inf"), float("nan"), 1e-30, -1e-30, -200.0, 200.0])
    expected = torch.cat([F.gelu(v, approximate=approximate) for v in special.split(1)])  # eager's scalar loop
    torch.testing.assert_close(_gelu(builds[march], special, approximate), expected, equal_nan=True)


@pytest.mark.parametrize("approximate", ["none", "tanh"])
def test_the_fma_widths_agree_to_the_bit(builds, approximate):
    """AVX2 and AVX-512 run the same math with the same FMA contraction:
    a program's answer does not depend on which of the two a host picks."""
    if not {"x86-64-v3", "x86-64-v4"} <= set(builds):
        pytest.skip("this host has no AVX-512")
    x = torch.randn(4099) * 4
    a, b = (_gelu(builds[m], x, approximate) for m in ("x86-64-v3", "x86-64-v4"))
    assert np.array_equal(a.numpy().view(np.int32), b.numpy().view(np.int32))
