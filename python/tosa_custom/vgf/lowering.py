"""The pass `tosa-custom-vulkan-shaders`: each kept op becomes a compute shader
of Arm's ML SDK for Vulkan.

The ML SDK's model converter turns a `tosa.custom` whose domain is
`com.arm.VulkanCustomShader` into a compute segment of the VGF, reading the
shader and its resources from `implementation_attrs` (the converter's
docs/source/vkshader-custom-op-encoding.rst): `entry_point`,
`workgroup_sizes` (the dispatch count), `shader_language` and `shader_code`
(GLSL text, or SPIR-V in base64), and per operand i / result j
`input_i_binding`, `_descriptorset`, `_vkdescriptortype`, `_vkformat`. It
ignores other keys, so our contract's `args` and `version` stay beside them
(CONTRACT.md), with the op's former domain under `domain`: the op still
decodes as the ATen call it was.

Operands are storage buffers in descriptor set 0, results after them.

One value is never two operands of a shader: the converter gives a compute
segment one input per distinct value and binds it once, so a second
binding of the same value is left unbound and the shader reads garbage
(measured: LayerNorm's all-zero bias beside an all-zero constant, or weight
and bias both ones). The converter also merges constants of equal type and
value before partitioning. So the pass merges them first, the same way: a
repeated operand, or a constant equal to an earlier one, is dropped from
the op and its binding is the earlier one's (two GLSL buffers may share a
binding; the prelude's TC_INPUTi_BINDING says which). `operands` in the
JSON maps each operand of the ATen call to its operand of the new op.
"""

from __future__ import annotations

import base64
import json

import numpy as np
from torch_mlir import ir
from torch_mlir.dialects import tosa as tosa_d

from ..contract.decode import constant_operand, custom_op_strings, custom_ops, decode
from ..contract.encoding import DOMAIN, Operand
from ..core.builders import create, tosa_const_shape
from ..core.passes import PassContext, register_pass
from ..weights.blobs import ResourceBlobs, resource_key
from . import builtin_shaders  # noqa: F401  (registers the built-in shaders)
from .shaders import NoShader, Shader, ShaderOp, TensorInfo, describe, find_shader

__all__ = ["VULKAN_SHADERS", "VULKAN_DOMAIN", "VK_FORMATS", "vulkan_shaders", "ShaderSite", "EXECUTORS_HINT",
           "constant_bytes"]

VULKAN_SHADERS = "tosa-custom-vulkan-shaders"
VULKAN_DOMAIN = "com.arm.VulkanCustomShader"
VK_FORMATS = {"f32": "VK_FORMAT_R32_SFLOAT", "f16": "VK_FORMAT_R16_SFLOAT", "bf16": "VK_FORMAT_R16_BFLOAT16_ARM",
              "i32": "VK_FORMAT_R32_SINT", "i16": "VK_FORMAT_R16_SINT", "i8": "VK_FORMAT_R8_SINT",
              "i1": "VK_FORMAT_R8_BOOL_ARM", "i64": "VK_FORMAT_R64_SINT"}
EXECUTORS_HINT = ("register one with tosa_custom.vgf.register_shader, or run the program where kept ops run on "
                  "kernels: tosa_custom.runtime.load, tosa_custom.refmodel.load or tosa_custom.iree.load (native or "
                  "Python kernels)")


class ShaderSite:
    """One kept op, its operands merged, ready to become a shader op."""

    def __init__(self, op: ir.Operation, blobs: ResourceBlobs):
        self.op = op
        self.operator_name, self.domain_name, self.attrs = custom_op_strings(op)
        # The new op's operands, by index among the op's: read when it is
        # rewritten, as a kept op before it may have replaced them.
        self.unique: list[int] = []
        self.operand_map: list[int] = []  # each operand's index among `unique`
        keys: list = []
        for i, value in enumerate(op.operands):
            key = _identity(value, blobs)
            if key not in keys:
                keys.append(key)
                self.unique.append(i)
            self.operand_map.append(keys.index(key))
        self.shader_op = self._shader_op()

    def _info(self, value_type: ir.Type, binding: int, what: str) -> TensorInfo:
        if not isinstance(value_type, ir.RankedTensorType) or not value_type.has_static_shape:
            raise NoShader(f"{what} has type {value_type}: the Vulkan path runs static shapes only")
        return TensorInfo(tuple(value_type.shape), str(value_type.element_type), binding)

    def _shader_op(self) -> ShaderOp:
        inputs = tuple(self._info(v.type, self.operand_map[i], f"operand #{i}")
                       for i, v in enumerate(self.op.operands))
        outputs = tuple(self._info(r.type, len(self.unique) + j, f"result #{j}") for j, r in enumerate(self.op.results))
        arguments, tensors = {}, set()
        if self.domain_name == DOMAIN:
            for name, value in decode(self.op).arguments.items():
                if isinstance(value, Operand):
                    if value.kind == "tensor":
                        tensors.add(name)
                        value = value.index
                    else:  # a scalar operand: its value when it is a constant
                        known = constant_operand(self.op.operands[value.index])
                        value = known[1] if known is not None else value
                arguments[name] = value
        return ShaderOp(self.operator_name, self.domain_name, inputs, outputs, arguments, frozenset(tensors))

    def shader(self) -> tuple[Shader, str]:
        """The op's shader and who made it; NoShader when none takes it."""
        fn = find_shader(self.operator_name, self.domain_name)
        if fn is None:
            raise NoShader(f"no Vulkan shader is registered for {self.operator_name} (domain {self.domain_name})")
        shader = fn(self.shader_op)
        if not isinstance(shader, Shader):
            raise NoShader(f"the shader function {describe(fn)} returned {type(shader).__name__}, not a Shader")
        return shader, describe(fn)

    def implementation_attrs(self, shader: Shader) -> str:
        keys = json.loads(self.attrs) if self.domain_name == DOMAIN else {"attrs": self.attrs}
        code = shader.source(self.shader_op)
        keys.update(domain=self.domain_name, entry_point=shader.entry_point, workgroup_sizes=list(shader.workgroups),
                    shader_language=shader.language,
                    shader_code=base64.b64encode(code).decode() if isinstance(code, bytes) else code)
        if len(self.unique) != len(self.operand_map):
            keys["operands"] = self.operand_map
        infos = [self.shader_op.inputs[self.operand_map.index(i)] for i in range(len(self.unique))]
        for kind, group in (("input", infos), ("output", self.shader_op.outputs)):
            for i, t in enumerate(group):
                keys.update({f"{kind}_{i}_binding": t.binding, f"{kind}_{i}_descriptorset": 0,
                             f"{kind}_{i}_type": "Buffer",
                             f"{kind}_{i}_vkdescriptortype": "VK_DESCRIPTOR_TYPE_STORAGE_BUFFER",
                             f"{kind}_{i}_vkformat": VK_FORMATS.get(t.dtype, t.dtype)})
        return json.dumps(keys, sort_keys=True, separators=(",", ":"))

    def rewrite(self, shader: Shader) -> None:
        """The shader op in place of the kept op, on flat views (see `_flat`)."""
        with ir.InsertionPoint(self.op), self.op.location:
            values = [self.op.operands[i] for i in self.unique]
            operands = [_reshape(v, _flat(v.type)) for v in values]
            new = tosa_d.CustomOp([_flat(r.type) for r in self.op.results], self.operator_name, VULKAN_DOMAIN,
                                  self.implementation_attrs(shader), operands)
            results = [_reshape(v, old.type) for v, old in zip(new.operation.results, self.op.results)]
        for old, value in zip(self.op.results, results):
            old.replace_all_uses_with(value)
        self.op.erase()


def _flat(t: ir.Type) -> ir.RankedTensorType:
    """A shader operand's or result's type in the VGF: its elements in one row,
    [n], or [1, n] for a rank-1 value. A shader reads buffers, so the shape is
    only the converter's; a reshape the converter cannot fold away keeps each
    shader behind a graph op. The SDK 0.11.0 gives a model input or output
    that both a shader and a graph segment touch two resources, and its
    runner finds only one ("No resource found for VGF binding")."""
    t = ir.RankedTensorType(t)
    n = 1
    for d in t.shape:
        n *= d
    return ir.RankedTensorType.get([1, n] if t.rank == 1 else [n], t.element_type)


def _reshape(value: ir.Value, to: ir.Type) -> ir.Value:
    if value.type == to:
        return value
    shape = tosa_const_shape(list(ir.RankedTensorType(to).shape))
    return create("tosa.reshape", to, [value, shape])


def constant_bytes(value: ir.Value, blobs: ResourceBlobs) -> bytes | None:
    """The elements of a `tosa.const`'s value as bytes (dense, splat or a
    resource blob), or None when `value` is not a constant."""
    owner = value.owner
    if isinstance(owner, ir.Block) or owner.operation.name != "tosa.const":
        return None
    attr = owner.operation.attributes["values"]
    key = resource_key(attr)
    if key is not None:
        return blobs.get(key)
    dense = ir.DenseElementsAttr(attr)
    array = np.array(dense)
    if dense.is_splat:
        array = np.full(ir.ShapedType(dense.type).shape, array.reshape(-1)[0])
    return np.ascontiguousarray(array).tobytes()


def _identity(value: ir.Value, blobs: ResourceBlobs):
    """What the converter sees as one value: the value, or for a tosa.const
    its type and bytes (equal constants are merged)."""
    data = constant_bytes(value, blobs)
    return value if data is None else ("const", str(value.type), data)


@register_pass(VULKAN_SHADERS,
               "Rewrite each kept tosa.custom into the com.arm.VulkanCustomShader domain of Arm's ML SDK for Vulkan: "
               "its shader (registered with tosa_custom.vgf.register_shader, or built in), bindings, formats and "
               "dispatch in implementation_attrs beside the contract's JSON; an op without a shader is an error")
def vulkan_shaders(module_op, ctx: PassContext) -> list[tuple[str, str]]:
    """Returns (operator name, who made its shader) per op rewritten, in module order."""
    blobs, sites = ResourceBlobs(module_op), []
    for op in custom_ops(module_op):
        if custom_op_strings(op)[1] == VULKAN_DOMAIN:
            continue
        try:
            site = ShaderSite(op.operation, blobs)
            sites.append((site, *site.shader()))
        except NoShader as e:
            ctx.error(op, f"{custom_op_strings(op)[0]} cannot run on Vulkan: {e}; {EXECUTORS_HINT}")
    if ctx.failed:
        return []
    for site, shader, _ in sites:
        site.rewrite(shader)
    return [(site.operator_name, who) for site, _, who in sites]
