"""Results of dynamic size computed into buffers the caller offers.

A program whose results have `?` dims returns them (lowering.py): the
compiled code allocates each one, and the runtime hands it out as a tensor
that frees it (memref.owned_tensor). Wrapping a malloc'd buffer as a tensor
costs a few microseconds of Python per result, which at small sizes is as
much as the computation. But a result's size is a function of the input
sizes, which the caller knows after one call at those sizes. So the entry
takes, after its other arguments, one offered buffer per result: where the
result is an allocation the function returns as is, the allocation becomes
`scf.if (the offered buffer has exactly its sizes) { offered } else { alloc }`.
The caller then sees its own buffer come back (no wrap, no free) or, if the
offer did not fit (first call at a size, a size that depends on values, a
null pointer meaning no offer), a fresh allocation, handled as before. A
wrong offer costs speed, never correctness.

Runs after deallocation (which must not see the offered buffer: it would
clone a returned buffer it does not own), on memrefs.
"""

from __future__ import annotations

from torch_mlir import ir
from torch_mlir.dialects import arith
from torch_mlir.dialects import memref as memref_d
from torch_mlir.dialects import scf

from ...core.ir import collect_ops, public_functions
from ...core.passes import PassContext, register_pass

__all__ = ["OFFER_RESULT_BUFFERS", "offer_result_buffers"]

OFFER_RESULT_BUFFERS = "tosa-custom-offer-result-buffers"


def _returned_allocation(v: ir.Value, func, returned: list) -> ir.Operation | None:
    """The `memref.alloc` in `func`'s body that `v` is, returned once and
    freed nowhere, else None."""
    owner = v.owner
    if isinstance(owner, ir.Block) or owner.operation.name != "memref.alloc" or returned.count(v) != 1:
        return None
    alloc = owner.operation
    if alloc.parent != func or any(u.owner.name == "memref.dealloc" for u in alloc.results[0].uses):
        return None
    return alloc


def _fits(offered: ir.Value, alloc) -> ir.Value:
    """i1: the offered buffer is one (not null: no offer) of the allocation's
    sizes (static ones included)."""
    mtype = ir.MemRefType(alloc.results[0].type)
    index = ir.IndexType.get()
    address = memref_d.extract_aligned_pointer_as_index(offered)
    ok = arith.cmpi(arith.CmpIPredicate.ne, address, arith.constant(index, 0))
    dynamic = iter(alloc.operands)
    for i, size in enumerate(mtype.shape):
        want = next(dynamic) if mtype.is_dynamic_dim(i) else arith.constant(index, size)
        same = arith.cmpi(arith.CmpIPredicate.eq, memref_d.dim(offered, arith.constant(index, i)), want)
        ok = arith.andi(ok, same)
    return ok


def _use_offer(alloc, offered: ir.Value) -> None:
    with ir.InsertionPoint(alloc), alloc.location:
        ok = _fits(offered, alloc)
        choice = scf.IfOp(ok, [alloc.results[0].type], has_else=True)
        with ir.InsertionPoint(choice.then_block):
            scf.YieldOp([offered])
        fresh = alloc.clone(ip=ir.InsertionPoint(choice.else_block))
        with ir.InsertionPoint(choice.else_block):
            scf.YieldOp([fresh.results[0]])
    alloc.results[0].replace_all_uses_with(choice.results[0])
    alloc.erase()


@register_pass(OFFER_RESULT_BUFFERS,
               "Give each public function that returns memrefs one more argument per result, a buffer the "
               "caller offers: a returned allocation becomes that buffer when its sizes fit (after deallocation)")
def offer_result_buffers(module, ctx: PassContext | None = None) -> int:
    """Returns how many allocations take an offered buffer."""
    used = 0
    with module.context, ir.Location.unknown():
        for func in public_functions(module):
            ftype = ir.FunctionType(ir.TypeAttr(func.attributes["function_type"]).value)
            results = list(ftype.results)
            if not results or not all(isinstance(t, ir.MemRefType) for t in results):
                continue
            blocks = list(func.regions[0].blocks)
            returns = collect_ops(func, lambda op: op.name == "func.return")
            if len(blocks) != 1 or len(returns) != 1:
                continue
            offered = [blocks[0].add_argument(t, func.location) for t in results]
            func.attributes["function_type"] = ir.TypeAttr.get(
                ir.FunctionType.get(list(ftype.inputs) + results, results))
            if "arg_attrs" in func.attributes:
                func.attributes["arg_attrs"] = ir.ArrayAttr.get(
                    list(ir.ArrayAttr(func.attributes["arg_attrs"])) + [ir.DictAttr.get({})] * len(results))
            returned = list(returns[0].operands)
            for v, buffer in zip(returned, offered):
                alloc = _returned_allocation(v, func, returned)
                if alloc is not None:
                    _use_offer(alloc, buffer)
                    used += 1
    return used
