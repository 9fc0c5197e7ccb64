"""`tosa-custom-example` (example.py): a short summary whose numbers agree
with the names it lists; the IR only with --print-ir."""

from __future__ import annotations

import re

import pytest

from tosa_custom.tools import example


def test_summary_counts_match_names_and_names_kernels(capsys):
    assert example.main([]) == 0
    out = capsys.readouterr().out
    assert "func.func" not in out  # no IR without --print-ir
    kept = re.search(r"kept as tosa.custom: (\d+) ops: (.*)", out)
    names = [(n, int(c or 1)) for n, c in re.findall(r"(torch\.aten\.[\w.]+)(?: x(\d+))?", kept[2])]
    assert int(kept[1]) == sum(c for _, c in names) == 4  # it used to say 4 and list 3 names
    tosa = re.search(r"TOSA ops: (\d+) with these kept, (\d+) in torch-mlir's stock lowering", out)
    assert int(tosa[1]) < int(tosa[2])
    kernels = re.findall(r"//   (torch\.aten\.[\w.]+): (native|python) \(", out)
    assert len(kernels) == 4  # it used to say "reference kernels" whatever ran
    diff = float(re.search(r"largest difference from eager PyTorch: ([\d.e+-]+)", out)[1])
    assert diff < 1e-4


def test_print_ir_and_version(capsys):
    assert example.main(["--print-ir"]) == 0
    assert "tosa.custom" in capsys.readouterr().out
    with pytest.raises(SystemExit) as e:
        example.main(["--version"])
    assert e.value.code == 0 and re.match(r"tosa-custom-example \(tosa-custom \d+\.\d+", capsys.readouterr().out)
