"""The built-in native kernels (lib/kernels.c) against eager PyTorch.

Each kernel is called through the runtime's C trampoline, exactly as the
compiled code calls it, on descriptors of torch tensors: so inputs can be any
strided view (transposed, sliced with steps, offset). Then end to end: a
compiled model selects the native kernel and matches eager PyTorch.

Tolerance: rtol=1e-5 of eager float32, plus an absolute 1e-6 x the input's
scale (eager rounds at every step in float32; the kernels accumulate in
double, so the difference is eager's rounding).
"""

from __future__ import annotations

import ctypes
import types

import pytest
import torch
from _tolerance import reduction_tolerance

import tosa_custom
from tosa_custom import runtime
from tosa_custom.runtime.kernels import native
from tosa_custom.runtime.execute.memref import descriptor_for
from tosa_custom.runtime.lower.outline import CustomCallSite
from tosa_custom.e2e import Fn

F = torch.nn.functional


def _site(op: str, inputs, out_shape) -> CustomCallSite:
    return CustomCallSite(
        index=0, symbol="k", operator_name=op, domain_name="torch_mlir", implementation_attrs="",
        input_types=tuple("f32" for _ in inputs), input_shapes=tuple(tuple(t.shape) for t in inputs),
        output_types=("f32",), output_shapes=(tuple(out_shape),), location="test", const_inputs=(None,) * len(inputs))


def run_native(op: str, arguments: dict, inputs: list[torch.Tensor]) -> torch.Tensor:
    """Bind `op` to its built-in native kernel and call it via the trampoline."""
    status = native.ProgramStatus()
    site = _site(op, inputs, inputs[0].shape)
    binding = native.bind(site, types.SimpleNamespace(arguments=arguments), status, RuntimeError)
    assert binding is not None and binding.library == native.builtin_library(), f"{op} has no native kernel"
    out = torch.full(inputs[0].shape, float("nan"))
    descriptors = [descriptor_for(t) for t in inputs + [out]]
    tramp = ctypes.CFUNCTYPE(None, ctypes.c_void_p, *[ctypes.c_void_p] * len(descriptors))(binding.trampoline)
    tramp(binding.address, *[ctypes.addressof(d) for d in descriptors])
    assert status.status == 0, binding.error_message
    binding.release()
    return out


def O(i):  # an operand placeholder, as decode() gives
    from tosa_custom.contract.encoding import Operand
    return Operand(i)


def close(got, expected, scale=1.0):
    torch.testing.assert_close(got, expected, rtol=1e-5, atol=1e-6 * max(scale, 1.0), equal_nan=True)


def _g(seed):
    return torch.Generator().manual_seed(seed)


def layouts(shape, scale=1.0, seed=0):
    """The same values as a contiguous tensor, a transposed view, a stepped slice
    and an offset slice of bigger buffers."""
    x = torch.randn(shape, generator=_g(seed)) * scale
    yield "contiguous", x
    if len(shape) >= 2:
        yield "transposed", x.transpose(-1, -2).contiguous().transpose(-1, -2)
    big = torch.randn(*shape[:-1], 2 * shape[-1] + 1, generator=_g(seed + 1)) * scale
    n = shape[-1]
    big[..., 0:2 * n:2] = x
    yield "stepped", big[..., 0:2 * n:2]
    pad = torch.randn(*[d + 1 for d in shape], generator=_g(seed + 2))
    pad[(slice(1, None),) * len(shape)] = x
    yield "offset", pad[(slice(1, None),) * len(shape)]


SHAPES = [(3, 1), (5, 7), (2, 3, 33), (4, 1000), (1, 1)]
SCALES = [1e-3, 1.0, 1e3]


@pytest.mark.parametrize("shape", SHAPES, ids=str)
@pytest.mark.parametrize("scale", SCALES)
@pytest.mark.parametrize("affine", ["none", "weight", "both", "bias"])
def test_layer_norm(shape, scale, affine):
    k = shape[-1:]
    w = torch.randn(k, generator=_g(7)) if affine in ("weight", "both") else None
    b = torch.randn(k, generator=_g(8)) if affine in ("bias", "both") else None
    for name, x in layouts(shape, scale):
        ins = [x] + [t for t in (w, b) if t is not None]
        args = {"input": O(0), "normalized_shape": list(k), "weight": O(1) if w is not None else None,
                "bias": O(len(ins) - 1) if b is not None else None, "eps": 1e-5, "cudnn_enable": False}
        close(run_native("torch.aten.layer_norm", args, ins), F.layer_norm(x, k, w, b, 1e-5))


@pytest.mark.parametrize("scale", SCALES)
def test_layer_norm_over_two_strided_dims(scale):
    """normalized_shape of two dims, the input transposed in them (not one run)."""
    x = (torch.randn(3, 7, 5, generator=_g(1)) * scale).transpose(1, 2)  # [3, 5, 7], strides (35, 1, 5)
    w = torch.randn(7, 5, generator=_g(2)).t()  # a strided weight too
    b = torch.randn(5, 7, generator=_g(3))
    args = {"input": O(0), "normalized_shape": [5, 7], "weight": O(1), "bias": O(2), "eps": 1e-5,
            "cudnn_enable": False}
    close(run_native("torch.aten.layer_norm", args, [x, w, b]), F.layer_norm(x, [5, 7], w, b, 1e-5))


@pytest.mark.parametrize("shape", SHAPES, ids=str)
@pytest.mark.parametrize("scale", SCALES)
@pytest.mark.parametrize("eps", [None, 1e-6])
@pytest.mark.parametrize("weighted", [True, False])
def test_rms_norm(shape, scale, eps, weighted):
    k = shape[-1:]
    w = torch.randn(k, generator=_g(9)) if weighted else None
    for name, x in layouts(shape, scale):
        args = {"input": O(0), "normalized_shape": list(k), "weight": O(1) if weighted else None, "eps": eps}
        ins = [x, w] if weighted else [x]
        close(run_native("torch.aten.rms_norm", args, ins), F.rms_norm(x, k, w, eps))


def _softmax_inputs():
    yield from (("randn", s, 1.0) for s in SHAPES)
    yield "huge", (4, 33), 1e30  # x - max stays finite
    yield "tiny", (4, 33), 1e-30
    yield "wide", (4, 1000), 80.0  # exp would overflow without the max


@pytest.mark.parametrize("log", [False, True], ids=["softmax", "log_softmax"])
@pytest.mark.parametrize("case", list(_softmax_inputs()), ids=lambda c: f"{c[0]}-{c[1]}")
@pytest.mark.parametrize("dim", [-1, 0])
def test_softmax(log, case, dim):
    _, shape, scale = case
    op = "torch.aten.log_softmax.int" if log else "torch.aten.softmax.int"
    eager = torch.log_softmax if log else torch.softmax
    for name, x in layouts(shape, scale):
        got = run_native(op, {"self": O(0), "dim": dim, "dtype": None}, [x])
        close(got, eager(x, dim), scale=1.0 if not log else scale)


@pytest.mark.parametrize("log", [False, True], ids=["softmax", "log_softmax"])
def test_softmax_masked_and_middle_dim(log):
    """-inf entries (attention masks), a fully masked row (NaN, as eager), a middle dim."""
    x = torch.randn(2, 5, 9, generator=_g(4))
    x[0, 1, 3:] = float("-inf")
    x[1, 2, :] = float("-inf")
    op = "torch.aten._log_softmax" if log else "torch.aten._softmax"
    eager = torch.log_softmax if log else torch.softmax
    for dim in (-1, 1):
        got = run_native(op, {"self": O(0), "dim": dim, "half_to_float": False}, [x])
        close(got, eager(x, dim))


SPECIAL = torch.tensor([0.0, -0.0, 1e-30, -1e-30, 3.0, -3.0, 5.5, -5.5, 10.0, -10.0, 88.0, -88.0, 100.0, -100.0,
                        1e4, -1e4, float("inf"), float("-inf"), float("nan")])


@pytest.mark.parametrize("op,eager,args", [
    ("torch.aten.gelu", lambda x: F.gelu(x), {"approximate": "none"}),
    ("torch.aten.gelu", lambda x: F.gelu(x, approximate="tanh"), {"approximate": "tanh"}),
    ("torch.aten.silu", F.silu, {}),
], ids=["gelu-erf", "gelu-tanh", "silu"])
def test_activations(op, eager, args):
    for shape in [(1,), (7,), (3, 33), (2, 1000), ()]:
        for scale in SCALES + [8.0]:
            xs = list(layouts(shape, scale)) if shape else [("scalar", torch.tensor(0.7 * scale))]
            for name, x in xs:
                close(run_native(op, {"self": O(0), **args}, [x]), eager(x))
    # Eager's vectorized loop gives gelu(inf) = nan, its scalar loop inf: the
    # reference for special values is eager one element at a time.
    close(run_native(op, {"self": O(0), **args}, [SPECIAL]), torch.cat([eager(v) for v in SPECIAL.split(1)]))
    # Every region of the approximations: within 1e-5 (5e-7 absolute) of eager
    # float64; eager float32 itself is off by up to 1.2e-6 near x = -3.5 (erf gelu).
    dense = torch.linspace(-12, 12, 100001)
    got = run_native(op, {"self": O(0), **args}, [dense])
    torch.testing.assert_close(got, eager(dense.double()).float(), rtol=1e-5, atol=5e-7)
    torch.testing.assert_close(got, eager(dense), rtol=1e-5, atol=2e-6)


def test_unsupported_configurations_decline():
    """Not f32, or a dtype cast: no native kernel, the Python one serves."""
    status = native.ProgramStatus()
    x = torch.randn(2, 3)
    site = _site("torch.aten.softmax.int", [x], x.shape)
    cast = types.SimpleNamespace(arguments={"self": O(0), "dim": -1, "dtype": torch.float64})
    assert native.bind(site, cast, status, RuntimeError) is None
    f64 = site.__class__(**{**site.__dict__, "input_types": ("f64",), "output_types": ("f64",)})
    plain = types.SimpleNamespace(arguments={"self": O(0), "dim": -1, "dtype": None})
    assert native.bind(f64, plain, status, RuntimeError) is None


def test_invalid_attribute_fails_at_load_naming_the_op():
    attrs = '{"args":{"approximate":"fast","self":{"operand":0}},"version":1}'.replace('"', "\\22")
    text = f"""
func.func @f(%a: tensor<4xf32>) -> tensor<4xf32> {{
  %0 = tosa.custom %a {{domain_name = "torch_mlir", implementation_attrs = "{attrs}", operator_name = "torch.aten.gelu"}} : (tensor<4xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}}"""
    with pytest.raises(tosa_custom.CompileError,
                       match=r"torch_mlir::torch.aten.gelu: native kernel in libtosa_custom_kernels.so refused it: "
                             r"invalid argument \(status 2\): gelu: approximate must be 'none' or 'tanh', got 'fast'"):
        runtime.load(text)


# --------------------------------------------------------------------------
# End to end: compiled models pick the native kernels.
# --------------------------------------------------------------------------


MODELS = {
    "layer_norm": (lambda x, w, b: F.layer_norm(x, (33,), w, b), (torch.randn(4, 7, 33), torch.randn(33),
                                                                   torch.randn(33)), "aten.layer_norm"),
    "rms_norm": (lambda x, w: F.rms_norm(x, (7,), w, 1e-6), (torch.randn(5, 7) * 30, torch.randn(7)), "aten.rms_norm"),
    "softmax": (lambda x: torch.softmax(x * 50, 1), (torch.randn(3, 1000, 2),), "aten.softmax.int"),
    "log_softmax": (lambda x: torch.log_softmax(x, -1), (torch.randn(6, 33) * 1e3,), "aten.log_softmax.int"),
    "gelu": (lambda x: F.gelu(x.t()), (torch.randn(33, 7) * 4,), "aten.gelu"),
    "gelu-tanh": (lambda x: F.gelu(x, approximate="tanh"), (torch.randn(2, 1000) * 4,), "aten.gelu"),
    "silu": (lambda x: F.silu(x[:, 1:]), (torch.randn(7, 34) * 10,), "aten.silu"),
}


@pytest.mark.parametrize("encoding", ["json", "const"])
@pytest.mark.parametrize("name", MODELS)
def test_compiled_model_runs_the_native_kernel(name, encoding):
    fn, args, op = MODELS[name]
    program = runtime.load(tosa_custom.compile(Fn(fn), args, backend_legal_ops=[op], encoding=encoding))
    assert len(program.kernels) == 1 and program.kernels[0].startswith("native (libtosa_custom_kernels.so"), \
        program.kernels
    with torch.no_grad():
        expected = fn(*args)
    close(program(*args), expected, scale=float(expected.abs().max()) * 1e-1)
    python = runtime.load(tosa_custom.compile(Fn(fn), args, backend_legal_ops=[op], encoding=encoding), native=False)
    assert python.kernels[0].startswith("python ("), python.kernels


def test_bert_block_runs_four_native_kernels():
    from tosa_custom.tools.example import KEPT_OPS, TransformerBlock

    torch.manual_seed(0)
    block, x = TransformerBlock().eval(), torch.randn(2, 8, 32)
    program = runtime.load(tosa_custom.compile(block, (x,), backend_legal_ops=KEPT_OPS))
    assert len(program.kernels) == 4 and all(k.startswith("native") for k in program.kernels), program.kernels
    with torch.no_grad():
        torch.testing.assert_close(program(x), block(x), **reduction_tolerance(4 * 32))


def test_a_registered_python_kernel_wins(monkeypatch):
    from tosa_custom.runtime.kernels import registry as kernels

    kernels.registered_kernels()
    monkeypatch.setitem(kernels._KERNELS._entries, "torch_mlir::torch.aten.gelu", lambda call: call.inputs[0] * 3)
    x = torch.randn(3, 4)
    program = runtime.load(tosa_custom.compile(Fn(F.gelu), (x,), backend_legal_ops=["aten.gelu"]))
    assert program.kernels[0].startswith("python ("), program.kernels
    torch.testing.assert_close(program(x), x * 3)
