"""dtype conversions between every dtype the suite covers (f32, f64, f16,
bf16, i64, i32, i16, i8, u8, bool), and arithmetic in the narrow ones."""

import torch

from tosa_custom.e2e import Fn, case

FAMILY = "conversion"

# Why a float64 case's TOSA cannot validate, in every mode (CONTRACT.md §13.5).
F64_BY_DESIGN = "computes in float64 by design (an f64 input, result or dtype): TOSA 1.0 has no f64 in any profile"


def _scaled():
    """Values spanning several integers of both signs, with fractions."""
    return (torch.randn(3, 4) * 20,)


@case(inputs=lambda: (torch.randn(3, 4),), family=FAMILY, nonconformant=F64_BY_DESIGN)
def ToF64Module_basic():
    return Fn(lambda x: x.to(torch.float64))


@case(inputs=lambda: (torch.randn(3, 4),), family=FAMILY)
def ToF16Module_basic():
    return Fn(lambda x: x.half())


@case(inputs=lambda: (torch.randn(3, 4),), family=FAMILY)
def ToBF16Module_basic():
    return Fn(lambda x: x.to(torch.bfloat16))


@case(inputs=_scaled, family=FAMILY,
      nonconformant={"stock": "the result is int64 by design: TOSA 1.0 casts no float to i64"})
def ToI64Module_truncation():
    """float -> int truncates toward zero."""
    return Fn(lambda x: x.long())


@case(inputs=_scaled, family=FAMILY)
def ToI32Module_basic():
    return Fn(lambda x: x.to(torch.int32))


@case(inputs=_scaled, family=FAMILY)
def ToI16Module_basic():
    return Fn(lambda x: x.to(torch.int16))


@case(inputs=lambda: (torch.randn(3, 4) * 50,), family=FAMILY)
def ToI8Module_basic():
    return Fn(lambda x: x.to(torch.int8))


@case(inputs=lambda: (torch.rand(3, 4) * 250,), family=FAMILY,
      xfail={"stock": "torch-mlir casts float to uint8 as to signed i8: values >= 128 saturate at 127 (wrong values)"})
def ToU8Module_basic():
    return Fn(lambda x: x.to(torch.uint8))


@case(inputs=lambda: (torch.tensor([0.0, -0.0, 0.5, -2.0, float("nan")]),), family=FAMILY)
def ToBoolModule_float():
    """Nonzero (and NaN) is true."""
    return Fn(lambda x: x.bool())


@case(inputs=lambda: (torch.randint(-3, 3, (3, 4)),), family=FAMILY)
def ToBoolModule_int():
    return Fn(lambda x: x.to(torch.bool))


@case(inputs=lambda: (torch.randint(-1000, 1000, (3, 4)),), family=FAMILY)
def ToF32FromI64Module_basic():
    return Fn(lambda x: x.float())


@case(inputs=lambda: (torch.rand(3, 4) > 0.5,), family=FAMILY)
def ToF32FromBoolModule_basic():
    return Fn(lambda x: x.float() * 3)


@case(inputs=lambda: (torch.randint(-100000, 100000, (3, 4)),), family=FAMILY)
def ToI16FromI64Module_wraparound():
    """Narrowing integer conversion keeps the low bits."""
    return Fn(lambda x: x.to(torch.int16))


@case(inputs=lambda: (torch.randint(-128, 128, (3, 4), dtype=torch.int8),), family=FAMILY)
def ToU8FromI8Module_wraparound():
    return Fn(lambda x: x.to(torch.uint8))


@case(inputs=lambda: (torch.randint(0, 256, (3, 4), dtype=torch.uint8),), family=FAMILY,
      xfail={"stock": "torch-mlir reads uint8 as signed i8 when casting to float: values >= 128 become negative (wrong values)"})
def ToF32FromU8Module_normalize_image():
    """uint8 pixels to [0, 1] floats, as image pre-processing does."""
    return Fn(lambda x: x.float() / 255.0)


@case(inputs=lambda: (torch.randn(3, 4), torch.randn(3, 4, dtype=torch.float64)), family=FAMILY,
      nonconformant=F64_BY_DESIGN)
def TypeAsModule_basic():
    return Fn(lambda x, y: x.type_as(y) + y)


@case(inputs=lambda: (torch.randn(3, 4, dtype=torch.float16), torch.randn(3, 4, dtype=torch.float16)),
      family=FAMILY, rtol=1e-3, atol=1e-3)
def AddF16Module_basic():
    return Fn(torch.add)


@case(inputs=lambda: (torch.randn(3, 4, dtype=torch.bfloat16), torch.randn(4, dtype=torch.bfloat16)),
      family=FAMILY, rtol=1.6e-2, atol=1e-2)
def MulBF16Module_broadcast():
    return Fn(torch.mul)


@case(inputs=lambda: (torch.randn(3, 4, dtype=torch.float16), torch.randn(3, 4)), family=FAMILY)
def AddF16F32Module_promotion():
    """float16 + float32 -> float32."""
    return Fn(torch.add)


@case(inputs=lambda: (torch.randn(3, 4, dtype=torch.bfloat16),), family=FAMILY, rtol=1.6e-2, atol=1e-2)
def ExpBF16Module_basic():
    return Fn(torch.exp)


# IREE 3.13 failed to compile its bf16 weight held as a dense_resource constant ('arith.constant' op ...
# {value, result} have same type) until tosa_custom.iree compiled with --iree-opt-data-tiling.
@case(inputs=lambda: (torch.randn(2, 8),), family=FAMILY, rtol=1e-2, atol=1e-2)
def AutocastLikeModule_bf16_linear():
    """Cast in, compute a linear layer in bfloat16, cast back (mixed precision by hand)."""
    linear = torch.nn.Linear(8, 4).to(torch.bfloat16)
    return Fn(lambda x: linear(x.to(torch.bfloat16)).float())


@case(inputs=lambda: (torch.randn(3, 4) * 1e5,), family=FAMILY)
def ToF16Module_overflow():
    """Values past float16's range become inf."""
    return Fn(lambda x: x.to(torch.float16))


@case(inputs=lambda: (torch.randint(-5, 5, (3, 4), dtype=torch.int32),), family=FAMILY, nonconformant=F64_BY_DESIGN)
def ToF64FromI32Module_basic():
    return Fn(lambda x: x.double() / 3)
