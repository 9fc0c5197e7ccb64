"""Kernel ABI version 2 (CONTRACT.md 11.1, 11.6): the built-in kernels declare
their parallel dims at prepare, take sizes from each call's memrefs (dims
unknown at prepare are TCK_DYNAMIC), run re-entrantly on disjoint slices
from several threads, and a library built for version 1 still loads and
runs whole."""

from __future__ import annotations

import ctypes
import threading
from pathlib import Path

import pytest
import torch

from tosa_custom import runtime
from tosa_custom.contract.encoding import Operand
from tosa_custom.runtime.kernels import native
from tosa_custom.runtime.lower.outline import CustomCallSite

F = torch.nn.functional
_RUN = ctypes.CFUNCTYPE(ctypes.c_int32, ctypes.POINTER(native.Call), ctypes.c_void_p, ctypes.c_void_p)
# f32 sums accumulate in double; the polynomials are within a few ulp: 1e-5 relative covers both.
RTOL = ATOL = 1e-5


class _Decoded:
    """The decoded ATen arguments `bind` reads (a DecodedCall's `arguments`)."""

    def __init__(self, arguments: dict):
        self.arguments = arguments


def _site(op: str, in_shapes, out_shapes) -> CustomCallSite:
    return CustomCallSite(index=0, symbol="s", operator_name=op, domain_name="torch_mlir",
                          implementation_attrs="", input_types=("f32",) * len(in_shapes),
                          input_shapes=tuple(map(tuple, in_shapes)), output_types=("f32",) * len(out_shapes),
                          output_shapes=tuple(map(tuple, out_shapes)), location="loc(test)", const_inputs=())


def _bind(op, in_shapes, out_shapes, arguments: dict) -> native.NativeBinding:
    def error(message):
        return RuntimeError(message)

    binding = native.bind(_site(op, in_shapes, out_shapes), _Decoded(arguments), native.ProgramStatus(), error)
    assert binding is not None and binding.library == native.builtin_library()
    return binding


def _descriptor(t: torch.Tensor):
    rank = t.dim()
    words = (ctypes.c_int64 * (3 + 2 * rank))()
    base = t.data_ptr() - t.storage_offset() * t.element_size()
    words[0] = words[1] = base
    words[2] = t.storage_offset()
    for i in range(rank):
        words[3 + i], words[3 + rank + i] = t.shape[i], t.stride(i)
    return words


def _run(binding: native.NativeBinding, inputs, outputs) -> int:
    """Call the kernel's run on these tensors (views: slices, strided) with a
    call of its own (its error buffer too), as the IREE plugin does."""
    call = native.Call.from_buffer_copy(binding.struct.call)
    error = ctypes.create_string_buffer(1024)
    call.error = ctypes.addressof(error)
    keep = [_descriptor(t) for t in list(inputs) + list(outputs)]
    pointers = (ctypes.c_void_p * len(keep))(*[ctypes.addressof(d) for d in keep])
    n_in = len(inputs)
    return _RUN(binding.kernel.run)(ctypes.byref(call), ctypes.addressof(pointers),
                                    ctypes.addressof(pointers) + n_in * ctypes.sizeof(ctypes.c_void_p))


@pytest.mark.parametrize("op, shapes, arguments, split", [
    ("torch.aten.layer_norm", ([2, 4, 16], [16], [16]),
     dict(input=Operand(0), normalized_shape=[16], weight=Operand(1), bias=Operand(2), eps=1e-5,
          cudnn_enable=False), (2, ((0, 1), (-1, -1), (-1, -1), (0, 1)))),
    ("torch.aten.layer_norm", ([2, 4, 16], [4, 16], [4, 16]),
     dict(input=Operand(0), normalized_shape=[4, 16], weight=Operand(1), bias=Operand(2), eps=1e-5,
          cudnn_enable=False), (1, ((0,), (-1,), (-1,), (0,)))),
    ("torch.aten.rms_norm", ([3, 8], [8]), dict(input=Operand(0), normalized_shape=[8], weight=Operand(1),
                                               eps=None), (1, ((0,), (-1,), (0,)))),
    ("torch.aten.softmax.int", ([2, 3, 8],), dict(self=Operand(0), dim=-1, dtype=None),
     (2, ((0, 1), (0, 1)))),
    ("torch.aten.softmax.int", ([2, 3, 8],), dict(self=Operand(0), dim=1, dtype=None), (1, ((0,), (0,)))),
    ("torch.aten._log_softmax", ([5, 8],), dict(self=Operand(0), dim=0, half_to_float=False), (0, ((), ()))),
    ("torch.aten.gelu", ([2, 3, 4, 5],), dict(self=Operand(0), approximate="none"),
     (3, ((0, 1, 2), (0, 1, 2)))),
    ("torch.aten.silu", ([7],), dict(self=Operand(0)), (1, ((0,), (0,)))),
])
def test_builtin_kernels_declare_their_parallel_dims(op, shapes, arguments, split):
    binding = _bind(op, shapes, [shapes[0]], arguments)
    assert (binding.split.parallel, binding.split.dims) == split
    assert binding.struct.call.abi_version == 2
    binding.release()


_LN = dict(input=Operand(0), normalized_shape=[64], weight=Operand(1), bias=Operand(2), eps=1e-5,
           cudnn_enable=False)


def test_dynamic_dims_at_prepare_sizes_from_each_call():
    """Prepared with the leading dims unknown (-1), the kernel runs at any size."""
    binding = _bind("torch.aten.layer_norm", [[-1, -1, 64], [64], [64]], [[-1, -1, 64]], _LN)
    assert binding.split.parallel == 2
    torch.manual_seed(0)
    w, b = torch.randn(64), torch.randn(64)
    for shape in [(1, 1, 64), (3, 5, 64), (2, 17, 64)]:
        x = torch.randn(shape) * 3
        y = torch.full(shape, float("nan"))
        assert _run(binding, [x, w, b], [y]) == native.OK
        torch.testing.assert_close(y, F.layer_norm(x, (64,), w, b, 1e-5), rtol=RTOL, atol=ATOL)
    binding.release()


@pytest.mark.parametrize("op, arguments, eager", [
    ("torch.aten.layer_norm", _LN, None),
    ("torch.aten.softmax.int", dict(self=Operand(0), dim=-1, dtype=None), lambda x: F.softmax(x, -1)),
    ("torch.aten.gelu", dict(self=Operand(0), approximate="tanh"), lambda x: F.gelu(x, approximate="tanh")),
])
def test_disjoint_slices_from_several_threads(op, arguments, eager):
    """Slices along the declared parallel dims, run concurrently (ctypes drops
    the GIL), write exactly the whole op's result: run shares no scratch.
    Rows of 5000 elements need heap scratch (more than the stack's), and the
    input is transposed, so every row is gathered."""
    n = 5000
    torch.manual_seed(1)
    x = torch.randn(n, 6, 8).permute(1, 2, 0)  # [6, 8, n], strided
    inputs = [x]
    if op == "torch.aten.layer_norm":
        arguments = dict(arguments, normalized_shape=[n])
        inputs += [torch.randn(n), torch.randn(n)]
        expected = F.layer_norm(x, (n,), inputs[1], inputs[2], 1e-5)
    else:
        expected = eager(x)
    binding = _bind(op, [list(t.shape) for t in inputs], [[6, 8, n]], arguments)
    assert binding.split.parallel >= 2
    y = torch.full((6, 8, n), float("nan"))
    statuses = []

    def work(i, j):
        for _ in range(3):  # repeated: a race would show up as a wrong row
            part = [t[i:i + 2, j:j + 4] if t.dim() == 3 else t for t in inputs]
            statuses.append(_run(binding, part, [y[i:i + 2, j:j + 4]]))

    threads = [threading.Thread(target=work, args=(i, j)) for i in range(0, 6, 2) for j in range(0, 8, 4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert statuses == [native.OK] * 18
    torch.testing.assert_close(y, expected, rtol=RTOL, atol=ATOL)
    binding.release()


_V1_LIBRARY = r"""
#include "tosa_custom_kernel.h"
/* Built as version 1 was: exports version 1, reads nothing past error_capacity. */
static int32_t prepare(tck_call *call) {
    if (call->abi_version != 1) return tck_fail(call, TCK_ERROR, "expected a version-1 call, got %u", call->abi_version);
    return TCK_OK;
}
static int32_t run(const tck_call *call, tck_memref *const *in, tck_memref *const *out) {
    int64_t n = tck_numel(&call->inputs[0]);
    const float *x = tck_data_f32(in[0]);
    float *y = tck_data_f32(out[0]);
    for (int64_t i = 0; i < n; ++i) y[i] = x[i] > 0 ? 2 * x[i] : 0;
    return TCK_OK;
}
static const tck_kernel table[] = {{"old", "twice_relu", TCK_F32, prepare, run, NULL, "version 1"}};
TCK_EXPORT uint32_t tosa_custom_kernel_abi_version(void) { return 1; }
TCK_EXPORT const tck_kernel *tosa_custom_kernel_lookup(const char *d, const char *o, int32_t t) {
    return strcmp(d, "old") == 0 && strcmp(o, "twice_relu") == 0 && t == TCK_F32 ? &table[0] : NULL;
}
"""


def test_a_version_1_library_still_loads_and_runs_whole(tmp_path):
    src = tmp_path / "old.c"
    src.write_text(_V1_LIBRARY)
    library = runtime.load_kernel_library(native.compile_kernel_library([src], tmp_path / "libold.so"))
    try:
        assert library.version == 1
        module = """
func.func @f(%a: tensor<2x3xf32>) -> tensor<2x3xf32> {
  %0 = tosa.custom %a {domain_name = "old", implementation_attrs = "", operator_name = "twice_relu"} : (tensor<2x3xf32>) -> tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}"""
        program = runtime.load(module)
        assert program.kernels == ["native (libold.so: version 1)"]
        assert program._native_bindings[0].split is None  # no split declared: runs whole
        x = torch.randn(2, 3)
        torch.testing.assert_close(program(x), 2 * x.relu())
    finally:
        native.unload_kernel_library(library)
