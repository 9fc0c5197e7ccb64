"""Run the lit + FileCheck suite (test/**/*.mlir) as one pytest test.

`python -m pytest` then covers the FileCheck tests as well; lit's own output is
printed when it fails. Known bugs are `XFAIL: *` tests, which lit counts as
passing until they unexpectedly pass.
"""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

TEST_DIR = os.path.dirname(os.path.abspath(__file__))


def test_lit_suite() -> None:
    # lit has no __main__ module, so `python -m lit` does not work: call its
    # entry point with the Python running pytest.
    result = subprocess.run(
        [sys.executable, "-c", "import lit.main; lit.main.main()", "-v", TEST_DIR],
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        stdin=subprocess.DEVNULL,
    )
    if result.returncode != 0:
        print(result.stdout)
    assert result.returncode == 0, "lit failed:\n" + result.stdout[-20000:]
