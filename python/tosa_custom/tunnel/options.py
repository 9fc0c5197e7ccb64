"""What the tunnel pass is asked and what it answers: its flag and options,
the closed set of reasons an op is left unconverted (CONTRACT.md), and the
result types `convert_module` and `compile()` report with."""

from __future__ import annotations

import dataclasses
from typing import Any

from ..contract import encoding as _c
from ..core import schema as _schema
from ..core.diagnostics import DiagnosticLog
from ..core.passes import lookup_pass

__all__ = [
    "PASS_ARGUMENT", "USER_LISTED", "SKIP_CATEGORIES", "PassOptions", "Skipped", "Site", "ConversionResult",
    "parse_encoding",
]

PASS_ARGUMENT = "convert-torch-backend-legal-to-tosa-custom"
# The category of a Site the pass converted because `ops=` lists it (auto
# mode's own categories are auto.CATEGORIES).
USER_LISTED = "user-listed"


# Why a selected op was left unconverted: a fixed set, documented in CONTRACT.md.
SKIP_CATEGORIES = {
    "unknown-op": "the op has no schema in torch.ops, so its arguments cannot be named",
    "mutating-op": "the op writes to one of its operands (TOSA values are immutable)",
    "generator-operand": "a torch.Generator is random-number state, not a value",
    "non-tensor-result": "a result is neither a tensor, a number nor an unpacked list of tensors (e.g. an int[])",
    "list-result": "a result is a list of tensors used other than by prim.ListUnpack, so its length is not known",
    "unsupported-argument-type": "the schema has an argument type the contract does not cover",
    "non-constant-argument": "a string, dtype, device, layout or memory format is not a constant",
    "unsupported-tensor-type": "an operand or result is not a ranked value tensor TOSA can type",
    "zero-size-tensor": "a zero-size operand or result has dynamic dimensions, so its shape cannot be written",
    "dynamic-result-shape": "a result has a ? dim whose size no expression over the operands' dims and values gives",
}


def parse_encoding(text: str) -> str:
    """The `encoding` option: how non-tensor arguments travel (CONTRACT.md)."""
    if text not in _c.ENCODINGS:
        raise ValueError(f"unknown encoding '{text}': expected one of {', '.join(_c.ENCODINGS)}")
    return text


@dataclasses.dataclass
class PassOptions:
    ops: _schema.OpSelection = dataclasses.field(default_factory=_schema.OpSelection)
    encoding: str = "json"
    strict: bool = False

    def __post_init__(self) -> None:
        if not isinstance(self.ops, _schema.OpSelection):
            self.ops = _schema.OpSelection(self.ops)
        parse_encoding(self.encoding)

    @staticmethod
    def parse(text: str) -> "PassOptions":
        """Parse MLIR pass-option syntax: `ops=a,b encoding=const strict=true`."""
        return PassOptions.of(lookup_pass(PASS_ARGUMENT).parse_options(text))

    @staticmethod
    def of(parsed) -> "PassOptions":
        return PassOptions(ops=parsed.ops, encoding=parsed.encoding, strict=parsed.strict)


@dataclasses.dataclass(frozen=True)
class Skipped:
    identifier: str
    category: str
    message: str
    location: str


@dataclasses.dataclass(frozen=True)
class Site:
    """One op instance made a tosa.custom, and why (a category of auto.CATEGORIES)."""

    identifier: str
    category: str
    location: str
    reason: str
    stage: str = ""  # auto mode: the stage that showed it must be tunneled (auto.STAGES); "" when listed


@dataclasses.dataclass
class ConversionResult:
    converted: dict[str, int] = dataclasses.field(default_factory=dict)
    skipped: list[Skipped] = dataclasses.field(default_factory=list)
    sites: list[Site] = dataclasses.field(default_factory=list)
    # Auto mode: a copy of the module before this pass, converted as this run
    # converted it and lowered by pipelines.after_tunnel() (auto.Selection).
    lowered: Any = None
    lowered_log: DiagnosticLog | None = None
    lowered_target: Any = None  # the TosaTarget `lowered` was validated against and carries, if any
