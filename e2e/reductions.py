"""Reductions: whole-tensor and over dims (negative, several, keepdim),
with an accumulation dtype, and the statistics (var/std/norm/logsumexp)."""

import torch

from tosa_custom.e2e import Fn, case, randn_inputs, xfail_except

FAMILY = "reduction"

# Why a float64 case's TOSA cannot validate, in every mode (CONTRACT.md §13.5).
F64_BY_DESIGN = "computes in float64 by design (an f64 input, result or dtype): TOSA 1.0 has no f64 in any profile"


@case(inputs=randn_inputs(3, 4, 5), family=FAMILY)
def ReduceSumModule_basic():
    return Fn(torch.sum)


@case(inputs=randn_inputs(3, 4, 5), family=FAMILY)
def ReduceSumDimIntListModule_basic():
    return Fn(lambda x: torch.sum(x, dim=(0, 2)))


@case(inputs=randn_inputs(3, 4, 5), family=FAMILY)
def ReduceSumDimIntListModule_keepdim():
    return Fn(lambda x: torch.sum(x, dim=1, keepdim=True))


@case(inputs=randn_inputs(3, 4, 5), family=FAMILY)
def ReduceSumDimIntListModule_negative_dim():
    return Fn(lambda x: x.sum(-1))


@case(inputs=randn_inputs(3, 4), family=FAMILY, nonconformant=F64_BY_DESIGN)
def ReduceSumDtypeModule_float64():
    """Accumulate (and return) float64 from a float32 input."""
    return Fn(lambda x: torch.sum(x, dim=1, dtype=torch.float64))


@case(inputs=lambda: (torch.randint(-100, 100, (3, 4), dtype=torch.int32),), family=FAMILY)
def ReduceSumIntModule_basic():
    """Summing int32 gives int64."""
    return Fn(lambda x: x.sum(dim=0))


def _int32_near_ends():
    info = torch.iinfo(torch.int32)
    x = torch.randint(info.min, info.max, (3, 4), dtype=torch.int32)
    x[0] = info.max
    x[1, :2] = info.min
    return (x,)


@case(inputs=_int32_near_ends, family=FAMILY)
def ReduceSumIntModule_beyond_int32():
    """int32 sums past 2**31, into int64: TorchToTosa summed in i32 and wrapped (the fuzzers' reductions family);
    nansum, einsum and integer floor-mean go through the same sum."""
    return Fn(lambda x: (x.sum(), x.sum(dim=1), x.nansum(dim=0), torch.einsum("ij->i", x), x.sum(dim=-1) // 4))


@case(inputs=randn_inputs(4, 3), family=FAMILY)
def ReduceSumModule_noncontiguous():
    return Fn(lambda x: x.t().sum(dim=1))


@case(inputs=randn_inputs(()), family=FAMILY)
def ReduceSumModule_zero_rank():
    return Fn(lambda x: x.sum())


@case(inputs=randn_inputs(3, 4, 5), family=FAMILY)
def ReduceMeanModule_basic():
    return Fn(torch.mean)


@case(inputs=randn_inputs(2, 3, 4, 5), family=FAMILY)
def ReduceMeanDimModule_keepdim():
    """The spatial mean of NCHW, as in global average pooling."""
    return Fn(lambda x: x.mean(dim=(-2, -1), keepdim=True))


@case(inputs=randn_inputs(3, 4), family=FAMILY, nonconformant=F64_BY_DESIGN)
def ReduceMeanDtypeModule_float64():
    return Fn(lambda x: torch.mean(x, dim=0, dtype=torch.float64))


@case(inputs=randn_inputs(3, 4), family=FAMILY)
def ReduceProdModule_basic():
    return Fn(torch.prod)


@case(inputs=randn_inputs(3, 4, 2), family=FAMILY)
def ReduceProdDimModule_keepdim():
    return Fn(lambda x: torch.prod(x, dim=1, keepdim=True))


@case(inputs=lambda: (torch.randint(-3, 4, (3, 4)),), family=FAMILY)
def ReduceProdIntModule_dim():
    return Fn(lambda x: torch.prod(x, dim=-1))


@case(inputs=randn_inputs(3, 4, 5), family=FAMILY)
def ReduceMaxModule_basic():
    return Fn(torch.max)


@case(inputs=randn_inputs(3, 4, 5), family=FAMILY)
def ReduceMaxDimModule_values_indices():
    """max over a dim returns (values, indices)."""
    return Fn(lambda x: torch.max(x, dim=1))


@case(inputs=randn_inputs(3, 4), family=FAMILY)
def ReduceMinDimModule_keepdim():
    return Fn(lambda x: torch.min(x, dim=0, keepdim=True))


@case(inputs=randn_inputs(3, 4, 5), family=FAMILY)
def ReduceAmaxModule_multiple_dims():
    return Fn(lambda x: torch.amax(x, dim=(0, 2)))


@case(inputs=randn_inputs(3, 4, 5), family=FAMILY)
def ReduceAminModule_keepdim():
    return Fn(lambda x: torch.amin(x, dim=-1, keepdim=True))


@case(inputs=lambda: (torch.randint(-100, 100, (3, 4), dtype=torch.int32),), family=FAMILY)
def ReduceAmaxIntModule_basic():
    return Fn(lambda x: torch.amax(x, dim=1))


@case(inputs=randn_inputs(3, 4), family=FAMILY)
def ReduceAminmaxModule_basic():
    return Fn(lambda x: torch.aminmax(x, dim=1))


@case(inputs=randn_inputs(3, 4, 5), family=FAMILY)
def ReduceVarModule_basic():
    return Fn(torch.var)


@case(inputs=randn_inputs(3, 4, 5), family=FAMILY)
def ReduceVarCorrectionModule_unbiased_false():
    return Fn(lambda x: torch.var(x, dim=(1, 2), unbiased=False, keepdim=True))


@case(inputs=randn_inputs(3, 6), family=FAMILY)
def ReduceVarCorrectionModule_correction2():
    return Fn(lambda x: torch.var(x, dim=1, correction=2))


@case(inputs=randn_inputs(3, 4, 5), family=FAMILY)
def ReduceStdModule_dim():
    return Fn(lambda x: torch.std(x, dim=-1))


@case(inputs=randn_inputs(3, 4), family=FAMILY)
def ReduceVarMeanModule_basic():
    """Two results: (var, mean)."""
    return Fn(lambda x: torch.var_mean(x, dim=1))


@case(inputs=randn_inputs(3, 4), family=FAMILY)
def ReduceStdMeanModule_keepdim():
    return Fn(lambda x: torch.std_mean(x, dim=0, keepdim=True))


@case(inputs=randn_inputs(3, 4), family=FAMILY)
def LinalgVectorNormModule_basic():
    return Fn(lambda x: torch.linalg.vector_norm(x))


@case(inputs=randn_inputs(3, 4, 5), family=FAMILY)
def LinalgVectorNormModule_ord1_dim_keepdim():
    return Fn(lambda x: torch.linalg.vector_norm(x, ord=1, dim=(1, 2), keepdim=True))


@case(inputs=randn_inputs(3, 4), family=FAMILY)
def LinalgVectorNormModule_inf():
    return Fn(lambda x: torch.linalg.vector_norm(x, ord=float("inf"), dim=-1))


@case(inputs=randn_inputs(3, 4), family=FAMILY)
def NormScalarOptDimModule_p3():
    return Fn(lambda x: torch.norm(x, p=3, dim=1))


@case(inputs=randn_inputs(3, 4), family=FAMILY)
def FrobeniusNormModule_basic():
    return Fn(lambda x: torch.linalg.matrix_norm(x, ord="fro"))


@case(inputs=lambda: (torch.randn(3, 4) * 30,), family=FAMILY)
def LogSumExpModule_basic():
    """Large inputs: a naive exp-sum-log overflows."""
    return Fn(lambda x: torch.logsumexp(x, dim=1))


@case(inputs=randn_inputs(2, 3, 4), family=FAMILY)
def LogSumExpModule_keepdim_negative_dim():
    return Fn(lambda x: torch.logsumexp(x, dim=-2, keepdim=True))


@case(inputs=lambda: (torch.randint(-1, 2, (4, 5)),), family=FAMILY)
def CountNonzeroModule_dim():
    return Fn(lambda x: torch.count_nonzero(x, dim=1))


@case(inputs=lambda: (torch.tensor([[1.0, float("nan"), 2.0], [float("nan"), float("nan"), 3.0]]),), family=FAMILY)
def ReduceNansumModule_basic():
    return Fn(lambda x: torch.nansum(x, dim=1))


@case(inputs=randn_inputs(3, 4), family=FAMILY)
def ReduceMeanSquareModule_basic():
    """A reduction inside arithmetic: RMS of each row."""
    return Fn(lambda x: torch.sqrt((x * x).mean(-1, keepdim=True) + 1e-6))


@case(inputs=lambda: (torch.randn(3, 4, dtype=torch.float64),), family=FAMILY, nonconformant=F64_BY_DESIGN)
def ReduceSumF64Module_basic():
    return Fn(lambda x: x.sum(dim=1))


def _masked_rows():
    x = torch.randn(4, 6)
    mask = torch.zeros(4, 6, dtype=torch.bool)
    mask[1] = True  # a fully masked row
    mask[2, ::2] = True
    return x, mask


# The max of a row of -inf is -inf, and the min of +inf is +inf: tosa-to-linalg
# started them from the largest finite values (-3.4e38: every-sample OpInfo
# masked.amax/float32/85); max pooling too, its padding included.
_IREE_MAX_START = ("IREE's TOSA input runs MLIR's tosa-to-linalg, which starts a float max from -3.4e38 (the "
                   "reference runtime's tosa-custom-max-min-from-infinity runs after its own; IREE's is inside "
                   "iree-compile)")
_VGF_MAX_START = ("Vulkan through the ML SDK 0.11 (emulation layer, lavapipe) starts a float max from -3.4e38 too: "
                  "a max of only -inf came back -3.4e38 (REDUCE_MAX and MAX_POOL2D)")


@case(inputs=_masked_rows, family=FAMILY,
      xfail={**xfail_except("iree", _IREE_MAX_START, "dummy"), "vgf": _VGF_MAX_START})
def AmaxAminModule_fully_masked_row():
    return Fn(lambda x, m: (x.masked_fill(m, -float("inf")).amax(1), x.masked_fill(m, float("inf")).amin(1),
                            x.masked_fill(m, -float("inf")).max(1).values))


@case(inputs=_masked_rows, family=FAMILY,
      xfail={**xfail_except("iree", _IREE_MAX_START, "dummy"), "vgf": _VGF_MAX_START})
def MaxPool2dModule_window_of_negative_infinity():
    return Fn(lambda x, m: torch.nn.functional.max_pool2d(x.masked_fill(m, -float("inf"))[None], 2, 2, padding=1))
