"""Memref descriptors as ctypes structs, and zero-copy tensor views of them.

The layout of `StridedMemRefType<T, N>` does not depend on T, so one struct
class per rank serves every dtype; classes are made once and cached (making
them per call costs ~300 us, per the platform notes).

On the hot path nothing is built per call: `DescriptorBlock` holds the entry
point's descriptors, made once per program, and a call only writes the data
pointers (and, for an input with a `?` dim, its sizes and strides);
`ViewCache` hands a kernel the same torch view again when the compiled code
passes it the same buffer (same descriptor bytes), which is the usual case
from one call to the next.

A program with results of dynamic size returns them, allocated by the
compiled code (malloc), in the block's result area: `owned_tensor` hands such
a buffer out zero-copy as a tensor that frees it when the last view of it dies.
"""

from __future__ import annotations

import ctypes
import functools
import struct
from typing import Sequence

import numpy as np
import torch

from ...core import dtypes as _dtypes

__all__ = [
    "descriptor_class", "descriptor_for", "tensor_view", "ViewCache", "DescriptorBlock", "owned_tensor",
    "borrowed_array", "MLIR_TO_TORCH", "TORCH_TO_MLIR",
]

# Builtin element spelling -> torch dtype, for the element types a memref can hold.
MLIR_TO_TORCH = {d.builtin: d.torch for d in _dtypes.DTYPES if d.native is not None}
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
    words = struct.unpack(f"={_words(rank)}q", ctypes.string_at(address, 8 * _words(rank)))
    return _view(words[1], words[2], words[3:3 + rank], words[3 + rank:], dtype, _ELEMENT_SIZE[dtype])


def _words(rank: int) -> int:
    """int64 words in a rank-`rank` descriptor: allocated, aligned, offset, sizes, strides."""
    return 3 + 2 * rank


class ViewCache:
    """Torch views of the memrefs one callback argument receives, by descriptor contents.

    The key is the descriptor's raw bytes (pointers, offset, sizes and
    strides), so a hit is a view of exactly that memory, at that call's size
    (a `?` dim in `shape`, None, takes its size from the descriptor). On a
    miss, a memref that is exactly a contiguous tensor the current call was given or returns
    (`known()`: data pointer -> tensor) is that tensor itself, not cached (the
    cache must not keep a caller's tensor alive); anything else gets a new
    view, and at most `capacity` views are kept (oldest dropped first), so a
    program whose buffers move from call to call does not grow.
    """

    __slots__ = ("rank", "dtype", "nbytes", "capacity", "known", "_views", "_format", "_element", "_dense_tail",
                 "_shape", "_dense_bytes")

    def __init__(self, shape: tuple[int, ...], dtype: torch.dtype, capacity: int = 8, known=None):
        self.rank = rank = len(shape)
        self._shape = tuple(shape)
        self.dtype = dtype
        self.nbytes = 8 * _words(rank)
        self.capacity = capacity
        self.known = known
        self._views: dict[bytes, torch.Tensor] = {}
        self._format = f"={_words(rank)}q"
        self._element = _ELEMENT_SIZE[dtype]
        self._dense_tail = self._dense_bytes = None
        if None in shape:  # sized per call: views are made from the descriptor's sizes
            return
        # Offset, sizes and strides of a contiguous tensor of this shape.
        self._dense_tail = struct.pack(f"={1 + 2 * rank}q", 0, *shape, *_contiguous_strides(shape))
        # A dense buffer of this shape as ctypes bytes (the type made once):
        # a miss on one is a view in one step. Buffers the compiled code
        # allocates per call move every call, so misses are the common case.
        numel = 1
        for n in shape:
            numel *= n
        self._dense_bytes = ctypes.c_uint8 * (numel * self._element) if numel else None

    def __call__(self, address: int) -> torch.Tensor:
        key = ctypes.string_at(address, self.nbytes)
        view = self._views.get(key)
        if view is not None:
            return view
        if self.known is not None and (key[16:] == self._dense_tail or self._dense_tail is None):
            t = self.known().get(int.from_bytes(key[8:16], "little"))
            # The same memory may be passed reshaped (a tosa.reshape of an input).
            if t is not None and t.dtype is self.dtype and self._is(t, key):
                return t
        if self._dense_bytes is not None and key[16:] == self._dense_tail:
            aligned = int.from_bytes(key[8:16], "little")
            view = torch.frombuffer(self._dense_bytes.from_address(aligned), dtype=self.dtype).view(self._shape)
        else:
            words = struct.unpack(self._format, key)
            rank = self.rank
            view = _view(words[1], words[2], words[3:3 + rank], words[3 + rank:], self.dtype, self._element)
        if len(self._views) >= self.capacity:
            del self._views[next(iter(self._views))]
        self._views[key] = view
        return view

    def __len__(self) -> int:
        return len(self._views)

    def _is(self, t: torch.Tensor, key: bytes) -> bool:
        """`t` is exactly the memref `key` describes (its shape; contiguous)."""
        if self._dense_tail is not None:
            return t.shape == self._shape
        words = struct.unpack(self._format, key)
        shape = words[3:3 + self.rank]
        return (words[2] == 0 and tuple(t.shape) == shape and t.is_contiguous()
                and tuple(words[3 + self.rank:]) == tuple(_contiguous_strides(shape)))


def _contiguous_strides(shape) -> list[int]:
    strides, stride = [], 1
    for d in reversed(shape):
        strides.append(stride)
        stride *= max(d, 1)
    return strides[::-1]


def _view(aligned: int, offset: int, shape, strides, dtype: torch.dtype, size: int) -> torch.Tensor:
    numel = 1
    for n in shape:
        numel *= n
    if numel == 0:
        return torch.empty(shape, dtype=dtype)
    base = (aligned or 0) + offset * size
    span = 1 + sum((n - 1) * st for n, st in zip(shape, strides))
    flat = torch.frombuffer((ctypes.c_uint8 * (span * size)).from_address(base), dtype=torch.uint8)
    return torch.as_strided(flat.view(dtype), shape, strides)


class DescriptorBlock:
    """The entry point's arguments, packed once: one descriptor per tensor.

    Every argument is a contiguous tensor; of a fixed shape, its sizes,
    strides and offset never change and `set(i, tensor)` writes only the two
    data pointers of argument i; one with a `?` dim (None in its shape) is
    given its sizes and strides by `set_sizes` when they change. `packed` is
    the `void**` array the packed entry point takes (each slot points at a
    pointer to a descriptor). An entry that returns its results (`returned`: their ranks)
    takes first a pointer to where it writes their descriptors, one after
    the other (the C interface's result struct: all 8-byte fields).
    """

    def __init__(self, shapes: list[tuple], returned: Sequence[int] = ()):
        offsets, total = [], 0
        self.results = []
        for rank in returned:
            self.results.append(total)
            total += _words(rank)
        for shape in shapes:
            offsets.append(total)
            total += _words(len(shape))
        self._buffer = (ctypes.c_int64 * max(total, 1))()
        self.words = memoryview(self._buffer).cast("B").cast("q")
        base = ctypes.addressof(self._buffer)
        for offset, shape in zip(offsets, shapes):
            if None not in shape:
                self._write_shape(offset, shape)
        # One pointer per argument, to its descriptor; the packed array points at those.
        starts = ([0] if returned else []) + offsets
        self._pointers = (ctypes.c_void_p * max(len(starts), 1))(*[base + 8 * o for o in starts])
        pointers_base = ctypes.addressof(self._pointers)
        self.packed = (ctypes.c_void_p * max(len(starts), 1))(
            *[pointers_base + ctypes.sizeof(ctypes.c_void_p) * i for i in range(len(starts))])
        self.slots = offsets  # word index of each argument's `allocated` pointer

    def _write_shape(self, offset: int, shape) -> None:
        words, rank = self.words, len(shape)
        stride = 1
        for i in range(rank - 1, -1, -1):  # sizes, and the contiguous strides
            n = shape[i]
            words[offset + 3 + i] = n
            words[offset + 3 + rank + i] = stride
            stride *= n if n > 1 else 1

    def set(self, index: int, t: torch.Tensor) -> int:
        slot = self.slots[index]
        ptr = t.data_ptr()
        self.words[slot] = ptr
        self.words[slot + 1] = ptr
        return ptr

    def set_sizes(self, index: int, shape) -> None:
        """Write the sizes and (contiguous) strides of argument `index`, one
        with a `?` dim; `set` then writes its data pointers each call."""
        self._write_shape(self.slots[index], shape)

    def set_none(self, index: int, rank: int) -> None:
        """Argument `index`: no buffer (a null pointer of sizes -1, which no
        size check accepts)."""
        self._write_shape(self.slots[index], (-1,) * rank)
        self.words[self.slots[index]] = self.words[self.slots[index] + 1] = 0

    def result(self, index: int, rank: int) -> tuple:
        """Result `index`'s descriptor: allocated, aligned, offset, sizes, strides."""
        start = self.results[index]
        words = self.words[start:start + 3 + 2 * rank].tolist()
        return words[0], words[1], words[2], tuple(words[3:3 + rank]), tuple(words[3 + rank:])


_free = ctypes.CDLL(None).free
_free.argtypes = [ctypes.c_void_p]


class _Owned:
    """A buffer the compiled code allocated (malloc) and returned, as numpy
    sees it: the array's base, so the buffer is freed when the last tensor
    viewing it dies."""

    __slots__ = ("__array_interface__", "pointer")

    def __init__(self, pointer: int, interface: dict):
        self.pointer = pointer
        self.__array_interface__ = interface

    def __del__(self):
        if _free is not None:  # None while the interpreter shuts down
            _free(self.pointer)


class _Shared:
    """Another view of a buffer an `_Owned` frees: keeps that one alive."""

    __slots__ = ("__array_interface__", "owner")

    def __init__(self, owner, interface: dict):
        self.owner = owner
        self.__array_interface__ = interface


# numpy's spelling of each dtype it has (bfloat16 has none: viewed from bytes).
_TYPESTR = {}
for _dtype in MLIR_TO_TORCH.values():
    try:
        _TYPESTR[_dtype] = torch.empty((), dtype=_dtype).numpy().dtype.str
    except TypeError:
        pass


class _Borrowed:
    """A tensor's memory as numpy sees it: keeps the tensor alive."""

    __slots__ = ("__array_interface__", "tensor")

    def __init__(self, tensor: torch.Tensor, interface: dict):
        self.tensor = tensor
        self.__array_interface__ = interface


def borrowed_array(t: torch.Tensor) -> np.ndarray:
    """A numpy view of a contiguous CPU tensor of a numpy dtype that leaves
    the tensor as it was. `Tensor.numpy()` marks the tensor's storage
    unresizable for good: an executor that read the user's inputs so made a
    later `out=` resize of them fail ("Trying to resize storage that is not
    resizable"), in its own write-back or in the user's code. The array
    interface shares the memory without that mark."""
    if not t.is_contiguous() or t.dtype not in _TYPESTR or t.requires_grad or t.device.type != "cpu":
        raise ValueError(f"borrowed_array takes a contiguous CPU tensor of a numpy dtype, not {t.dtype} {t.device}")
    if t.numel() == 0:
        return np.empty(tuple(t.shape), dtype=_TYPESTR[t.dtype])
    interface = {"shape": tuple(t.shape), "typestr": _TYPESTR[t.dtype], "data": (t.data_ptr(), False),
                 "strides": None, "version": 3}
    return np.asarray(_Borrowed(t, interface))


@functools.lru_cache(maxsize=64)
def _is_contiguous(sizes: tuple, strides: tuple) -> bool:
    """Row-major strides (any stride of a unit dim), which numpy takes as `strides: None`."""
    stride = 1
    for n, st in zip(reversed(sizes), reversed(strides)):
        if n != 1 and st != stride:
            return False
        stride *= n
    return True


def owned_tensor(descriptor: tuple, dtype: torch.dtype, owners: dict) -> torch.Tensor:
    """A returned memref (`DescriptorBlock.result`) as a tensor that owns its
    buffer, no copy. `owners` (allocated pointer -> owner) lets results that
    share one buffer share its owner, so it is freed once.

    The route is numpy's array interface, then `torch.from_numpy` (one step
    each, about 1.4 us together; `torch.frombuffer` + `view` measured slower:
    every torch call here costs about 1 us)."""
    allocated, aligned, offset, sizes, strides = descriptor
    size = _ELEMENT_SIZE[dtype]
    typestr = _TYPESTR.get(dtype)
    if typestr is not None:  # numpy views it as it is: one step
        interface = {"shape": sizes, "typestr": typestr, "data": (aligned + offset * size, False), "version": 3,
                     "strides": None if _is_contiguous(sizes, strides) else tuple(st * size for st in strides)}
    else:  # its bytes, viewed as the dtype below
        span = offset + 1 + sum((n - 1) * st for n, st in zip(sizes, strides)) if 0 not in sizes else 0
        interface = {"shape": (span * size,), "typestr": "|u1", "data": (aligned, False), "version": 3}
    shared = owners.get(allocated)
    if shared is None:
        base = owners[allocated] = _Owned(allocated, interface)
    else:
        base = _Shared(shared, interface)
    t = torch.from_numpy(np.asarray(base))
    return t if typestr is not None else torch.as_strided(t.view(dtype), sizes, strides, offset)
