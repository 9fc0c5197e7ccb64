"""Where Arm's ML SDK for Vulkan (PyPI, 0.11.0) is, and how it gets there.

The VGF executor (tosa_custom.vgf) needs four of its packages: the model
converter (TOSA to VGF), the VGF library (`vgf_dump`: scenario templates, the
shaders a VGF holds), the scenario runner (a program, its Python extension
`scenario_runner_py`, and `glslc`) and the emulation layer (the Graph and
Tensor Vulkan layers that give any Vulkan driver VK_ARM_data_graph and
VK_ARM_tensors; on a machine without a GPU, Debian's lavapipe is that
driver). As with tosa-tools (core/tosa_tools.py), they are unpacked without
their dependencies into a directory of their own, never onto `sys.path`:
their top-level packages have generic names (`emulation_layer`, `vgf_lib`),
and the extension module is loaded from its file.

The Vulkan loader here stacks explicit layers in the order of the
directories on `VK_LAYER_PATH` and ignores `VK_INSTANCE_LAYERS`' order: the
Graph layer must come first or device creation fails ("requires extension:
VK_ARM_tensors"). So `vulkan_environment()` writes each layer's manifest
into a directory of its own, with the library's absolute path (no
`LD_LIBRARY_PATH` needed), Graph first.
"""

from __future__ import annotations

import contextlib
import functools
import importlib.util
import json
import os
import subprocess
from pathlib import Path

from .diagnostics import CompileError
from .toolchain import PrivateInstall, run_program

__all__ = ["VERSION", "PACKAGES", "ENV", "SdkMissing", "default_dir", "find", "require", "program", "install",
           "run_tool", "vulkan_environment", "vulkan_env", "scenario_module", "lavapipe_icd", "INSTALL_HINT"]

VERSION = "0.11.0"  # the release measured here (its converter is at the LLVM 24 line of torch-mlir 20261001)
PACKAGES = ("ai-ml-sdk-model-converter", "ai-ml-sdk-scenario-runner", "ai-ml-sdk-vgf-library",
            "ai-ml-emulation-layer-for-vulkan")
ENV = "TOSA_CUSTOM_ML_SDK"
_MARKER = Path("model_converter") / "binaries" / "bin" / "model-converter"
_PRIVATE = PrivateInstall(f"ml-sdk-{VERSION}", _MARKER, ENV, tuple(f"{p}=={VERSION}" for p in PACKAGES))
INSTALL_HINT = (f"install it with `tosa-custom-ml-sdk install` (Arm's ML SDK for Vulkan {VERSION} into a directory "
                "of its own), and a Vulkan driver (Debian: `apt-get install mesa-vulkan-drivers`, lavapipe)")

# Each program, by the name the SDK's own commands use, under the install directory.
_PROGRAMS = {
    "model-converter": "model_converter/binaries/bin/model-converter",
    "vgf_dump": "vgf_lib/binaries/bin/vgf_dump",
    "scenario-runner": "scenario_runner/binaries/bin/scenario-runner",
    "glslc": "scenario_runner/binaries/bin/glslc",
}
_LAYERS = (("graph", "VkLayer_Graph"), ("tensor", "VkLayer_Tensor"))  # in the order the loader must stack them
_LAYER_NAMES = "VK_LAYER_ML_Graph_Emulation:VK_LAYER_ML_Tensor_Emulation"
_LAVAPIPE = ("/usr/share/vulkan/icd.d/lvp_icd.x86_64.json", "/usr/share/vulkan/icd.d/lvp_icd.aarch64.json",
             "/usr/share/vulkan/icd.d/lvp_icd.json")


class SdkMissing(CompileError):
    """The ML SDK for Vulkan is needed and not installed."""

    def __init__(self, what: str):
        super().__init__(f"{what} needs Arm's ML SDK for Vulkan, which is not installed: {INSTALL_HINT}; or point "
                         f"${ENV} at a directory holding it.", category="toolchain-missing")


def default_dir() -> Path:
    """The private directory `install()` fills, inside the running environment."""
    return _PRIVATE.default_dir()


def find() -> Path | None:
    """$TOSA_CUSTOM_ML_SDK, else the private install; None when there is none."""
    return _PRIVATE.find()


def require(what: str) -> Path:
    found = find()
    if found is None:
        raise SdkMissing(what)
    return found


def program(name: str, what: str) -> str:
    """The path of one of its programs (`model-converter`, `vgf_dump`, `scenario-runner`, `glslc`)."""
    path = require(what) / _PROGRAMS[name]
    if not path.exists():
        raise CompileError(f"{what}: the ML SDK at {path.parents[3]} has no {_PROGRAMS[name]}",
                           category="toolchain-missing")
    return str(path)


def run_tool(name: str, args: list[str], what: str, env: dict | None = None) -> subprocess.CompletedProcess:
    """Run one of its programs; a failure raises CompileError with what it printed."""
    return run_program(program(name, what), name, args, what, env)


def install(target: "str | os.PathLike | None" = None, wheels: "list[str] | None" = None) -> Path:
    """Install the four packages at VERSION, without dependencies, into
    `target` (default: default_dir()); `wheels` installs downloaded wheels instead."""
    return _PRIVATE.install(target, wheels)


def _layer_dirs(root: Path) -> list[Path]:
    """One directory per layer manifest, the library by absolute path (see the module's doc)."""
    deploy = root / "emulation_layer" / "deploy"
    dirs = []
    for sub, name in _LAYERS:
        manifest = json.loads((deploy / "share" / "vulkan" / "explicit_layer.d" / f"{name}.json").read_text())
        manifest["layer"]["library_path"] = str(deploy / "lib" / f"lib{name}.so")
        folder = root / "tosa-custom-layers" / sub
        folder.mkdir(parents=True, exist_ok=True)
        text = json.dumps(manifest, indent=2)
        path = folder / f"{name}.json"
        if not path.exists() or path.read_text() != text:
            path.write_text(text)
        dirs.append(folder)
    return dirs


def lavapipe_icd() -> str | None:
    """Debian's lavapipe (Mesa's CPU Vulkan driver) ICD manifest, if installed."""
    return next((p for p in _LAVAPIPE if os.path.exists(p)), None)


def vulkan_environment(what: str = "Running a VGF") -> dict[str, str]:
    """The variables a Vulkan process needs to run a VGF here: the emulation
    layers, stacked Graph first; the driver the caller named
    (`VK_ICD_FILENAMES`/`VK_DRIVER_FILES`) or else lavapipe when installed."""
    root = require(what)
    env = {"VK_LAYER_PATH": os.pathsep.join(str(d) for d in _layer_dirs(root)), "VK_INSTANCE_LAYERS": _LAYER_NAMES}
    if not (os.environ.get("VK_ICD_FILENAMES") or os.environ.get("VK_DRIVER_FILES")):
        icd = lavapipe_icd()
        if icd:
            env["VK_ICD_FILENAMES"] = icd
    return env


@contextlib.contextmanager
def vulkan_env(what: str = "Running a VGF"):
    """`vulkan_environment()` set in this process meanwhile (the Vulkan
    loader reads it when an instance is made), then restored."""
    env = vulkan_environment(what)
    saved = {k: os.environ.get(k) for k in env}
    os.environ.update(env)
    try:
        yield env
    finally:
        for k, v in saved.items():
            if v is None:
                os.environ.pop(k, None)
            else:
                os.environ[k] = v


@functools.cache
def scenario_module():
    """The scenario runner's Python extension (`load_scenario`, `Scenario.upload/run/download`),
    loaded from its file: the package around it is not importable here."""
    root = require("The scenario runner")
    found = sorted(root.glob("scenario_runner_py.cpython-*.so"))
    if not found:
        raise CompileError(f"no scenario_runner_py extension module under {root}", category="toolchain-missing")
    spec = importlib.util.spec_from_file_location("scenario_runner_py", found[0])
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module
