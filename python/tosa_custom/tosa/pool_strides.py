"""A pooling's empty stride list spelt out as its kernel size, before torch-mlir reads it.

PyTorch takes `stride=()` (or None) to mean the kernel size. torch-mlir's
lowering to the backend contract expands a pooling's one-element lists to
one per spatial dim, and given an empty stride with a one-element padding
it reads the stride's elements past its end: the backend contract then has a
stride of two addresses (`[140722051285520, 1024]`), which the kernel of a
tunneled op refuses and a lowering would compute with (every-sample OpInfo
avg_pool2d float32/4: stride (), padding (0,)). The stride becomes the
kernel size's list, which is what PyTorch computes with.
"""

from __future__ import annotations

from torch_mlir import ir

from ..core import builders as _b
from ..core.ir import collect_ops, defining_op
from ..core.passes import PassContext, register_pass

__all__ = ["DEFAULT_POOL_STRIDES", "default_pool_strides", "POOLS"]

DEFAULT_POOL_STRIDES = "tosa-custom-default-pool-strides"

# The poolings whose stride (operand 2, after input and kernel_size) defaults to the kernel size.
POOLS = frozenset(f"torch.aten.{kind}_pool{d}d{suffix}" for kind in ("avg", "max") for d in (1, 2, 3)
                  for suffix in ("", "_with_indices") if not (kind == "avg" and suffix))


def _empty_list(value: ir.Value) -> bool:
    op = defining_op(value)
    return op is not None and op.name == "torch.prim.ListConstruct" and len(op.operands) == 0


@register_pass(DEFAULT_POOL_STRIDES,
               "Replace a pooling's empty stride list by its kernel size's, as PyTorch reads it: torch-mlir's "
               "lowering to the backend contract reads an empty stride past its end when it expands a "
               "one-element padding (avg_pool2d(x, (2, 2), (), (0,)): a stride of two addresses)")
def default_pool_strides(module: ir.Operation, ctx: PassContext) -> None:
    for op in collect_ops(module, lambda op: op.name in POOLS and len(op.operands) > 2 and _empty_list(op.operands[2])):
        kernel = defining_op(op.operands[1])
        if kernel is None or kernel.name != "torch.prim.ListConstruct":
            continue
        with ir.InsertionPoint(op), op.location:
            op.operands[2] = _b.create("torch.prim.ListConstruct", op.operands[1].type, list(kernel.operands))
