"""Where TOSA's own toolchain (PyPI `tosa-tools`) is, and how it gets there.

tosa-tools carries the TOSA flatbuffer serializer (`tosa-opt
--tosa-serialize`/`--tosa-deserialize`, at the same LLVM line as our
torch-mlir wheel), the schema `tosa.fbs` with `flatc`, and the specification's
reference model (a program, and a Python extension module). Its Python
distribution pins `numpy<2.2` and `ml-dtypes==0.5.3` and installs generic
top-level packages (`tosa`, `tests`, `runner`, `serializer`, ...), so it is
never installed into the environment we run in: `install()` unpacks the
pinned wheel, without its dependencies, into a directory of its own
(`<venv>/share/tosa-custom/tosa-tools-<version>`), which nothing puts on
`sys.path`. Its programs need only libc and libstdc++; the reference model's
extension module is loaded from its file and works with the numpy we have.

`$TOSA_CUSTOM_TOSA_TOOLS` names another such directory (one with `bin/tosa-opt`),
for a user who keeps tosa-tools elsewhere; a `tosa-tools` installed into the
running environment by pip is found too.
"""

from __future__ import annotations

import functools
import importlib.util
import os
import subprocess
from importlib import metadata
from pathlib import Path

from .diagnostics import CompileError
from .toolchain import PrivateInstall, run_program

__all__ = ["VERSION", "ENV", "ToolsMissing", "default_dir", "find", "require", "program", "install",
           "reference_model", "run_tool"]

VERSION = "2026.8.0"  # the tosa-tools release tested here (same LLVM 24 line as torch-mlir 20261001)
ENV = "TOSA_CUSTOM_TOSA_TOOLS"
_MARKER = Path("bin") / "tosa-opt"
_PRIVATE = PrivateInstall(f"tosa-tools-{VERSION}", _MARKER, ENV, (f"tosa-tools=={VERSION}",))
INSTALL_HINT = f"install it with `tosa-custom-tosa-tools install` (tosa-tools=={VERSION} into a directory of its own)"


class ToolsMissing(CompileError):
    """TOSA's toolchain is needed and not installed."""

    def __init__(self, what: str):
        super().__init__(f"{what} needs TOSA's own toolchain (PyPI tosa-tools), which is not installed: "
                         f"{INSTALL_HINT}, or point ${ENV} at a directory holding its bin/tosa-opt.",
                         category="toolchain-missing")


def default_dir() -> Path:
    """The private directory `install()` fills, inside the running environment."""
    return _PRIVATE.default_dir()


def _installed_in_environment() -> Path | None:
    try:
        dist = metadata.distribution("tosa-tools")
    except metadata.PackageNotFoundError:
        return None
    root = Path(dist.locate_file(""))
    return root if (root / _MARKER).exists() else None


def find() -> Path | None:
    """The tosa-tools directory: $TOSA_CUSTOM_TOSA_TOOLS, else the private
    install, else a tosa-tools pip installed here; None when there is none."""
    if os.environ.get(ENV):
        return _PRIVATE.find()
    return _PRIVATE.find() or _installed_in_environment()


def require(what: str) -> Path:
    """find(), or ToolsMissing naming `what` needed it and how to install it."""
    found = find()
    if found is None:
        raise ToolsMissing(what)
    return found


def program(name: str, what: str) -> str:
    """The path of one of its programs (`tosa-opt`, `tosa_reference_model`, `flatc`, ...)."""
    path = require(what) / "bin" / name
    if not path.exists():
        raise CompileError(f"{what}: the tosa-tools at {path.parent.parent} has no bin/{name}",
                           category="toolchain-missing")
    return str(path)


def run_tool(name: str, args: list[str], what: str) -> subprocess.CompletedProcess:
    """Run one of its programs; a failure raises CompileError with what it printed."""
    return run_program(program(name, what), name, args, what)


@functools.cache
def reference_model():
    """The reference model's Python extension (`run(flatbuffer_bytes, inputs)`),
    loaded from its file: the package around it is not importable here."""
    root = require("The TOSA reference model")
    found = sorted((root / "tosa_reference_model").glob("tosa_reference_model.cpython-*.so"))
    if not found:
        raise CompileError(f"no tosa_reference_model extension module under {root}", category="toolchain-missing")
    spec = importlib.util.spec_from_file_location("tosa_reference_model", found[0])
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def install(target: "str | os.PathLike | None" = None, wheel: "str | None" = None) -> Path:
    """Install tosa-tools==VERSION, without its dependencies, into `target`
    (default: default_dir()); `wheel` installs a downloaded wheel file instead."""
    return _PRIVATE.install(target, [wheel] if wheel else None)
