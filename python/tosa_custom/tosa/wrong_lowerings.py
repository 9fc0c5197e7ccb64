"""Ops stock mode lowers to TOSA that computes the wrong numbers.

Stock mode compiles these and the program runs, but its results differ from
eager PyTorch beyond the tolerance OpInfo itself declares: no error says so,
so nothing downstream can notice. The wrong step is torch-mlir's, either
TorchToTosa's pattern for the op or the decomposition torch-mlir applies to
it on the way to the backend contract (logcumsumexp: the op is gone by
then, so keeping it from decomposition, as `backend_legal_ops` does, is part
of tunneling it).

This table is the one home of that fact: auto mode (`backend_legal_ops=
"auto"`) reads it through `find` to tunnel each listed op instance as
`tosa.custom` (category `wrong-lowering`, CONTRACT.md 7.1), and the OpInfo
suite's stock-mode expectations are derived from it
(`e2e/opinfo_expectations.py`).

Each entry was narrowed to one op at the backend contract: the sample's
program was compiled with that op tunneled (`backend_legal_ops=[...]`; the
runtime runs it with a torch kernel) and then matched eager. `sample` names
the sample that shows it, an OpInfo sample (`<op_id>/<dtype>/<index>`, as
`tosa-custom-audit --suite opinfo` runs it) or an e2e case (`e2e:NAME`), and
`max_diff` what that sample measured in stock mode. A test checks every
sample still exists; delete the entry once torch-mlir is fixed (the sample's
stock expectation then turns into an xpass that says so).
"""

from __future__ import annotations

import dataclasses
import math
import re
from typing import Callable

import numpy as np
from torch_mlir import ir

from ..core import ir as _ir
from ..core.diagnostics import Diagnostic
from ..core.torch_ir import constant_list

__all__ = ["WrongLowering", "WRONG_LOWERINGS", "find", "operand_dtype", "scatters_with_repeatable_indices"]


@dataclasses.dataclass(frozen=True)
class WrongLowering:
    op: str  # torch-dialect identifier at the backend contract, e.g. "torch.aten.logcumsumexp"
    dtypes: tuple[str, ...]  # torch-mlir element type of the op's first tensor operand ("f32", "si64", "i1"); () = every dtype
    detail: str  # what differs, in a few words
    sample: str  # the sample that shows it: OpInfo "logcumsumexp/float32/0", or an e2e case "e2e:NAME"
    max_diff: float  # largest |stock - eager| on that sample (inf: non-finite where eager is finite)
    # A condition on the instance beyond its dtype (its constant arguments), and what it says.
    when: Callable | None = None
    condition: str = ""

    def matches(self, name: str, dtype: str | None) -> bool:
        """Whether an op named `name` whose first tensor operand has element
        type `dtype` (None: it has no tensor operand) is lowered wrongly,
        before `when` looks at the instance."""
        return name == self.op and (not self.dtypes or dtype in self.dtypes)


def _negative_pad(op) -> bool:
    pad = constant_list(op.operands[1])
    return pad is None or any(p < 0 for p in pad)


WRONG_LOWERINGS: tuple[WrongLowering, ...] = (
    WrongLowering("torch.aten.constant_pad_nd", (), "a negative pad (a crop) gives wrong values",
                  "e2e:ConstantPadNdModule_negative_pad", float("nan"), when=_negative_pad,
                  condition="a negative (or run-time) pad"),
    # Every dtype: the decomposition is the same for each (PyTorch defines the op for floating types only).
    # Sample 1 (logcumsumexp/float32/1) shows it too; no other op differs by value in stock on samples 0 and 1.
    # torch-mlir scatters the unpooled values with tosa.scatter, naming an output row once per index; when
    # two windows' maxima share a position (OpInfo's sample does), TOSA forbids it and the runtime refuses.
    WrongLowering("torch.aten.max_unpool2d", (), "its tosa.scatter names one row twice where windows' maxima "
                  "coincide, which TOSA forbids", "nn.functional.max_unpool2d/float32/0", math.nan),
    WrongLowering("torch.aten.max_unpool3d", (), "its tosa.scatter names one row twice where windows' maxima "
                  "coincide, which TOSA forbids", "nn.functional.max_unpool3d/float32/0", math.nan),
    WrongLowering("torch.aten.logcumsumexp", (),
                  "torch-mlir decomposes it to log(cumsum(exp(x))) without subtracting the max: "
                  "inf for inputs above ~88, where eager returns the input",
                  "logcumsumexp/float32/0", math.inf),
    # In half precision the decomposition computes the sampling coordinates in the input's dtype, where
    # eager's kernel computes them in float32: near a pixel boundary the other neighbour is taken (float16
    # samples 10-17 and every bfloat16 sample differ; float32 matches).
    WrongLowering("torch.aten.grid_sampler_2d", ("f16", "bf16"),
                  "its decomposition computes the sampling coordinates in half precision (eager: float32), "
                  "so a point near a pixel boundary takes the other neighbour",
                  "grid_sampler_2d/float16/10", 3.53),
    # The same for statistics: torch-mlir's decomposition takes mean and variance in the input's half
    # dtype, eager's kernel in float32 (rounding once); beyond OpInfo's half tolerances on most samples.
    WrongLowering("torch.aten.instance_norm", ("f16", "bf16"),
                  "its decomposition computes mean and variance in half precision (eager: float32)",
                  "nn.functional.instance_norm/bfloat16/4", 0.024),
    # A float16 norm raises |x| to the p-th power in float16, eager's kernel in float32: a value above 256
    # squared overflows to inf (OpInfo's every-sample run: inf where the norm is 8.5). bfloat16 has float32's
    # range; its rounding is judged against eager's float64 result and passes.
    WrongLowering("torch.aten.linalg_vector_norm", ("f16",),
                  "it raises |x| to the power in float16 (eager: float32), where squares above 65504 overflow",
                  "linalg.vector_norm/float16/144", math.inf),
    # The rest, found by the every-sample run (auto against dummy, samples 3::50 of every dtype): TorchToTosa
    # computes in the half type what eager's kernel computes in float32 and rounds once, and the result is
    # farther from eager's float64 one than eager's own by more than the type's tolerance (e2e/precision.py).
    WrongLowering("torch.aten.rms_norm", ("f16",), "it sums the squares in float16 (eager: float32), which "
                  "overflow: 0 where eager's result is 733", "nn.functional.rms_norm/float16/0", 733.5),
    WrongLowering("torch.aten.cumsum", ("f16", "bf16"), "it accumulates in the half type (eager: float32)",
                  "cumsum/bfloat16/1", 0.03125),
    WrongLowering("torch.aten.mean", ("f16", "bf16"), "it sums in the half type (eager: float32)",
                  "nn.functional.hinge_embedding_loss/float16/1", 3.67e-4),
    WrongLowering("torch.aten.sum.dim_IntList", ("f16", "bf16"), "it sums in the half type (eager: float32)",
                  "masked.var/bfloat16/43", 0.25),
    # Integer linspace from tensor ends steps in float32 as eager does, but TOSA divides by multiplying with
    # the reciprocal: 1 + 24 * (49 / 49) is 24.999998, truncated to 24 where eager has 25.
    WrongLowering("torch.aten.linspace", ("si64", "si32", "si16", "si8", "ui8"),
                  "its float step, divided by TOSA as a multiplication with the reciprocal, lands just below an "
                  "integer, which the conversion to the integer dtype truncates one lower",
                  "linspace.tensor_overload/int32/159", 1.0),
    WrongLowering("torch.aten.gelu", ("bf16",), "its erf/tanh polynomial runs in bfloat16 (eager: float32)",
                  "nn.functional.gelu/bfloat16/1", 2.44e-4),
    # Every-sample shard 1/50: tanh's argument, x + 0.044715 x**3, is rounded to float16 at each step.
    WrongLowering("torch.aten.gelu", ("f16",), "its tanh form runs in float16 (eager: float32): a result near 0 "
                  "is off by 3% of itself", "nn.functional.gelu/float16/7", 2.25e-4),
    # Found by every-sample shard 11/50 (masked.logaddexp/float16/4, auto against dummy).
    WrongLowering("torch.aten.logaddexp", ("f16",), "it computes max(a, b) + log1p(exp(-|a - b|)) in float16 "
                  "(eager: float32): a result near 0, where the two terms near 1 cancel, is off by an ulp of 1 "
                  "(2% of it)", "logaddexp/float16/4", 4.88e-4),
    # OpInfo float16 and bfloat16 samples (auto against dummy). In bfloat16 they matched eager only while the
    # runtime kept 1 + x (and exp(x)) unrounded between ops (runtime/lower/half_rounding.py).
    WrongLowering("torch.aten.log1p", ("f16", "bf16"), "it computes log(1 + x) in the half type (eager: log1p in "
                  "float32): 1 + x rounds away a small x's low bits, a result near 0 off by 1-7% of itself",
                  "log1p/float16/0", 4.88e-4),
    WrongLowering("torch.aten.expm1", ("f16", "bf16"), "it computes exp(x) - 1 in the half type (eager: expm1 in "
                  "float32): the difference cancels for a small x, a result near 0 off by up to all of itself",
                  "expm1/bfloat16/0", 3.91e-3),
    # Every-sample shard 17/50 (auto against dummy): the composite is decomposed into norms, divisions and a sum.
    WrongLowering("torch.aten.cosine_similarity", ("f16", "bf16"), "each division becomes tosa.reciprocal and "
                  "tosa.mul, both rounded to the half type (eager rounds the quotient once); the sum of the "
                  "products then cancels, so a result near 0 is off by a few percent of itself",
                  "nn.functional.cosine_similarity/float16/4", 2.44e-4),
    # torch-mlir decomposes fmod before tosa-custom-exact-rounding-division could see it.
    WrongLowering("torch.aten.fmod.Tensor", ("f32", "f16", "bf16"), "torch-mlir decomposes it to "
                  "x - trunc(x * (1/y)) * y: a quotient that is an integer truncates one too low (fmod(147, 49) "
                  "is 49, not 0), and in a half type the steps round to it", "e2e:ElementwiseFmodModule_integer_quotients",
                  199.0),
    # PyTorch's own decomposition differs from its kernel (torch.export's core table: the same 432 elements).
    WrongLowering("torch.aten.upsample_bicubic2d", ("ui8",), "PyTorch's decomposition of the uint8 fixed-point "
                  "resampling rounds otherwise than its CPU kernel: off by one in 0.4% of the values",
                  "nn.functional.interpolate.bicubic/uint8/0", 1.0),
    # torch-mlir's table decomposes it otherwise than torch.export's (which matches the kernel): shard 19/50.
    WrongLowering("torch.aten.upsample_bilinear2d", ("ui8",), "torch-mlir's decomposition of the uint8 "
                  "resampling rounds otherwise than PyTorch's kernel: off by one in 16.5% of the values",
                  "nn.functional.interpolate.bilinear/uint8/0", 1.0),
)

# `!torch.vtensor<[2,3],f32>` -> f32; `!torch.vtensor<*,si64>` -> si64.
_VTENSOR = re.compile(r"^!torch\.vtensor<(?:\[[^\]]*\]|\*),([^,>]+)")


def operand_dtype(op) -> str | None:
    """Element type of the first `!torch.vtensor` operand of `op`, or None."""
    for value in op.operands:
        m = _VTENSOR.match(str(value.type))
        if m:
            return m[1]
    return None


def find(op) -> WrongLowering | None:
    """The entry that says this op instance (a torch-dialect
    `torch_mlir.ir.Operation` or OpView) is lowered wrongly: its name, the
    dtype of its first tensor operand, and the entry's `when`; None when its
    lowering is not known to be wrong."""
    op = getattr(op, "operation", op)
    candidates = [w for w in WRONG_LOWERINGS if w.op == op.name]
    if not candidates:
        return None
    dtype = operand_dtype(op)
    return next((w for w in candidates if w.matches(op.name, dtype) and (w.when is None or w.when(op))), None)


# TorchToTosa lowers index_put (accumulate=False) and scatter (src or a scalar
# value) to tosa.scatter, which TOSA defines only when no index of a batch
# repeats; PyTorch allows repeats (the runtime's tosa.scatter refuses them).
# A lowering right only for unique indices is wrong unless they are known
# unique: constant, and checked here. Unlike the table above, this is a rule
# on the TOSA made, so it holds for every op torch-mlir lowers that way.
SCATTER_DETAIL = ("tosa.scatter with indices that are not constants known unique: TOSA forbids writing one row "
                  "twice, PyTorch allows it")


# Ops between a constant and tosa.scatter's indices that keep its values (in row-major order).
_VALUE_PRESERVING = ("tosa.reshape", "tosa.cast", "tosa.identity")


def _unique_constant_rows(indices: ir.Value) -> bool:
    """Whether `indices` (tosa.scatter's [N, W] operand) is a constant naming
    each row at most once per batch (seen through reshapes and casts)."""
    owner = _ir.defining_op(indices)
    while owner is not None and owner.name in _VALUE_PRESERVING:
        owner = _ir.defining_op(owner.operands[0])
    if owner is None or owner.name != "tosa.const":
        return False
    try:
        values = np.array(ir.DenseElementsAttr(owner.attributes["values"]))
    except (ValueError, TypeError, KeyError):
        return False
    shape = ir.RankedTensorType(indices.type).shape
    if values.size != int(np.prod(shape)) or len(shape) != 2:
        return False
    return all(len(np.unique(batch)) == batch.size for batch in values.reshape(shape))


def scatters_with_repeatable_indices(module_op) -> list[Diagnostic]:
    """An error on each tosa.scatter under `module_op` whose indices may repeat."""
    scatters = _ir.collect_ops(module_op, lambda op: op.name == "tosa.scatter")
    return [Diagnostic("error", str(op.location), SCATTER_DETAIL) for op in scatters
            if not _unique_constant_rows(op.operands[1])]
