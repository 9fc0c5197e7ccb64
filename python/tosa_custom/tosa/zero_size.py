"""Zero-size tensor literals and factories as empty tensors, which TorchToTosa leaves alone.

TorchToTosa has no lowering for a `torch.vtensor.literal` of zero size
(`tosa.const` holds elements) nor for `aten.empty.memory_format`, so a
program that makes one fails to lower in stock mode and, before this pass,
in auto mode too, which has no op to tunnel for a literal: it comes from a
decomposition, not from an op PyTorch wrote (native_batch_norm in eval
returns empty saved statistics: every-sample OpInfo native_batch_norm/
float32/1; linspace with 0 steps). A zero-size value has nothing to compute,
so it becomes `tensor.empty` of its type, as the tunnel makes a tosa.custom's
zero-size result (CONTRACT.md 3.4). Only literals and the factories below,
which read no tensor's values and cannot fail at run time, are replaced.
"""

from __future__ import annotations

from torch_mlir import ir

from ..core import builders as _b
from ..core import dtypes as _dtypes
from ..core.ir import collect_ops
from ..core.passes import PassContext, register_pass

__all__ = ["ZERO_SIZE_AS_EMPTY", "zero_size_as_empty"]

ZERO_SIZE_AS_EMPTY = "tosa-custom-zero-size-as-empty"

_FACTORIES = frozenset(f"torch.aten.{name}" for name in (
    "empty.memory_format", "empty_strided", "new_empty", "new_empty_strided", "empty_like", "zeros", "ones",
    "full", "new_zeros", "new_ones", "new_full", "zeros_like", "ones_like", "full_like"))


def _zero_size(op: ir.Operation) -> bool:
    if op.name != "torch.vtensor.literal" and op.name not in _FACTORIES or len(op.results) != 1:
        return False
    parsed = _dtypes.parse_vtensor(str(op.results[0].type))
    return parsed is not None and any(d == "0" for d in parsed[0])


@register_pass(ZERO_SIZE_AS_EMPTY,
               "Replace a zero-size torch.vtensor.literal or tensor factory (aten.empty, zeros, full, their _like "
               "and new_ forms), which TorchToTosa cannot lower, by an empty tensor of its type (a decomposition's "
               "empty result: native_batch_norm's saved statistics in eval, linspace with 0 steps)")
def zero_size_as_empty(module: ir.Operation, ctx: PassContext) -> None:
    for op in collect_ops(module, _zero_size):
        with ir.InsertionPoint(op), op.location:
            op.results[0].replace_all_uses_with(_b.empty_vtensor(op.results[0].type))
        op.erase()
