"""The built-in int8 kernels of kept ops in quantized models (lib/kernels_int8.c,
CONTRACT.md §18.6) against the generic torch kernel: the op's DecodedCall,
quantize(op(dequantize(x))) in PT2E's arithmetic.

Each kernel is called through the runtime's C trampoline, as the compiled code
calls it, on descriptors of torch tensors (contiguous, transposed, stepped and
offset views), at odd sizes and rows longer than a vector and than the
kernel's stack scratch, with per-tensor parameters symmetric (zero point 0),
asymmetric (nonzero zero points, a narrower range), and ones that make
exact ties (rounded half to even).

What is guaranteed (CONTRACT.md §18.6): every integer within 1 of the generic
kernel's; they differ only where eager's float32 value and the kernel's lie
on two sides of a half-way point of the output's scale, which float32's last
bits decide: a share of elements bounded here by 1% (measured: none on these
draws for the tables, a few per ten thousand for the rows).
"""

from __future__ import annotations

import ctypes
import json

import pytest
import torch

from tosa_custom.contract.encoding import canonical_json, decode_attrs
from tosa_custom.runtime.kernels import native
from tosa_custom.runtime.execute.memref import descriptor_for
from tosa_custom.runtime.lower.outline import CustomCallSite

# (scale, zero_point, quant_min, quant_max) of the input and of the result.
PARAMS = {
    "symmetric": ((0.031, 0, -127, 127), (0.0123, 0, -127, 127)),
    "asymmetric": ((0.03487652167677879, 7, -128, 127), (0.007533361203968525, -105, -128, 127)),
    "narrow": ((0.05, -20, -100, 90), (0.02, 13, -120, 100)),
    # gelu(x) and silu(x) are x in float32 for x past 6 and 17: x = k / 2 quantized at scale 1 is a tie
    # for every odd k, rounded to even.
    "ties": ((0.5, 0, -128, 127), (1.0, 0, -128, 127)),
}
SHAPES = [(7,), (3, 5), (2, 3, 37), (2, 1500)]  # odd sizes; 1500: a row past the 4096 floats of stack scratch


def _q(scale, zero_point, low, high) -> dict:
    return {"scale": scale, "zero_point": zero_point, "quant_min": low, "quant_max": high, "dtype": "int8"}


def _attrs(args: dict, params, floats: tuple[int, ...] = (), operands: dict | None = None) -> str:
    given, wanted = params
    attrs = {"args": args, "version": 5,
             "quantization": {"operands": {"0": _q(*given), **(operands or {})}, "results": {"0": _q(*wanted)}}}
    if floats:
        attrs["operand_dtypes"] = {str(i): "float32" for i in floats}
    return canonical_json(attrs)


def run_both(op: str, args: dict, inputs: list[torch.Tensor], params, floats: tuple[int, ...] = (),
             operands: dict | None = None):
    """(native, generic): the op on int8 `inputs` (float32 tensors at `floats`,
    carried as int32 bits as compile() carries them; `operands`: the
    quantization of int8 operands past the first, by index)."""
    text = _attrs(args, params, floats, operands)
    carried = [t.view(torch.int32) if i in floats else t for i, t in enumerate(inputs)]
    decoded = decode_attrs(op, text, len(inputs))
    site = CustomCallSite(
        index=0, symbol="k", operator_name=op, domain_name="torch_mlir", implementation_attrs=text,
        input_types=tuple("i32" if i in floats else "i8" for i in range(len(inputs))),
        input_shapes=tuple(tuple(t.shape) for t in inputs), output_types=("i8",),
        output_shapes=(tuple(inputs[0].shape),), location="test", const_inputs=(None,) * len(inputs))
    status = native.ProgramStatus()
    binding = native.bind(site, decoded, status, RuntimeError)
    assert binding is not None and binding.library == native.builtin_library(), f"{op}: no native int8 kernel"
    assert "int8" in binding.description
    out = torch.full(inputs[0].shape, 99, dtype=torch.int8)
    descriptors = [descriptor_for(t) for t in carried + [out]]
    tramp = ctypes.CFUNCTYPE(None, ctypes.c_void_p, *[ctypes.c_void_p] * len(descriptors))(binding.trampoline)
    tramp(binding.address, *[ctypes.addressof(d) for d in descriptors])
    assert status.status == 0, binding.error_message
    binding.release()
    return out, decoded(*carried)


def int8_layouts(shape, seed=0):
    """Random int8 values as a contiguous tensor, a transposed view, a stepped
    slice and an offset slice of bigger buffers."""
    g = torch.Generator().manual_seed(seed)
    x = torch.randint(-128, 128, shape, generator=g, dtype=torch.int8)
    yield x
    if len(shape) >= 2:
        yield x.transpose(-1, -2).contiguous().transpose(-1, -2)
    big = torch.zeros(*shape[:-1], 2 * shape[-1] + 1, dtype=torch.int8)
    big[..., 0:2 * shape[-1]:2] = x
    yield big[..., 0:2 * shape[-1]:2]
    pad = torch.zeros(*[d + 1 for d in shape], dtype=torch.int8)
    pad[(slice(1, None),) * len(shape)] = x
    yield pad[(slice(1, None),) * len(shape)]


def check(got: torch.Tensor, want: torch.Tensor, exact: bool = False) -> None:
    assert got.dtype == want.dtype == torch.int8
    diff = (got.int() - want.int()).abs()
    assert diff.max().item() <= 1, f"off by {diff.max().item()}"
    share = (diff > 0).float().mean().item()
    assert share <= (0.0 if exact else 0.01), f"{share:.3%} of the elements differ by 1"


@pytest.mark.parametrize("params", list(PARAMS))
@pytest.mark.parametrize("op,args", [
    ("torch.aten.gelu", {"approximate": "none"}), ("torch.aten.gelu", {"approximate": "tanh"}),
    ("torch.aten.silu", {}),
], ids=["gelu-erf", "gelu-tanh", "silu"])
def test_tables(op, args, params):
    """gelu and silu: a table of every int8 input, then every layout and size."""
    every = torch.arange(-128, 128, dtype=torch.int32).to(torch.int8)
    check(*run_both(op, {"self": {"operand": 0}, **args}, [every], PARAMS[params]), exact=True)
    for shape in SHAPES:
        for x in int8_layouts(shape):
            check(*run_both(op, {"self": {"operand": 0}, **args}, [x], PARAMS[params]), exact=True)


@pytest.mark.parametrize("params", list(PARAMS))
@pytest.mark.parametrize("affine", ["none", "weight", "both"])
def test_layer_norm(affine, params):
    for shape in SHAPES:
        n = shape[-1]
        g = torch.Generator().manual_seed(n)
        w, b = torch.rand(n, generator=g) + 0.5, torch.randn(n, generator=g) * 0.3
        extra = {"none": [], "weight": [w], "both": [w, b]}[affine]
        args = {"input": {"operand": 0}, "normalized_shape": [n], "eps": 1e-5, "cudnn_enable": False,
                "weight": {"operand": 1} if extra else None, "bias": {"operand": 2} if len(extra) == 2 else None}
        for x in int8_layouts(shape):
            check(*run_both("torch.aten.layer_norm", args, [x, *extra], PARAMS[params],
                            floats=tuple(range(1, 1 + len(extra)))))


def test_layer_norm_over_two_dims():
    x = next(int8_layouts((3, 5, 9), seed=3)).transpose(0, 1)
    args = {"input": {"operand": 0}, "normalized_shape": [3, 9], "eps": 1e-5, "cudnn_enable": False,
            "weight": None, "bias": None}
    check(*run_both("torch.aten.layer_norm", args, [x], PARAMS["asymmetric"]))


@pytest.mark.parametrize("params", list(PARAMS))
@pytest.mark.parametrize("eps", [1e-6, None], ids=["eps", "eps-none"])
@pytest.mark.parametrize("affine", ["none", "weight"])
def test_rms_norm(affine, eps, params):
    """eps None: float32's epsilon, as eager computes the dequantized float32 input."""
    for shape in SHAPES:
        n = shape[-1]
        w = torch.rand(n, generator=torch.Generator().manual_seed(n)) + 0.5
        extra = [w] if affine == "weight" else []
        args = {"input": {"operand": 0}, "normalized_shape": [n], "eps": eps,
                "weight": {"operand": 1} if extra else None}
        for x in int8_layouts(shape):
            check(*run_both("torch.aten.rms_norm", args, [x, *extra], PARAMS[params], floats=(1,) if extra else ()))


# An int8 weight, as PT2E leaves one it quantized: per channel (axis 0, symmetric as XNNPACK's weights) or per
# tensor (asymmetric), dequantized by the kernel as the generic one does.
WEIGHTS = {
    "per-channel": lambda n: {"scale": [0.004 + 0.0001 * i for i in range(n)], "axis": 0, "zero_point": 0,
                              "quant_min": -127, "quant_max": 127, "dtype": "int8"},
    "per-tensor": lambda n: _q(0.0123, -9, -128, 127),
}


@pytest.mark.parametrize("weight", list(WEIGHTS))
@pytest.mark.parametrize("op", ["torch.aten.layer_norm", "torch.aten.rms_norm"])
def test_norms_with_an_int8_weight(op, weight):
    for shape in SHAPES:
        n = shape[-1]
        g = torch.Generator().manual_seed(n + 1)
        w = torch.randint(-127, 128, (2 * n,), generator=g, dtype=torch.int8)[::2]  # strided
        args = {"input": {"operand": 0}, "normalized_shape": [n], "eps": 1e-5, "weight": {"operand": 1}}
        if op.endswith("layer_norm"):
            args.update(bias={"operand": 2}, cudnn_enable=False)
        extra = [w] + ([torch.randn(n, generator=g) * 0.3] if op.endswith("layer_norm") else [])
        for x in int8_layouts(shape):
            check(*run_both(op, args, [x, *extra], PARAMS["asymmetric"], floats=(2,) if len(extra) == 2 else (),
                            operands={"1": WEIGHTS[weight](n)}))


def test_rms_norm_over_two_dims():
    x = next(int8_layouts((3, 5, 9), seed=4)).transpose(0, 1)
    args = {"input": {"operand": 0}, "normalized_shape": [3, 9], "eps": 1e-5, "weight": None}
    check(*run_both("torch.aten.rms_norm", args, [x], PARAMS["asymmetric"]))


@pytest.mark.parametrize("params", list(PARAMS))
@pytest.mark.parametrize("op", ["torch.aten.softmax.int", "torch.aten._softmax", "torch.aten.log_softmax.int",
                                "torch.aten._log_softmax"])
def test_softmax(op, params):
    for shape in SHAPES:
        for dim in sorted({-1, 0}):
            args = {"self": {"operand": 0}, "dim": dim}
            args.update({"dtype": None} if op.endswith(".int") else {"half_to_float": False})
            for x in int8_layouts(shape):
                check(*run_both(op, args, [x], PARAMS[params]))


def test_what_the_int8_kernels_leave_to_python():
    """Per-channel or missing parameters, int16, a dtype cast, an int8
    weight unquantized or quantized along a dim it lacks: no native kernel
    binds, the generic one serves."""
    q = PARAMS["asymmetric"]
    cases = {
        "no quantization": ({"self": {"operand": 0}, "dim": -1, "dtype": None}, None),
        "per channel": ({"self": {"operand": 0}, "dim": -1, "dtype": None},
                        {"scale": [0.1] * 4, "axis": 0, "zero_point": 0, "quant_min": -128, "quant_max": 127,
                         "dtype": "int8"}),
        "int16": ({"self": {"operand": 0}, "dim": -1, "dtype": None},
                  {**_q(0.1, 0, -32768, 32767), "dtype": "int16"}),
        "a cast": ({"self": {"operand": 0}, "dim": -1, "dtype": {"dtype": "float64"}}, _q(*q[0])),
    }
    for name, (args, given) in cases.items():
        attrs = {"args": args, "version": 5 if given else 1}
        if given:
            attrs["quantization"] = {"operands": {"0": given}, "results": {"0": _q(*q[1])}}
        text, element = canonical_json(attrs), "i16" if name == "int16" else "i8"
        site = CustomCallSite(index=0, symbol="k", operator_name="torch.aten.softmax.int", domain_name="torch_mlir",
                              implementation_attrs=text, input_types=(element,), input_shapes=((4, 6),),
                              output_types=(element,), output_shapes=((4, 6),), location="test", const_inputs=(None,))
        decoded = decode_attrs("torch.aten.softmax.int", text, 1)
        assert native.bind(site, decoded, native.ProgramStatus(), RuntimeError) is None, name
    # layer_norm with an int8 weight quantized per channel along a dim it lacks, or with an unquantized one.
    args = {"input": {"operand": 0}, "normalized_shape": [6], "eps": 1e-5, "weight": {"operand": 1}, "bias": None,
            "cudnn_enable": False}
    along_1 = {"scale": [0.01] * 6, "axis": 1, "zero_point": 0, "quant_min": -127, "quant_max": 127, "dtype": "int8"}
    for op, weight in (("torch.aten.layer_norm", along_1), ("torch.aten.layer_norm", None)):
        operands = {"0": _q(*q[0]), **({"1": weight} if weight else {})}
        text = canonical_json({"args": args, "version": 5, "quantization": {
            "operands": operands, "results": {"0": _q(*q[1])}}})
        site = CustomCallSite(index=0, symbol="k", operator_name=op, domain_name="torch_mlir",
                              implementation_attrs=text, input_types=("i8", "i8"), input_shapes=((4, 6), (6,)),
                              output_types=("i8",), output_shapes=((4, 6),), location="test",
                              const_inputs=(None, None))
        decoded = decode_attrs(op, text, 2) if weight else None
        assert native.bind(site, decoded, native.ProgramStatus(), RuntimeError) is None, op


_READER = r"""
#include "tosa_custom_kernel.h"
int32_t read(const char *text, int32_t result, int32_t index, double *scale, int64_t *ints) {
    tck_call call;
    memset(&call, 0, sizeof call);
    call.implementation_attrs = text;
    tck_quantization q;
    int32_t kind = tck_quantization_of(&call, result, index, &q);
    if (kind > 0) {
        *scale = q.scale;
        ints[0] = q.zero_point, ints[1] = q.quant_min, ints[2] = q.quant_max, ints[3] = q.axis, ints[4] = q.num_scales;
    }
    return kind;
}
"""


@pytest.fixture(scope="module")
def reader(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("reader")
    (tmp / "reader.c").write_text(_READER)
    library = ctypes.CDLL(str(native.compile_kernel_library([tmp / "reader.c"], tmp / "libreader.so",
                                                            ["-Wall", "-Werror"])))
    library.read.argtypes = [ctypes.c_char_p, ctypes.c_int32, ctypes.c_int32, ctypes.c_void_p, ctypes.c_void_p]

    def read(text: str, result: int, index: int):
        scale, ints = ctypes.c_double(), (ctypes.c_int64 * 5)()
        kind = library.read(text.encode(), result, index, ctypes.byref(scale), ints)
        return kind, (scale.value, *ints) if kind > 0 else None
    return read


def test_the_header_reads_an_ops_quantization(reader):
    """tck_quantization_of on the canonical text, on JSON with spaces and
    escapes, per channel, unlisted and malformed entries."""
    q = {"operands": {"0": _q(0.25, -3, -128, 127), "2": {**_q(0.5, 0, -127, 127), "scale": [0.5, 1.5, 2e-3],
                                                         "axis": 1}},
         "results": {"0": _q(0.0078125, 11, -100, 90)}}
    attrs = {"args": {"self": {"operand": 0}, "note": "a \"quantization\" string, {\"results\": 1}"},
             "quantization": q, "version": 5}
    for text in (canonical_json(attrs), json.dumps(attrs, indent=2)):
        assert reader(text, 0, 0) == (1, (0.25, -3, -128, 127, -1, 1))
        assert reader(text, 1, 0) == (1, (0.0078125, 11, -100, 90, -1, 1))
        assert reader(text, 0, 2) == (2, (0.5, 0, -127, 127, 1, 3))
        assert reader(text, 0, 1) == (0, None) and reader(text, 1, 1) == (0, None)
    assert reader('{"args":{}}', 0, 0) == (0, None) and reader("not json", 0, 0) == (0, None)
    bad = {**q, "operands": {"0": {**_q(0.25, 0, -128, 127), "scale": -1}}}
    assert reader(canonical_json({"quantization": bad}), 0, 0)[0] == -1
    no_zero = {"operands": {"0": {"scale": 0.25, "quant_min": -128, "quant_max": 127}}}
    assert reader(canonical_json({"quantization": no_zero}), 0, 0)[0] == -1
    text = canonical_json(attrs)
    for end in range(len(text)):  # cut anywhere: never read past the end; refused, or the whole entry read
        kind, found = reader(text[:end], 0, 2)
        assert kind in (0, -1) or found == (0.5, 0, -127, 127, 1, 3), text[:end]
