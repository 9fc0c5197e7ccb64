"""torchvision for the tests that compile its models, kept off the venv.

torchvision is not a dependency: PyPI's Linux wheel of torchvision 0.28.0
(the release built against torch 2.13) is built for CUDA torch, and with
the CPU torch this project pins, `import torchvision` fails registering its
C++ ops (`operator torchvision::nms does not exist`). Installed in the venv
it breaks transformers too, which imports torchvision whenever it is
installed. So the tests install it into a directory of their own
(build/torchvision-<version>, or $TOSA_CUSTOM_TORCHVISION_DIR), import it
from there without its C++ op registrations (the classification models
never call nms or roi_align), and skip, saying why, when that fails.
"""

from __future__ import annotations

import importlib
import importlib.util
import os
import pathlib
import subprocess
import sys
import types

import pytest

__all__ = ["torchvision"]

VERSION = "0.28.0"  # the torchvision release of torch 2.13.0 (pyproject.toml pins torch)
PILLOW = "13.0.0"  # torchvision imports PIL at import time; installed beside it when the venv has none
_DIR = pathlib.Path(os.environ.get("TOSA_CUSTOM_TORCHVISION_DIR",
                                   pathlib.Path(__file__).resolve().parents[1] / "build" / f"torchvision-{VERSION}"))


def _install() -> None:
    wanted = [] if (_DIR / "torchvision" / "__init__.py").exists() else [f"torchvision=={VERSION}"]
    if importlib.util.find_spec("PIL") is None and not (_DIR / "PIL" / "__init__.py").exists():
        wanted.append(f"pillow=={PILLOW}")
    if not wanted:
        return
    command = [sys.executable, "-m", "pip", "install", "--quiet", "--no-deps", "--target", str(_DIR), *wanted]
    done = subprocess.run(command, capture_output=True, text=True, timeout=600)
    if done.returncode:
        pytest.skip(f"torchvision {VERSION} could not be installed into {_DIR}: {done.stderr.strip()[-300:]}")


def _purge() -> None:
    for name in [n for n in sys.modules if n == "torchvision" or n.startswith("torchvision.")]:
        del sys.modules[name]


def torchvision():
    """The torchvision module (installed on first use), or the test is skipped."""
    try:
        return importlib.import_module("torchvision")
    except ImportError:
        pass
    except RuntimeError as e:  # a CUDA build in the venv: its C++ ops do not load
        if "torchvision::" not in str(e):
            raise
    _purge()
    _install()
    if str(_DIR) not in sys.path:
        sys.path.append(str(_DIR))
    sys.modules["torchvision._meta_registrations"] = types.ModuleType("torchvision._meta_registrations")
    try:
        return importlib.import_module("torchvision")
    except Exception as e:  # noqa: BLE001 - any failure here is a reason to skip, said
        _purge()
        pytest.skip(f"torchvision {VERSION} from {_DIR} does not import: {type(e).__name__}: {e}")
