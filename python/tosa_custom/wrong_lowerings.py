"""Ops torch-mlir lowers to TOSA that computes a different answer than eager.

A fact auto mode reads (it tunnels these ops as `wrong-lowering`, CONTRACT.md
7.1) and the OpInfo suite's stock expectations derive from: each entry names
the sample that shows it, so a reviewer can re-run it and delete the entry
once torch-mlir is fixed.
"""

from __future__ import annotations

import dataclasses
from typing import Callable

__all__ = ["WrongLowering", "WRONG_LOWERINGS", "find"]


@dataclasses.dataclass(frozen=True)
class WrongLowering:
    op: str  # torch-dialect identifier at the backend contract, e.g. "torch.aten.logcumsumexp"
    dtypes: tuple[str, ...]  # element type of the first tensor operand ("f32", "si64", "i1"); () = every dtype
    detail: str  # what differs, in a few words
    sample: str  # the sample that shows it: OpInfo "logcumsumexp/float32/0", or an e2e case "e2e:NAME"
    max_diff: float  # largest |stock - eager| on that sample (inf: non-finite where eager is finite)
    # A condition on the instance beyond its dtype (its constant arguments), and what it says.
    when: Callable | None = None
    condition: str = ""


def _negative_pad(op) -> bool:
    from .conversion import constant_list

    pad = constant_list(op.operands[1])
    return pad is None or any(p < 0 for p in pad)


WRONG_LOWERINGS: tuple[WrongLowering, ...] = (
    WrongLowering("torch.aten.constant_pad_nd", (), "a negative pad (a crop) gives wrong values",
                  "e2e:ConstantPadNdModule_negative_pad", float("nan"), when=_negative_pad,
                  condition="a negative (or run-time) pad"),
    WrongLowering("torch.aten.logcumsumexp", ("f32",), "result not finite where eager's is",
                  "logcumsumexp/float32/0", float("inf")),
)


def _element_type(op) -> str | None:
    for value in op.operands:
        text = str(value.type)
        if text.startswith("!torch.vtensor<") and "," in text:
            return text[text.rindex(",") + 1:-1]
    return None


def find(op) -> WrongLowering | None:
    """The entry for this op instance: its name, and the dtype of its first tensor operand."""
    for entry in WRONG_LOWERINGS:
        if entry.op == op.name and (not entry.dtypes or _element_type(op) in entry.dtypes) and (
                entry.when is None or entry.when(op)):
            return entry
    return None
