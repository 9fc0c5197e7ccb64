"""Float max and min reductions that start from infinity, as TOSA defines them.

`tosa-to-linalg` starts `tosa.reduce_max` (and `tosa.max_pool2d`, whose
padding it fills the same way) from the lowest finite value of the type,
not from -inf: a row of -inf (a fully masked `masked.amax`, every-sample
OpInfo masked.amax/float32/85) reduces to -3.4e38 where TOSA and eager give
-inf; `reduce_min` likewise gives +3.4e38 for +inf. Starting from the
infinity changes nothing else: it is the identity of the max (min), and NaN
still propagates.

The pass runs on linalg right after `tosa-to-linalg`, so the TOSA handed to
other tools is not changed.
"""

from __future__ import annotations

import torch
from torch_mlir import ir

from ...core.builders import create
from ...core.ir import collect_ops, defining_op
from ...core.passes import PassContext, register_pass

__all__ = ["MAX_MIN_FROM_INFINITY", "max_min_from_infinity"]

MAX_MIN_FROM_INFINITY = "tosa-custom-max-min-from-infinity"

_LARGEST = {"f32": torch.finfo(torch.float32).max, "f16": torch.finfo(torch.float16).max,
            "bf16": torch.finfo(torch.bfloat16).max}
# The combiners whose identity is -inf (+1) or +inf (-1): the sign of the start.
_COMBINERS = {"arith.maximumf": 1, "arith.maxnumf": 1, "arith.minimumf": -1, "arith.minnumf": -1}
_POOLS = {"linalg.pooling_nhwc_max": 1, "linalg.pooling_nchw_max": 1, "linalg.pooling_ndhwc_max": 1,
          "linalg.pooling_nhwc_min": -1, "linalg.pooling_ndhwc_min": -1}


def _direction(op: ir.Operation) -> int:
    """+1 for a max reduction, -1 for a min one, 0 otherwise."""
    if op.name in _POOLS:
        return _POOLS[op.name]
    if op.name == "linalg.reduce":
        body = [o.name for o in op.regions[0].blocks[0].operations]
        return _COMBINERS.get(body[0], 0) if len(body) == 2 else 0
    return 0


def _extreme_constant(value: ir.Value, sign: int) -> bool:
    """Whether `value` is an `arith.constant` of -sign times the type's largest finite value."""
    owner = _producer(value, "arith.constant")
    largest = _LARGEST.get(str(value.type))
    return owner is not None and largest is not None and \
        ir.FloatAttr(owner.attributes["value"]).value == -sign * largest


def _infinity(at: ir.Operation, like: ir.Value, sign: int) -> ir.Value:
    with ir.InsertionPoint(at), at.location:
        return create("arith.constant", like.type,
                      attributes={"value": ir.FloatAttr.get(like.type, -sign * float("inf"))})


def _producer(value: ir.Value, name: str) -> ir.Operation | None:
    op = defining_op(value)
    return op if op is not None and op.name == name else None


@register_pass(MAX_MIN_FROM_INFINITY,
               "Start a float max (min) reduction or pooling that tosa-to-linalg starts from the lowest (highest) "
               "finite value, and pad a max pooling's input, from -inf (+inf): a row of -inf reduces to -inf, "
               "as TOSA and eager say, not to -3.4e38")
def max_min_from_infinity(module: ir.Operation, ctx: PassContext | None = None) -> int:
    """Rewrite the starts; return how many reductions changed."""
    changed = 0
    for op in collect_ops(module, lambda op: _direction(op) != 0):
        sign = _direction(op)
        init = op.operands[len(op.operands) - 1]  # the one output: `outs`
        fill = _producer(init, "linalg.fill")
        touched = False
        if fill is not None and _extreme_constant(fill.operands[0], sign):
            fill.operands[0] = _infinity(fill, fill.operands[0], sign)
            touched = True
        pad = _producer(op.operands[0], "tensor.pad") if op.name in _POOLS else None
        if pad is not None:
            yield_ = list(pad.regions[0].blocks[0].operations)[-1]
            if _extreme_constant(yield_.operands[0], sign):
                yield_.operands[0] = _infinity(pad, yield_.operands[0], sign)
                touched = True
        changed += touched
    return changed
