"""`tosa-custom-ml-sdk`: install Arm's ML SDK for Vulkan where we use it, say where it is, or check Vulkan.

tosa_custom.vgf (programs on Vulkan, kept ops as compute shaders) needs the
SDK's model converter, VGF library, scenario runner and emulation layer
(PyPI, pinned); core/ml_sdk.py says why they live in a directory of their
own. A Vulkan driver comes from the system: on a machine without a GPU,
Mesa's lavapipe (Debian: `apt-get install mesa-vulkan-drivers`).
"""

from __future__ import annotations

import argparse

from .. import __version__
from ..core import ml_sdk

__all__ = ["main"]


def _check() -> int:
    """Load a one-op program on Vulkan: 0 when a device could be made."""
    import torch

    from .. import vgf
    from ..frontend.compiler import compile as compile_model

    model = torch.nn.Sequential(torch.nn.Linear(4, 4), torch.nn.GELU()).eval()
    x = torch.randn(2, 4)
    try:
        program = vgf.load(compile_model(model, (x,), backend_legal_ops=["aten.gelu"]))
        with torch.no_grad():
            error = float((program(x) - model(x)).abs().max())
    except Exception as e:  # any reason a device or the program could not be made: say it
        print(f"Vulkan does not run here: {e}")
        return 1
    print(f"Vulkan runs here: Linear + GELU (a built-in shader) within {error:.1e} of PyTorch")
    return 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="tosa-custom-ml-sdk", description=__doc__.splitlines()[0])
    parser.add_argument("--version", action="version", version=f"tosa-custom {__version__}")
    sub = parser.add_subparsers(dest="command", required=True)
    install = sub.add_parser("install", help=f"pip install the ML SDK {ml_sdk.VERSION} packages (no dependencies) "
                                             "into a directory of their own")
    install.add_argument("--target", help=f"the directory (default {ml_sdk.default_dir()})")
    install.add_argument("--wheel", action="append", help="downloaded wheels to install instead of PyPI's")
    sub.add_parser("where", help="print the SDK directory in use; exit 1 when there is none")
    sub.add_parser("env", help="print the Vulkan variables that run a VGF here (for scenario-runner)")
    sub.add_parser("check", help="run a one-op program on Vulkan; exit 1 (saying why) when no device can be made")
    args = parser.parse_args(argv)
    if args.command == "install":
        print(ml_sdk.install(args.target, args.wheel))
        return 0
    if ml_sdk.find() is None:
        print(f"the ML SDK for Vulkan is not installed: {ml_sdk.INSTALL_HINT}")
        return 1
    if args.command == "where":
        print(ml_sdk.find())
    elif args.command == "env":
        print("\n".join(f"export {k}={v}" for k, v in ml_sdk.vulkan_environment().items()))
    else:
        return _check()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
