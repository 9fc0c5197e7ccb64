"""Memref descriptors as ctypes structs, and zero-copy tensor views of them.

The layout of `StridedMemRefType<T, N>` does not depend on T, so one struct
class per rank serves every dtype; classes are made once and cached (making
them per call costs ~300 us, per the platform notes).
"""

from __future__ import annotations

import ctypes
import functools

import numpy as np
import torch

__all__ = ["descriptor_class", "descriptor_for", "tensor_view", "MLIR_TO_TORCH", "TORCH_TO_MLIR"]

MLIR_TO_TORCH = {
    "f32": torch.float32, "f64": torch.float64, "f16": torch.float16, "bf16": torch.bfloat16,
    "i64": torch.int64, "i32": torch.int32, "i16": torch.int16, "i8": torch.int8,
    "ui8": torch.uint8, "i1": torch.bool,
}
TORCH_TO_MLIR = {v: k for k, v in MLIR_TO_TORCH.items()}


@functools.lru_cache(maxsize=None)
def descriptor_class(rank: int) -> type[ctypes.Structure]:
    fields = [
        ("allocated", ctypes.c_void_p),
        ("aligned", ctypes.c_void_p),
        ("offset", ctypes.c_int64),
    ]
    if rank:
        fields += [("sizes", ctypes.c_int64 * rank), ("strides", ctypes.c_int64 * rank)]
    return type(f"MemRef{rank}D", (ctypes.Structure,), {"_fields_": fields})


def descriptor_for(t: torch.Tensor) -> ctypes.Structure:
    """A descriptor viewing `t`'s storage (no copy); keep `t` alive while used."""
    d = descriptor_class(t.dim())()
    ptr = t.data_ptr()
    d.allocated = ptr
    d.aligned = ptr
    d.offset = 0
    if t.dim():
        d.sizes[:] = list(t.shape)
        d.strides[:] = list(t.stride())
    return d


_ELEMENT_SIZE = {dt: torch.empty((), dtype=dt).element_size() for dt in MLIR_TO_TORCH.values()}


def tensor_view(address: int, rank: int, dtype: torch.dtype) -> torch.Tensor:
    """A torch tensor viewing the memref whose descriptor is at `address`."""
    d = descriptor_class(rank).from_address(address)
    shape = tuple(d.sizes) if rank else ()
    strides = tuple(d.strides) if rank else ()
    size = _ELEMENT_SIZE[dtype]
    numel = 1
    for s in shape:
        numel *= s
    base = (d.aligned or 0) + d.offset * size
    if numel == 0:
        return torch.empty(shape, dtype=dtype)
    # Span of bytes the strided view touches.
    span = 1 + sum((n - 1) * st for n, st in zip(shape, strides)) if shape else 1
    buffer = (ctypes.c_uint8 * (span * size)).from_address(base)
    flat = torch.frombuffer(buffer, dtype=torch.uint8)
    flat = flat.view(dtype) if dtype != torch.bool else flat.view(torch.bool)
    return torch.as_strided(flat, shape, strides)
