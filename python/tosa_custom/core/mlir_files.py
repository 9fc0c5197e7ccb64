"""Writing compile()'s result in a form another MLIR tool reads.

The custom assembly of TOSA ops changes between MLIR versions (a consumer
built on another LLVM reads `str(module)` as "custom op 'tosa.const_shape'
expected 'values'"), so a module handed to another tool (IREE, a backend's
own compiler) goes as MLIR bytecode, which MLIR keeps readable across
versions, or in the generic op form, which has no custom syntax. The opt
tool's `--emit-bytecode` / `--mlir-print-op-generic` use the same writer.

`save`/`read` choose the form by the file's extension: `.mlir` text,
`.mlirbc` bytecode, `.tosa` the TOSA flatbuffer, which TOSA's own tools read
(written and read by them: tosa_flatbuffer.py says what it keeps).
"""

from __future__ import annotations

import io
import os

from torch_mlir import ir

from . import ir as _ir
from . import tosa_flatbuffer

__all__ = ["FORMATS", "BYTECODE_MAGIC", "EXTENSIONS", "save", "read", "is_flatbuffer", "save_mlir", "serialize"]

FORMATS = ("bytecode", "generic", "text")
BYTECODE_MAGIC = b"ML\xefR"
# What save() writes for each extension: a FORMATS entry, or the TOSA flatbuffer.
EXTENSIONS = {".mlir": "text", ".mlirbc": "bytecode", tosa_flatbuffer.SUFFIX: "flatbuffer"}


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


def _format_of(path: "str | os.PathLike", verb: str) -> str:
    extension = os.path.splitext(os.fspath(path))[1]
    if extension not in EXTENSIONS:
        raise ValueError(f"cannot {verb} '{os.fspath(path)}': the extension must be one of "
                         + ", ".join(f"{e} ({f})" for e, f in EXTENSIONS.items()))
    return EXTENSIONS[extension]


def save(module: "ir.Module | ir.Operation", path: "str | os.PathLike") -> None:
    """Write `module` in the form its extension names: `.mlir` text (for
    people), `.mlirbc` MLIR bytecode (for MLIR tools of another version),
    `.tosa` the TOSA flatbuffer (for TOSA's own tools; needs tosa-tools, and a
    module of one function of TOSA ops: anything else is a CompileError naming it)."""
    form = _format_of(path, "save")
    if form == "flatbuffer":
        tosa_flatbuffer.write(module, path)
    else:
        save_mlir(module, path, form)


def is_flatbuffer(source) -> bool:
    """Whether `source` is the path of a TOSA flatbuffer (by its extension),
    not MLIR text or a module."""
    return isinstance(source, (str, os.PathLike)) and "\n" not in os.fspath(source) \
        and os.fspath(source).endswith(tosa_flatbuffer.SUFFIX)


def read(path: "str | os.PathLike", ctx: "ir.Context | None" = None) -> ir.Module:
    """The module `save` wrote at `path` (or any file of those forms), parsed
    in `ctx` (a new context of ours by default)."""
    if _format_of(path, "read") == "flatbuffer":
        return tosa_flatbuffer.read(path, ctx)
    with open(path, "rb") as f:
        data = f.read()
    return _ir.parse_module(data if data.startswith(BYTECODE_MAGIC) else data.decode("utf-8"),
                            ctx or _ir.make_context())
