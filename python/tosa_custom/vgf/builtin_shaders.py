"""The built-in shaders: layer_norm, rms_norm, softmax, log_softmax, gelu (erf
and tanh) and silu on float32 and float16 tensors, the ops our native kernels
cover. Half tensors are stored as half and computed in float32, rounded once
when stored, as PyTorch's CPU kernels compute them (lavapipe and the
emulation layer take 16-bit storage buffers; the arithmetic stays 32-bit).

Two GLSL templates (glsl/rows.comp, glsl/elementwise.comp) take their sizes
as `#define`s written here for each op, so every shape compiles to loops
with constant bounds: a row op runs one workgroup per row whatever the
row's length, an elementwise op a capped dispatch striding over the
elements. An op these shaders do not take (another dtype, a scalar known
only at run time, softmax to another dtype) raises NoShader saying why.
"""

from __future__ import annotations

import functools
import math
from importlib import resources

import torch

from .shaders import MAX_GROUPS, NoShader, Shader, ShaderOp, builtin_shader, groups_1d

__all__: list[str] = []

_LOCAL = 64  # both templates' local size
_ROW_MODES = {"layer_norm": 0, "rms_norm": 1, "softmax": 2, "log_softmax": 3}
_ELEMENTWISE_MODES = {"none": 0, "tanh": 1, "silu": 2}
_STORAGE = {"f32": "float", "f16": "float16_t"}
_HALF_EXTENSIONS = ("#extension GL_EXT_shader_16bit_storage : require\n"
                    "#extension GL_EXT_shader_explicit_arithmetic_types_float16 : require\n")


@functools.cache
def _template(name: str) -> str:
    return resources.files(__package__).joinpath("glsl", name).read_text()


def _defines(**values) -> str:
    return "".join(f"#define {k.upper()} {v}\n" for k, v in values.items())


def _storage(op: ShaderOp, **buffers) -> str:
    """The storage type `define`s of the named buffers (X_T=..., from their
    dtypes), after the 16-bit extensions when one is half."""
    op.require_dtypes(*_STORAGE)
    types = {f"{name}_t": _STORAGE[t.dtype] for name, t in buffers.items() if t is not None}
    types.update({f"{name}_t": "float" for name, t in buffers.items() if t is None})  # unused, declared
    half = "float16_t" in types.values()
    return (_HALF_EXTENSIONS if half else "") + _defines(**types)


def _float(value, what: str) -> str:
    if not isinstance(value, (int, float)) or isinstance(value, bool):
        raise NoShader(f"{what} is {value!r}, not a number known when the shader is made")
    return repr(float(value))


def _rows(op: ShaderOp, mode: str, x: str, dim: int, trailing: int, eps: str = "0.0",
          weight: str | None = None, bias: str | None = None) -> Shader:
    """A row op over dims [dim, dim + trailing) of input `x`, the output binding 0."""
    source = op.input(x)
    shape = source.shape
    length, inner = math.prod(shape[dim:dim + trailing]), math.prod(shape[dim + trailing:])
    rows = source.numel // max(1, length)
    groups = groups_1d(rows)
    w, b = (op.input(weight) if weight else None), (op.input(bias) if bias else None)
    code = _storage(op, x=source, w=w, b=b, y=op.outputs[0]) + _defines(mode=_ROW_MODES[mode], rows=f"{rows}u", len=f"{length}u", inner=f"{inner}u",
                    groups_x=f"{groups[0]}u", eps=eps, has_weight=int(w is not None), has_bias=int(b is not None),
                    x_binding=source.binding, w_binding=w.binding if w else 0, b_binding=b.binding if b else 0,
                    y_binding=op.outputs[0].binding)
    return Shader(code + _template("rows.comp"), groups)


@builtin_shader("torch.aten.layer_norm")
def layer_norm(op: ShaderOp) -> Shader:
    a = op.arguments
    trailing = len(a["normalized_shape"])
    rank = len(op.input("input").shape)
    return _rows(op, "layer_norm", "input", rank - trailing, trailing, _float(a["eps"], "eps"), "weight", "bias")


@builtin_shader("torch.aten.rms_norm")
def rms_norm(op: ShaderOp) -> Shader:
    a = op.arguments
    trailing = len(a["normalized_shape"])
    rank = len(op.input("input").shape)
    dtype = torch.float16 if op.input("input").dtype == "f16" else torch.float32
    eps = a["eps"] if a["eps"] is not None else torch.finfo(dtype).eps  # eager's default: the input's epsilon
    return _rows(op, "rms_norm", "input", rank - trailing, trailing, _float(eps, "eps"), "weight")


def _softmax_dim(op: ShaderOp) -> int:
    a = op.arguments
    if op.input("self").dtype == "f32" and op.outputs[0].dtype != "f32":
        # eager rounds the input to the narrower dtype first; the shader would read it unrounded
        raise NoShader(f"the result is asked as {op.outputs[0].dtype} from float32; the shader computes no narrower")
    dim, rank = a["dim"], len(op.input("self").shape)
    if not isinstance(dim, int) or not -max(rank, 1) <= dim < max(rank, 1):
        raise NoShader(f"dim {dim!r} is not a dim of a rank-{rank} operand")
    return dim % rank if rank else 0


@builtin_shader("torch.aten.softmax.int", "torch.aten._softmax")
def softmax(op: ShaderOp) -> Shader:
    return _rows(op, "softmax", "self", _softmax_dim(op), 1 if op.input("self").shape else 0)


@builtin_shader("torch.aten.log_softmax.int", "torch.aten._log_softmax")
def log_softmax(op: ShaderOp) -> Shader:
    return _rows(op, "log_softmax", "self", _softmax_dim(op), 1 if op.input("self").shape else 0)


def _elementwise(op: ShaderOp, mode: str) -> Shader:
    count = op.outputs[0].numel
    groups = min(MAX_GROUPS, max(1, -(-count // _LOCAL)))
    code = _storage(op, x=op.input("self"), y=op.outputs[0]) + _defines(mode=_ELEMENTWISE_MODES[mode], count=f"{count}u", stride=f"{groups * _LOCAL}u",
                    x_binding=op.input("self").binding, y_binding=op.outputs[0].binding)
    return Shader(code + _template("elementwise.comp"), (groups, 1, 1))


@builtin_shader("torch.aten.gelu")
def gelu(op: ShaderOp) -> Shader:
    approximate = op.arguments.get("approximate", "none")
    if approximate not in ("none", "tanh"):
        raise NoShader(f"approximate={approximate!r}; the shader has 'none' and 'tanh'")
    return _elementwise(op, approximate)


@builtin_shader("torch.aten.silu")
def silu(op: ShaderOp) -> Shader:
    return _elementwise(op, "silu")
