"""compile() is stages around one textual pipeline of named passes.

`verbose` prints that pipeline; pasted into `tosa-custom-opt --pass-pipeline=`
and run on the `output_type="raw"` import it must give compile()'s output byte
for byte, in every mode, so any stage can be replayed from a dump.
"""

from __future__ import annotations

import subprocess
import sys
import warnings

import pytest
import torch

import tosa_custom
from tosa_custom.tools.example import KEPT_OPS, TransformerBlock

_HEADER = "==== pipeline"


def _printed_pipeline(out: str) -> str:
    lines = out.splitlines()
    at = [i for i, line in enumerate(lines) if line.startswith(_HEADER)]
    assert len(at) == 1, out[-2000:]
    return lines[at[0] + 1]


def _replay(tmp_path, raw, pipeline: str) -> str:
    """`tosa-custom-opt --pass-pipeline=<pipeline>` on the raw import, as a user would run it."""
    source = tmp_path / "raw.mlir"
    source.write_text(raw.operation.get_asm())
    replay = subprocess.run([sys.executable, "-m", "tosa_custom.tools.opt", str(source), f"--pass-pipeline={pipeline}"],
                            capture_output=True, text=True, timeout=600)
    assert replay.returncode == 0, replay.stderr[-3000:]
    return replay.stdout


def _compile(model, args, **kw):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return tosa_custom.compile(model, args, **kw)


@pytest.mark.parametrize("ops,output_type", [
    (KEPT_OPS, "tosa"),   # selective
    (None, "tosa"),       # stock
    (["*"], "tosa"),      # dummy
    ("auto", "tosa"),     # auto, nothing to tunnel: its trial lowering is adopted
    (KEPT_OPS, "torch"),
])
def test_verbose_pipeline_replays_byte_for_byte(tmp_path, capsys, ops, output_type):
    torch.manual_seed(0)
    model, args = TransformerBlock(dim=16, heads=2).eval(), (torch.randn(1, 4, 16),)
    raw = _compile(model, args, output_type="raw", backend_legal_ops=ops)
    capsys.readouterr()
    module = _compile(model, args, output_type=output_type, backend_legal_ops=ops, verbose=True)
    pipeline = _printed_pipeline(capsys.readouterr().out)
    assert pipeline.startswith("builtin.module(") and "torchdynamo-export-to-torch-backend-pipeline" in pipeline
    assert ("convert-torch-backend-legal-to-tosa-custom{ops=" in pipeline) == bool(ops and output_type == "tosa")
    assert _replay(tmp_path, raw, pipeline) == module.operation.get_asm()


def test_each_of_our_steps_is_in_the_printed_pipeline(capsys):
    model, args = TransformerBlock(dim=16, heads=2).eval(), (torch.randn(1, 4, 16),)
    _compile(model, args, backend_legal_ops=KEPT_OPS, verbose=True)
    pipeline = _printed_pipeline(capsys.readouterr().out)
    for step in ("tosa-custom-tensorize-scalar-boundary", "tosa-custom-mark-boundary-dtypes",
                 "tosa-custom-check-sign-semantics", "tosa-custom-tensor-constants-as-tosa",
                 "tosa-custom-tensorize-builtin-scalar-boundary", "tosa-custom-verify-tosa"):
        assert step in pipeline
    assert "torch-verify-tosa-backend-contract" not in pipeline


class _NeedsAuto(torch.nn.Module):
    """atan2 has no TOSA lowering; x ** 2 on int64 neither; uint8 maximum lowers wrongly."""

    def forward(self, x, n, u):
        return torch.atan2(x, x + 1).tanh(), n ** 2, torch.maximum(u, u.flip(0))


def test_auto_pipeline_replays_byte_for_byte(tmp_path, capsys):
    """Auto mode decides inside the pass, on trial copies: replaying its
    pipeline decides the same and gives the same module (the adopted trial
    included)."""
    args = (torch.randn(3, 4), torch.arange(4), torch.tensor([200, 3, 7], dtype=torch.uint8))
    raw = _compile(_NeedsAuto(), args, output_type="raw", backend_legal_ops=["aten.tanh", "auto"])
    capsys.readouterr()
    module = _compile(_NeedsAuto(), args, backend_legal_ops=["aten.tanh", "auto"], verbose=True)
    pipeline = _printed_pipeline(capsys.readouterr().out)
    assert "tosa-custom-auto-at-import" in pipeline and "{ops=aten.tanh,auto " in pipeline
    replayed = _replay(tmp_path, raw, pipeline)
    assert replayed == module.operation.get_asm()
    assert replayed.count("tosa.custom") == 4  # tanh, atan2, pow, maximum
