"""`load(module)` -> a callable `Program` that runs TOSA + tosa.custom on the CPU.

Everything that can be decided once is decided at load: the custom ops are
decoded and bound to kernels (a missing kernel fails here, naming the op),
the module is lowered (tiled and vectorized: lowering.py), the entry point's
memref descriptors are packed, and callbacks are registered before the engine
is first used (a later registration poisons it). A call then only checks its
inputs (a fast path for contiguous tensors of the right shape and dtype),
allocates the results, writes the data pointers into the packed descriptors
and jumps into the compiled code. A callback hands its kernel zero-copy torch
views, cached by descriptor contents (the compiled code usually passes the
same buffers every call); a buffer that is exactly one of the call's own
inputs or results is passed as that tensor.

A Python exception cannot cross the compiled code, so a kernel's failure is
stashed, its outputs are zeroed (the code after it must not read garbage, e.g.
as gather indices), and the exception is raised once the call returns.

Loading is three steps around the one textual lowering (`Program.pipeline`):
the call sites are found (an analysis, outline.py), kernels are bound to them
here (Python: the registry, native libraries), then the pure IR rewrites run
with what binding decided written on the ops. An op with a native kernel
(native.py, CONTRACT.md §11) gets the address of its prepared C structs as
`tosa_custom.kernel_context`: the compiled code calls the C kernel directly
with it, and a failure is a status word read after the call.

A module with `?` dims (CONTRACT.md §15) loads as a `DynamicProgram`: a
call checks its inputs' sizes against the boundary (dynamic.py) and writes
them into the descriptors, both only when they differ from the previous
call's; when a result's size is dynamic, the entry returns every result. At
sizes seen in the call before, the call offers a buffer per result of the
size it had then, and the compiled code computes a result into it if it fits
(result_buffers.py); otherwise the compiled code allocates the result, which
is handed out without a copy as a tensor that frees its buffer
(memref.owned_tensor). A static program keeps the path above.

Lowering and LLVM are skipped when the compiled-code cache (cache.py,
compiled_code.py) has this module's code for these kernels and this CPU:
the key is taken from the module as given, the kernels are bound as always
(they are this process's), and the cached shared library's imports are bound
to them; `Program.cache` says what happened. Code compiled otherwise is
stored for the next process.

Every error of loading is a CompileError carrying its category and the ops it
names (CONTRACT.md 7.1), set here where it is raised.
"""

from __future__ import annotations

import ctypes
import dataclasses
import os
import threading
import weakref
from typing import Any, Sequence

import numpy as np
import torch
from torch_mlir import execution_engine, ir

from ...core import ir as _ir
from ...core import dtypes as _dtypes
from ...core.attrs import DTYPE
from ...contract.encoding import DOMAIN, ContractError, DecodedCall, Operand, carried_view, decode_attrs
from ...core.diagnostics import CompileError, Diagnostic
from ...core.heap import collect_new_objects_only
from ...core.passes import pipeline_text, run_pipeline, split_pipeline
from ...core import mlir_files as _mlir_files
from ..kernels import native as _native
from ..compiled.compiled_code import CodeCache, imports
from ..compiled.parallel import OPT_LEVEL
from ..compiled.cpu import CpuTarget, cpu_target
from ..kernels.registry import KernelCall, find_kernel, is_builtin, registered_kernels
from ..lower.lowering import OUTLINE, lower
from ..lower.tiling import TileConfig
from .memref import MLIR_TO_TORCH, DescriptorBlock, ViewCache, owned_tensor
from .boundary import Boundary
from .dynamic import InputShapes, describe_dims
from ..lower.outline import OUTLINE_CUSTOM_OPS, CustomCallSite, find_custom_call_sites, set_kernel_contexts
from ..kernels.tosa_kernels import OUTLINE_TOSA_FALLBACKS, RUNTIME_DOMAIN
from ...weights.checkpoint import MODULE_FILE, is_saved_program, read_saved
from .weights import WeightSlots

__all__ = ["Program", "KernelError", "KERNEL_SELECTIONS", "TilingReport", "load", "store_results", "entry_func"]

# Which kernels may run a model's ops: every one, or only those the user registered or loaded.
KERNEL_SELECTIONS = ("all", "user")


_LOWERING = "lowering to LLVM"


class KernelError(RuntimeError):
    """A kernel behind a tosa.custom failed or returned a wrong result; `op`
    names the op (its operator name), so nothing reads it from the message."""

    def __init__(self, message: str, op: str | None = None):
        super().__init__(message)
        self.op = op


@dataclasses.dataclass(frozen=True)
class _TensorSpec:
    shape: tuple[int, ...]
    dtype: torch.dtype

    def describe(self) -> str:
        return f"{describe_dims(self.shape)} {str(self.dtype).replace('torch.', '')}"

    @property
    def dynamic(self) -> bool:
        return None in self.shape

    @property
    def stored_shape(self) -> tuple:
        """The memref's shape: a complex tensor is stored as its real pairs."""
        return self.shape + (2,) if self.dtype.is_complex else self.shape


def _spec(t: ir.Type, what: str, dynamic: bool = False) -> _TensorSpec:
    """The tensor type of an argument or result; a `?` dim is None (only
    where `dynamic`: else refused)."""
    if not isinstance(t, ir.RankedTensorType) or not (t.has_static_shape or dynamic):
        category = "dynamic-shape" if isinstance(t, (ir.RankedTensorType, ir.UnrankedTensorType)) \
            else "non-tensor-interface"
        raise CompileError(f"{what} has type {t}: the runtime needs ranked tensors of static shape",
                           category=category)
    element = str(t.element_type)
    if element not in MLIR_TO_TORCH:
        raise CompileError(f"{what} has element type {element}, which the runtime does not support",
                           category="non-tensor-interface")
    return _TensorSpec(tuple(None if t.is_dynamic_dim(i) else n for i, n in enumerate(t.shape)),
                       MLIR_TO_TORCH[element])


# `tosa_custom.dtype` on an argument or result: the torch dtype, and the
# stored dtype it must sit on (CONTRACT.md 3.5, 4.7).
_BOUNDARY_DTYPES = {d.name: (d.torch, _dtypes.by_element(d.carrier).torch) for d in _dtypes.DTYPES if d.carrier}
# The Python number a 0-d tensor of each scalar kind's dtype stands for (CONTRACT.md 4.6).
_SCALAR_TYPES = {k.dtype.torch: k.python for k in _dtypes.SCALAR_KINDS}


def _apply_torch_dtypes(func, inputs: list, outputs: list) -> None:
    """uint8 arguments and results are typed i8 in TOSA (torch-mlir's typing),
    complex ones as their real pairs [..., 2]; `tosa_custom.dtype` records the
    torch dtype, and the program takes and returns that dtype, not the one
    the signature shows."""
    for key, specs in (("arg_attrs", inputs), ("res_attrs", outputs)):
        if key not in func.attributes:
            continue
        for i, attrs in enumerate(ir.ArrayAttr(func.attributes[key])):
            attrs = ir.DictAttr(attrs)
            if i < len(specs) and DTYPE in attrs and ir.StringAttr(attrs[DTYPE]).value != "int64":  # Boundary.narrow
                name = ir.StringAttr(attrs[DTYPE]).value
                dtype, stored = _BOUNDARY_DTYPES.get(name, (None, None))
                shape = specs[i].shape
                pairs = dtype is not None and dtype.is_complex
                if dtype is None or specs[i].dtype != stored or (pairs and shape[-1:] != (2,)):
                    raise ValueError(f"{key[:3]} #{i}: {DTYPE} = {name!r} does not fit {specs[i].describe()}"
                                     f" (known: {', '.join(f'{k} on {str(v[1])[6:]}' for k, v in _BOUNDARY_DTYPES.items())}"
                                     f"{'; complex needs a trailing dim of 2' if pairs else ''})")
                specs[i] = _TensorSpec(shape[:-1] if pairs else shape, dtype)


@dataclasses.dataclass(frozen=True)
class TilingReport:
    """What a program was planned for (`Program.tiling`): the CPU, and the
    register tile and vector lengths derived from it."""

    cpu: CpuTarget
    config: TileConfig

    @property
    def isa(self) -> str:
        return self.cpu.name

    @property
    def vector_bits(self) -> int:
        return self.cpu.vector_bits

    @property
    def registers(self) -> int:
        return self.cpu.registers

    @property
    def tile(self) -> tuple[int, int]:
        """The contraction register tile, MR x NR (the most rows; an op takes
        the largest row count up to MR that divides its rows)."""
        return self.config.mr, self.config.nr

    def __repr__(self) -> str:
        return f"TilingReport({self.cpu.describe()}; {self.config.describe()})"


def store_results(result, outputs: list[torch.Tensor], decoded: DecodedCall | None,
                  unused_results: Sequence[int] = ()) -> None:
    """Check a Python kernel's returned `result` against the op's `outputs`
    (count, shape and dtype, strictly: no silent casts) and copy it into
    them; KernelError saying what differs. Shared with tosa_custom.iree's
    Python-kernel sites."""
    results = list(result) if isinstance(result, (tuple, list)) else [result]
    dropped = decoded.dropped_results if decoded else ()
    if dropped:
        results = [r for i, r in enumerate(results) if i not in dropped]
    if len(results) != len(outputs):
        raise KernelError(f"returned {len(results)} results, the op has {len(outputs)}")
    for i, (r, out) in enumerate(zip(results, outputs)):
        if i in unused_results:
            continue
        if isinstance(r, np.ndarray):
            r = torch.from_numpy(r)
        if isinstance(r, (bool, int, float)) and out.dim() == 0:  # a scalar result (aten.item)
            expected = _SCALAR_TYPES.get(out.dtype)
            if type(r) is not expected:
                raise KernelError(f"result #{i} is a {type(r).__name__}, expected a "
                                  f"{expected.__name__ if expected else out.dtype}")
            out.fill_(r)
            continue
        if not isinstance(r, torch.Tensor):
            raise KernelError(f"result #{i} is a {type(r).__name__}, not a tensor")
        if tuple(r.shape) != tuple(out.shape) or r.dtype != out.dtype:
            raise KernelError(
                f"result #{i} is {list(r.shape)} {str(r.dtype).replace('torch.', '')}, "
                f"expected {list(out.shape)} {str(out.dtype).replace('torch.', '')}"
            )
        out.copy_(r)


class _Site:
    """A custom op bound to its kernel: decoded once, called per run."""

    def __init__(self, site: CustomCallSite, program: "Program"):
        self.site = site
        self.program = program
        self.in_specs = [_TensorSpec(s, MLIR_TO_TORCH[t]) for s, t in zip(site.input_shapes, site.input_types)]
        self.out_specs = [_TensorSpec(s, MLIR_TO_TORCH[t]) for s, t in zip(site.output_shapes, site.output_types)]

        def read(index: int, kind):
            value = site.const_inputs[index]
            return Operand(index, kind.name) if value is None else value

        # Ops of other domains (a team's own fused ops) are not under our
        # contract: their kernels read implementation_attrs themselves.
        self.decoded: DecodedCall | None = None
        if site.domain_name == DOMAIN:
            try:
                self.decoded = decode_attrs(
                    site.operator_name, site.implementation_attrs, len(site.input_types), read, site.domain_name
                )
            except ContractError as e:
                raise CompileError(f"{site.location}: cannot decode {site.operator_name}: {e}",
                                   category="decode-failed", ops=[site.operator_name]) from None
        # kernels="user" leaves out the package's kernels for the model's ops
        # (not for the TOSA ops the runtime itself runs as kernels).
        builtin = program._kernels == "all" or site.domain_name == RUNTIME_DOMAIN
        self.kernel = find_kernel(site.operator_name, site.domain_name, self.decoded, program._torch_fallback,
                                  builtin)
        # A native kernel replaces a built-in Python one (not one a user registered).
        self.native = program._bind_native(self, builtin) if is_builtin(self.kernel) else None
        if self.kernel is None and self.native is None:
            raise CompileError(
                f"{site.location}: no kernel for {site.domain_name}::{site.operator_name}; "
                + ("" if builtin else "kernels='user' leaves out the built-in ones; ")
                + ("" if program._torch_fallback or not builtin else
                   "the generic torch kernel is off (torch_fallback=False); ")
                + f"registered: {', '.join(registered_kernels(builtin)) or 'none'}",
                category="no-kernel", ops=[site.operator_name],
            )
        self._nin = len(self.in_specs)
        known = program._call_tensors
        self._in_views = [ViewCache(s.shape, s.dtype, known=known) for s in self.in_specs]
        self._out_views = [ViewCache(s.shape, s.dtype, known=known) for s in self.out_specs]
        self._views = self._in_views + self._out_views
        self._carried = []
        if self.decoded is not None:
            self._carried = list(self.decoded.operand_dtypes.items()) + [
                (self._nin + i, d) for i, d in self.decoded.result_dtypes.items()]
        n = len(self.in_specs) + len(self.out_specs)
        self.callback = ctypes.CFUNCTYPE(None, *([ctypes.c_void_p] * n))(self._run)

    def _run(self, *addresses) -> None:
        outputs: list[torch.Tensor] = []
        try:
            views = [view(a) for view, a in zip(self._views, addresses)]
            for i, dtype in self._carried:  # uint8 and complex travel as other tensors
                views[i] = carried_view(views[i], dtype)
            nin = self._nin
            inputs, outputs = views[:nin], views[nin:]
            result = self.kernel(KernelCall(self.decoded, inputs, outputs, self.site.implementation_attrs))
            if result is not None:
                self._store(result, outputs)
        except BaseException as e:  # never let it unwind into compiled code
            self.program._failure = (self, e)
            for out in outputs:
                out.zero_()

    def _store(self, result, outputs: list[torch.Tensor]) -> None:
        store_results(result, outputs, self.decoded, self.site.unused_results)

    def describe(self) -> str:
        return f"{self.site.operator_name} at {self.site.location}"

    def kernel_description(self) -> str:
        if self.native is not None:
            return self.native.description
        return f"python ({getattr(self.kernel, '__module__', '?')}.{getattr(self.kernel, '__qualname__', self.kernel)})"



def entry_func(module: ir.Module, entry: str | None):
    """The one public function `load` runs (a module it lowered before has none)."""
    funcs = _ir.public_functions(module, entry)
    if not funcs and any(op.operation.name == "llvm.func" for op in module.body.operations):
        raise ValueError("this module was loaded before: load() lowers a module in place (to LLVM), so it "
                         "runs once; to load it again (another cpu=, say), pass a copy: load(str(module))")
    if len(funcs) != 1:
        names = [ir.StringAttr(f.attributes["sym_name"]).value for f in funcs]
        raise ValueError(f"expected one public function to run, found {names or 'none'}; pass entry=")
    return funcs[0]

class Program:
    """A compiled module: call it with tensors, get tensors back."""

    def __init__(self, module: ir.Module, entry: str | None = None, *, vectorize: bool = True, native: bool = True,
                 torch_fallback: bool = True, kernels: str = "all", cpu: "str | CpuTarget | None" = None):
        if kernels not in KERNEL_SELECTIONS:
            raise ValueError(f"kernels={kernels!r}: expected one of {', '.join(map(repr, KERNEL_SELECTIONS))}")
        self._current: dict[int, torch.Tensor] = {}
        # Native kernels (native.py): their call takes the address of their
        # C structs; released with the program.
        self._native_enabled = native
        self._torch_fallback, self._kernels = torch_fallback, kernels
        self._native_status = _native.ProgramStatus()
        self._native_words = memoryview(self._native_status).cast("B").cast("i")
        self._native_bindings: list[_native.NativeBinding] = []
        weakref.finalize(self, _release_native, self._native_bindings)
        self._sites: list[_Site] = []
        target = cpu_target(cpu)
        self.tiling = TilingReport(target, TileConfig.for_cpu(target))
        with module.context:
            self._read_signature(module, entry)
            self.cache = CodeCache(module)  # what the compiled-code cache did; its digest of the module as given
            self.pipeline = self._lower(module, vectorize, target)
            self._engine = self.cache.engine(self._make_engine, module, self.entry, self.pipeline)
        self._fn = self._engine.lookup(self.entry)
        self._failure: tuple[_Site, BaseException] | None = None
        self._prepare_calls()

    def _read_signature(self, module: ir.Module, entry: str | None) -> None:
        func = entry_func(module, entry)
        self.entry = ir.StringAttr(func.attributes["sym_name"]).value
        ftype = ir.TypeAttr(func.attributes["function_type"]).value
        # Weight arguments (CONTRACT.md §10) trail the inputs; the program passes them itself.
        self._weights = WeightSlots.prepare(module, func)
        n_inputs = len(ftype.inputs) - self._weights.count
        self.input_specs = [_spec(t, f"input #{i}", True) for i, t in enumerate(ftype.inputs[:n_inputs])]
        self._weight_shapes = [_spec(t, f"weight #{i}").shape for i, t in enumerate(ftype.inputs[n_inputs:])]
        self.output_specs = [_spec(t, f"result #{i}", True) for i, t in enumerate(ftype.results)]
        _apply_torch_dtypes(func, self.input_specs, self.output_specs)
        # `?` dims (CONTRACT.md §15): inputs checked and sized per call; results
        # of dynamic size returned by the compiled code, which allocates them.
        self._shapes = InputShapes(func, [s.stored_shape for s in self.input_specs], n_inputs) \
            if any(s.dynamic for s in self.input_specs) else None
        self._returns = any(s.dynamic for s in self.output_specs)
        if self._shapes is not None or self._returns:
            self.__class__ = DynamicProgram
        # What each result is to the caller (boundary.py, CONTRACT.md §12).
        self._boundary = Boundary(func, self._weights.manifest.names)

    def _lower(self, module: ir.Module, vectorize: bool, cpu: CpuTarget) -> str:
        """Outline, bind kernels, lower; returns the pipeline run (the binding
        sits between its first two passes and only writes attributes)."""
        run_pipeline(module, [OUTLINE_TOSA_FALLBACKS], _LOWERING, category="runtime-lowering-failed")
        self._bind_sites(find_custom_call_sites(module))
        set_kernel_contexts(module, {s.site.index: s.native.address for s in self._sites if s.native})
        # Code of this module, these kernels and this CPU from an earlier load: no lowering, no LLVM.
        if self.cache.find(self.entry, {"vectorize": vectorize}, cpu, self._sites):
            return self.cache.pipeline
        # A large entry is cut into a piece per process compiling it (compiled/parallel.py),
        # whose workers start now, while it is lowered. Not one with `?` sizes: its pieces
        # take every size as an argument and cost LLVM more than a second process saves
        # (dynamic Llama 1.70 s in two, 1.62 s in one; OPT 1.43 against 1.37).
        pieces = 1 if self._shapes is not None or self._returns else self.cache.jobs
        if pieces > 1:
            self.cache.start_workers(module)
        try:
            run_pipeline(module, [OUTLINE_CUSTOM_OPS], _LOWERING, category="runtime-lowering-failed")
            lowered = lower(module, vectorize=vectorize, cpu=cpu, returns=self._returns, pieces=pieces)
        except BaseException:
            self.cache.stop_workers()
            raise
        return pipeline_text(OUTLINE + split_pipeline(lowered))

    def _make_engine(self, module: ir.Module) -> execution_engine.ExecutionEngine:
        try:
            # Position-independent when its object code is to be linked into the cache's library.
            engine = execution_engine.ExecutionEngine(module, opt_level=OPT_LEVEL, enable_pic=self.cache.wanted)
        except RuntimeError as e:  # LLVM translation refused an op; it printed why
            raise CompileError(f"creating the ExecutionEngine failed ({e}); an op reached LLVM without a lowering",
                               category="runtime-lowering-failed") from None
        # Before the first lookup (a later registration poisons the engine): each
        # site's kernel (a native one's C trampoline directly), the builtins.
        for imported in imports(self._sites):
            engine.raw_register_runtime(imported.name, ctypes.c_void_p(imported.address))
        engine.initialize()
        return engine

    def _prepare_calls(self) -> None:
        # Descriptors made once; a call writes only the data pointers. The lock
        # keeps two threads from writing them at once (ctypes drops the GIL
        # while the compiled code runs); a kernel may still call the program
        # again on its own thread.
        returned = self.output_specs if self._returns else []
        # Returned results: then one buffer per result the call may offer (result_buffers.py).
        self._descriptors = DescriptorBlock(
            [s.stored_shape for s in self.input_specs] + self._weight_shapes +
            [s.stored_shape for s in self.output_specs if s not in returned] +
            [(None,) * len(s.stored_shape) for s in returned],
            returned=[len(s.stored_shape) for s in returned])
        self._weights.attach(self._descriptors, len(self.input_specs))
        self._weights.bind_defaults()
        self._lock = threading.RLock()
        # Complex inputs are passed as their real view, which _check_inputs makes.
        complex_in = any(s.dtype.is_complex for s in self.input_specs)
        self._fast = None if complex_in else [(s.shape, s.dtype) for s in self.input_specs]
        self._complex_outputs = any(s.dtype.is_complex for s in self.output_specs)
        self._sized = [s.dynamic for s in self.input_specs]  # inputs whose sizes are written per call
        # Each returned result: its rank, the dtype it is stored as (complex as real pairs), complex or not.
        self._returned = [(len(s.stored_shape), s.dtype.to_real(), s.dtype.is_complex) for s in returned]
        # empty_like of a zero-size expanded template allocates a contiguous
        # result faster than torch.empty(shape, dtype=...) parses its arguments.
        self._out_templates = [] if self._returns else [
            torch.zeros((), dtype=s.dtype).expand(s.shape) for s in self.output_specs]

    def _call_tensors(self) -> dict[int, torch.Tensor]:
        """The current call's inputs and outputs, by data pointer."""
        return self._current

    @property
    def boundary(self) -> list[str]:
        """What a call applies at the boundary, one line each: a quantized
        model's inputs quantized and results dequantized (CONTRACT.md §17)."""
        return self._boundary.applied()

    @property
    def custom_ops(self) -> list[str]:
        """The module's tosa.custom ops, in order (not the TOSA ops the runtime runs as kernels)."""
        return [s.site.operator_name for s in self._model_sites()]

    @property
    def kernels(self) -> list[str]:
        """Which kernel runs each custom op: "native (library: kernel)" or "python (function)"."""
        return [s.kernel_description() for s in self._model_sites()]

    def _model_sites(self) -> list[_Site]:
        return [s for s in self._sites if s.site.domain_name != RUNTIME_DOMAIN]

    def _bind_sites(self, sites: list[CustomCallSite]) -> None:
        """A kernel for every call site (CompileError naming the op if none)."""
        for site in sites:
            self._sites.append(_Site(site, self))

    def _bind_native(self, s: _Site, builtin: bool = True) -> _native.NativeBinding | None:
        if not self._native_enabled:
            return None

        def error(message: str) -> CompileError:
            # The library refused the op at load: as before, a lowering failure of the runtime.
            return CompileError(f"{s.site.location}: {s.site.domain_name}::{s.site.operator_name}: {message}",
                                category="runtime-lowering-failed", ops=[s.site.operator_name])

        try:
            binding = _native.bind(s.site, s.decoded, self._native_status, error, builtin=builtin)
        except _native.KernelLibraryError as e:
            raise error(str(e)) from None
        if binding is not None:
            self._native_bindings.append(binding)
        return binding

    # --- Weights as arguments (CONTRACT.md §10; the logic is in weights.py) ---

    def load_weights(self, weights) -> None:
        """Replace the weights, without recompiling: a state_dict, an nn.Module,
        a `.safetensors` or `torch.save` file, or a saved program's directory.
        Every name, shape and dtype is checked first; a WeightError lists every
        missing, unexpected or mismatched weight, and the old weights stay.
        The tensors are used in place, not copied."""
        tensors = self._weights.check(weights)
        with self._lock:
            self._weights.bind(tensors)

    def save(self, directory) -> None:
        """Write module.mlirbc, weights.safetensors and manifest.json into
        `directory`; `load(directory)` gives the program back."""
        self._weights.save(directory)

    @property
    def weights_manifest(self):
        """The entry function's inputs and weights (a `tosa_custom.weights.Manifest`)."""
        return self._weights.manifest

    def state_dict(self) -> dict:
        """The weights the program runs with, by name, with the current value
        of each buffer the model writes (its state)."""
        return self._weights.state_dict()

    def reset_state(self) -> None:
        """Give the buffers the model writes back their compiled (or last
        loaded) values, as a freshly loaded program has them."""
        with self._lock:
            self._weights.reset(slot for _, slot in self._boundary.state)

    def _check_inputs(self, inputs: Sequence[Any]) -> list[torch.Tensor]:
        inputs = self._boundary.narrow(inputs)  # int64 carried as int32 (CONTRACT.md §13.4d)
        if len(inputs) != len(self.input_specs):
            raise TypeError(f"{self.entry}() takes {len(self.input_specs)} inputs "
                            f"({', '.join(s.describe() for s in self.input_specs)}), got {len(inputs)}")
        tensors = []
        for i, (x, spec) in enumerate(zip(inputs, self.input_specs)):
            if isinstance(x, np.ndarray):
                x = torch.from_numpy(x)
            elif isinstance(x, (bool, int, float)) and spec.shape == () and \
                    type(x) is _SCALAR_TYPES.get(spec.dtype):
                x = torch.tensor(x, dtype=spec.dtype)  # a Python scalar argument (CONTRACT.md 4.6)
            if not isinstance(x, torch.Tensor):
                raise TypeError(f"input #{i} is a {type(x).__name__}; expected a tensor {spec.describe()}")
            if (tuple(x.shape) != spec.shape and not spec.dynamic) or x.dtype != spec.dtype:
                got = _TensorSpec(tuple(x.shape), x.dtype).describe()
                raise ValueError(f"input #{i} is {got}; expected {spec.describe()}: shapes and dtypes are fixed at "
                                 "compile time, so convert the input or compile with an example of this shape")
            x = x.detach().contiguous()
            tensors.append(torch.view_as_real(x) if x.is_complex() else x)
        return tensors

    def _ready(self, inputs: Sequence[Any]) -> bool:
        """Every input already a contiguous tensor of the right shape and dtype."""
        if self._fast is None or len(inputs) != len(self._fast):
            return False
        for x, (shape, dtype) in zip(inputs, self._fast):
            if type(x) is not torch.Tensor or x.dtype is not dtype or x.shape != shape or not x.is_contiguous():
                return False
        return True

    def __call__(self, *inputs):
        # Tensors that are ready go straight in (no copy); anything else is
        # checked, converted and made contiguous by _check_inputs.
        self._boundary.check(inputs)  # an input the model writes must take the write
        tensors = inputs if self._ready(inputs) else self._check_inputs(inputs)
        contiguous = torch.contiguous_format
        outputs = [torch.empty_like(t, memory_format=contiguous) for t in self._out_templates]
        with self._lock:
            block = self._descriptors
            # A kernel reading an input or writing a result directly gets that
            # tensor itself (the ViewCache check); never one that needs grad.
            current = {}
            i = 0
            for t in tensors:
                ptr = block.set(i, t)
                if not t.requires_grad:
                    current[ptr] = t
                i += 1
            if self._weights.count:  # their descriptors were written by load_weights
                self._weights.require()
                i += self._weights.count
            for t in outputs if not self._complex_outputs else [
                    torch.view_as_real(t) if t.is_complex() else t for t in outputs]:
                current[block.set(i, t)] = t
                i += 1
            self._execute(current)
        with self._lock:
            return self._boundary.finish(inputs, outputs, self._weights)

    def _execute(self, current: dict) -> None:
        """Run the compiled code on the descriptors written (the lock held);
        raise a kernel's failure after it returns."""
        # Saved and restored: a kernel may call this program again.
        outer = self._current, self._failure
        self._current, self._failure = current, None
        status = self._native_words if self._native_bindings else None
        if status is not None:  # native kernels report failures here
            outer_status = status[0], status[1]
            status[0] = 0
        try:
            self._fn(self._descriptors.packed)
        finally:
            failure = self._failure
            self._current, self._failure = outer
            if status is not None:
                code, index = status[0], status[1]
                status[0], status[1] = outer_status
        if failure is not None:
            site, error = failure
            raise KernelError(f"kernel for {site.describe()} failed: {type(error).__name__}: {error}",
                              op=site.site.operator_name) from error
        if status is not None and code:
            site = self._sites[index]
            raise KernelError(f"kernel for {site.describe()} failed: {site.native.description}: "
                              f"{_native.status_name(code)}: {site.native.error_message}", op=site.site.operator_name)


class DynamicProgram(Program):
    """A program with `?` dims (CONTRACT.md §15): a call at new sizes checks
    them against the boundary and writes them into the descriptors; if a
    result's size is dynamic, every result comes back from the compiled code,
    in the buffer the call offered for it (at sizes seen the call before) or
    allocated by the compiled code (handed out zero-copy, freed with the
    tensor)."""

    def _prepare_calls(self) -> None:
        Program._prepare_calls(self)
        self._last_shapes = None  # the input sizes the descriptors hold
        self._offered = len(self.input_specs) + self._weights.count  # the first offered buffer's argument
        self._offers: list | None = None  # per result, a template of the buffer to offer (None: no offer)
        self._offer_slots = [self._descriptors.slots[self._offered + i] for i in range(len(self._returned))]

    def __call__(self, *inputs):
        # As Program.__call__, with the sizes: a call at the sizes of the
        # previous one compares one tuple; new sizes are checked
        # (InputShapes) and written into the descriptors once.
        if self._boundary.written:
            self._boundary.check(inputs)
        tensors = inputs if self._ready(inputs) else self._check_inputs(inputs)
        shapes = tuple([t.shape for t in tensors])
        outputs = [] if self._returns else [torch.empty_like(t, memory_format=torch.contiguous_format)
                                            for t in self._out_templates]
        with self._lock:
            block = self._descriptors
            if shapes != self._last_shapes:
                self._accept(tensors, shapes)
            current = {}
            i = 0
            for t in tensors:
                ptr = block.set(i, t)
                if not t.requires_grad:
                    current[ptr] = t
                i += 1
            if self._weights.count:
                self._weights.require()
                i += self._weights.count
            for t in outputs:
                current[block.set(i, torch.view_as_real(t) if t.is_complex() else t)] = t
                i += 1
            offered = self._offer() if self._offers else None
            self._execute(current)
            if self._returns:
                outputs = self._take_results(offered)
            return self._boundary.finish(inputs, outputs, self._weights)

    def _accept(self, tensors, shapes: tuple) -> None:
        """Check the sizes of a call (ValueError unless they fit the
        boundary) and write them into the descriptors (the lock held)."""
        if self._shapes is not None:
            self._shapes.check(tensors)
        for i, sized in enumerate(self._sized):
            if sized:
                self._descriptors.set_sizes(i, shapes[i])
        self._last_shapes = shapes
        if self._returns:  # the results' sizes at these sizes: learnt from this call (_take_results)
            self._offers = None
            for i, (rank, _, _) in enumerate(self._returned):
                self._descriptors.set_none(self._offered + i, rank)

    def _offer(self) -> list:
        """Per result, a buffer of the size it had at these input sizes and
        its address (or None), written into the descriptors."""
        words = self._descriptors.words
        offered = []
        for template, slot in zip(self._offers, self._offer_slots):
            if template is None:
                offered.append(None)
                continue
            t = torch.empty_like(template, memory_format=torch.contiguous_format)
            words[slot] = words[slot + 1] = ptr = t.data_ptr()
            offered.append((t, ptr))
        return offered

    def _ready(self, inputs) -> bool:
        """Every input a contiguous tensor of the right dtype (ranks and sizes:
        `_accept`, whenever they differ from the previous call's)."""
        if self._shapes is None:  # no `?` input: the static check
            return Program._ready(self, inputs)
        if self._fast is None or len(inputs) != len(self._fast):
            return False
        for x, (_, dtype) in zip(inputs, self._fast):
            if type(x) is not torch.Tensor or x.dtype is not dtype or not x.is_contiguous():
                return False
        return True

    def _take_results(self, offered: list | None) -> list[torch.Tensor]:
        """The returned buffers as tensors: result i in the buffer offered for
        it is that tensor; one the compiled code allocated is owned by the
        tensor made of it (one owner per buffer). After the first call at new
        sizes, the results' sizes are what the next calls offer."""
        block = self._descriptors
        words = block.words
        results, owners = [], {}  # owners: by pointer, of buffers the compiled code allocated
        for i, start in enumerate(block.results):
            o = offered[i] if offered else None
            # In the buffer offered for it: the allocated pointer is that buffer's.
            results.append(o[0] if o is not None and words[start] == o[1] else
                           self._returned_tensor(i, offered, owners))
        if offered is None and self._last_shapes is not None:  # as stored: complex as real pairs
            self._offers = [None if 0 in t.shape else torch.zeros((), dtype=t.dtype).expand(t.shape)
                            for t in results]
            for i, template in enumerate(self._offers):
                if template is not None:
                    block.set_sizes(self._offered + i, template.shape)
        if self._complex_outputs:
            results = [torch.view_as_complex(t) if pairs else t for t, (_, _, pairs) in zip(results, self._returned)]
        return results

    def _returned_tensor(self, i: int, offered: list | None, owners: dict) -> torch.Tensor:
        """Result i, allocated by the compiled code (owned by the tensor), or
        a view of a buffer offered for another result."""
        rank, stored, _ = self._returned[i]
        descriptor = self._descriptors.result(i, rank)
        owner = {o[1]: o[0] for o in offered if o is not None}.get(descriptor[0]) if offered else None
        if offered and offered[i] is not None:  # not taken: offer no more at these sizes
            self._offers[i] = None
            self._descriptors.set_none(self._offered + i, rank)
        if owner is not None:
            return torch.as_strided(owner, descriptor[3], descriptor[4],
                                    (descriptor[1] - descriptor[0]) // owner.element_size() + descriptor[2])
        return owned_tensor(descriptor, stored, owners)


def _release_native(bindings: list) -> None:
    """Give native kernels their `release` call once the program is gone."""
    for b in bindings:
        b.release()


# How MLIR text starts or what it contains, where a path would not.
_MLIR_START = ("module", "builtin.module", "func.func", "#", "\"", "//")
_MLIR_CHARS = ("\n", "{", "@", "%")


def _module_text(source: "str | os.PathLike") -> str:
    """MLIR text as given, or read from a path. A string of one line without
    what MLIR text has (braces, `@`, `%`, a leading `module`/`func.func`) is a
    path, and a missing one is an error saying so (it used to be parsed as
    MLIR: "custom op 'nonexistent' is unknown"); empty text is refused."""
    if isinstance(source, str) and not source.strip():
        raise ValueError("load() got empty MLIR text: give MLIR text, a .mlir file, a directory written by "
                         "Program.save or an ir.Module")
    if isinstance(source, str) and (any(c in source for c in _MLIR_CHARS)
                                    or source.lstrip().startswith(_MLIR_START)):
        return source
    path = os.fspath(source)
    if os.path.isdir(path):
        raise FileNotFoundError(f"'{path}' is a directory without {MODULE_FILE}: load() takes a directory "
                                "written by Program.save, a .mlir file, MLIR text or an ir.Module")
    if not os.path.isfile(path):
        raise FileNotFoundError(f"no such file or directory: '{path}': load() takes a .mlir file, a directory "
                                "written by Program.save, MLIR text or an ir.Module")
    try:
        with open(path, encoding="utf-8") as f:
            return f.read()
    except UnicodeDecodeError:
        raise ValueError(f"'{path}' is not MLIR text (not UTF-8); a saved program is loaded by its "
                         "directory") from None


def load(module, entry: str | None = None, *, vectorize: bool = True, weights=None, native: bool = True,
         torch_fallback: bool = True, kernels: str = "all", cpu: "str | CpuTarget | None" = None) -> Program:
    """A runnable program from a TOSA module (an `ir.Module`, MLIR text, or a
    path: a `.mlir` file, a `.tosa` flatbuffer, a directory written by `Program.save`).

    The module is consumed (lowered in place); pass a copy to keep it.
    A directory written by `Program.save` loads with its weights.safetensors
    unless `weights=` names others. `weights=` (state_dict, nn.Module or
    path) binds the weights of a module whose weights are arguments.
    `native=False` runs every custom op by its Python kernel (no native ones).
    `torch_fallback=False` never uses the generic torch kernel: an op without
    a registered (numpy, native or user) kernel is then a load-time error,
    which is how a backend team finds the ops it still has to write.
    `kernels="user"` goes further: only kernels the user registered or loaded
    (`register_kernel`, `load_kernel_library`) run the model's ops, not the
    package's built-in numpy, native or generic torch ones, so the load error
    names the first op that still lacks a kernel of the user's own.
    `cpu=` ("sse", "avx", "avx2", "avx512", "neon"; default
    `$TOSA_CUSTOM_CPU`, else the host's ISA) sizes the register tiles and
    vector lengths; an ISA narrower than the host's also keeps the JIT to it.
    `Program.tiling` says what was chosen.
    """
    if _mlir_files.is_flatbuffer(module):
        module = _mlir_files.read(module)  # with its sidecar's attributes, when it has one
    if is_saved_program(module):
        data, manifest = read_saved(module)
        weights = module if weights is None else weights
        module = ir.Module.parse(data, _ir.make_context())
        entry = entry or manifest.entry
    if isinstance(module, ir.Module):
        pass
    elif isinstance(module, (str, os.PathLike)):
        text = _module_text(module)
        ctx = _ir.make_context()
        try:
            module = _ir.parse_module(text, ctx)
        except ir.MLIRError as e:
            raise CompileError("cannot parse the module:", [Diagnostic.from_mlir(d) for d in e.error_diagnostics],
                               category="runtime-lowering-failed") from None
    else:
        raise TypeError(f"load() takes an ir.Module, MLIR text or a path, not {type(module).__name__}")
    with collect_new_objects_only():  # core/heap.py: the collector walks what the load allocates
        program = Program(module, entry, vectorize=vectorize, native=native, torch_fallback=torch_fallback,
                          kernels=kernels, cpu=cpu)
    if weights is not None:
        program.load_weights(weights)
    return program
