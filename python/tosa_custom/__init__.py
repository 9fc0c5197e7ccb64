"""Tunnel selected PyTorch ops through torch-mlir to TOSA as `tosa.custom`."""

from .compiler import CompileReport, OutputType, compile, install_torch_mlir_compile
from .contract import (
    CONTRACT_VERSION,
    DOMAIN,
    ContractError,
    DecodedCall,
    Operand,
)
from .conversion import PASS_ARGUMENT, PassOptions, SKIP_CATEGORIES
from .decode import custom_ops, decode
from .diagnostics import CompileError, Diagnostic
from .mlir_files import save_mlir
from .schema import OpSelection
from .target import TosaTarget

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
    "compile",
    "custom_ops",
    "decode",
    "install_torch_mlir_compile",
    "save_mlir",
]
