"""Tunneled programs on Vulkan through Arm's ML SDK for Vulkan: the TOSA
becomes a VGF (the SDK's model converter), each kept op a compute shader,
built in or yours, and the scenario runner runs it (on a GPU with ML
extensions, or anywhere through the SDK's emulation layer: lavapipe here).

    program = tosa_custom.vgf.load(module)
    y = program(x)                          # runtime.load's convention
    tosa_custom.vgf.save(module, "out/")    # VGF, scenario, shaders, run.sh

The pieces, bottom up: what a shader sees of its op and the registry
(shaders.py), the built-in shaders (builtin_shaders.py, glsl/), the pass
that puts them on the ops (lowering.py), each value returned once
(results.py), compiling and checking GLSL and
SPIR-V (spirv.py), conversion and the scenario (scenario.py), the
program (program.py) and the saved artifact (artifact.py).
"""

from .artifact import Saved, save
from .lowering import VULKAN_DOMAIN, VULKAN_SHADERS
from .program import Program, load
from .results import VULKAN_DISTINCT_RESULTS
from .shaders import NoShader, Shader, ShaderOp, TensorInfo, register_shader, registered_shaders

__all__ = ["Program", "load", "Saved", "save", "NoShader", "Shader", "ShaderOp", "TensorInfo", "register_shader", "registered_shaders",
           "VULKAN_DOMAIN", "VULKAN_SHADERS", "VULKAN_DISTINCT_RESULTS"]
