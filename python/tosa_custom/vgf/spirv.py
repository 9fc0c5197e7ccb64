"""Compiling a GLSL shader and checking a shader against its op, at load.

The converter stores GLSL as text and the runner compiles it when the
scenario is made, where an error says nothing of which op the shader was
for. So each shader op's code is compiled here first, with the SDK's own
`glslc`, and the SPIR-V (compiled, or the user's) is read for what must
agree with the op: the entry point, and the storage buffers' bindings in
set 0 (each must be one of the op's; every result's must be there, or the
result would never be written).
"""

from __future__ import annotations

import dataclasses
import struct
import subprocess
import tempfile
from pathlib import Path

from ..core import ml_sdk

__all__ = ["ShaderError", "compile_glsl", "Reflection", "reflect", "check"]

_MAGIC = 0x07230203
_OP_ENTRY_POINT, _OP_DECORATE, _OP_VARIABLE = 15, 71, 59
_DECORATION_BINDING, _DECORATION_SET = 33, 34
_BUFFER_CLASSES = {2: "Uniform", 12: "StorageBuffer"}  # storage classes a buffer block lives in


class ShaderError(Exception):
    """A shader that does not compile, or does not fit its op."""


def compile_glsl(source: str, what: str) -> bytes:
    """SPIR-V of a compute shader in GLSL, by the SDK's glslc; ShaderError with its messages."""
    glslc = ml_sdk.program("glslc", what)
    with tempfile.TemporaryDirectory(prefix="tosa_custom_glsl_") as tmp:
        src, out = Path(tmp) / "shader.comp", Path(tmp) / "shader.spv"
        src.write_text(source)
        done = subprocess.run([glslc, "--stage", "compute", "--input", str(src), "--output", str(out)],
                              capture_output=True, text=True)
        if done.returncode != 0:
            printed = (done.stderr + done.stdout).replace(str(src), "shader").strip()
            raise ShaderError(f"the GLSL does not compile:\n{printed[-3000:]}")
        return out.read_bytes()


@dataclasses.dataclass
class Reflection:
    entry_points: list[str]
    bindings: set[tuple[int, int]]  # (set, binding) of each buffer variable


def _string(words: tuple[int, ...]) -> str:
    raw = b"".join(struct.pack("<I", w) for w in words)
    return raw.split(b"\0", 1)[0].decode(errors="replace")


def reflect(spirv: bytes) -> Reflection:
    """The entry points and buffer bindings a SPIR-V module declares."""
    if len(spirv) % 4 or len(spirv) < 20 or struct.unpack_from("<I", spirv)[0] != _MAGIC:
        raise ShaderError("the SPIR-V is not a SPIR-V module (no magic number, or not whole 32-bit words)")
    words = struct.unpack(f"<{len(spirv) // 4}I", spirv)
    decorations: dict[int, dict[int, int]] = {}
    variables: list[int] = []
    entries: list[str] = []
    at = 5
    while at < len(words):
        count, opcode = words[at] >> 16, words[at] & 0xFFFF
        if count == 0 or at + count > len(words):
            raise ShaderError("the SPIR-V is truncated or malformed")
        operands = words[at + 1:at + count]
        if opcode == _OP_ENTRY_POINT:
            entries.append(_string(operands[2:]))
        elif opcode == _OP_DECORATE and len(operands) >= 3 and operands[1] in (_DECORATION_BINDING, _DECORATION_SET):
            decorations.setdefault(operands[0], {})[operands[1]] = operands[2]
        elif opcode == _OP_VARIABLE and len(operands) >= 3 and operands[2] in _BUFFER_CLASSES:
            variables.append(operands[1])
        at += count
    bindings = {(decorations.get(v, {}).get(_DECORATION_SET, 0), decorations[v][_DECORATION_BINDING])
                for v in variables if _DECORATION_BINDING in decorations.get(v, {})}
    return Reflection(entries, bindings)


def check(spirv: bytes, entry_point: str, inputs: list[int], outputs: list[int]) -> None:
    """ShaderError unless the shader has `entry_point`, binds only the op's
    buffers (set 0, `inputs` and `outputs` bindings) and binds every output."""
    found = reflect(spirv)
    if entry_point not in found.entry_points:
        raise ShaderError(f"the shader has no entry point '{entry_point}' (it has {found.entry_points or 'none'})")
    expected = {(0, b) for b in [*inputs, *outputs]}
    stray = sorted(found.bindings - expected)
    if stray:
        raise ShaderError(f"the shader binds buffers at (set, binding) {stray}, which are not the op's: its "
                          f"operands are at bindings {inputs} and its results at {outputs} of set 0 (in GLSL "
                          "use TC_INPUT<i>_BINDING / TC_OUTPUT<j>_BINDING)")
    missing = [b for b in outputs if (0, b) not in found.bindings]
    if missing:
        raise ShaderError(f"the shader declares no buffer at binding(s) {missing} of set 0, where the op's "
                          f"results are (results at {outputs}): it could not write them")
