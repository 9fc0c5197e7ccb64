"""A copy of contiguous memory is one memcpy; only a strided copy becomes loops.

Bufferization leaves `memref.copy` ops: a tensor written into a slice of a
larger one, a value returned twice, the clones deallocation makes.
`finalize-memref-to-llvm` lowers a copy between two contiguous buffers to
`llvm.intr.memcpy` and any other one to a call of `memrefCopy`, a function
of MLIR's runner-utils library, which the wheel does not ship (the JIT
could not resolve it). torch-mlir's reference backend therefore turns every
copy into a linalg.generic (`refback-munge-memref-copy`) and so into loops.
Those loops came last, after tiling, as scalar nests that LLVM's loop
vectorizer and unroller then widened one by one: in a 2-layer BERT, 28
copies (`memref<1x32x2x32xf32>`, `memref<2x16x1xf32>`, ...) were a quarter
of LLVM's time.

Here a copy the LLVM lowering makes one memcpy stays as it is; every other
becomes a `linalg.copy`, lowered to loops with the rest. Contiguous means
what that lowering tests (MemRefToLLVM's `isContiguousMemrefType`): a
layout whose map is the identity (any sizes), or a static shape of some elements whose
strides are canonical from the innermost dim out, past which every dim has
size 1 (`memref<1x16xf32, strided<[64, 1]>>`), whatever the offset. A copy
judged strided here that the lowering would call contiguous only costs
loops; the converse would leave `memrefCopy` unresolved, so the test errs
the first way.
"""

from __future__ import annotations

from torch_mlir import ir
from torch_mlir.dialects import linalg

from ...core.ir import collect_ops
from ...core.passes import PassContext, register_pass

__all__ = ["LOWER_COPIES", "contiguous", "lower_copies"]

LOWER_COPIES = "tosa-custom-lower-copies"


def contiguous(memref_type: ir.Type) -> bool:
    """Whether `finalize-memref-to-llvm` copies a buffer of this type with one memcpy."""
    t = ir.MemRefType(memref_type)
    if t.affine_map == ir.AffineMap.get_identity(t.rank):  # the layout's own test: its map is the identity
        return True
    if not t.has_static_shape or any(size == 0 for size in t.shape):
        return False
    try:
        strides, _ = t.get_strides_and_offset()
    except ValueError:  # a layout that is not strided
        return False
    dim, running = t.rank - 1, 1
    while dim >= 0 and strides[dim] == running:
        running *= t.shape[dim]
        dim -= 1
    while dim >= 0 and t.shape[dim] == 1:
        dim -= 1
    return dim < 0


@register_pass(LOWER_COPIES,
               "Turn each memref.copy that finalize-memref-to-llvm cannot make one memcpy (a strided buffer) into "
               "linalg.copy, lowered to loops (the wheel has no runner-utils library for memrefCopy); leave the "
               "contiguous ones, which become llvm.intr.memcpy")
def lower_copies(module, ctx: PassContext | None = None) -> int:
    """Returns how many copies became linalg.copy."""
    root = getattr(module, "operation", module)
    strided = [op for op in collect_ops(root, lambda op: op.name == "memref.copy")
               if not (contiguous(op.operands[0].type) and contiguous(op.operands[1].type))]
    for op in strided:
        with op.location, ir.InsertionPoint(op):
            linalg.copy(op.operands[0], outs=[op.operands[1]])
        op.erase()
    return len(strided)
