"""The native tests under AddressSanitizer + UndefinedBehaviorSanitizer
(scripts/sanitize.sh): lib/ built with -fsanitize=address,undefined out of
tree, test/native run against it with the runtimes preloaded. Then that the
set-up really catches bugs: a heap overflow and a signed overflow in a user
kernel library (built by `compile_kernel_library`, as the fixture is) each
make the script fail with the report.

Runs by default, so CI checks every change under the sanitizers (~30 s for
the sanitized run, ~10 s per bug); TOSA_CUSTOM_SANITIZE_TEST=0 skips it for a
quick local run. Needs gcc with libasan/libubsan, cmake, ninja.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
SCRIPT = ROOT / "scripts" / "sanitize.sh"

pytestmark = [
    pytest.mark.skipif(os.environ.get("TOSA_CUSTOM_SANITIZE_TEST") == "0",
                       reason="TOSA_CUSTOM_SANITIZE_TEST=0 skips the sanitized build"),
    pytest.mark.skipif(not all(shutil.which(t) for t in ("gcc", "cmake", "ninja")),
                       reason="needs gcc, cmake and ninja"),
]


@pytest.fixture(scope="module")
def build_dir(tmp_path_factory) -> Path:
    """One sanitized build for the module, private to this session (no race
    with another run using build/sanitize)."""
    return tmp_path_factory.mktemp("sanitize")


def _sanitize(build_dir: Path, *pytest_args: str) -> subprocess.CompletedProcess:
    env = {**os.environ, "PYTHON": sys.executable, "TOSA_CUSTOM_SANITIZE_BUILD": str(build_dir)}
    return subprocess.run(["bash", str(SCRIPT), *pytest_args], cwd=ROOT, env=env, capture_output=True,
                          text=True, timeout=600)


def test_native_tests_pass_under_sanitizers(build_dir):
    done = _sanitize(build_dir)
    output = done.stdout + done.stderr
    assert done.returncode == 0, output
    assert "sanitize.sh: OK: no sanitizer report" in done.stdout
    assert " passed" in done.stdout and "failed" not in done.stdout
    for lib in ("libtosa_custom_runtime.so", "libtosa_custom_kernels.so"):
        assert b"__asan_report" in (build_dir / "_native" / lib).read_bytes(), f"{lib} is not instrumented"


# A user kernel library with one bug, and a test calling it; the test also
# checks that the run uses the sanitized built-in libraries.
_BUGS = {
    "asan": ("""
        #include <stdlib.h>
        int bug(int n) {
            int *p = malloc(sizeof(int) * n);
            for (int i = 0; i < n; ++i) p[i] = i;
            int last = p[n]; /* one past the end */
            free(p);
            return last;
        }""", "AddressSanitizer: heap-buffer-overflow"),
    "ubsan": ("""
        #include <limits.h>
        int bug(int n) { return INT_MAX - 3 + n; } /* overflows for n > 3 */
        """, "signed integer overflow"),
}

_CALLER = """
import ctypes, os
from pathlib import Path
from tosa_custom.runtime.kernels import native

def test_bug(tmp_path):
    assert native.builtin_library().path.parent == Path(os.environ["TOSA_CUSTOM_NATIVE_DIR"]).resolve()
    src = tmp_path / "bug.c"
    src.write_text({source!r})
    lib = ctypes.CDLL(str(native.compile_kernel_library([src], tmp_path / "libbug.so")))
    lib.bug(8)
"""


@pytest.mark.parametrize("bug", sorted(_BUGS))
def test_a_sanitizer_report_fails_the_run(build_dir, tmp_path, bug):
    source, report = _BUGS[bug]
    caller = tmp_path / f"test_{bug}.py"
    caller.write_text(_CALLER.format(source=textwrap.dedent(source)))
    done = _sanitize(build_dir, str(caller))
    output = done.stdout + done.stderr
    assert done.returncode != 0, output
    assert report in output, output
    assert "sanitize.sh: FAILED: sanitizer report above" in done.stderr
    assert "bug.c:" in output  # the report points at the line (-g)
