"""A toolchain in a directory of its own (core/toolchain.PrivateInstall): found
by its marker, $env winning over the private install, and an install that
fails half-way leaves nothing that would be found."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from tosa_custom.core.toolchain import PrivateInstall, run_program
from tosa_custom.core.diagnostics import CompileError

MARKER = Path("bin") / "tool"


def _toolchain(env: str) -> PrivateInstall:
    return PrivateInstall("tool-1.0", MARKER, env, ("tool==1.0",))


def _fill(root: Path) -> Path:
    (root / MARKER).parent.mkdir(parents=True)
    (root / MARKER).write_text("")
    return root


def test_found_by_its_marker_env_first(tmp_path, monkeypatch):
    tc = _toolchain("TOSA_CUSTOM_TEST_TOOL")
    monkeypatch.delenv("TOSA_CUSTOM_TEST_TOOL", raising=False)
    assert tc.default_dir() == Path(sys.prefix) / "share" / "tosa-custom" / "tool-1.0"
    assert tc.find() is None or tc.find() == tc.default_dir()
    monkeypatch.setenv("TOSA_CUSTOM_TEST_TOOL", str(tmp_path / "elsewhere"))
    assert tc.find() is None  # $env names a directory without the marker: not there, whatever else is
    _fill(tmp_path / "elsewhere")
    assert tc.find() == tmp_path / "elsewhere"


def test_an_installed_directory_is_not_installed_again(tmp_path):
    target = _fill(tmp_path / "t")
    assert _toolchain("X").install(target, ["/nonexistent/never-read.whl"]) == target


def test_a_failed_install_leaves_nothing_found(tmp_path):
    tc = _toolchain("X")
    with pytest.raises(subprocess.CalledProcessError):
        tc.install(tmp_path / "t", [str(tmp_path / "missing-1.0-py3-none-any.whl")])
    assert not (tmp_path / "t").exists()


def test_a_failing_program_raises_with_what_it_printed(tmp_path):
    with pytest.raises(CompileError, match=r"Probing: sh failed \(exit 3\):\nboom") as e:
        run_program("/bin/sh", "sh", ["-c", "echo boom >&2; exit 3"], "Probing")
    assert e.value.category == "toolchain-failed"
