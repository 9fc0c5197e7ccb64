"""Every built-in native kernel (lib/kernels.c), prepared once for a call
site whose dims are known only at run time (CustomCallSite shapes hold None,
TCK_DYNAMIC at prepare), then run through the runtime's C trampoline, as the
compiled code calls it, at sizes 1, small, odd and large (rows longer than
the kernels' stack scratch), contiguous and strided, against eager PyTorch.
And what a call refuses when its sizes break what prepare could not check.

Tolerance: reductions (norms, softmax) by `reduction_tolerance` of the row
length (the kernels accumulate in double, eager in float32); elementwise ops
1e-5 relative (the polynomials' few ulp) plus 1e-6 of the input's scale.
"""

from __future__ import annotations

import ctypes

import pytest
import torch
from _tolerance import reduction_tolerance

from tosa_custom.contract.encoding import Operand
from tosa_custom.runtime.kernels import native
from tosa_custom.runtime.execute.memref import descriptor_for
from tosa_custom.runtime.lower.outline import CustomCallSite

F = torch.nn.functional
# Leading sizes x row length: 1, small, odd, large (a strided row of 4099
# floats needs heap scratch: the kernels keep 4096 floats on the stack).
SIZES = [(1, 1), (3, 5), (7, 33), (2, 4099)]


class _Decoded:
    def __init__(self, arguments: dict):
        self.arguments = arguments


def _site(op: str, in_shapes, out_shapes) -> CustomCallSite:
    return CustomCallSite(index=0, symbol="k", operator_name=op, domain_name="torch_mlir", implementation_attrs="",
                          input_types=("f32",) * len(in_shapes), input_shapes=tuple(map(tuple, in_shapes)),
                          output_types=("f32",) * len(out_shapes), output_shapes=tuple(map(tuple, out_shapes)),
                          location="loc(test)", const_inputs=(None,) * len(in_shapes))


def _bind(op, in_shapes, out_shapes, arguments) -> native.NativeBinding:
    binding = native.bind(_site(op, in_shapes, out_shapes), _Decoded(arguments), native.ProgramStatus(),
                          RuntimeError)
    assert binding is not None and binding.library == native.builtin_library(), f"{op} has no native kernel"
    return binding


def _call(binding: native.NativeBinding, inputs, outputs) -> int:
    """One call through the trampoline (the compiled code's path); the status."""
    binding.struct.program.contents.status = native.OK
    descriptors = [descriptor_for(t) for t in list(inputs) + list(outputs)]
    trampoline = ctypes.CFUNCTYPE(None, ctypes.c_void_p, *[ctypes.c_void_p] * len(descriptors))(binding.trampoline)
    trampoline(binding.address, *[ctypes.addressof(d) for d in descriptors])
    return binding.struct.program.contents.status


def _layouts(shape, seed):
    """The same values contiguous and as a transposed (strided) view."""
    g = torch.Generator().manual_seed(seed)
    x = torch.randn(shape, generator=g) * 3
    yield x
    yield x.transpose(-1, -2).contiguous().transpose(-1, -2) if x.dim() >= 2 else x[::1]


def _run_at_every_size(binding, make_inputs, eager, shape_of, tolerance):
    for sizes in SIZES:
        for x in _layouts(shape_of(sizes), seed=sum(sizes)):
            inputs = make_inputs(x)
            out = torch.full(x.shape, float("nan"))
            assert _call(binding, inputs, [out]) == native.OK, binding.error_message
            torch.testing.assert_close(out, eager(*inputs), **tolerance(sizes[-1]), equal_nan=True)
    binding.release()


def _reduction(n):
    return reduction_tolerance(n, magnitude=1.0)


def _elementwise(n):
    return {"rtol": 1e-5, "atol": 3e-6}


@pytest.mark.parametrize("op, eager, extra", [
    ("torch.aten.softmax.int", lambda x: torch.softmax(x, -1), {"dim": -1, "dtype": None}),
    ("torch.aten._softmax", lambda x: torch.softmax(x, -1), {"dim": -1, "half_to_float": False}),
    ("torch.aten.log_softmax.int", lambda x: torch.log_softmax(x, -1), {"dim": -1, "dtype": None}),
    ("torch.aten._log_softmax", lambda x: torch.log_softmax(x, -1), {"dim": -1, "half_to_float": False}),
], ids=["softmax.int", "_softmax", "log_softmax.int", "_log_softmax"])
def test_softmax_family_at_every_size(op, eager, extra):
    binding = _bind(op, [(None, None, None)], [(None, None, None)], {"self": Operand(0), **extra})
    assert binding.split.parallel == 2  # the dims before the softmax dim, whatever their size
    _run_at_every_size(binding, lambda x: [x], eager, lambda s: (2, s[0], s[1]), _reduction)


def test_softmax_over_a_dynamic_middle_dim():
    binding = _bind("torch.aten.softmax.int", [(None, None, 4)], [(None, None, 4)],
                    {"self": Operand(0), "dim": 1, "dtype": None})
    _run_at_every_size(binding, lambda x: [x], lambda x: torch.softmax(x, 1), lambda s: (s[0], s[1], 4), _reduction)


@pytest.mark.parametrize("op, eager, extra", [
    ("torch.aten.gelu", F.gelu, {"approximate": "none"}),
    ("torch.aten.gelu", lambda x: F.gelu(x, approximate="tanh"), {"approximate": "tanh"}),
    ("torch.aten.silu", F.silu, {}),
], ids=["gelu-erf", "gelu-tanh", "silu"])
def test_activations_at_every_size(op, eager, extra):
    binding = _bind(op, [(None, None)], [(None, None)], {"self": Operand(0), **extra})
    _run_at_every_size(binding, lambda x: [x], eager, lambda s: s, _elementwise)


@pytest.mark.parametrize("affine", ["none", "weight", "both"])
def test_layer_norm_at_every_leading_size(affine):
    """normalized_shape [64]; the leading dims dynamic."""
    g = torch.Generator().manual_seed(5)
    w, b = torch.randn(64, generator=g), torch.randn(64, generator=g)
    params = {"none": [], "weight": [w], "both": [w, b]}[affine]
    arguments = {"input": Operand(0), "normalized_shape": [64], "weight": Operand(1) if params else None,
                 "bias": Operand(2) if len(params) == 2 else None, "eps": 1e-5, "cudnn_enable": False}
    binding = _bind("torch.aten.layer_norm", [(None, None, 64)] + [(64,)] * len(params), [(None, None, 64)],
                    arguments)

    def eager(x, *p):
        return F.layer_norm(x, (64,), *(p + (None,) * (2 - len(p))), 1e-5)

    _run_at_every_size(binding, lambda x: [x] + params, eager, lambda s: (s[0], s[1] % 9 + 1, 64),
                       lambda n: _reduction(64))


@pytest.mark.parametrize("n", [1, 5, 33, 4099])
def test_norms_with_the_normalized_dim_dynamic(n):
    """Every dim dynamic at prepare, weight too: the normalized size is
    normalized_shape's, checked in each call (below), rows of any length work."""
    g = torch.Generator().manual_seed(n)
    w, b = torch.randn(n, generator=g), torch.randn(n, generator=g)
    ln = _bind("torch.aten.layer_norm", [(None, None), (None,), (None,)], [(None, None)],
               {"input": Operand(0), "normalized_shape": [n], "weight": Operand(1), "bias": Operand(2), "eps": 1e-5,
                "cudnn_enable": False})
    rms = _bind("torch.aten.rms_norm", [(None, None), (None,)], [(None, None)],
                {"input": Operand(0), "normalized_shape": [n], "weight": Operand(1), "eps": None})
    for rows in (1, 3, 17):
        for x in _layouts((rows, n), seed=rows):
            out = torch.full(x.shape, float("nan"))
            assert _call(ln, [x, w, b], [out]) == native.OK, ln.error_message
            torch.testing.assert_close(out, F.layer_norm(x, (n,), w, b, 1e-5), **_reduction(n))
            assert _call(rms, [x, w], [out]) == native.OK, rms.error_message
            torch.testing.assert_close(out, F.rms_norm(x, (n,), w), **_reduction(n))
    ln.release()
    rms.release()


def test_a_call_whose_sizes_break_normalized_shape_is_refused_and_its_output_zeroed():
    """The dims prepare saw as dynamic are checked per call: an input row (or a
    weight) of another length than normalized_shape fails with a message, and
    the failed call's output, a slice of a bigger buffer, is zeroed exactly
    (its sizes and strides, not a size fixed at load)."""
    binding = _bind("torch.aten.layer_norm", [(None, None), (None,)], [(None, None)],
                    {"input": Operand(0), "normalized_shape": [8], "weight": Operand(1), "bias": None, "eps": 1e-5,
                     "cudnn_enable": False})
    buffer = torch.full((5, 12), float("nan"))
    out = buffer[1:4, 2:9]  # [3, 7], strided
    assert _call(binding, [torch.randn(3, 7), torch.randn(7)], [out]) == native.INVALID_ARGUMENT
    assert binding.error_message == "torch.aten.layer_norm: normalized_shape[0] is 8, but the input has 7 there"
    assert torch.equal(out, torch.zeros(3, 7))
    outside = buffer.clone()
    outside[1:4, 2:9] = 0.0
    assert outside.isnan().sum() == 5 * 12 - 3 * 7  # nothing outside the slice written
    assert _call(binding, [torch.randn(3, 8), torch.randn(7)], [torch.empty(3, 8)]) == native.INVALID_ARGUMENT
    assert binding.error_message == "torch.aten.layer_norm: normalized_shape[0] is 8, but the weight has 7 there"
    binding.release()


def test_a_result_of_another_size_than_the_input_is_refused():
    binding = _bind("torch.aten.softmax.int", [(None, None)], [(None, None)],
                    {"self": Operand(0), "dim": -1, "dtype": None})
    out = torch.full((4, 6), float("nan"))
    assert _call(binding, [torch.randn(4, 5)], [out]) == native.INVALID_ARGUMENT
    assert binding.error_message == "torch.aten.softmax.int: dim 1 of the result is 6, of the input 5"
    assert torch.equal(out, torch.zeros(4, 6))
    binding.release()


def test_dynamic_dims_reach_prepare_as_tck_dynamic():
    """None in a site's shapes (runtime/lower/outline.py) is TCK_DYNAMIC (-1) in
    tck_tensor_type.shape; static dims stay as they are."""
    binding = _bind("torch.aten.gelu", [(None, 7, None)], [(None, 7, None)],
                    {"self": Operand(0), "approximate": "none"})
    call = binding.struct.call
    assert [call.inputs[0].shape[i] for i in range(3)] == [native.DYNAMIC, 7, native.DYNAMIC]
    assert [call.outputs[0].shape[i] for i in range(3)] == [native.DYNAMIC, 7, native.DYNAMIC]
    assert binding.split.parallel == 3
    binding.release()
