"""Writing compile()'s result in a form another MLIR tool reads.

The custom assembly of TOSA ops changes between MLIR versions (a consumer
built on another LLVM reads `str(module)` as "custom op 'tosa.const_shape'
expected 'values'"), so a module handed to another tool (IREE, a backend's
own compiler) goes as MLIR bytecode, which MLIR keeps readable across
versions, or in the generic op form, which has no custom syntax. The opt
tool's `--emit-bytecode` / `--mlir-print-op-generic` use the same writer.
"""

from __future__ import annotations

import io
import os

from torch_mlir import ir

__all__ = ["FORMATS", "BYTECODE_MAGIC", "save_mlir", "serialize"]

FORMATS = ("bytecode", "generic", "text")
BYTECODE_MAGIC = b"ML\xefR"


def serialize(module: "ir.Module | ir.Operation", format: str = "bytecode") -> "bytes | str":
    """`module` as bytecode (bytes), the generic op form or the custom assembly (str)."""
    op = module.operation
    if format == "bytecode":
        buffer = io.BytesIO()
        op.write_bytecode(buffer)
        return buffer.getvalue()
    if format == "generic":
        return op.get_asm(print_generic_op_form=True)
    if format == "text":
        return op.get_asm()
    raise ValueError(f"format must be one of {', '.join(map(repr, FORMATS))}, not {format!r}")


def save_mlir(module: "ir.Module | ir.Operation", path: "str | os.PathLike", format: str = "bytecode") -> None:
    """Write `module` (compile()'s result) to `path`: "bytecode" (the default,
    `.mlirbc`) or "generic" for another MLIR version's tools, "text" for people."""
    data = serialize(module, format)
    if isinstance(data, bytes):
        with open(path, "wb") as f:
            f.write(data)
    else:
        with open(path, "w", encoding="utf-8") as f:
            f.write(data)
