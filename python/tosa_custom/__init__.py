"""Tunnel selected PyTorch ops through torch-mlir to TOSA as `tosa.custom`."""

from importlib import metadata as _metadata

from .frontend.compiler import CompileReport, OutputType, compile, install_torch_mlir_compile
from .contract.encoding import CONTRACT_VERSION, DOMAIN, ContractError, DecodedCall, Operand
from .tunnel.options import PASS_ARGUMENT, PassOptions, SKIP_CATEGORIES
from .contract.decode import custom_ops, decode
from .core.diagnostics import CompileError, Diagnostic
from .core.mlir_files import save, save_mlir
from .core.schema import OpSelection
from .tosa.target import TosaTarget

try:
    __version__ = _metadata.version("tosa-custom")
except _metadata.PackageNotFoundError:  # imported from a source tree that was never installed
    __version__ = "0+unknown"

# Submodules reachable as attributes after `import tosa_custom`, imported on
# first use (PEP 562): the runtime loads MLIR's ExecutionEngine and the native
# libraries, which a user who only compiles should not pay for.
_LAZY_SUBMODULES = ("runtime", "weights", "e2e", "iree", "refmodel")


def __getattr__(name: str):
    if name in _LAZY_SUBMODULES:
        import importlib

        return importlib.import_module(f"{__name__}.{name}")
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(_LAZY_SUBMODULES))

__all__ = [
    "CONTRACT_VERSION",
    "DOMAIN",
    "PASS_ARGUMENT",
    "SKIP_CATEGORIES",
    "CompileError",
    "CompileReport",
    "ContractError",
    "DecodedCall",
    "Diagnostic",
    "Operand",
    "OpSelection",
    "PassOptions",
    "TosaTarget",
    "OutputType",
    "__version__",
    "compile",
    "custom_ops",
    "decode",
    "install_torch_mlir_compile",
    "save",
    "save_mlir",
]
