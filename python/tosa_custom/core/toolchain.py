"""Running a program of an outside toolchain (tosa-tools, Arm's ML SDK) that
lives in a directory of its own: one place says how its failure reads."""

from __future__ import annotations

import subprocess

from .diagnostics import CompileError

__all__ = ["run_program"]


def run_program(path: str, name: str, args: list[str], what: str, env: dict | None = None
                ) -> subprocess.CompletedProcess:
    """Run `path` (the toolchain's program `name`) for `what`; a failure raises
    CompileError (`toolchain-failed`) with the end of what it printed."""
    done = subprocess.run([path, *args], capture_output=True, text=True, env=env)
    if done.returncode != 0:
        printed = (done.stderr + done.stdout).strip()[-4000:]
        raise CompileError(f"{what}: {name} failed (exit {done.returncode}):\n{printed}", category="toolchain-failed")
    return done
