"""copies.py: a copy judged contiguous is one the LLVM lowering makes a memcpy
(never a call of memrefCopy, which the JIT cannot resolve), a strided one
becomes loops, and programs whose bufferization copies both ways compute
what numpy does."""

from __future__ import annotations

import itertools

import numpy as np
import pytest
from torch_mlir import ir

from tosa_custom import runtime
from tosa_custom.core import ir as _ir
from tosa_custom.core.passes import run_pipeline
from tosa_custom.runtime.lower import copies, lowering


def _layouts():
    """Memref types over small shapes: identity layouts (static and `?`),
    canonical strides, strides padded on one dim, unit dims of any stride,
    zero-size dims, static and `?` offsets."""
    for rank in (0, 1, 2, 3):
        for shape in itertools.product((0, 1, 2, 3), repeat=rank):
            canonical = [int(np.prod(shape[i + 1:], dtype=np.int64)) for i in range(rank)]
            yield f"memref<{''.join(f'{s}x' for s in shape)}f32>", shape
            if rank:
                yield f"memref<{''.join('?x' for _ in shape)}f32>", shape
            for pad, offset in itertools.product(range(-1, rank), ("0", "?")):
                strides = [max(s, 1) * (2 if i == pad else 1) for i, s in enumerate(canonical)]
                strides = [7 if shape[i] == 1 and i == pad else s for i, s in enumerate(strides)]
                yield (f"memref<{''.join(f'{s}x' for s in shape)}f32, "
                       f"strided<[{', '.join(map(str, strides))}], offset: {offset}>>"), shape


_LAYOUTS = list(dict.fromkeys(_layouts()))


def _copy_module(source: str, shape) -> ir.Module:
    dynamic = source.startswith("memref<?") or source.startswith("memref<?x")
    target = f"memref<{''.join(('?x' if dynamic else f'{s}x') for s in shape)}f32>"
    return ir.Module.parse(f"""
func.func @f(%a: {source}, %b: {target}) {{
  memref.copy %a, %b : {source} to {target}
  return
}}""", _ir.make_context())


_TO_LLVM = ["func.func(convert-linalg-to-loops)", "convert-scf-to-cf", "finalize-memref-to-llvm",
            "convert-func-to-llvm", "reconcile-unrealized-casts"]


def test_contiguous_copies_are_memcpy_and_no_copy_calls_memref_copy():
    """`contiguous` is exactly the LLVM lowering's test: what it calls
    contiguous becomes a memcpy, what it calls strided would have been a
    call of memrefCopy, and after the pass nothing calls memrefCopy."""
    memcpy = strided = 0
    for source, shape in _LAYOUTS:
        module = _copy_module(source, shape)
        with module.context:
            expected = copies.contiguous(ir.Type.parse(source))
        unlowered = _copy_module(source, shape)
        run_pipeline(unlowered, _TO_LLVM, "copy")
        assert ("memrefCopy" in str(unlowered)) == (not expected), source
        run_pipeline(module, [copies.LOWER_COPIES, *_TO_LLVM], "copy")
        text = str(module)
        assert "memrefCopy" not in text, source  # the JIT would not resolve it
        assert ("llvm.intr.memcpy" in text) == expected, source
        memcpy, strided = memcpy + expected, strided + (not expected)
    assert memcpy > 20 and strided > 20  # the sweep covers both kinds


@pytest.mark.parametrize("axis,a,b", [(1, (2, 3), (2, 5)), (0, (2, 3), (4, 3)), (1, (1, 3, 4), (1, 5, 4)),
                                      (2, (2, 3, 1), (2, 3, 4))])
def test_concatenations_copy_as_numpy_does(axis, a, b):
    out = list(a)
    out[axis] += b[axis]
    ty = lambda s: f"tensor<{'x'.join(map(str, s))}xf32>"  # noqa: E731
    module = ir.Module.parse(f"""
func.func @f(%a: {ty(a)}, %b: {ty(b)}) -> {ty(out)} {{
  %0 = tosa.concat %a, %b {{axis = {axis} : i32}} : ({ty(a)}, {ty(b)}) -> {ty(out)}
  return %0 : {ty(out)}
}}""", _ir.make_context())
    g = np.random.default_rng(axis)
    x, y = g.standard_normal(a).astype(np.float32), g.standard_normal(b).astype(np.float32)
    np.testing.assert_array_equal(runtime.load(module)(x, y), np.concatenate([x, y], axis=axis))


def test_the_lowering_leaves_no_copy_loops_for_contiguous_copies():
    """Concatenating along the outer axis writes two contiguous halves: two
    memcpy and no loop (the munged copies were two scalar loop nests)."""
    module = ir.Module.parse("""
func.func @f(%a: tensor<2x3xf32>, %b: tensor<4x3xf32>) -> tensor<6x3xf32> {
  %0 = tosa.concat %a, %b {axis = 0 : i32} : (tensor<2x3xf32>, tensor<4x3xf32>) -> tensor<6x3xf32>
  return %0 : tensor<6x3xf32>
}""", _ir.make_context())
    lowering.lower(module, cpu="avx2")
    text = str(module)
    assert text.count("llvm.intr.memcpy") == 2 and "llvm.cond_br" not in text
