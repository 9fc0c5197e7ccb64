"""Built-in kernels of kept elementwise ops on int8 values (CONTRACT.md §18):
gelu and silu as a 256-entry table indexed by the input integers, computed
once per quantization from the op itself (each int8 input dequantized, the
op, quantized as PT2E does): at run time only integer indexing, and
exactly the generic kernel's quantize(op(dequantize(x))). Any other kept
op, and int16, is the generic torch kernel's. The native library's int8
kernels (lib/kernels_int8.c) compute the same and run first; these serve
with `native=False` or where a native kernel declines."""

from __future__ import annotations

import functools

import torch

from ...core.quantization import QParams, dequantize, quantize
from .registry import KernelCall, builtin_quantized_kernel, torch_kernel

__all__ = ["table_kernel"]

_TABLED = ("torch.aten.gelu", "torch.aten.silu")


def _key(q: QParams) -> tuple:
    return float(q.scale), q.zero_point, q.quant_min, q.quant_max, q.dtype


@functools.lru_cache(maxsize=256)
def _table(overload, approximate: str | None, given: tuple, wanted: tuple) -> torch.Tensor:
    x = torch.arange(-128, 128, dtype=torch.int32).to(torch.int8)
    real = dequantize(x, QParams(torch.tensor(given[0]).double().numpy(), *given[1:]))
    y = overload(real) if approximate is None else overload(real, approximate=approximate)
    return quantize(y, QParams(torch.tensor(wanted[0]).double().numpy(), *wanted[1:]))


def table_kernel(call: KernelCall):
    """An int8 -> int8 elementwise op by table lookup; anything else by the generic kernel."""
    q = call.decoded.quantization
    given, wanted = q.operands.get(0), q.results.get(0)
    if given is None or wanted is None or given.dtype != torch.int8 or wanted.dtype != torch.int8 \
            or given.per_channel or len(call.inputs) != 1:
        return torch_kernel(call)
    approximate = call.decoded.arguments.get("approximate")
    table = _table(call.decoded.overload, approximate, _key(given), _key(wanted))
    return table[call.inputs[0].to(torch.int64) + 128]


for _name in _TABLED:
    builtin_quantized_kernel(_name)(table_kernel)
