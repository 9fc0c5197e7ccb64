"""The kernel registry: what runs behind each `tosa.custom`, by its identifier.

Kernels are registered with `@register_kernel("torch.aten.layer_norm")` next to
their code. A kernel receives a `KernelCall`, whose arguments were decoded once
at load time (CONTRACT.md), with the operands bound as zero-copy torch views;
it either writes `call.outputs` in place and returns None, or returns its
results, which the runtime checks (shape and dtype, strictly: no silent casts)
and copies into the outputs.

Lookup order: a kernel registered for the exact (domain, operator), then the
generic torch kernel for any op PyTorch has (`torch.ops.<ns>.<name>`). The
program prefers a native kernel (native.py) to a built-in one of these
(`is_builtin`); a kernel a user registered still wins over native ones.
"""

from __future__ import annotations

import dataclasses
from typing import Any, Callable, Sequence

import torch

from .._registry import Registry
from ..contract import DOMAIN, DecodedCall

__all__ = ["KernelCall", "Kernel", "register_kernel", "registered_kernels", "find_kernel", "torch_kernel",
           "is_builtin"]


@dataclasses.dataclass
class KernelCall:
    """One invocation: decoded ATen call, bound inputs, destinations.

    `decoded` is None for ops outside our domain, whose kernels read the raw
    `implementation_attrs` themselves.
    """

    decoded: DecodedCall | None
    inputs: Sequence[torch.Tensor]
    outputs: Sequence[torch.Tensor]
    implementation_attrs: str = ""

    @property
    def arguments(self) -> dict[str, Any]:
        """Every ATen argument by schema name, operands bound to tensors (or scalars)."""
        args, kwargs = self.decoded.bind(self.inputs)
        names = [a.name for a in self.decoded.overload._schema.arguments if not a.kwarg_only]
        return {**dict(zip(names, args)), **kwargs}


Kernel = Callable[[KernelCall], Any]

_KERNELS: Registry[Kernel] = Registry("kernel")


def _key(operator_name: str, domain_name: str) -> str:
    return f"{domain_name}::{operator_name}"


def register_kernel(operator_name: str, domain_name: str = DOMAIN) -> Callable[[Kernel], Kernel]:
    """Decorator: the kernel for `operator_name` (e.g. "torch.aten.layer_norm").

    A second kernel for the same op is refused; unregister nothing, register
    under your own domain or operator name instead.
    """

    def decorate(fn: Kernel) -> Kernel:
        _KERNELS.add(_key(operator_name, domain_name), fn)
        return fn

    return decorate


def registered_kernels() -> list[str]:
    _load_builtin_kernels()
    return sorted(_KERNELS)


def torch_kernel(call: KernelCall):
    """The generic kernel: the decoded ATen call, run by eager PyTorch."""
    args, kwargs = call.decoded.bind(call.inputs)
    return call.decoded.overload(*args, **kwargs)


def find_kernel(operator_name: str, domain_name: str, decoded: DecodedCall | None,
                torch_fallback: bool = True) -> Kernel | None:
    """A registered kernel, else (with `torch_fallback`) the generic torch one
    for any op of our domain that decoded, else None."""
    _load_builtin_kernels()
    kernel = _KERNELS.get(_key(operator_name, domain_name))
    if kernel is not None:
        return kernel
    if torch_fallback and domain_name == DOMAIN and decoded is not None:
        return torch_kernel
    return None


_BUILTIN: dict[int, Kernel] = {}  # by id: kernels need not be hashable


def is_builtin(kernel: Kernel | None) -> bool:
    """No kernel, or one of this package's (numpy or generic torch): a native kernel replaces it."""
    return kernel is None or kernel is torch_kernel or _BUILTIN.get(id(kernel)) is kernel


def _load_builtin_kernels() -> None:
    if not _BUILTIN:
        from . import numpy_kernels  # noqa: F401  (registers itself)

        _BUILTIN.update((id(v), v) for v in _KERNELS.as_dict().values()
                        if getattr(v, "__module__", None) == numpy_kernels.__name__)
