"""`load(module)`: a tunneled TOSA program run on Vulkan by Arm's ML SDK, each
kept op a compute shader.

The calling convention and result semantics are the reference runtime's,
from the same code, as tosa_custom.refmodel has them: the signature and
weight arguments (`runtime.execute.weights.WeightSlots`), the input checks
(`runtime.execute.program.Program._check_inputs`) and what each result is
(`runtime.execute.boundary.Boundary`: in-place write-back, buffer state, Python
numbers, the model's structure).

At load, the pass `tosa-custom-vulkan-shaders` (lowering.py) gives each
kept op its shader, each shader is compiled and checked against its op
(spirv.py), and the SDK converts the module and makes its scenario in a
directory of the program's own (scenario.py), which the runner's Python
extension then loads. What it cannot run is refused here, not at the
first call: a kept op with no shader (`no-kernel`, naming the op and the
executors that can run it), a shader that does not compile or does not
fit its op (`kernel-error`), a `?` dim (`dynamic-shape`: the VGF is
static), an f64 value (`not-conformant`: TOSA has none).
"""

from __future__ import annotations

import base64
import json
import tempfile
import threading
from pathlib import Path

import numpy as np
import torch
from torch_mlir import ir

from ..contract.decode import custom_op_strings, custom_ops
from ..core import ir as _ir
from ..core.diagnostics import CompileError
from ..core.passes import run_pipeline
from ..runtime.execute import program as _runtime_program
from ..runtime.execute.boundary import Boundary
from ..runtime.execute.sources import parse_source
from ..runtime.execute.memref import MLIR_TO_TORCH, borrowed_array
from ..runtime.execute.weights import WeightSlots
from . import scenario as _scenario
from . import spirv
from .constants import VULKAN_SHADER_CONSTANTS
from .lowering import VULKAN_DOMAIN, VULKAN_SHADERS
from .results import VULKAN_DISTINCT_RESULTS, result_map

__all__ = ["Program", "load", "prepare", "WHAT"]

WHAT = "Running a program on Vulkan (tosa_custom.vgf)"


def _stored(t: ir.Type) -> torch.dtype:
    element = str(ir.RankedTensorType(t).element_type)
    if element not in MLIR_TO_TORCH:
        raise CompileError(f"a value has element type {element}, which the VGF path does not carry",
                           category="non-tensor-interface")
    return MLIR_TO_TORCH[element]


def _first_type(func: ir.Operation, predicate) -> ir.RankedTensorType | None:
    """The first tensor type of the entry's values and block arguments that `predicate` takes."""
    found: list[ir.Type] = []

    def visit(op):
        for value in [*op.results, *(a for r in op.regions for b in r.blocks for a in b.arguments)]:
            if isinstance(value.type, ir.RankedTensorType) and predicate(value.type):
                found.append(value.type)
                return ir.WalkResult.INTERRUPT
        return ir.WalkResult.ADVANCE

    func.walk(visit)
    return found[0] if found else None


def _refuse_what_it_cannot_run(func: ir.Operation) -> None:
    """A `?` dim, an f64 value or a zero-size one anywhere in the entry, or an
    i64 argument or result, before anything is converted."""
    dynamic = _first_type(func, lambda t: not t.has_static_shape)
    if dynamic is not None:
        raise CompileError(f"the program has a value of type {dynamic}: a VGF is static; run a program with `?` "
                           "dims on tosa_custom.runtime", category="dynamic-shape")
    double = _first_type(func, lambda t: str(t.element_type) == "f64")
    if double is not None and str(double) in map(str, _ir.function_type(func).inputs):
        # TOSA validation reads ops, not arguments: a Python float export baked in stays an unread f64 argument
        raise CompileError(f"the program takes a value of type {double}: the ML SDK has no f64 tensors; run it on "
                           "tosa_custom.runtime, iree or refmodel", category="executor-limit")
    if double is not None:
        raise CompileError(f"the program has a value of type {double}: TOSA has no f64, nor has the ML SDK "
                           "(compile with tosa_target=\"auto\" to narrow such values)", category="not-conformant")
    empty = _first_type(func, lambda t: 0 in t.shape)
    if empty is not None:
        raise CompileError(f"the program has a value of type {empty}: the ML SDK's converter takes no zero-size "
                           "tensor; run the program on tosa_custom.runtime, iree or refmodel", category="executor-limit")
    wide = [t for t in [*_ir.function_type(func).inputs, *_ir.function_type(func).results]
            if isinstance(t, ir.RankedTensorType) and str(t.element_type) == "i64"]
    if wide:
        # the runner sizes an i64 tensor at 4 bytes an element and refuses the upload
        raise CompileError(f"the program takes or returns a value of type {wide[0]}: the ML SDK's tensors have no "
                           "64-bit integers (an int64 input the program only moves, compares or gathers by travels as "
                           "int32 already; this one it computes with): run it on tosa_custom.runtime, iree or "
                           "refmodel", category="executor-limit")



def prepare(module: ir.Module) -> list[tuple[str, str]]:
    """Give each kept op its shader (the pass), compile and check each shader
    against its op, and return each value once (results.py); (operator
    name, whose shader) per kept op."""
    rewritten: list = []
    try:
        run_pipeline(module, [VULKAN_SHADERS], "Giving each kept op its Vulkan shader", category="no-kernel",
                     on_result={VULKAN_SHADERS: rewritten.append})
    except CompileError as e:
        left = sorted({custom_op_strings(op)[0] for op in custom_ops(module)
                       if custom_op_strings(op)[1] != VULKAN_DOMAIN})
        raise CompileError(str(e), category="no-kernel", ops=left) from None
    shaders = rewritten[0] if rewritten else []
    for op, (name, who) in zip(custom_ops(module), shaders):
        _check_shader(op.operation, name, who)
    run_pipeline(module, [VULKAN_SHADER_CONSTANTS, VULKAN_DISTINCT_RESULTS],
                 "Giving each shader its own constants and returning each value once",
                 category="runtime-lowering-failed")
    return shaders


def _check_shader(op: ir.Operation, name: str, who: str) -> None:
    keys = json.loads(custom_op_strings(op)[2])
    code = keys["shader_code"]
    inputs = [keys[f"input_{i}_binding"] for i in range(len(op.operands))]
    outputs = [keys[f"output_{j}_binding"] for j in range(len(op.results))]
    try:
        if keys["shader_language"] == "GLSL":
            binary = spirv.compile_glsl(code, WHAT)
        else:
            binary = base64.b64decode(code)
        spirv.check(binary, keys["entry_point"], inputs, outputs)
    except spirv.ShaderError as e:
        raise CompileError(f"{op.location}: the Vulkan shader of {name}, {who}, is refused: {e}",
                           category="kernel-error", ops=[name]) from None


class Program:
    """A module run on Vulkan through a VGF: call it with tensors, get tensors
    back (runtime.load's convention)."""

    _check_inputs = _runtime_program.Program._check_inputs

    def __init__(self, module: ir.Module, entry: str | None = None):
        with module.context:
            func = self._read_signature(module, entry)
            _refuse_what_it_cannot_run(func)
            self.shaders = prepare(module)
            self._types = list(_ir.function_type(func).inputs), list(_ir.function_type(func).results)
            self._result_map = result_map(func)
        self._lock = threading.RLock()
        self._weights.attach(_Unwritten(), len(self.input_specs))
        self._weights.bind_defaults()
        self._directory = tempfile.TemporaryDirectory(prefix="tosa_custom_vgf_")
        directory = Path(self._directory.name)
        zeros = [np.zeros(t.shape, dtype=_numpy(_stored(t))) for t in self._types[0]]
        resources = _scenario.write_directory(module, directory, zeros, WHAT)
        outputs = [(tuple(t.shape), _numpy(_stored(t))) for t in self._types[1]]
        self._runner = _scenario.ScenarioRunner(directory, resources, outputs, WHAT)

    def _read_signature(self, module: ir.Module, entry: str | None) -> ir.Operation:
        func = _runtime_program.entry_func(module, entry)
        self.entry = ir.StringAttr(func.attributes["sym_name"]).value
        ftype = _ir.function_type(func)
        self._weights = WeightSlots.prepare(module, func)
        n_inputs = len(ftype.inputs) - self._weights.count
        spec = _runtime_program._spec
        self.input_specs = [spec(t, f"input #{i}", True) for i, t in enumerate(ftype.inputs[:n_inputs])]
        self.output_specs = [spec(t, f"result #{i}", True) for i, t in enumerate(ftype.results)]
        _runtime_program._apply_torch_dtypes(func, self.input_specs, self.output_specs)
        self._boundary = Boundary(func, self._weights.manifest.names)
        return func

    @property
    def custom_ops(self) -> list[str]:
        """The module's kept ops, in module order."""
        return [name for name, _ in self.shaders]

    @property
    def kernels(self) -> list[str]:
        """Which shader runs each kept op, in module order (as runtime.Program.kernels)."""
        return [f"vulkan shader, {who}" for _, who in self.shaders]

    load_weights = _runtime_program.Program.load_weights
    weights_manifest = _runtime_program.Program.weights_manifest
    state_dict = _runtime_program.Program.state_dict
    reset_state = _runtime_program.Program.reset_state

    def __call__(self, *inputs):
        self._boundary.check(inputs)
        with self._lock:
            tensors = list(self._check_inputs(inputs))
            if self._weights.count:
                self._weights.require()
                tensors += self._weights.tensors
            arrays = [borrowed_array(_as_stored(t, _stored(ty)).detach().contiguous())  # not .numpy(): see there
                      for t, ty in zip(tensors, self._types[0])]
            results = [_as_declared(torch.from_numpy(a), s.dtype)
                       for a, s in zip(self._distinct_to_original(self._runner.run(arrays)), self.output_specs)]
            return self._boundary.finish(inputs, results, self._weights)

    def _distinct_to_original(self, arrays: list[np.ndarray]) -> list[np.ndarray]:
        """The entry's results from the values the VGF returns once each: a
        value returned again is a copy (eager's results are distinct tensors)."""
        if self._result_map is None:
            return arrays
        seen: set[int] = set()
        out = []
        for k in self._result_map:
            out.append(arrays[k].copy() if k in seen else arrays[k])
            seen.add(k)
        return out


class _Unwritten:
    """WeightSlots' descriptor block: a call reads the weights from the slots."""

    def set(self, index: int, tensor: torch.Tensor) -> None:
        pass


# numpy has no bfloat16: its bits travel as int16 (the runner copies bytes).
_BITS = {torch.bfloat16: torch.int16}


def _numpy(dtype: torch.dtype) -> np.dtype:
    return torch.empty(0, dtype=_BITS.get(dtype, dtype)).numpy().dtype


def _as_stored(t: torch.Tensor, dtype: torch.dtype) -> torch.Tensor:
    if t.is_complex():
        t = torch.view_as_real(t)
    t = t if t.dtype == dtype else t.view(dtype)
    return t.view(_BITS[dtype]) if dtype in _BITS else t


def _as_declared(t: torch.Tensor, dtype: torch.dtype) -> torch.Tensor:
    if dtype.is_complex:
        return torch.view_as_complex(t.contiguous())
    return t if t.dtype == dtype else t.view(dtype)


def load(module, entry: str | None = None, *, weights=None) -> Program:
    """A program run on Vulkan by Arm's ML SDK, each kept op by its shader.

    Same calling convention and results as `tosa_custom.runtime.load`
    (torch or numpy inputs, the model's structure, in-place write-back,
    buffer state, `weights=` for a module whose weights are arguments, a
    saved program's directory); the module is consumed (its kept ops become
    shader ops). Needs the ML SDK (`tosa-custom-ml-sdk install`) and a
    Vulkan driver (lavapipe on a machine without a GPU).
    """
    module, saved_entry, saved_weights = parse_source(module)
    program = Program(module, entry or saved_entry)
    weights = weights if weights is not None else saved_weights
    if weights is not None:
        program.load_weights(weights)
    return program
