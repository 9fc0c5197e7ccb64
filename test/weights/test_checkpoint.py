"""weights/checkpoint.py: what a user may hand as weights, and the saved
program's layout (read by the bind pass and the runtime alike)."""

from __future__ import annotations

import pytest
import torch
from safetensors.torch import save_file

from tosa_custom.weights.checkpoint import WEIGHTS_FILE, WeightError, is_saved_program, read_checkpoint, read_saved


def test_state_dicts_modules_and_files_read_alike(tmp_path):
    model = torch.nn.Linear(2, 3)
    expected = model.state_dict()
    save_file(dict(expected), str(tmp_path / "w.safetensors"))
    torch.save(dict(expected), tmp_path / "w.pt")
    (tmp_path / "saved").mkdir()
    save_file(dict(expected), str(tmp_path / "saved" / WEIGHTS_FILE))
    for source in (expected, model, tmp_path / "w.safetensors", str(tmp_path / "w.pt"), tmp_path / "saved"):
        got = read_checkpoint(source)
        assert got.keys() == expected.keys(), source
        for k in got:
            torch.testing.assert_close(got[k], expected[k])


def test_what_is_not_a_checkpoint_is_refused(tmp_path):
    with pytest.raises(TypeError, match="not int"):
        read_checkpoint(3)
    with pytest.raises(FileNotFoundError, match="no weights file"):
        read_checkpoint(tmp_path / "none.safetensors")
    torch.save([1, 2], tmp_path / "list.pt")
    with pytest.raises(WeightError, match="holds a list, not a state_dict"):
        read_checkpoint(tmp_path / "list.pt")


def test_a_saved_program_needs_its_manifest(tmp_path):
    assert not is_saved_program(tmp_path)
    (tmp_path / "module.mlirbc").write_bytes(b"")
    assert is_saved_program(tmp_path)
    with pytest.raises(FileNotFoundError, match="has module.mlirbc but no manifest.json"):
        read_saved(tmp_path)
