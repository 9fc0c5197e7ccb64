"""Compute shaders for kept ops: what a shader sees of its op, and the registry.

A kept op runs on Vulkan as the compute shader registered for its operator
name: `register_shader("torch.aten.gelu", GLSL_SOURCE, workgroups=...)`, or a
function that makes a `Shader` for each op (the built-in ones do, sizing
their loops and dispatch to the op's shapes). The rules are
`runtime.register_kernel`'s: one shader per (domain, operator); registering
over an existing one, built-in or not, is refused unless `override=True`,
and then yours runs.

A GLSL shader is compiled after a prelude of `#define`s describing its op
(`ShaderOp.prelude`): `#version 450`, each operand's binding, element count,
rank and dims (`TC_INPUT0_BINDING`, `TC_INPUT0_NUMEL`, `TC_INPUT0_DIM1`,
`TC_OUTPUT0_...`), and the op's ATen arguments (`TC_ARG_eps`, `TC_HAS_weight`,
`TC_ARG_dim`, ...). So one source serves every shape, and a binding two
operands share (see lowering.py) reaches the shader without its author
knowing. A `#version` line of the source is dropped (the prelude has one).
A SPIR-V shader (bytes) gets no prelude: it is fixed, and its bindings are
checked against the op's at load.

The dispatch is `workgroups`, a count of workgroups in x, y, z (what the ML
SDK's `workgroup_sizes` key means to its runner, whatever its docs say);
the local size is the shader's own `layout(local_size_x = ...)`.
"""

from __future__ import annotations

import dataclasses
import math
import re
from typing import Any, Callable, Union

from ..contract.encoding import DOMAIN
from ..core.registry import Registry

__all__ = ["TensorInfo", "ShaderOp", "Shader", "NoShader", "register_shader", "builtin_shader", "find_shader",
           "registered_shaders", "is_builtin", "describe", "groups_1d", "MAX_GROUPS"]

MAX_GROUPS = 65535  # Vulkan's guaranteed maxComputeWorkGroupCount per dimension


class NoShader(Exception):
    """A shader does not take this op (its types, an argument); the message says why."""


@dataclasses.dataclass(frozen=True)
class TensorInfo:
    """One operand or result as the shader sees it."""

    shape: tuple[int, ...]
    dtype: str  # the MLIR element type: f32, f16, i32, ...
    binding: int  # in descriptor set 0

    @property
    def numel(self) -> int:
        return math.prod(self.shape)


@dataclasses.dataclass(frozen=True)
class ShaderOp:
    """The op a shader is made for: its name, operands, results and decoded
    ATen arguments (a tensor argument is the index of its operand in
    `inputs`, or None; scalars as Python values)."""

    operator_name: str
    domain_name: str
    inputs: tuple[TensorInfo, ...]
    outputs: tuple[TensorInfo, ...]
    arguments: dict[str, Any]
    tensor_arguments: frozenset[str] = frozenset()  # which `arguments` name operands

    def input(self, name: str) -> TensorInfo | None:
        """The operand an ATen tensor argument names (None when it is None)."""
        index = self.arguments.get(name)
        return None if index is None else self.inputs[index]

    def require_dtypes(self, *allowed: str) -> None:
        for what, infos in (("operand", self.inputs), ("result", self.outputs)):
            for i, t in enumerate(infos):
                if t.dtype not in allowed:
                    raise NoShader(f"{what} #{i} is {t.dtype}; the shader takes {'/'.join(allowed)}")

    def prelude(self) -> str:
        """The `#define`s a GLSL shader is compiled after (see the module's doc)."""
        lines = ["#version 450", f"#define TC_INPUTS {len(self.inputs)}", f"#define TC_OUTPUTS {len(self.outputs)}"]
        for kind, infos in (("INPUT", self.inputs), ("OUTPUT", self.outputs)):
            for i, t in enumerate(infos):
                lines += [f"#define TC_{kind}{i}_BINDING {t.binding}", f"#define TC_{kind}{i}_NUMEL {t.numel}u",
                          f"#define TC_{kind}{i}_RANK {len(t.shape)}"]
                lines += [f"#define TC_{kind}{i}_DIM{d} {s}u" for d, s in enumerate(t.shape)]
        for name, value in self.arguments.items():
            lines += _argument_defines(name, value, name in self.tensor_arguments)
        return "\n".join(lines) + "\n"


def _literal(value) -> str | None:
    if isinstance(value, bool):
        return "1" if value else "0"
    if isinstance(value, int):
        return str(value) if -2 ** 31 <= value < 2 ** 31 else None
    if isinstance(value, float) and math.isfinite(value):
        text = repr(value)
        return text if any(c in text for c in ".e") else text + ".0"
    return None


def _argument_defines(name: str, value, is_tensor: bool) -> list[str]:
    """TC_HAS_<name> for tensor arguments (and TC_ARG_<name>_INPUT), TC_ARG_<name>
    for numbers, _LEN and _<i> for lists of numbers, TC_ARG_<name>_<word> for a string."""
    macro = re.sub(r"\W", "_", name)
    if is_tensor:
        return [f"#define TC_HAS_{macro} {0 if value is None else 1}"] + (
            [] if value is None else [f"#define TC_ARG_{macro}_INPUT {value}"])
    if value is None:
        return [f"#define TC_HAS_{macro} 0"]
    if isinstance(value, str):
        return [f"#define TC_ARG_{macro}_{re.sub(r'[^A-Za-z0-9_]', '_', value)} 1"]
    if isinstance(value, (list, tuple)):
        items = [_literal(v) for v in value]
        if any(i is None for i in items):
            return []
        return [f"#define TC_ARG_{macro}_LEN {len(items)}"] + [f"#define TC_ARG_{macro}_{i} {v}"
                                                               for i, v in enumerate(items)]
    literal = _literal(value)
    return [f"#define TC_HAS_{macro} 1", f"#define TC_ARG_{macro} {literal}"] if literal is not None else []


@dataclasses.dataclass(frozen=True)
class Shader:
    """A compute shader for one op: GLSL source (str, compiled after the
    op's prelude) or SPIR-V (bytes), its entry point, and the dispatch: how
    many workgroups in x, y and z."""

    code: Union[str, bytes]
    workgroups: tuple[int, int, int]
    entry_point: str = "main"

    @property
    def language(self) -> str:
        return "SPIR-V" if isinstance(self.code, bytes) else "GLSL"

    def source(self, op: ShaderOp) -> Union[str, bytes]:
        """What the op carries: GLSL after the op's prelude, or the SPIR-V as it is."""
        if isinstance(self.code, bytes):
            return self.code
        body = re.sub(r"^\s*#\s*version[^\n]*\n", "", self.code, count=1)
        return op.prelude() + "#line 1\n" + body

    def __repr__(self) -> str:
        return f"<Shader {self.language}, entry {self.entry_point}, workgroups {self.workgroups}>"


ShaderFn = Callable[[ShaderOp], Shader]
_SHADERS: Registry[ShaderFn] = Registry("shader")
_BUILTIN: dict[int, ShaderFn] = {}


def _key(operator_name: str, domain_name: str) -> str:
    return f"{domain_name}::{operator_name}"


def describe(fn: ShaderFn) -> str:
    """What `Program.shaders` says of a shader: built-in, or yours by name."""
    name = getattr(fn, "description", None) or f"{getattr(fn, '__module__', '?')}.{getattr(fn, '__qualname__', fn)}"
    return f"{'built-in' if is_builtin(fn) else 'user'} ({name})"


def _static(code: Union[str, bytes], workgroups, entry_point: str, operator_name: str) -> ShaderFn:
    if not isinstance(code, (str, bytes)):
        raise TypeError(f"register_shader({operator_name!r}, ...) takes GLSL source (str) or SPIR-V (bytes), "
                        f"not {type(code).__name__}")
    if workgroups is None:
        raise TypeError(f"register_shader({operator_name!r}, code, workgroups=...) needs the dispatch: "
                        "(x, y, z) workgroup counts, or a function of the op returning them")

    def shader(op: ShaderOp) -> Shader:
        counts = workgroups(op) if callable(workgroups) else workgroups
        return Shader(code, tuple(int(c) for c in counts), entry_point)

    shader.description = f"{'SPIR-V' if isinstance(code, bytes) else 'GLSL'} registered for {operator_name}"
    return shader


def register_shader(operator_name: str, code: Union[str, bytes, None] = None, *, workgroups=None,
                    entry_point: str = "main", domain_name: str = DOMAIN, override: bool = False):
    """The Vulkan compute shader for `operator_name` (e.g. "torch.aten.gelu").

    `register_shader(name, glsl_or_spirv, workgroups=(x, y, z) or fn(op))`,
    or as a decorator on `fn(op: ShaderOp) -> Shader`. An op that already has
    a shader (built-in, or registered before) is refused unless
    `override=True`; then yours runs (`Program.shaders` shows it).
    """
    if code is not None:
        _register(_key(operator_name, domain_name), _static(code, workgroups, entry_point, operator_name), override)
        return None

    def decorate(fn: ShaderFn) -> ShaderFn:
        _register(_key(operator_name, domain_name), fn, override)
        return fn

    return decorate


def builtin_shader(*operator_names: str, domain_name: str = DOMAIN):
    """Decorator for this package's own shaders (a user's overrides them)."""

    def decorate(fn: ShaderFn) -> ShaderFn:
        for name in operator_names:
            _register(_key(name, domain_name), fn, False)
        _BUILTIN[id(fn)] = fn
        return fn

    return decorate


def _register(key: str, fn: ShaderFn, override: bool) -> None:
    existing = _SHADERS.get(key)
    if existing is not None and not override:
        owner = "the built-in shader" if is_builtin(existing) else "the shader"
        raise ValueError(f"cannot register a shader for {key}: {owner} {describe(existing)} is registered for it "
                         "already; pass register_shader(..., override=True) to replace it")
    _SHADERS.replace(key, fn)


def is_builtin(fn: ShaderFn | None) -> bool:
    return fn is not None and _BUILTIN.get(id(fn)) is fn


def find_shader(operator_name: str, domain_name: str) -> ShaderFn | None:
    return _SHADERS.get(_key(operator_name, domain_name))


def registered_shaders(builtin: bool = True) -> list[str]:
    """`domain::operator` of every shader; `builtin=False`: the user's only."""
    return sorted(k for k, v in _SHADERS.as_dict().items() if builtin or not is_builtin(v))


def groups_1d(count: int) -> tuple[int, int, int]:
    """A dispatch of `count` workgroups, split over y past MAX_GROUPS in x."""
    count = max(1, count)
    x = min(count, MAX_GROUPS)
    return (x, -(-count // x), 1)
