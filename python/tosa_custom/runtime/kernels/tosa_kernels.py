"""TOSA ops that MLIR's `tosa-to-linalg` does not lower, run as runtime kernels.

torch-mlir's TOSA lowering emits `tosa.scatter` for scatter, index_put,
slice_scatter, circular padding and its sort/topk networks, and upstream
MLIR has no linalg lowering for it, so a valid TOSA module would not load.
Each such op is turned into a `tosa.custom` of domain `tosa_custom.runtime`
before the custom ops are outlined, and runs through the same kernel path (and error
reporting) as the user's custom ops. `Program.custom_ops` leaves them out:
they are the runtime's business, not the model's.

The kernels check what the TOSA specification requires of their inputs
(an index in range, each output row written once) and raise, naming the
offending index, instead of writing outside the tensor.
"""

from __future__ import annotations

import torch
from torch_mlir import ir

from ...core.ir import collect_ops
from ...core.passes import PassContext, register_pass
from .registry import KernelCall, builtin_kernel

__all__ = ["RUNTIME_DOMAIN", "OUTLINE_TOSA_FALLBACKS", "outline_tosa_fallbacks"]

RUNTIME_DOMAIN = "tosa_custom.runtime"
_FALLBACK_OPS = ("tosa.scatter",)
OUTLINE_TOSA_FALLBACKS = "tosa-custom-outline-tosa-fallbacks"


@register_pass(OUTLINE_TOSA_FALLBACKS,
               "Turn TOSA ops tosa-to-linalg cannot lower (tosa.scatter) into tosa.custom ops of domain "
               "tosa_custom.runtime, run by the runtime's kernels")
def outline_tosa_fallbacks(module, ctx: PassContext | None = None) -> int:
    """Replace each op of `_FALLBACK_OPS` by a `tosa.custom` of domain RUNTIME_DOMAIN
    with the same operands and results; returns how many."""
    ops = collect_ops(module, lambda op: op.name in _FALLBACK_OPS)
    with module.context, ir.Location.unknown():
        for op in ops:
            with ir.InsertionPoint(op), op.location:
                custom = ir.Operation.create(
                    "tosa.custom", results=[r.type for r in op.results], operands=list(op.operands),
                    attributes={"operator_name": ir.StringAttr.get(op.name),
                                "domain_name": ir.StringAttr.get(RUNTIME_DOMAIN),
                                "implementation_attrs": ir.StringAttr.get("")},
                )
            for old, new in zip(op.results, custom.results):
                old.replace_all_uses_with(new)
            op.erase()
    return len(ops)


@builtin_kernel("tosa.scatter", domain_name=RUNTIME_DOMAIN)
def scatter(call: KernelCall) -> None:
    """values_out = values_in; values_out[n, indices[n, w], :] = input[n, w, :]."""
    values, indices, updates = call.inputs
    (out,) = call.outputs
    n, k, c = values.shape
    index = indices.to(torch.int64)
    bad = (index < 0) | (index >= k)
    if bool(bad.any()):
        at = tuple(int(i) for i in bad.nonzero()[0])
        raise IndexError(f"indices{list(at)} = {int(index[at])} is outside [0, {k}) (values_in is {n}x{k}x{c})")
    rows = index + torch.arange(n).unsqueeze(1) * k
    if rows.numel() != torch.unique(rows).numel():
        raise IndexError("two indices of the same batch name one row: TOSA requires each row written once")
    out.copy_(values)
    out.view(n * k, c)[rows.reshape(-1)] = updates.reshape(-1, c)
