"""An outside toolchain (tosa-tools, Arm's ML SDK) that lives in a directory
of its own: where that directory is, how pip fills it, and how a failure of
one of its programs reads. Both toolchains pin dependencies or install
top-level packages with generic names, so neither goes into the running
environment: they are unpacked without dependencies, never on `sys.path`."""

from __future__ import annotations

import dataclasses
import os
import shutil
import subprocess
import sys
from pathlib import Path

from .diagnostics import CompileError

__all__ = ["PrivateInstall", "run_program"]


@dataclasses.dataclass(frozen=True)
class PrivateInstall:
    """A toolchain unpacked into `<venv>/share/tosa-custom/<directory>`, or
    the directory `$<env>` names; `marker` is a file that proves it is there."""

    directory: str
    marker: Path
    env: str
    packages: tuple[str, ...]  # pip requirement strings, pinned

    def default_dir(self) -> Path:
        """The private directory `install()` fills, inside the running environment."""
        return Path(sys.prefix) / "share" / "tosa-custom" / self.directory

    def find(self) -> Path | None:
        """$env when set (it wins, even when it lacks the marker), else the private install; None when absent."""
        given = os.environ.get(self.env)
        root = Path(given) if given else self.default_dir()
        return root if (root / self.marker).exists() else None

    def install(self, target: "str | os.PathLike | None" = None, wheels: "list[str] | None" = None) -> Path:
        """pip-install the packages (or downloaded `wheels`), without their
        dependencies, into `target` (default: default_dir()); a staging
        directory makes a run that dies half-way leave nothing found."""
        target = Path(target) if target else self.default_dir()
        if (target / self.marker).exists():
            return target
        target.parent.mkdir(parents=True, exist_ok=True)
        staging = target.with_name(target.name + ".partial")
        shutil.rmtree(staging, ignore_errors=True)
        subprocess.run([sys.executable, "-m", "pip", "install", "--quiet", "--no-deps", "--no-compile",
                        "--disable-pip-version-check", "--target", str(staging), *(wheels or self.packages)],
                       check=True)
        staging.rename(target)
        return target


def run_program(path: str, name: str, args: list[str], what: str, env: dict | None = None
                ) -> subprocess.CompletedProcess:
    """Run `path` (the toolchain's program `name`) for `what`; a failure raises
    CompileError (`toolchain-failed`) with the end of what it printed."""
    done = subprocess.run([path, *args], capture_output=True, text=True, env=env)
    if done.returncode != 0:
        printed = (done.stderr + done.stdout).strip()[-4000:]
        raise CompileError(f"{what}: {name} failed (exit {done.returncode}):\n{printed}", category="toolchain-failed")
    return done
