"""The lowering's picture of a float value of the lowered module as an
integer tensor: `real = scale * (q - zero_point)`, per tensor or per
channel along `axis`, stored in i8/i16 (what a quantize produced) or held
in i32 (an accumulator, a sum: the scale is the product or common scale of
what made it). `materialize` turns one into another's parameters with
RESCALE; it is the only place a ratio of scales becomes integer arithmetic."""

from __future__ import annotations

import dataclasses

import numpy as np
from torch_mlir import ir

from ..core.passes import PassFailure
from . import build as _build
from .scales import BITS, QParams

__all__ = ["QValue", "materialize", "to_i32", "from_qparams", "I32_RANGE"]

I32_RANGE = (-(1 << 31), (1 << 31) - 1)


@dataclasses.dataclass(frozen=True)
class QValue:
    """An integer tensor standing for a float one."""

    value: ir.Value  # the integer tensor
    scale: np.ndarray  # float64, shape () or (C,)
    zero_point: int = 0
    axis: int | None = None  # per-channel scales lie along this dim of `value`
    low: int = I32_RANGE[0]  # the range the integers are known to lie in (a quantize's quant_min/max)
    high: int = I32_RANGE[1]

    @property
    def element(self) -> str:
        return _build.element_of(self.value)

    @property
    def per_channel(self) -> bool:
        return self.axis is not None and self.scale.ndim == 1

    @property
    def rank(self) -> int:
        return ir.RankedTensorType(self.value.type).rank

    def replace(self, **kw) -> "QValue":
        return dataclasses.replace(self, **kw)

    def scale_along(self, rank: int | None = None) -> np.ndarray:
        """The scales shaped to broadcast against the value (1 everywhere but the axis)."""
        rank = self.rank if rank is None else rank
        if not self.per_channel:
            return self.scale.reshape([1] * rank)
        shape = [1] * rank
        shape[self.axis] = -1
        return self.scale.reshape(shape)


def from_qparams(value: ir.Value, q: QParams) -> QValue:
    axis = q.axis if q.per_channel else None
    return QValue(value, np.asarray(q.scale, dtype=np.float64), q.zero_point, axis, q.quant_min, q.quant_max)


def _rescaled(x: QValue, ratios: np.ndarray, out_zp: int, element: str) -> ir.Value:
    """RESCALE of `x` by per-tensor or per-channel `ratios`: a per-channel axis
    that is not innermost is brought there and back by transposes."""
    if np.ndim(ratios) == 0 or ratios.size == 1 or not x.per_channel:
        return _build.rescale(x.value, np.asarray(ratios).reshape(-1)[:1], x.zero_point, out_zp, element)
    last = x.rank - 1
    if x.axis == last:
        return _build.rescale(x.value, ratios, x.zero_point, out_zp, element)
    perms = [d for d in range(x.rank) if d != x.axis] + [x.axis]
    moved = _build.transpose(x.value, perms)
    done = _build.rescale(moved, ratios, x.zero_point, out_zp, element)
    return _build.transpose(done, [perms.index(d) for d in range(x.rank)])


def _check_zero_point(x: QValue, where) -> None:
    if x.element in ("i32", "i48") and x.zero_point != 0:
        raise PassFailure(f"an {x.element} value with zero point {x.zero_point} (RESCALE needs 0)", where)


def materialize(x: QValue, q: QParams, where) -> ir.Value:
    """`x` as the integers of `q` (a quantize's parameters): RESCALE by the
    ratio of the scales, then the clamp to [quant_min, quant_max] when that
    is narrower than the type. Nothing when `x` already is `q`."""
    if q.per_channel:
        raise PassFailure("a per-channel quantize of an activation (only weights are quantized per channel)", where)
    same = (not x.per_channel and float(x.scale) == float(q.scale) and x.zero_point == q.zero_point
            and x.element == q.element)
    if same and q.quant_min <= x.low and x.high <= q.quant_max:
        return x.value
    _check_zero_point(x, where)
    value = x.value if same else _rescaled(x, x.scale / float(q.scale), q.zero_point, q.element)
    lowest, highest = -(1 << (BITS[q.element] - 1)), (1 << (BITS[q.element] - 1)) - 1
    if (q.quant_min, q.quant_max) != (lowest, highest):
        value = _build.clamp(value, q.quant_min, q.quant_max)
    return value


def to_i32(x: QValue, scale: "float | np.ndarray", where) -> QValue:
    """`x` in i32 at `scale` (per tensor, or `x`'s own per-channel scales)
    with zero point 0: what adds, products and sums compute on."""
    scale = np.asarray(scale, dtype=np.float64)
    if x.element == "i32" and x.zero_point == 0 and x.scale.shape == scale.shape and np.all(x.scale == scale):
        return x
    _check_zero_point(x, where)
    ratios = x.scale / scale if x.per_channel or scale.ndim else x.scale / float(scale)
    value = _rescaled(x, np.asarray(ratios), 0, "i32")
    axis = x.axis if scale.ndim == 1 else None
    return QValue(value, scale, 0, axis)
