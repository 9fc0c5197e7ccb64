"""What real graphs carry besides aten ops on dense float tensors: ops of
every namespace (aten, prims, quantized_decomposed, a user op defined here
with torch.library that imports as torch.operator), list-of-tensor results,
scalar results (aten.item) and run-time scalar operands, Python scalars in
and out of the model, complex and zero-size tensors, torch._int_mm, and
tensor creation."""

import torch
import torch.ao.quantization.fx._decomposed  # noqa: F401  registers torch.ops.quantized_decomposed

from tosa_custom.e2e import Fn, case

FAMILY = "misc"

# Why a float64 case's TOSA cannot validate, in every mode (CONTRACT.md §13.5).
F64_BY_DESIGN = "computes in float64 by design (an f64 input, result or dtype): TOSA 1.0 has no f64 in any profile"

# Why a Python float from item() cannot validate when its op is kept (dummy mode).
ITEM_FLOAT = {"dummy": "item() of an f32 tensor is a Python float, carried as an f64 tosa.custom result (CONTRACT.md "
                       "§3.3): TOSA 1.0 has no f64"}


# --------------------------------------------------------------------------
# A user op: torch.library custom op with a fake (meta) implementation, so
# export keeps it as one node; torch-mlir imports it as torch.operator.
# --------------------------------------------------------------------------


@torch.library.custom_op("tosa_custom_e2e::scaled_tanh", mutates_args=())
def scaled_tanh(x: torch.Tensor, scale: float) -> torch.Tensor:
    return torch.tanh(x) * scale


@scaled_tanh.register_fake
def _(x, scale):
    return torch.empty_like(x)


@torch.library.custom_op("tosa_custom_e2e::split_sign", mutates_args=())
def split_sign(x: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    return x.clamp(min=0), x.clamp(max=0)


@split_sign.register_fake
def _(x):
    return torch.empty_like(x), torch.empty_like(x)


@case(inputs=lambda: (torch.randn(3, 4),), family=FAMILY,
      xfail={"stock": "a user op (torch.operator tosa_custom_e2e.scaled_tanh) has no TOSA lowering in stock mode"})
def CustomOpScaledTanhModule_basic():
    return Fn(lambda x: scaled_tanh(x + 1, 2.5) * 2)


@case(inputs=lambda: (torch.randn(3, 4),), family=FAMILY,
      xfail={"stock": "a user op (torch.operator tosa_custom_e2e.split_sign) has no TOSA lowering in stock mode"})
def CustomOpSplitSignModule_two_results():
    """A user op with two results."""
    def run(x):
        pos, neg = split_sign(x)
        return pos - neg * 0.5

    return Fn(run)


# --------------------------------------------------------------------------
# prims and quantized_decomposed.
# --------------------------------------------------------------------------


@case(inputs=lambda: (torch.randn(3, 4),), family=FAMILY, nonconformant=F64_BY_DESIGN)
def PrimsConvertElementTypeModule_basic():
    return Fn(lambda x: torch.ops.prims.convert_element_type(x, torch.float64) * 2)


@case(inputs=lambda: (torch.randn(3, 4),), family=FAMILY)
def PrimsSumModule_dims():
    return Fn(lambda x: torch.ops.prims.sum(x, [1]))


@case(inputs=lambda: (torch.randn(2, 3),), family=FAMILY,
      xfail={"stock": "run_decompositions refuses prims.broadcast_in_dim (non-ATen op with an aliasing output)",
             "dummy": "decomposition-failed: even with an empty table, run_decompositions refuses "
                      "prims.broadcast_in_dim (a non-ATen op with an aliasing output), so nothing reaches torch-mlir"})
def PrimsBroadcastInDimModule_basic():
    return Fn(lambda x: torch.ops.prims.broadcast_in_dim(x, [4, 2, 3], [1, 2]))


@case(inputs=lambda: (torch.randn(3, 4),), family=FAMILY)
def PrimsVarModule_correction():
    return Fn(lambda x: torch.ops.prims.var(x, [1], correction=1))


@case(inputs=lambda: (torch.randn(4, 8),), family=FAMILY)
def QuantizeDequantizePerTensorModule_int8():
    """Fake quantization as PT2E quantization leaves it: q/dq pairs around an op."""
    qd = torch.ops.quantized_decomposed

    def fake_quant(x):
        q = qd.quantize_per_tensor(x, 0.05, 3, -128, 127, torch.int8)
        return qd.dequantize_per_tensor(q, 0.05, 3, -128, 127, torch.int8)

    return Fn(fake_quant)


@case(inputs=lambda: (torch.randn(2, 8),), family=FAMILY,
      xfail={"stock": "torch-mlir has no TOSA lowering for quantized_decomposed.dequantize_per_channel"})
def QuantizedLinearModule_per_channel_weight():
    """dequantize(int8 per-channel weight) -> linear, the PT2E weight pattern."""
    class QLinear(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.register_buffer("qweight", torch.randint(-127, 128, (4, 8), dtype=torch.int8))
            self.register_buffer("scales", torch.rand(4) * 0.02 + 0.01)
            self.register_buffer("zero_points", torch.zeros(4, dtype=torch.int64))

        def forward(self, x):
            w = torch.ops.quantized_decomposed.dequantize_per_channel(
                self.qweight, self.scales, self.zero_points, 0, -128, 127, torch.int8)
            return torch.nn.functional.linear(x, w)

    return QLinear()


@case(inputs=lambda: (torch.randn(2, 6),), family=FAMILY,
      xfail={"stock": "refused: torch-mlir's lowering of a uint8 quantize clamps to [0, 255] as signed i8, "
                       "which would give wrong values"})
def QuantizeUInt8Module_output():
    """The model returns the uint8 quantized tensor itself."""
    return Fn(lambda x: torch.ops.quantized_decomposed.quantize_per_tensor(x, 0.02, 128, 0, 255, torch.uint8))


# --------------------------------------------------------------------------
# torch._int_mm.
# --------------------------------------------------------------------------


@case(inputs=lambda: (torch.randint(-128, 128, (32, 16), dtype=torch.int8),
                      torch.randint(-128, 128, (16, 8), dtype=torch.int8)), family=FAMILY)
def IntMmModule_basic():
    """int8 x int8 -> int32 (no overflow at K=16)."""
    return Fn(torch._int_mm)


@case(inputs=lambda: (torch.randn(32, 16), torch.randint(-127, 128, (16, 24), dtype=torch.int8)), family=FAMILY,
      rtol=1e-4, atol=1e-4)
def IntMmDynamicQuantModule_basic():
    """Dynamic activation quantization: quantize x, _int_mm, rescale."""
    def run(x, w):
        scale = x.abs().amax() / 127
        xq = torch.clamp(torch.round(x / scale), -127, 127).to(torch.int8)
        return torch._int_mm(xq, w).float() * scale * 0.01

    return Fn(run)


# --------------------------------------------------------------------------
# Results that are lists of tensors.
# --------------------------------------------------------------------------


@case(inputs=lambda: (torch.randn(3, 1), torch.randn(1, 4), torch.randn(4)), family=FAMILY)
def BroadcastTensorsModule_basic():
    return Fn(lambda a, b, c: torch.broadcast_tensors(a, b, c))


@case(inputs=lambda: (torch.randn(3), torch.randn(4)), family=FAMILY)
def MeshgridModule_ij():
    return Fn(lambda a, b: torch.meshgrid(a, b, indexing="ij"))


@case(inputs=lambda: (torch.arange(3.0), torch.arange(4.0)), family=FAMILY)
def MeshgridModule_xy_used():
    """xy indexing, results consumed by arithmetic."""
    def grid(a, b):
        x, y = torch.meshgrid(a, b, indexing="xy")
        return x * 10 + y

    return Fn(grid)


@case(inputs=lambda: (torch.randn(4, 6),), family=FAMILY)
def SplitUnbindChunkModule_mixed_lists():
    """Three list-producing ops in one graph, some results dropped."""
    def run(x):
        a, b = torch.chunk(x, 2, dim=1)
        rows = torch.unbind(a)
        parts = torch.split(b, [1, 3])
        return rows[0] + rows[3], parts[1]

    return Fn(run)


# --------------------------------------------------------------------------
# Scalars: item, run-time scalar operands, Python scalars in and out.
# --------------------------------------------------------------------------


@case(inputs=lambda: (torch.randn(3, 4),), family=FAMILY,
      xfail={"stock": "torch-mlir has no TOSA lowering for aten.Float.Tensor (item() as a Python float)"},
      nonconformant=ITEM_FLOAT)
def ItemModule_float_result():
    """The model returns a Python float (aten.item)."""
    return Fn(lambda x: x.sum().item())


@case(inputs=lambda: (torch.randint(0, 10, (5,)),), family=FAMILY,
      xfail={"stock": "torch-mlir has no TOSA lowering for aten.Int.Tensor (item() as a Python int)"})
def ItemModule_int_result_with_tensor():
    """A tensor and a Python int from aten.item."""
    return Fn(lambda x: (x * 2, x.max().item()))


@case(inputs=lambda: (torch.randn(3, 4), torch.rand(()) + 0.5), family=FAMILY,
      xfail={"stock": "torch-mlir has no TOSA lowering for aten.Float.Tensor (run-time scalar from item())"},
      nonconformant=ITEM_FLOAT)
def ItemScalarOperandModule_runtime_scale():
    """A scalar operand computed at run time: x * float(s)."""
    return Fn(lambda x, s: x * s.item())


@case(inputs=lambda: (torch.randn(3, 4), torch.randn(3, 4)), family=FAMILY,
      xfail={"stock": "torch-mlir has no TOSA lowering for aten.Float.Tensor (run-time scalar from item())"},
      nonconformant=ITEM_FLOAT)
def ItemScalarOperandModule_runtime_alpha():
    """torch.add with an alpha read from a tensor at run time."""
    return Fn(lambda a, b: torch.add(a, b, alpha=b.abs().max().item()))


@case(inputs=lambda: (torch.randn(3, 4), 2.5), family=FAMILY)
def PythonFloatInputModule_basic():
    """forward(x, scale: float)."""
    return Fn(lambda x, scale: x * scale + 1)


@case(inputs=lambda: (torch.randn(3, 4), 3), family=FAMILY)
def PythonIntInputModule_basic():
    return Fn(lambda x, n: x.repeat(1, n) + n)


@case(inputs=lambda: (torch.randn(3, 4),), family=FAMILY)
def PythonScalarOutputModule_shape():
    """Returns (tensor, int, float) where the scalars are Python constants of the trace."""
    return Fn(lambda x: (x + 1, x.shape[0], 0.5))


@case(inputs=lambda: (torch.randn(2, 3), True), family=FAMILY)
def PythonBoolInputModule_flag():
    return Fn(lambda x, flag: torch.relu(x) if flag else x)


# --------------------------------------------------------------------------
# Complex tensors.
# --------------------------------------------------------------------------


@case(inputs=lambda: (torch.randn(3, 4), torch.randn(3, 4)), family=FAMILY,
      xfail={"stock": "torch-mlir has no TOSA lowering for aten.complex"})
def ComplexAbsModule_basic():
    return Fn(lambda re, im: torch.complex(re, im).abs())


@case(inputs=lambda: (torch.randn(3, 4, dtype=torch.complex64), torch.randn(3, 4, dtype=torch.complex64)),
      family=FAMILY,
      xfail={"stock": "torch-mlir has no TOSA lowering for complex tensors (aten.mul.Tensor on complex64)"})
def ComplexMulModule_inputs():
    """Complex inputs and a complex result."""
    return Fn(torch.mul)


@case(inputs=lambda: (torch.randn(2, 4, 2),), family=FAMILY,
      xfail={"stock": "torch-mlir has no TOSA lowering for aten.polar"})
def ViewAsComplexRealModule_rotary():
    """Rotary embedding as Llama writes it: view_as_complex * rotation, view_as_real."""
    def rotate(x):
        angles = torch.arange(4.0) * 0.3
        rot = torch.polar(torch.ones(4), angles)
        return torch.view_as_real(torch.view_as_complex(x) * rot)

    return Fn(rotate)


@case(inputs=lambda: (torch.randn(2, 8),), family=FAMILY, rtol=1e-4, atol=1e-5,
      xfail={"stock": "torch-mlir has no TOSA lowering for aten.view_as_complex"})
def FftRfftModule_abs():
    return Fn(lambda x: torch.fft.rfft(x).abs())


@case(inputs=lambda: (torch.randn(3, 4, dtype=torch.complex128),), family=FAMILY,
      xfail={"stock": "torch-mlir does not know aten._conj (imported as torch.operator): no TOSA lowering"},
      nonconformant="complex128 is carried as f64 pairs (CONTRACT.md §5): TOSA 1.0 has no f64")
def ComplexConjRealImagModule_complex128():
    return Fn(lambda z: (torch.conj(z) * z).real + z.imag)


# --------------------------------------------------------------------------
# Zero-size tensors.
# --------------------------------------------------------------------------


# torch-mlir's TOSA lowering rejects zero-size tensors; an op whose every result
# is zero-size is an empty tensor before it (tosa-custom-zero-size-as-empty).
@case(inputs=lambda: (torch.randn(0, 4), torch.randn(4)), family=FAMILY)
def ZeroSizeAddModule_basic():
    return Fn(torch.add)


@case(inputs=lambda: (torch.randn(0, 4),), family=FAMILY,
      xfail={"stock": "torch-mlir's TOSA lowering rejects zero-size tensors (aten.sum.dim_IntList on 0x4)"})
def ZeroSizeSumModule_basic():
    """Summing no elements gives zeros."""
    return Fn(lambda x: x.sum(dim=0))


@case(inputs=lambda: (torch.randn(3, 0), torch.randn(0, 5)), family=FAMILY)
def ZeroSizeMatmulModule_inner():
    """An empty inner dimension: the product is all zeros."""
    return Fn(torch.matmul)


@case(inputs=lambda: (torch.randn(2, 0, 3),), family=FAMILY)
def ZeroSizeReshapeModule_basic():
    return Fn(lambda x: x.reshape(0, 6).t() * 2)


# --------------------------------------------------------------------------
# Every dtype through one graph, and tensor creation.
# --------------------------------------------------------------------------


@case(inputs=lambda: (torch.randn(2, 3), torch.randn(2, 3, dtype=torch.float64),
                      torch.randn(2, 3).half(), torch.randn(2, 3).bfloat16(),
                      torch.randint(-9, 9, (2, 3)), torch.randint(-9, 9, (2, 3), dtype=torch.int32),
                      torch.randint(-9, 9, (2, 3), dtype=torch.int16), torch.randint(-9, 9, (2, 3), dtype=torch.int8),
                      torch.randint(0, 9, (2, 3), dtype=torch.uint8), torch.rand(2, 3) > 0.5), family=FAMILY,
      nonconformant="takes and returns every dtype, float64 among them: TOSA 1.0 has no f64 in any profile")
def AllDtypesModule_inputs_outputs():
    """One input and one output of each of the ten dtypes."""
    def run(f32, f64, f16, bf16, i64, i32, i16, i8, u8, b):
        return (f32 + 1, f64 * 2, f16 + f16, bf16 * 2, i64 - 1, i32 * 3, i16 + 1, i8 - 1, u8 + 1, ~b)

    return Fn(run)


@case(inputs=lambda: (torch.randn(2, 3),), family=FAMILY)
def CreationOpsModule_basic():
    """arange, zeros, ones, full, eye, linspace, *_like: constants built in the graph."""
    def run(x):
        return (x + torch.arange(3.0) + torch.linspace(0, 1, 3), torch.zeros(2, 3, dtype=torch.int32),
                torch.ones_like(x) * torch.full((1, 3), 4.0), torch.eye(3)[:2] + torch.full_like(x, 0.5))

    return Fn(run)


@case(inputs=lambda: (torch.randn(2, 3),), family=FAMILY)
def NewTensorOpsModule_basic():
    return Fn(lambda x: x.new_zeros(2, 2) + x.new_ones(2, 2) + x.new_full((2, 2), 3.0) + x.new_tensor([1.0, 2.0]))


@case(inputs=lambda: (torch.randn(4, 4),), family=FAMILY)
def ConstantTensorModule_buffer_and_parameter():
    """A parameter, a persistent buffer and a lifted tensor constant."""
    class Consts(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.weight = torch.nn.Parameter(torch.randn(4))
            self.register_buffer("offset", torch.arange(4.0))

        def forward(self, x):
            return x * self.weight + self.offset + torch.tensor([1.0, -1.0, 1.0, -1.0])

    return Consts()
