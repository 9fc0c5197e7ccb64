"""Version 5: a kept op on quantized values (CONTRACT.md §18).

In a quantized model, a kept op takes and returns the integers PT2E's
quantize ops made: the `dequantize -> op -> quantize` group around it is
one `tosa.custom`. Its `implementation_attrs` say, under `"quantization"`,
which operands and results are quantized and how (the fields named as PT2E's
quantize ops name their arguments), so that its meaning is exactly

    results = quantize(op(dequantize(operands)))

operand by operand and result by result; an operand or result not listed is
what the ATen call takes or gives (a float weight the quantizer left alone,
an index). This module is the one home of that key: its JSON form, its
checks, and the call it defines (the generic kernel runs it as written).
"""

from __future__ import annotations

import dataclasses
import math
from typing import Any, Sequence

import numpy as np
import torch

from ..core.quantization import QParams, dequantize, quantize
from .errors import ContractError

__all__ = ["QUANTIZATION_KEY", "QUANTIZED_VERSION", "OpQuantization", "parse_quantization"]

QUANTIZATION_KEY = "quantization"
QUANTIZED_VERSION = 5
_DTYPES = {"int8": (torch.int8, -128, 127), "int16": (torch.int16, -32768, 32767)}
_FIELDS = {"scale", "zero_point", "quant_min", "quant_max", "dtype", "axis"}


@dataclasses.dataclass(frozen=True)
class OpQuantization:
    """Each quantized operand's and result's parameters, by custom-op index."""

    operands: dict[int, QParams]
    results: dict[int, QParams]

    def to_json(self) -> dict:
        return {"operands": {str(i): q.to_json() for i, q in sorted(self.operands.items())},
                "results": {str(i): q.to_json() for i, q in sorted(self.results.items())}}

    def dequantized(self, operands: Sequence[Any]) -> list:
        """The operands as the ATen op takes them: each quantized one dequantized as PT2E does."""
        return [dequantize(x, self.operands[i]) if i in self.operands else x for i, x in enumerate(operands)]

    def quantized(self, result, dropped: Sequence[int] = ()):
        """The ATen op's `result` (a tensor or a sequence) as the custom op's
        results: the ATen results in `dropped` left out (CONTRACT.md 3.4), each
        quantized one quantized as PT2E does."""
        flat = [result] if isinstance(result, torch.Tensor) else list(result)
        kept = [r for k, r in enumerate(flat) if k not in set(dropped)]
        out = [quantize(r, self.results[j]) if j in self.results else r for j, r in enumerate(kept)]
        return out[0] if isinstance(result, torch.Tensor) else tuple(out)

    def check_counts(self, num_operands: int, num_results: int | None) -> None:
        for what, table, count in (("operand", self.operands, num_operands), ("result", self.results, num_results)):
            bad = sorted(i for i in table if count is not None and i >= count)
            if bad:
                raise ContractError(f"'quantization' names {what}(s) {bad}, but the op has {count} {what}s")


def _number(q: dict, name: str, where: str) -> int:
    value = q.get(name)
    if not (isinstance(value, int) and not isinstance(value, bool)):
        raise ContractError(f"{where}: '{name}' must be an integer, got {value!r}")
    return value


def _scale(value, per_channel: bool, where: str) -> np.ndarray:
    values = value if per_channel else [value]
    if not isinstance(values, list) or not values or not all(
            isinstance(v, (int, float)) and not isinstance(v, bool) and math.isfinite(v) and v > 0 for v in values):
        form = "a non-empty list of positive numbers (per channel, with 'axis')" if per_channel else "a positive number"
        raise ContractError(f"{where}: 'scale' must be {form}, got {value!r}")
    return np.asarray(values if per_channel else values[0], dtype=np.float64)


def _params(q, where: str) -> QParams:
    if not isinstance(q, dict) or not {"scale", "zero_point", "quant_min", "quant_max", "dtype"} <= set(q):
        raise ContractError(f"{where} must be an object with scale, zero_point, quant_min, quant_max and dtype "
                            f"(and axis per channel), got {q!r}")
    unknown = set(q) - _FIELDS
    if unknown:
        raise ContractError(f"{where} has unknown fields {sorted(unknown)}")
    if q["dtype"] not in _DTYPES:
        raise ContractError(f"{where}: 'dtype' must be one of {sorted(_DTYPES)}, got {q['dtype']!r}")
    dtype, lowest, highest = _DTYPES[q["dtype"]]
    axis = _number(q, "axis", where) if "axis" in q else None
    if axis is not None and axis < 0:
        raise ContractError(f"{where}: 'axis' must be >= 0, got {axis}")
    low, high = _number(q, "quant_min", where), _number(q, "quant_max", where)
    zero = _number(q, "zero_point", where)
    if not (lowest <= low <= high <= highest and low <= zero <= high):
        raise ContractError(f"{where}: quant_min <= zero_point <= quant_max within {q['dtype']} is required, got "
                            f"{low}, {zero}, {high}")
    return QParams(_scale(q["scale"], axis is not None, where), zero, low, high, dtype, axis)


def parse_quantization(table, version: int) -> OpQuantization:
    """The `"quantization"` value of an `implementation_attrs`, checked."""
    if version < QUANTIZED_VERSION:
        raise ContractError(f"'quantization' needs contract version {QUANTIZED_VERSION}, but the op says version "
                            f"{version}")
    if not isinstance(table, dict) or set(table) - {"operands", "results"} or not table:
        raise ContractError(f"'quantization' must be an object with 'operands' and/or 'results', got {table!r}")
    found = {}
    for side in ("operands", "results"):
        entries = table.get(side, {})
        if not isinstance(entries, dict) or not all(isinstance(k, str) and k.isdigit() for k in entries):
            raise ContractError(f"'quantization' '{side}' must map indices (\"0\", \"1\", ...) to parameters")
        found[side] = {int(k): _params(v, f"'quantization' {side[:-1]} {k}") for k, v in entries.items()}
    if not found["operands"] and not found["results"]:
        raise ContractError("'quantization' names no operand and no result")
    return OpQuantization(found["operands"], found["results"])
