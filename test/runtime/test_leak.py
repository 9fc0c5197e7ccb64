"""10,000 calls and memory stays flat.

The call path keeps state from call to call (packed descriptors, cached torch
views of the buffers the compiled code hands the kernels) and the compiled
code allocates and frees its intermediates every call, so a leak would grow
with the number of calls. Memory is read after a warm-up and after each of
five chunks of 2,000 calls; the growth from the end of the first chunk to the
end of the last (8,000 calls) must stay under a bound, for each of:

- resident memory (/proc/self/statm): under 256 KiB;
- bytes in use from malloc (glibc `mallinfo2`: the compiled code's buffers,
  torch tensors, ctypes): under 128 KiB, 16 bytes per call;
- Python's allocated blocks (`sys.getallocatedblocks`: objects kept alive):
  under 1,000, one per 8 calls.

Resident memory alone can miss a leak: pages freed earlier in the process are
still resident and a small leak refills them first. The two heap counters
cannot: a leak of 100 bytes per call moves one of them by ~800 KiB or 8,000
blocks, and the last tests show both catch one (in Python, and in malloc).
"""

from __future__ import annotations

import ctypes
import gc
import os
import sys

import pytest
import torch
from _tolerance import reduction_tolerance

import tosa_custom
from tosa_custom import runtime
from tosa_custom.tools.example import KEPT_OPS, TransformerBlock

CHUNKS, PER_CHUNK, WARMUP = 5, 2_000, 500  # 10,000 measured calls
BOUNDS = {"rss": 256 * 1024, "malloc": 128 * 1024, "python blocks": 1_000}

pytestmark = pytest.mark.skipif(not os.path.exists("/proc/self/statm"), reason="needs /proc/self/statm")


class _MallInfo2(ctypes.Structure):
    _fields_ = [(name, ctypes.c_size_t) for name in (
        "arena", "ordblks", "smblks", "hblks", "hblkhd", "usmblks", "fsmblks", "uordblks", "fordblks", "keepcost")]


_libc = ctypes.CDLL(None)
_mallinfo2 = getattr(_libc, "mallinfo2", None)  # glibc >= 2.33
if _mallinfo2 is not None:
    _mallinfo2.restype = _MallInfo2
_libc.malloc.restype = ctypes.c_void_p
_libc.malloc.argtypes = [ctypes.c_size_t]


def _usage() -> dict[str, int]:
    with open("/proc/self/statm") as f:
        usage = {"rss": int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")}
    if _mallinfo2 is not None:
        info = _mallinfo2()
        usage["malloc"] = info.uordblks + info.hblkhd  # in use: from the heap, and mmapped
    usage["python blocks"] = sys.getallocatedblocks()
    return usage


def _growth(call) -> tuple[dict[str, int], list[dict[str, int]]]:
    """How much each counter grew over the last CHUNKS - 1 chunks, and every reading."""
    for _ in range(WARMUP):
        call()
    gc.collect()
    readings = [_usage()]
    for _ in range(CHUNKS):
        for _ in range(PER_CHUNK):
            call()
        gc.collect()
        readings.append(_usage())
    return {k: readings[-1][k] - readings[1][k] for k in readings[0]}, readings


def _assert_flat(call) -> None:
    growth, readings = _growth(call)
    calls = (CHUNKS - 1) * PER_CHUNK
    over = {k: v for k, v in growth.items() if v >= BOUNDS[k]}
    assert not over, (
        f"memory grew over {calls} calls: {over} (bounds {BOUNDS}); "
        f"per call: { {k: round(v / calls, 1) for k, v in over.items()} }; readings: {readings}")


@pytest.fixture(scope="module")
def block():
    torch.manual_seed(0)
    return TransformerBlock().eval(), torch.randn(2, 8, 32)


def test_block_with_kept_ops(block):
    """Callbacks into the built-in kernels: views, KernelCall, results copied back."""
    model, x = block
    program = runtime.load(tosa_custom.compile(model, (x,), backend_legal_ops=KEPT_OPS))
    with torch.no_grad():
        expected = model(x)
    torch.testing.assert_close(program(x), expected, **reduction_tolerance(4 * 32))
    _assert_flat(lambda: program(x))


def test_block_compiled(block):
    """No custom op: tiled, vectorized code allocating and freeing its intermediates."""
    model, x = block
    program = runtime.load(tosa_custom.compile(model, (x,)))
    _assert_flat(lambda: program(x))


_TWO_OPS = """
func.func @f(%a: tensor<16xf32>) -> tensor<16xf32> {
  %0 = tosa.custom %a {domain_name = "leak_test", implementation_attrs = "", operator_name = "FIRST"} : (tensor<16xf32>) -> tensor<16xf32>
  %1 = tosa.custom %0 {domain_name = "leak_test", implementation_attrs = "", operator_name = "SECOND"} : (tensor<16xf32>) -> tensor<16xf32>
  return %1 : tensor<16xf32>
}"""


def _two_ops(first: str, second: str) -> str:
    return _TWO_OPS.replace("FIRST", first).replace("SECOND", second)


@runtime.register_kernel("returns", domain_name="leak_test")
def _returns(call):  # a fresh tensor each call, copied into the output by the runtime
    return call.inputs[0] * 2.0


@runtime.register_kernel("in_place", domain_name="leak_test")
def _in_place(call):
    torch.neg(call.inputs[0], out=call.outputs[0])


_LEAKED: list = []


@runtime.register_kernel("leaks", domain_name="leak_test")
def _leaks(call):  # keeps 100 bytes per call alive: what the check must catch
    _LEAKED.append(bytes(67))  # 67 + 33 bytes of header
    torch.neg(call.inputs[0], out=call.outputs[0])


def test_custom_calls_on_fresh_inputs_and_outputs():
    """New input and output tensors every call: the view cache must not grow or pin them."""
    program = runtime.load(_two_ops("returns", "in_place"))
    x = torch.arange(16, dtype=torch.float32)
    torch.testing.assert_close(program(x), -2.0 * x)
    _assert_flat(lambda: program(x.clone()))


def test_kernel_failures():
    """A failing kernel's exception (and its traceback) is released once raised."""
    text = _two_ops("in_place", "fails")

    @runtime.register_kernel("fails", domain_name="leak_test")
    def fails(call):
        raise ValueError("no")

    program = runtime.load(text)
    x = torch.ones(16)

    def call():
        try:
            program(x)
        except runtime.KernelError:
            pass
        else:  # pragma: no cover
            raise AssertionError("the kernel's error was lost")

    _assert_flat(call)


def test_the_check_catches_a_100_byte_python_leak():
    program = runtime.load(_two_ops("in_place", "leaks"))
    x = torch.ones(16)
    try:
        growth, readings = _growth(lambda: program(x))
    finally:
        _LEAKED.clear()
    assert growth["python blocks"] >= BOUNDS["python blocks"], f"leak went unnoticed: {growth}"


@pytest.mark.skipif(_mallinfo2 is None, reason="needs glibc's mallinfo2")
def test_the_check_catches_a_100_byte_malloc_leak():
    @runtime.register_kernel("mallocs", domain_name="leak_test")
    def mallocs(call):  # 100 bytes from malloc, never freed (as compiled code missing a dealloc would)
        _libc.malloc(100)
        torch.neg(call.inputs[0], out=call.outputs[0])

    program = runtime.load(_two_ops("in_place", "mallocs"))
    x = torch.ones(16)
    growth, readings = _growth(lambda: program(x))
    assert growth["malloc"] >= BOUNDS["malloc"], f"leak went unnoticed: {growth}"
