"""`tosa-custom-lower-quantized`: a quantized model's float TOSA as integer TOSA.

compile() keeps PT2E's quantize and dequantize ops whole (`tosa.custom`),
so TorchToTosa lowers the ops between them in float: a convolution reads a
dequantized weight, an add two dequantized activations. This pass walks
each function once, in order: a dequantize makes its float result stand for
its integer operand (scale, zero point); each op on such values gets its
integer form (rules.py, arith.py), standing for its float result; a
quantize asks for its parameters, which is where RESCALE happens. The float
ops are then dead and go. An op that reads a quantized value and has no
integer form here fails the pass, naming it.

Why at TOSA and not before: TorchToTosa has already chosen TOSA's layouts
(NHWC, the weights' transposes, linear as matmul and a bias add), so the
integer forms need only retype ops and add RESCALEs; ExecuTorch's Arm
backend, which works on the FX graph, has to do that layout work itself.
"""

from __future__ import annotations

from torch_mlir import ir

from ..core.ir import public_functions
from ..core.passes import PassContext, register_pass
from ..weights.blobs import ResourceBlobs
from . import arith as _arith
from . import boundary as _boundary
from . import pooling as _pooling
from . import qdq as _qdq
from . import rules as _rules
from . import tables as _tables

__all__ = ["LOWER_QUANTIZED", "lower_function"]

LOWER_QUANTIZED = "tosa-custom-lower-quantized"

_MOVES = ("tosa.transpose", "tosa.reshape", "tosa.slice", "tosa.tile", "tosa.reverse", "tosa.identity",
          "tosa.resize")
RULES = {
    "tosa.custom": _rules._custom,
    **{name: _rules._move for name in _MOVES},
    "tosa.pad": _rules._pad,
    "tosa.concat": _rules._concat,
    "tosa.conv2d": _rules._conv, "tosa.depthwise_conv2d": _rules._conv, "tosa.transpose_conv2d": _rules._conv,
    "tosa.matmul": _rules._matmul,
    "tosa.add": _arith.add_sub, "tosa.sub": _arith.add_sub,
    "tosa.mul": _arith.mul,
    "tosa.reduce_sum": _arith.reduce_sum,
    "tosa.avg_pool2d": lambda low, op: _pooling.avg_pool(low, op) or _arith.avg_pool(low, op),
    "tosa.max_pool2d": _arith.keep_scale, "tosa.reduce_max": _arith.keep_scale, "tosa.reduce_min": _arith.keep_scale,
    "tosa.clamp": _arith.clamp, "tosa.maximum": _arith.max_min, "tosa.minimum": _arith.max_min,
    "func.return": _boundary.returned,
    **{name: _rules._table for name in _tables.TOSA_TWINS},
}


def _reads_quantized(low: _rules.Lowering, op: ir.Operation) -> bool:
    return any(low.q(v) is not None for v in op.operands)


def lower_function(func: ir.Operation, blobs: ResourceBlobs) -> None:
    low = _rules.Lowering(blobs)
    block = func.regions[0].blocks[0]
    for op in [o.operation for o in block.operations]:
        if op.name != "tosa.custom" and not _reads_quantized(low, op):
            continue
        rule = RULES.get(op.name)
        if rule is None:
            raise _rules.PassFailure(f"{op.name} on a quantized value has no integer form here", op)
        with ir.InsertionPoint(op), op.location:
            rule(low, op)
    _erase_dead(block)


def _erasable(op: ir.Operation) -> bool:
    if op.name == "tosa.custom":
        return _qdq.kind(op) is not None or _tables.tabulated(op)
    return op.name.startswith("tosa.") and not op.regions


def _erase_dead(block: ir.Block) -> None:
    """Erase the float ops nothing reads any more (last first, so their operands' ops follow)."""
    changed = True
    while changed:
        changed = False
        for op in reversed([o.operation for o in block.operations]):
            if op.results and _erasable(op) and not any(True for r in op.results for _ in r.uses):
                op.erase()
                changed = True


@register_pass(LOWER_QUANTIZED,
               "Lower a quantized model's dequantize -> op -> quantize groups (PT2E's ops kept as tosa.custom, "
               "the ops between lowered in float) to integer TOSA: int8 convolutions and matmul with zero points "
               "into i32 (int16 activations: into i48, EXT-INT16), RESCALE to each quantize's parameters, TABLE for elementwise functions")
def lower_quantized(module: ir.Operation, ctx: PassContext) -> None:
    blobs = ResourceBlobs(module)
    for func in public_functions(module):
        lower_function(func, blobs)
