"""`tosa-custom-opt -o x.tosa` writes a TOSA flatbuffer and reads `x.tosa` back.

Here rather than a lit file: it needs tosa-tools, and the `tosa_tools` fixture
skips it cleanly (saying how to install it) where tosa-tools is missing.
"""

from __future__ import annotations

import io

import pytest

from tosa_custom.core import tosa_flatbuffer
from tosa_custom.tools.opt import run

pytestmark = pytest.mark.usefixtures("tosa_tools")

_CLAMP = """func.func @clamp(%x: tensor<4xf32>) -> tensor<4xf16> {
  %0 = tosa.clamp %x {min_val = 0.0 : f32, max_val = 6.0 : f32} : (tensor<4xf32>) -> tensor<4xf32>
  %1 = tosa.cast %0 : (tensor<4xf32>) -> tensor<4xf64>
  %2 = tosa.cast %1 : (tensor<4xf64>) -> tensor<4xf16>
  return %2 : tensor<4xf16>
}
"""


def _opt(*argv: str) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    return run(list(argv), stdout=out, stderr=err), out.getvalue(), err.getvalue()


def test_write_then_read_a_flatbuffer(tmp_path):
    (tmp_path / "in.mlir").write_text(_CLAMP)
    code, out, err = _opt(str(tmp_path / "in.mlir"), "--tosa-custom-narrow-f64", "-o", str(tmp_path / "x.tosa"))
    assert (code, out, err) == (0, "", "")
    assert (tmp_path / "x.tosa").read_bytes()[4:8] == b"TOSA"  # the flatbuffer's file identifier
    code, out, err = _opt(str(tmp_path / "x.tosa"))
    assert code == 0, err
    assert "func.func @clamp(" in out  # the entry's name, from the sidecar
    assert "tosa.clamp" in out and "tensor<4xf64>" not in out  # the pass ran before writing


def test_flatbuffer_output_refusals(tmp_path):
    (tmp_path / "in.mlir").write_text("func.func @f(%x: tensor<4xf32>) -> tensor<4xf32> {\n"
                                      "  %0 = math.tanh %x : tensor<4xf32>\n  return %0 : tensor<4xf32>\n}\n")
    code, _, err = _opt(str(tmp_path / "in.mlir"), "-o", str(tmp_path / "x.tosa"))
    assert code == 1 and "holds only tosa ops (and func/builtin), not: math.tanh" in err
    assert not (tmp_path / "x.tosa").exists()
    assert not tosa_flatbuffer.sidecar(tmp_path / "x.tosa").exists()
    code, _, err = _opt(str(tmp_path / "in.mlir"), "--split-input-file", "-o", str(tmp_path / "x.tosa"))
    assert code == 1 and "-o *.tosa (a TOSA flatbuffer) writes one module" in err
    code, _, err = _opt(str(tmp_path / "missing.tosa"))
    assert code == 1 and "no such TOSA flatbuffer: " in err
