"""What compile() reports: the `CompileReport` a caller passes in, filled as
compile() goes (so after a CompileError it still holds what was learnt), and
`OutputType`, the historic torch_mlir names of what compile() returns."""

from __future__ import annotations

import collections
import dataclasses
import enum
from typing import Any

from ..tunnel.options import ConversionResult, Site, Skipped

__all__ = ["CompileReport", "Findings", "OutputType"]


@dataclasses.dataclass
class CompileReport:
    """What `compile(..., report=CompileReport())` did with each op, for audits.

    Filled as compile() goes, so after a CompileError it still holds what was
    learnt before the failure. Identifiers are dialect spellings
    (`torch.aten.add.Tensor`; a user op is its `torch.operator` name).
    """

    export_mode: str = ""  # "strict" or "non-strict"
    export_strict_error: str = ""  # why strict export failed, when it was retried non-strict
    export_nonstrict_error: str = ""  # why a non-strict capture was redone strict (model state taken for constants)
    ops_seen: dict[str, int] = dataclasses.field(default_factory=dict)
    converted: dict[str, int] = dataclasses.field(default_factory=dict)
    # A PT2E-quantized model: the ops compile() kept whole only for the integer
    # lowering (quant/: quantize/dequantize, the functions it tabulates), which
    # made them integer TOSA (tosa.rescale, tosa.table), not tosa.custom.
    integer: dict[str, int] = dataclasses.field(default_factory=dict)
    skipped: list[Skipped] = dataclasses.field(default_factory=list)
    # The TOSA target the output was validated against (tosa-attach-target's
    # options); empty when not validated (tosa_target=None, or not TOSA output).
    tosa_target: str = ""
    # Every op instance made a tosa.custom, with its category (auto.CATEGORIES,
    # CONTRACT.md 7.1): user-listed, no-tosa-lowering, wrong-lowering, not-conformant.
    tunneled: list[Site] = dataclasses.field(default_factory=list)
    # Auto mode: ops kept from PyTorch's decompositions because decomposing them failed (op -> error).
    kept_from_decomposition: dict[str, str] = dataclasses.field(default_factory=dict)

    def publish(self, found: "Findings") -> None:
        """Take what one attempt found about the ops, in place of an earlier
        attempt's: a retry starts from a fresh import, so its findings are the
        whole story."""
        self.converted, self.skipped, self.tunneled = dict(found.converted), list(found.skipped), list(found.tunneled)
        self.integer = dict(found.integer)
        self.tosa_target = found.tosa_target

    def tunneled_by_category(self) -> dict[str, collections.Counter]:
        """category -> op identifier -> sites."""
        found: dict[str, collections.Counter] = {}
        for site in self.tunneled:
            found.setdefault(site.category, collections.Counter())[site.identifier] += 1
        return found


class OutputType(enum.Enum):
    """What `compile()` returns (the historic torch_mlir names)."""

    TORCH = "torch"
    TOSA = "tosa"
    LINALG_ON_TENSORS = "linalg-on-tensors"
    RAW = "raw"

    @staticmethod
    def get(spec: "str | OutputType | Any") -> "OutputType":
        if isinstance(spec, OutputType):
            return spec
        value = getattr(spec, "value", spec)  # torch_mlir's own OutputType enum
        if isinstance(value, str):
            key = value.strip().lower().replace("_", "-")
            for member in OutputType:
                if member.value == key:
                    return member
        raise ValueError(
            f"unknown output_type {spec!r}: expected one of "
            + ", ".join(repr(m.value) for m in OutputType)
        )




@dataclasses.dataclass
class Findings:
    """What one attempt learnt about the ops (CompileReport's per-attempt part)."""

    converted: dict[str, int] = dataclasses.field(default_factory=dict)
    skipped: list[Skipped] = dataclasses.field(default_factory=list)
    tunneled: list[Site] = dataclasses.field(default_factory=list)
    tosa_target: str = ""
    integer: dict[str, int] = dataclasses.field(default_factory=dict)
    # Identifiers the quantized lowering makes integer TOSA after the tunnel
    # carried them (CompileReport.integer): counted there, not as converted.
    integer_ops: tuple = ()  # torch-mlir names ("quantized_decomposed.quantize_per_tensor")

    def _integer(self, identifier: str) -> bool:
        return any(identifier == f"torch.{op}" or identifier.startswith(f"torch.{op}.") for op in self.integer_ops)

    def add(self, result: ConversionResult, skipped: bool = False) -> None:
        """A tunnel's result; with `skipped`, the ops it could not carry too."""
        for identifier, count in result.converted.items():
            into = self.integer if self._integer(identifier) else self.converted
            into[identifier] = into.get(identifier, 0) + count
        self.tunneled.extend(s for s in result.sites if not self._integer(s.identifier))
        if skipped:
            self.skipped.extend(result.skipped)
