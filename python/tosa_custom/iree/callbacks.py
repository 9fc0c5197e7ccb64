"""A tosa.custom that has only a Python kernel, run by IREE in this process:
the plugin calls it through a ctypes callback with the native kernel's C
signature (`tck_run_fn`, CONTRACT.md §11), registered by
`tck_iree_add_site` (lib/iree_plugin.c).

The kernel is the one the reference runtime would choose (a user's
`register_kernel`, a built-in, the generic torch kernel:
`runtime.kernels.registry.find_kernel`), given the same `KernelCall`
(zero-copy views of IREE's buffers, `runtime.execute.memref.ViewCache`;
carried dtypes as `contract.encoding.carried_view`) and its returned
results checked and stored as the runtime does
(`runtime.execute.program.store_results`).

Threads: a ctypes callback takes the GIL on whichever thread calls it, so
IREE's workers may call it; that cannot deadlock because no caller holds
the GIL while it waits for IREE's workers (IREE's `invoke` releases it, and
the polled wait sleeps: program.py). A kernel's exception is never let
into IREE: its text goes through the ABI's error path (the plugin keeps it
per call and the program raises KernelError naming the op), the exception
itself is kept (`take_failure`) to be the KernelError's cause.

Such a site cannot be written to a sites file: iree-run-module has no
Python (`refuse_python`).
"""

from __future__ import annotations

import ctypes
import threading

import torch

from ..contract.encoding import DecodedCall, carried_view
from ..core.diagnostics import CompileError
from ..runtime.execute.memref import MLIR_TO_TORCH, ViewCache
from ..runtime.execute.program import store_results
from ..runtime.kernels import native
from ..runtime.kernels.registry import Kernel, KernelCall
from ..runtime.lower.outline import CustomCallSite

__all__ = ["PythonBinding", "check_at_load", "python_binding", "refuse_python", "running", "RUN_FN"]

# tck_run_fn: int32_t (*)(const tck_call *, tck_memref *const *inputs, tck_memref *const *outputs)
RUN_FN = ctypes.CFUNCTYPE(ctypes.c_int32, ctypes.POINTER(native.Call), ctypes.POINTER(ctypes.c_void_p),
                          ctypes.POINTER(ctypes.c_void_p))


# Per thread: the programs whose Python kernel this thread is running (innermost last).
_RUNNING = threading.local()


def running() -> list:
    """The `owner`s of the Python kernels this thread is inside: a program
    among them is waiting for this thread, so calling it again would deadlock."""
    return getattr(_RUNNING, "owners", [])


def _describe(kernel: Kernel) -> str:
    return f"{getattr(kernel, '__module__', '?')}.{getattr(kernel, '__qualname__', kernel)}"


class PythonBinding:
    """One op bound to its Python kernel: the C structs the plugin reads
    (kept alive here until the site is released) and the callback."""

    split = None  # a Python kernel runs whole: one call per op
    library = None
    owner = None  # the program that runs it (set by the program: `running`)

    def __init__(self, site: CustomCallSite, decoded: DecodedCall | None, kernel: Kernel):
        self.site, self.decoded, self.kernel = site, decoded, kernel
        self.description = f"python ({_describe(kernel)})"
        self._nin = len(site.input_types)
        specs = list(zip(site.input_shapes + site.output_shapes, site.input_types + site.output_types))
        self._views = [ViewCache(shape, MLIR_TO_TORCH[t]) for shape, t in specs]
        self._carried = []
        if decoded is not None:
            self._carried = list(decoded.operand_dtypes.items()) + [
                (self._nin + i, d) for i, d in decoded.result_dtypes.items()]
        # The exception behind the latest failed call (a program's calls take turns).
        self._failure: BaseException | None = None
        self._keep: list = []
        self.call = self._call_struct()
        self.run = RUN_FN(self._run)
        first = self.call.inputs[0] if self._nin else self.call.outputs[0]
        self.struct = native.Kernel(site.domain_name.encode(), site.operator_name.encode(), first.element_type, None,
                                    ctypes.cast(self.run, ctypes.c_void_p), None, _describe(kernel).encode())

    def _call_struct(self) -> native.Call:
        c = native.Call()
        native.describe_call(c, self.site, self.site.input_types, self._keep)
        return c

    def _run(self, call, inputs, outputs) -> int:
        """The plugin's call: never raises (an exception must not unwind into IREE)."""
        try:
            nin = self._nin
            addresses = [inputs[i] for i in range(nin)] + [outputs[i] for i in range(len(self._views) - nin)]
            views = [view(a) for view, a in zip(self._views, addresses)]
            for i, dtype in self._carried:  # uint8, complex and int64 travel as other tensors
                views[i] = carried_view(views[i], dtype)
            ins, outs = views[:nin], views[nin:]
            owners = _RUNNING.__dict__.setdefault("owners", [])
            owners.append(self.owner)
            try:
                with torch.no_grad():
                    result = self.kernel(KernelCall(self.decoded, ins, outs, self.site.implementation_attrs))
                    if result is not None:
                        store_results(result, outs, self.decoded, self.site.unused_results)
            finally:
                owners.pop()
            return native.OK
        except BaseException as e:  # noqa: BLE001 - reported through the ABI's error path
            self._failure = e
            message = f"{type(e).__name__}: {e}".encode(errors="replace")[:max(call[0].error_capacity - 1, 0)]
            if call[0].error and call[0].error_capacity:
                ctypes.memmove(call[0].error, message + b"\0", len(message) + 1)
            return native.ERROR

    def take_failure(self) -> BaseException | None:
        """The exception of this site's latest failed call, forgotten once taken."""
        failure, self._failure = self._failure, None
        return failure

    def release(self) -> None:
        self._views = []


def python_binding(site: CustomCallSite, decoded: DecodedCall | None, kernel: Kernel) -> PythonBinding:
    """`site` bound to its Python `kernel`; CompileError "no-kernel" for an
    element type the C ABI cannot carry."""
    types = list(site.input_types) + list(site.output_types)
    bad = [t for t in types if t not in native.ELEMENT_TYPES or t not in MLIR_TO_TORCH]
    if bad:
        raise CompileError(f"{site.location}: {site.domain_name}::{site.operator_name}: its Python kernel cannot be "
                           f"called from IREE with {', '.join(sorted(set(bad)))} operands: run this program on the "
                           "reference runtime (tosa_custom.runtime.load)", category="no-kernel",
                           ops=[site.operator_name])
    return PythonBinding(site, decoded, kernel)


def check_at_load(site: CustomCallSite, decoded: DecodedCall | None, kernel: Kernel) -> None:
    """Run a result-less check whose verdict depends only on its operands'
    static types (sites.METADATA_CHECKS) once, on zeros of those types:
    CompileError "kernel-error" naming the op if it fails, as every call would."""
    inputs = [torch.zeros(shape, dtype=MLIR_TO_TORCH[t]) for shape, t in zip(site.input_shapes, site.input_types)]
    for i, dtype in (decoded.operand_dtypes.items() if decoded is not None else ()):
        inputs[i] = carried_view(inputs[i], dtype)
    try:
        kernel(KernelCall(decoded, inputs, [], site.implementation_attrs))
    except Exception as e:  # noqa: BLE001 - the check's verdict, raised as the load's
        raise CompileError(f"{site.location}: {site.domain_name}::{site.operator_name} fails on every call, checked "
                           f"at load: {type(e).__name__}: {e}", category="kernel-error",
                           ops=[site.operator_name]) from e


def refuse_python(bindings) -> None:
    """CompileError naming the first op bound to a Python kernel: a sites
    file (iree-run-module's process) cannot carry one."""
    for b in bindings:
        if isinstance(b, PythonBinding):
            s = b.site
            raise CompileError(
                f"{s.location}: {s.domain_name}::{s.operator_name} runs by its Python kernel ({b.description}), "
                "which iree-run-module cannot call (a sites file names native kernels only): load it in-process "
                "(tosa_custom.iree.load), run it on the reference runtime, or load a native kernel library for it "
                "(tosa_custom.runtime.load_kernel_library)", category="no-kernel", ops=[s.operator_name])
