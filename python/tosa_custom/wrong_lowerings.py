"""Ops stock mode lowers to TOSA that computes the wrong numbers.

Stock mode compiles these and the program runs, but its results differ from
eager PyTorch beyond the tolerance OpInfo itself declares: no error says so,
so nothing downstream can notice. The wrong step is torch-mlir's, either
TorchToTosa's pattern for the op or the decomposition torch-mlir applies to
it on the way to the backend contract (logcumsumexp: the op is gone by
then, so keeping it from decomposition, as `backend_legal_ops` does, is part
of tunneling it). This table is the one home of that fact:
auto mode (`backend_legal_ops="auto"`) reads it to tunnel each listed op as
`tosa.custom` (category `wrong-lowering`), and the OpInfo suite's stock-mode
expectations are derived from it (`e2e/opinfo_expectations.py`).

Each entry was found by the OpInfo suite's stock run and narrowed to one op
at the backend contract: the sample's program was compiled with that op
tunneled (`backend_legal_ops=[...]`, the runtime runs it with a torch kernel)
and then matched eager. `sample` names the OpInfo sample that shows it
(`<op_id>/<dtype>/<index>`, as `tosa-custom-audit --suite opinfo` runs it),
`max_diff` what that sample measured in stock mode. A test checks every
sample still exists in the suite.
"""

from __future__ import annotations

import dataclasses
import math
import re

__all__ = ["WrongLowering", "WRONG_LOWERINGS", "find", "operand_dtype"]


@dataclasses.dataclass(frozen=True)
class WrongLowering:
    op: str  # torch-dialect identifier at the backend contract, e.g. "torch.aten.logcumsumexp"
    dtypes: tuple[str, ...]  # torch-mlir element type of the op's first tensor operand; () = every dtype
    detail: str  # what differs, in a few words
    sample: str  # the OpInfo sample that shows it, "logcumsumexp/float32/0"
    max_diff: float  # largest |stock - eager| on that sample (inf for non-finite mismatch)

    def matches(self, name: str, dtype: str | None) -> bool:
        """Whether an op named `name` whose first tensor operand has element
        type `dtype` (None: it has no tensor operand) is lowered wrongly."""
        return name == self.op and (not self.dtypes or dtype in self.dtypes)


WRONG_LOWERINGS: tuple[WrongLowering, ...] = (
    # Every dtype: the decomposition is the same for each (PyTorch defines the op for floating types only).
    WrongLowering("torch.aten.logcumsumexp", (),
                  "torch-mlir decomposes it to log(cumsum(exp(x))) without subtracting the max: "
                  "inf for inputs above ~88, where eager returns the input",
                  "logcumsumexp/float32/0", math.inf),
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
    """The entry that says `op` (a torch-dialect `torch_mlir.ir.Operation`,
    or an OpView) is lowered wrongly, matching its name and the dtype of its
    first tensor operand; None when its lowering is not known to be wrong."""
    op = getattr(op, "operation", op)
    name = op.name
    candidates = [w for w in WRONG_LOWERINGS if w.op == name]
    if not candidates:
        return None
    dtype = operand_dtype(op)
    return next((w for w in candidates if w.matches(name, dtype)), None)
