"""`tosa-custom-tosa-tools`: install TOSA's own toolchain where we use it, or say where it is.

The flatbuffer writer and reader (`save(..., "x.tosa")`, `runtime.load("x.tosa")`)
and the reference-model executor (`tosa_custom.refmodel`) need PyPI
tosa-tools; core/tosa_tools.py says why it lives in a directory of its own.
"""

from __future__ import annotations

import argparse

from .. import __version__
from ..core import tosa_tools

__all__ = ["main"]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="tosa-custom-tosa-tools", description=__doc__.splitlines()[0])
    parser.add_argument("--version", action="version", version=f"tosa-custom {__version__}")
    sub = parser.add_subparsers(dest="command", required=True)
    install = sub.add_parser("install", help=f"pip install tosa-tools=={tosa_tools.VERSION} (no dependencies) "
                                             "into a directory of its own")
    install.add_argument("--target", help=f"the directory (default {tosa_tools.default_dir()})")
    install.add_argument("--wheel", help="a downloaded tosa-tools wheel to install instead of PyPI's")
    sub.add_parser("where", help="print the tosa-tools directory in use; exit 1 when there is none")
    args = parser.parse_args(argv)
    if args.command == "install":
        print(tosa_tools.install(args.target, args.wheel))
        return 0
    found = tosa_tools.find()
    if found is None:
        print(f"tosa-tools is not installed: {tosa_tools.INSTALL_HINT}")
        return 1
    print(found)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
