"""Zero-size values as empty tensors, which TorchToTosa leaves alone.

A zero-size tensor holds no data: what it is follows from its type. But
TorchToTosa has no lowering for a `torch.vtensor.literal` of zero size
(`tosa.const` holds elements), for `aten.empty.memory_format`, or for the
`cat` of no tensors that torch-mlir folds `stack` of zero-size tensors to,
so a program that makes one failed to lower in stock mode and in auto mode
too, which has no op to tunnel for a literal: it comes from a decomposition,
not from an op PyTorch wrote (native_batch_norm in eval returns empty saved
statistics: every-sample OpInfo native_batch_norm/float32/1; linspace with 0
steps; stack/bool/7). So each literal and ATen op whose every result has a
static zero-size type becomes `tensor.empty` of those types, as the tunnel
makes a tosa.custom's zero-size result (CONTRACT.md 3.4). The shapes were
checked when the program was exported.
"""

from __future__ import annotations

from torch_mlir import ir

from ..core import builders as _b
from ..core import dtypes as _dtypes
from ..core.ir import collect_ops
from ..core.passes import PassContext, register_pass

__all__ = ["ZERO_SIZE_AS_EMPTY", "zero_size_as_empty"]

ZERO_SIZE_AS_EMPTY = "tosa-custom-zero-size-as-empty"

def _zero_size_type(value: ir.Value) -> bool:
    parsed = _dtypes.parse_vtensor(str(value.type))
    return parsed is not None and "?" not in parsed[0] and "0" in parsed[0]


def _zero_size(op: ir.Operation) -> bool:
    """A literal or ATen op whose every result is a static zero-size tensor."""
    if op.name != "torch.vtensor.literal" and not op.name.startswith("torch.aten."):
        return False
    return len(op.results) > 0 and all(_zero_size_type(r) for r in op.results)


@register_pass(ZERO_SIZE_AS_EMPTY,
               "Replace a zero-size torch.vtensor.literal, and each ATen op whose every result is zero-size, by "
               "empty tensors of their types: TorchToTosa cannot lower a zero-size literal (a decomposition's "
               "empty result: native_batch_norm's saved statistics in eval, linspace with 0 steps), aten.empty, "
               "or the cat of no tensors torch-mlir folds stack of zero-size tensors to")
def zero_size_as_empty(module: ir.Operation, ctx: PassContext) -> None:
    for op in collect_ops(module, _zero_size):
        with ir.InsertionPoint(op), op.location:
            for result in op.results:
                result.replace_all_uses_with(_b.empty_vtensor(result.type))
        op.erase()
