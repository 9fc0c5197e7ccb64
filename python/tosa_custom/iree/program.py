"""`load(module)`: a tunneled TOSA program compiled by IREE for the CPU, each
tosa.custom run inside IREE's multi-threaded runtime by the kernel the
reference runtime would choose: native where one takes it, else its Python
kernel, called back from IREE's workers (callbacks.py).

The calling convention and the result semantics are the reference
runtime's (`tosa_custom.runtime.load`), from the same code: the entry's
signature and weight arguments (`runtime.execute.weights.WeightSlots`: checking,
swapping, state), and what each result is (`runtime.execute.boundary.Boundary`:
in-place write-back, buffer state, the model's structure). Only the engine
differs: the module is bound (sites.py), rewritten by the dispatch pass,
printed in generic form (IREE's MLIR parses it; torch-mlir's custom
assembly of TOSA differs from IREE's) and compiled by IREE with
`--iree-input-type=tosa`; the plugin is given to IREE's device by its flag,
before the device exists. The vmfb of a module loaded before, in any
process, comes from the compiled-code cache (cached.py; `Program.cache`
says what it did): binding still runs, the dispatch pass and iree-compile do not.
"""

from __future__ import annotations

import itertools
import re
import tempfile
import threading
import weakref
from pathlib import Path
from typing import Any, Sequence

import numpy as np
import torch
from torch_mlir import ir

from ..core import ir as _ir
from ..core.diagnostics import CompileError
from ..core.heap import collect_new_objects_only
from ..core.passes import pipeline_text, run_pipeline
from ..runtime import KernelError
from ..runtime.execute.boundary import Boundary
from ..runtime.execute.sources import parse_source
from ..runtime.execute.program import _SCALAR_TYPES, KERNEL_SELECTIONS, _apply_torch_dtypes, _spec
from ..runtime.lower.dead_taps import DROP_PADDING_TAPS
from ..runtime.lower.tosa_fixes import TOSA_FIXES
from ..runtime.execute.weights import WeightSlots
from . import plugin as _plugin
from .calls import ASYNC_FLAG, DeviceWeights, Marshal, PolledWait, host_array
from .dispatch import DISPATCH_NATIVE, workgroups_for
from .cached import VmfbCache
from .callbacks import refuse_python, running
from .sites import BoundSite, bind_sites, free_ids, write_sites

__all__ = ["Program", "load", "build", "dispatch_pipeline", "host_array", "parse_module", "COMPILE_FLAGS", "WAITS",
           "compile_to_vmfb", "make_device", "WORKER_STACK_FLAG", "wait_flags", "refuse_known_miscompiles"]

# f64 kept as f64: IREE would otherwise narrow it to f32 everywhere, the
# signature and the native kernels' operands included (a kernel bound for
# f64 would read f32 data); TOSA's profiles have no f64, so IREE's
# validation then refuses such a program, as tosa-validate does.
# Data tiling: IREE packs matmul operands into tiles sized for the target
# CPU (from `target-cpu=host`: the features of whichever machine compiles,
# AVX2 or AVX-512 alike); measured on the example block (hidden 256), 10%
# less time per call at 1 thread, stock IREE and ours alike.
COMPILE_FLAGS = ("--iree-input-type=tosa", "--iree-hal-target-device=local",
                 "--iree-hal-local-target-device-backends=llvm-cpu", "--iree-llvmcpu-target-cpu=host",
                 "--iree-input-demote-f64-to-f32=false", "--iree-opt-data-tiling")
_PLUGIN_FLAG_SET = []
# IREE's task workers get small stacks, sized for IREE's own code; our
# kernels run on them, and a Python kernel runs PyTorch there: a quantized
# MobileNetV2's 1x1 convolution kept whole (dummy mode), in oneDNN,
# overflowed one (a segfault). Each worker gets a Linux thread's default.
WORKER_STACK_FLAG = f"--task_worker_stack_size={8 << 20}"
# How the caller waits for a call (calls.PolledWait says why "poll"):
WAITS = {"poll": "the caller polls the call's semaphore, sleeping in between (async-external functions)",
         "iree": "IREE's own wait (synchronous functions)"}
# Each call's id, passed to its kernels (the dispatch pass's invocation
# argument), under which the plugin keeps the call's failure; 0 is no call's.
_INVOCATIONS = itertools.count(1)


def _result_tensor(array, dtype: torch.dtype) -> torch.Tensor:
    """An IREE result as a tensor of the declared `dtype`: IREE gives
    bfloat16 as ml_dtypes' type, an unsigned or boolean result in the
    signless integer type of its width, and the signature carries complex
    as real pairs [..., 2]."""
    if array.dtype.kind == "V" and array.dtype.name == "bfloat16":  # kind first: .name is slow
        return torch.from_numpy(array.view(np.int16)).view(torch.bfloat16)
    t = torch.from_numpy(array)
    if t.dtype is dtype:
        return t
    if dtype.is_complex and not t.is_complex():
        return torch.view_as_complex(t.to(dtype.to_real()).contiguous())
    if t.dtype != dtype and t.element_size() == dtype.itemsize:
        t = t.view(dtype)
    return t


def _iree():
    try:
        import iree.compiler.tools as compiler
        import iree.runtime as runtime
    except ImportError:  # pragma: no cover - optional dependency
        raise ImportError("tosa_custom.iree needs IREE: pip install iree-base-compiler==3.13.0 "
                          "iree-base-runtime==3.13.0") from None
    return compiler, runtime


def wait_flags(wait: str) -> tuple[str, ...]:
    """The compile flags a program waited for by `wait` (WAITS) needs."""
    if wait not in WAITS:
        raise ValueError(f"wait={wait!r}: expected one of {', '.join(map(repr, WAITS))} "
                         f"({'; '.join(f'{k}: {v}' for k, v in WAITS.items())})")
    return (ASYNC_FLAG,) if wait == "poll" else ()


def compile_to_vmfb(text: str, extra: Sequence[str] = ()) -> bytes:
    """IREE's compile of the generic-form module, for the host CPU."""
    compiler, _ = _iree()
    try:
        return compiler.compile_str(text, extra_args=[*COMPILE_FLAGS, *extra])
    except compiler.CompilerToolError as e:
        raise CompileError(f"iree-compile failed:\n{str(e)[-4000:]}", category="runtime-lowering-failed") from None


def make_device(threads: int | None):
    """A CPU device whose loader knows the plugin; `threads` is IREE's worker
    count (1: the caller's thread, local-sync).

    A driver reads the flags (the plugin, the topology) when it is created,
    and `iree.runtime.get_device` reuses the driver cached by whoever asked
    first in the process (a stock-TOSA program, say), which may predate the
    plugin flag: so the driver is made here, after the flags."""
    _, runtime = _iree()
    if not _PLUGIN_FLAG_SET:
        runtime.flags.parse_flags(f"--executable_plugin={_plugin.plugin_path()}")
        _PLUGIN_FLAG_SET.append(True)
    if threads != 1:
        runtime.flags.parse_flags(f"--task_topology_group_count={threads or 0}", WORKER_STACK_FLAG)
    from iree.runtime import _binding  # create_hal_driver: not re-exported by iree.runtime

    return _binding.create_hal_driver("local-sync" if threads == 1 else "local-task").create_default_device()


def dispatch_pipeline(invocation: bool, threads: int | None = 0) -> list[str]:
    """The passes before iree-compile: the TOSA rewrites of the reference
    runtime (runtime/lower/tosa_fixes.py), convolution taps that read only
    padding cut (dead_taps.py), then the dispatch pass for a program
    run by `threads` workers (0: the pass's own default split; None: IREE's
    default worker count)."""
    options = ["invocation=true"] if invocation else []
    if threads != 0:
        options.insert(0, f"workgroups={workgroups_for(threads)}")
    # IREE's TOSA input runs MLIR's tosa-to-linalg, whose wrong lowerings the runtime's rewrites avoid.
    return [*TOSA_FIXES, DROP_PADDING_TAPS, DISPATCH_NATIVE + (f"{{{' '.join(options)}}}" if options else "")]


def _negative_i48(attr: ir.Attribute) -> bool:
    """Some element of an i48 elements attribute is negative (read from its
    text: the Python bindings cannot index i48 elements; a large attribute
    prints as hex, 6 little-endian bytes an element)."""
    literal = str(attr).rsplit(" : ", 1)[0]
    hexed = re.search(r'"0x([0-9A-Fa-f]+)"', literal)
    if hexed is None:
        return re.search(r"-\d", literal) is not None
    data = bytes.fromhex(hexed.group(1))
    return any(data[i + 5] & 0x80 for i in range(0, len(data) - 5, 6))


def refuse_known_miscompiles(module: ir.Module) -> None:
    """Refuse what IREE 3.13 computes wrongly (measured against the TOSA
    reference model), rather than return wrong numbers: a negative entry of
    an i48 constant (the bias of an i16 convolution) is zero-extended, so
    the convolution adds about 2^48 to it. Raises CompileError."""
    for op in _ir.collect_ops(module.operation, lambda o: o.name == "tosa.const"):
        t = ir.RankedTensorType(op.results[0].type)
        if str(t.element_type) == "i48" and _negative_i48(op.attributes["values"]):
            raise CompileError(f"{op.location}: IREE 3.13 zero-extends the negative entries of an i48 constant "
                               "(here an i16 convolution's bias), which gives wrong results: run this program on "
                               "tosa_custom.runtime or tosa_custom.refmodel", category="runtime-lowering-failed")


def build(module: ir.Module, *, invocation: bool = False, threads: int | None = 0, flags: Sequence[str] = (),
          sites: list[BoundSite] | None = None, python: bool = True) -> tuple[list[BoundSite], bytes]:
    """Bind every tosa.custom to its kernel, rewrite it into an IREE
    dispatch, compile: the sites (their kernels prepared) and the vmfb.
    `invocation`: the entry takes a last i64 argument, the call's id;
    `threads`: the workers that will run it (dispatch_pipeline); `flags`:
    more for iree-compile (wait_flags); `sites`: bound and marked already
    (by the cache, cached.py); `python=False`: CompileError naming an op
    only a Python kernel takes (a program for iree-run-module)."""
    with module.context:
        refuse_known_miscompiles(module)
        sites = bind_sites(module) if sites is None else sites
        try:
            if not python:
                refuse_python(s.binding for s in sites)
            run_pipeline(module, dispatch_pipeline(invocation, threads), "the IREE dispatch of native kernels",
                         category="runtime-lowering-failed")
            text = module.operation.get_asm(print_generic_op_form=True, assume_verified=True)
            return sites, compile_to_vmfb(text, flags)
        except BaseException:
            for s in sites:
                s.binding.release()
            raise


def _release(sites: list[BoundSite]) -> None:
    for s in sites:
        _plugin.release_site(s.id)
        s.binding.release()
    free_ids([s.id for s in sites])


class Program:
    """A module compiled by IREE: call it with tensors, get tensors back."""

    def __init__(self, module: ir.Module, entry: str | None = None, *, threads: int | None = None,
                 wait: str = "poll", torch_fallback: bool = True, kernels: str = "all"):
        if threads is not None and threads < 1:
            raise ValueError(f"threads={threads}: expected a positive count, or None for IREE's default")
        if kernels not in KERNEL_SELECTIONS:
            raise ValueError(f"kernels={kernels!r}: expected one of {', '.join(map(repr, KERNEL_SELECTIONS))}")
        self.threads, self.wait = threads, wait
        flags = wait_flags(wait)
        with module.context:
            self._read_signature(module, entry)
        self.cache = VmfbCache(module, {"threads": threads, "flags": flags})  # its digest of the module as given
        self._sites, self.vmfb, meta = self.cache.build(module, self.entry, self._compile,
                                                        torch_fallback=torch_fallback, kernels=kernels)
        self._takes_invocation = meta["takes_invocation"]
        weakref.finalize(self, _release, self._sites)
        self.pipeline = pipeline_text(dispatch_pipeline(True, threads))
        # An IREE VM context is not thread-safe: one call at a time per program.
        self._lock = threading.Lock()
        self._token = None  # the owner of this program's Python kernels (callbacks.running)
        self._workdir = tempfile.TemporaryDirectory(prefix="tosa_custom_iree_")
        _plugin.load_sites(write_sites([s for s in self._sites if not s.python],
                                       Path(self._workdir.name) / "sites.txt"))
        for s in self._sites:
            if s.python:
                # Its owner is a token, not the program: the finalizer's list holds the bindings.
                s.binding.owner = self._token = self._token or object()
                _plugin.add_site(s.id, s.binding)
        _, runtime = _iree()
        self._device = make_device(threads)
        config = runtime.Config(device=self._device)
        self._context = runtime.SystemContext(config=config)
        self._context.add_vm_module(runtime.VmModule.copy_buffer(config.vm_instance, self.vmfb))
        function = self._context.modules.module[self.entry].vm_function
        from iree.runtime import _binding  # VmVariantList, HalBufferView: not all re-exported by iree.runtime

        self._marshal = Marshal(runtime, _binding, self._device, self._context.vm_context, function,
                                len(self.output_specs), PolledWait() if wait == "poll" else None)
        self._device_weights = DeviceWeights(self._marshal, len(self.input_specs), self._weights.count)
        self._weights.attach(self._device_weights, len(self.input_specs))
        self._weights.bind_defaults()

    def _compile(self, module: ir.Module, sites: list[BoundSite]) -> tuple[bytes, dict]:
        """The vmfb of `module`, its `sites` bound and marked, and whether its entry takes the call's id."""
        _, vmfb = build(module, invocation=True, threads=self.threads, flags=wait_flags(self.wait), sites=sites)
        with module.context:  # the entry takes the call's id if it holds a site (the pass added it)
            entry_type = _ir.function_type(_ir.public_functions(module, self.entry)[0])
            return vmfb, {"takes_invocation": len(entry_type.inputs) > self._arity}  # (before IREE adds fences)

    def _read_signature(self, module: ir.Module, entry: str | None) -> None:
        funcs = _ir.public_functions(module, entry)
        if len(funcs) != 1:
            names = [ir.StringAttr(f.attributes["sym_name"]).value for f in funcs]
            raise ValueError(f"expected one public function to run, found {names or 'none'}; pass entry=")
        func = funcs[0]
        self.entry = ir.StringAttr(func.attributes["sym_name"]).value
        ftype = _ir.function_type(func)
        self._arity = len(ftype.inputs)
        self._weights = WeightSlots.prepare(module, func)
        n_inputs = len(ftype.inputs) - self._weights.count
        self.input_specs = [_spec(t, f"input #{i}") for i, t in enumerate(ftype.inputs[:n_inputs])]
        self.output_specs = [_spec(t, f"result #{i}") for i, t in enumerate(ftype.results)]
        _apply_torch_dtypes(func, self.input_specs, self.output_specs)  # uint8 on i8, complex on pairs
        self._input_sizes = [torch.Size(s.shape) for s in self.input_specs]
        self._boundary = Boundary(func, self._weights.manifest.names)

    @property
    def custom_ops(self) -> list[str]:
        return [s.site.operator_name for s in self._sites]

    @property
    def boundary(self) -> list[str]:
        """What a call applies at the boundary (quantize, dequantize: CONTRACT.md §17), as runtime.Program."""
        return self._boundary.applied()

    @property
    def kernels(self) -> list[str]:
        """Which kernel runs each custom op: "native (library: kernel)" or "python (function)"."""
        return [s.description for s in self._sites]

    # --- Weights (CONTRACT.md §10), as runtime.Program ---

    def load_weights(self, weights) -> None:
        self._weights.bind(self._weights.check(weights))

    @property
    def weights_manifest(self):
        return self._weights.manifest

    def state_dict(self) -> dict:
        return self._weights.state_dict()

    def reset_state(self) -> None:
        self._weights.reset(slot for _, slot in self._boundary.state)

    def _check_inputs(self, inputs: Sequence[Any]) -> list[np.ndarray]:
        if len(inputs) != len(self.input_specs):
            raise TypeError(f"{self.entry}() takes {len(self.input_specs)} inputs "
                            f"({', '.join(s.describe() for s in self.input_specs)}), got {len(inputs)}")
        arrays = []
        for i, (x, spec, size) in enumerate(zip(inputs, self.input_specs, self._input_sizes)):
            if type(x) is not torch.Tensor or x.dtype is not spec.dtype or x.shape != size:  # else: as declared
                x = self._input_tensor(i, x, spec)
            arrays.append(host_array(x))
        return arrays

    @staticmethod
    def _input_tensor(i: int, x: Any, spec) -> torch.Tensor:
        """Input #i as a tensor of its declared shape and dtype, or the error."""
        if isinstance(x, np.ndarray):
            x = torch.from_numpy(x)
        elif isinstance(x, (bool, int, float)) and spec.shape == () and type(x) is _SCALAR_TYPES.get(spec.dtype):
            x = torch.tensor(x, dtype=spec.dtype)
        if not isinstance(x, torch.Tensor):
            raise TypeError(f"input #{i} is a {type(x).__name__}; expected a tensor {spec.describe()}")
        if tuple(x.shape) != spec.shape or x.dtype != spec.dtype:
            raise ValueError(f"input #{i} is {list(x.shape)} {str(x.dtype).replace('torch.', '')}; expected "
                             f"{spec.describe()}: shapes and dtypes are fixed at compile time")
        return x

    def __call__(self, *inputs):
        self._boundary.check(inputs)
        if self._token is not None and self._token in running():
            raise KernelError(f"a Python kernel of this program called it again: {self.entry}() runs one call at a "
                              "time, and this call would wait for the one running the kernel forever (on "
                              "tosa_custom.runtime.load a kernel may call its program)")
        with self._lock:
            arrays = self._check_inputs(self._boundary.narrow(inputs))
            if self._weights.count:
                self._weights.require()
            invocation = next(_INVOCATIONS)
            try:
                results = self._marshal.invoke(arrays, self._device_weights,
                                               invocation if self._takes_invocation else None)
            except RuntimeError as e:
                status, message, site = _plugin.take_error(invocation)
                if not status:
                    raise
                failed = [s for s in self._sites if s.id == site]
                cause = failed[0].binding.take_failure() if failed and failed[0].python else None
                raise KernelError(message, op=failed[0].site.operator_name if failed else None) from (cause or e)
            tensors = [_result_tensor(r, spec.dtype) for r, spec in zip(results, self.output_specs)]
            return self._boundary.finish(inputs, tensors, self._weights)


def parse_module(module) -> ir.Module:
    """The module of what load() got (runtime/execute/sources.py: text, a
    path, a `.tosa` flatbuffer, a module)."""
    return parse_source(module)[0]


def load(module, entry: str | None = None, *, threads: int | None = None, weights=None, wait: str = "poll",
         torch_fallback: bool = True, kernels: str = "all") -> Program:
    """A program run by IREE, each tosa.custom by the kernel
    `tosa_custom.runtime.load` would choose (native where one takes it).

    Same calling convention and results as `tosa_custom.runtime.load` (torch
    or numpy inputs, the model's structure, in-place write-back, buffer
    state); the module is consumed. `threads`: IREE's worker threads (None:
    IREE's default, one per core; 1: the caller's thread). An op no native
    kernel takes runs its Python kernel (a user's `register_kernel`, a
    built-in or the generic torch kernel), called back from IREE's workers
    in this process; `torch_fallback` and `kernels` choose as in
    `runtime.load`. `weights=` binds a module whose weights are arguments.
    `wait`: how the caller waits for a call's workers (WAITS; "poll", the
    default, leaves them the cores: calls.PolledWait).
    """
    with collect_new_objects_only():  # core/heap.py: the collector walks what the load allocates
        program = Program(parse_module(module), entry, threads=threads, wait=wait, torch_fallback=torch_fallback,
                          kernels=kernels)
    if weights is not None:
        program.load_weights(weights)
    return program
