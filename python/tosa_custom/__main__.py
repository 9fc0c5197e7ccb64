"""`python -m tosa_custom`: the version and the commands this package installs."""

from __future__ import annotations

import sys

from . import __version__

__all__ = ["main", "COMMANDS"]

# name -> what it does; each also runs as `python -m tosa_custom.<its module>`.
COMMANDS = {
    "tosa-custom-example": "compile a small transformer block with three ops kept, run it, compare with PyTorch",
    "tosa-custom-opt": "mlir-opt with the tunneling pass: tosa-custom-opt model.mlir --convert-...",
    "tosa-custom-audit": "run the e2e suite or your own cases, report which ops were converted and why not",
    "tosa-custom-tosa-tools": "install TOSA's own toolchain (flatbuffer, reference model) where we use it",
    "tosa-custom-ml-sdk": "install Arm's ML SDK for Vulkan (VGF, shaders) where we use it; check Vulkan runs",
}


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    if argv in (["--version"], ["-V"]):
        print(f"tosa-custom {__version__}")
        return 0
    print(f"tosa-custom {__version__}: tunnel selected PyTorch ops through torch-mlir to TOSA as tosa.custom\n")
    print("commands (each takes --help and --version):")
    for name, what in COMMANDS.items():
        print(f"  {name:<21} {what}")
    print("\nin Python: tosa_custom.compile(model, (x,), backend_legal_ops=[...]), tosa_custom.runtime.load(module)")
    if argv and argv[0] not in ("-h", "--help"):
        print(f"\nunknown argument {argv[0]!r}: run one of the commands above", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
