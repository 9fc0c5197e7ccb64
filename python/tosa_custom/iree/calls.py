"""One call's marshalling between torch tensors and IREE's VM, without
IREE's generic `FunctionInvoker`.

Why not the invoker: it looks up each argument's conversion by type,
copies every numpy input into a fresh device buffer and wraps each result
in a `DeviceArray` that the caller then copied again; on a small program
that was most of the call (measured: 32 us per call against 9 us for the
VM invocation itself). Here, fixed at load (shapes are static): each
input's and result's element type and shape. Per call:

- an input is imported, not copied (`import_host_allocation`: IREE's local
  devices read host memory in place) when it is a C-contiguous CPU array
  aligned to 64 bytes (what IREE's code generator may assume of a binding);
  anything else is first made so (one copy, as before);
- a result is the mapped IREE buffer itself (`HalBufferView.map`: the
  numpy array keeps the mapping, and with it the buffer, alive), copied
  only when it shares memory with an input, a weight or an earlier result
  (IREE returns an argument's buffer for a function that returns its
  argument), so no result ever aliases memory the caller or the program
  still holds.

How the caller waits (`PolledWait`): the function is compiled with IREE's
async-external execution model (it takes a wait and a signal fence and
returns once the work is queued), and the caller polls the signal
semaphore, sleeping in between, instead of IREE's own wait. Why: IREE
3.13's wait, once woken, spins (a `pause` loop) until the signalling
worker has finished its callback; when the caller wakes on the worker's
core it preempts that worker and spins for up to a scheduler slice. On a
2-core host at 2 threads that was 1.1-1.6 ms of the caller's CPU per call
of the example block (~4.5 ms), taken from the two workers; polling: 0.2-0.4 ms.
"""

from __future__ import annotations

import collections
import time
from typing import Any, Callable, Sequence

import numpy as np
import torch

from ..runtime.execute.memref import borrowed_array

__all__ = ["Marshal", "DeviceWeights", "PolledWait", "host_array", "ALIGNMENT", "ASYNC_FLAG"]

# The compile flag for PolledWait's functions: wait and signal fences last.
ASYNC_FLAG = "--iree-execution-model=async-external"

ALIGNMENT = 64  # bytes: the base alignment IREE's CPU code may assume of a buffer binding


def _span(array: np.ndarray) -> tuple[int, int]:
    start = array.__array_interface__["data"][0]
    return start, start + array.nbytes


class PolledWait:
    """The caller's wait for a call's signal semaphore: it sleeps through
    most of the time the recent calls took (`bulk` of the fastest of the
    last few: a slower call only polls longer, and the fastest bounds the
    sleep, so an overslept call cannot lengthen the next sleeps), then
    polls every `poll` seconds (the OS adds its timer slack, 50 us on
    Linux). A call already done when submitted (local-sync runs it inline)
    returns at once. A failed semaphore raises (RuntimeError, IREE's)."""

    def __init__(self, poll: float = 20e-6, bulk: float = 0.75, history: int = 8,
                 sleep: Callable[[float], None] = time.sleep, clock: Callable[[], float] = time.perf_counter):
        self.poll, self.bulk = poll, bulk
        self._recent: collections.deque = collections.deque(maxlen=history)
        self._sleep, self._clock = sleep, clock

    def __call__(self, semaphore, value: int, started: float) -> None:
        if semaphore.query() >= value:
            return
        if len(self._recent) == self._recent.maxlen:
            rest = self.bulk * min(self._recent) - (self._clock() - started)
            if rest > self.poll:
                self._sleep(rest)
        while semaphore.query() < value:
            self._sleep(self.poll)
        self._recent.append(self._clock() - started)


class Marshal:
    """The argument list and the results of one program's calls."""

    def __init__(self, runtime, binding, device, context, function, n_results: int, wait: PolledWait | None = None):
        """`wait`: the function was compiled with ASYNC_FLAG, and the caller waits so."""
        self._binding, self._device, self._context, self._function = binding, device, context, function
        self._wait = wait
        self._allocator = device.allocator
        self._memory = runtime.MemoryType.DEVICE_LOCAL | runtime.MemoryType.HOST_VISIBLE
        self._usage = runtime.BufferUsage.DEFAULT
        self._to_element = runtime.array_interop.map_dtype_to_element_type
        self._to_dtype = runtime.HalElementType.map_to_dtype
        self._element_types: dict[np.dtype, Any] = {}
        self._n_results = n_results

    def _element_type(self, dtype: np.dtype):
        element = self._element_types.get(dtype)
        if element is None:
            element = self._element_types[dtype] = self._to_element(dtype)
        return element

    def view(self, array: np.ndarray):
        """A buffer view of `array` on the device: its memory imported when
        IREE can read it in place, else a copy IREE owns."""
        element = self._element_type(array.dtype)
        if array.nbytes and array.flags.c_contiguous and array.ctypes.data % ALIGNMENT == 0:
            try:
                buffer = self._allocator.import_host_allocation(array, self._memory, self._usage)
                return self._binding.HalBufferView(buffer, array.shape, element)
            except (RuntimeError, ValueError, TypeError):
                pass  # IREE declined the import (a read-only array, say): copy
        return self._allocator.allocate_buffer_copy(memory_type=self._memory, allowed_usage=self._usage,
                                                    device=self._device, buffer=np.require(array, requirements="C"),
                                                    element_type=element)

    def invoke(self, inputs: Sequence[np.ndarray], weights: "DeviceWeights", invocation: int | None) -> list:
        """Run the function; its results as numpy arrays, none sharing memory
        with `inputs`, the weights or one another."""
        args = self._binding.VmVariantList(len(inputs) + len(weights.views) + 3)
        views = [self.view(a) for a in inputs]  # kept alive until the call returns
        for v in views:
            args.push_ref(v.ref)
        for v in weights.views:
            args.push_ref(v.ref)
        if invocation is not None:
            args.push_int(invocation)
        results = self._binding.VmVariantList(self._n_results)
        if self._wait is None:
            self._context.invoke(self._function, args, results)
        else:
            failure = self._run_polled(args, results)
            if failure is not None:
                # The call's IREE objects go now, not with the error's frames
                # (freed late, after the device, they crash the process at exit).
                del args, results, views
                raise RuntimeError(failure)
        return self._results(results, [_span(a) for a in inputs] + weights.spans)

    def _run_polled(self, args, results) -> str | None:
        """Invoke the async-external function with fences and wait for its
        signal (PolledWait); IREE's failure message, or None."""
        started = time.perf_counter()
        semaphore = self._device.create_semaphore(0)
        args.push_ref(self._binding.HalFence(0).ref)  # nothing to wait for
        args.push_ref(self._binding.HalFence.create_at(semaphore, 1).ref)
        try:
            self._context.invoke(self._function, args, results)
            self._wait(semaphore, 1, started)
        except RuntimeError as e:
            return str(e)
        return None

    def _results(self, results, held: list[tuple[int, int]]) -> list[np.ndarray]:
        arrays = []
        for i in range(len(results)):
            view = results.get_as_object(i, self._binding.HalBufferView)
            # A copy: a result may outlive its program, and unmapping IREE's
            # buffer after the program's device went crashed (README's blocks).
            array = view.map().asarray(view.shape, self._to_dtype(view.element_type)).copy()
            held.append(_span(array))
            arrays.append(array)
        return arrays


class DeviceWeights:
    """The weight arguments as buffer views IREE owns (a copy of each tensor
    `WeightSlots` writes here: load_weights, carried state), and the memory
    each occupies, which no result may share."""

    def __init__(self, marshal: Marshal, offset: int, count: int):
        self._marshal, self._offset = marshal, offset
        self.views: list[Any] = [None] * count
        self.spans: list[tuple[int, int]] = [(0, 0)] * count  # (0, 0) overlaps nothing

    def set(self, index: int, t: torch.Tensor) -> None:
        m = self._marshal
        array = host_array(t)
        view = m._allocator.allocate_buffer_copy(memory_type=m._memory, allowed_usage=m._usage, device=m._device,
                                                 buffer=array, element_type=m._element_type(array.dtype))
        self.views[index - self._offset] = view
        self.spans[index - self._offset] = _span(view.map().asarray(view.shape, m._to_dtype(view.element_type)))


def host_array(t: torch.Tensor) -> np.ndarray:
    """A C-contiguous numpy view or copy of `t` as the TOSA signature
    carries it (uint8 as i8, complex as real pairs: CONTRACT.md 3.5),
    keeping its rank (np.ascontiguousarray makes a 0-d array 1-d, which IREE
    refuses); bfloat16, which numpy lacks, as ml_dtypes' (IREE's own).
    A view borrows the tensor's memory without `Tensor.numpy()`, which
    would leave the user's tensor unresizable (runtime.execute.memref.borrowed_array)."""
    if type(t) is torch.Tensor and t.dtype in _NUMPY_DTYPES and not t.requires_grad and t.device.type == "cpu" \
            and t.is_contiguous():
        return borrowed_array(t)
    t = t.detach().cpu()
    if t.is_complex():
        t = torch.view_as_real(t)
    if t.dtype == torch.uint8:
        t = t.view(torch.int8)
    if t.dtype == torch.bfloat16:
        import ml_dtypes  # IREE's runtime depends on it

        return borrowed_array(t.view(torch.int16).contiguous()).view(ml_dtypes.bfloat16)
    return borrowed_array(t.contiguous())


_NUMPY_DTYPES = frozenset({torch.float32, torch.float64, torch.float16, torch.int8, torch.int16, torch.int32,
                           torch.int64, torch.bool})
