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
(`is_builtin`); a kernel a user registered still wins over native ones. The
package's own kernels register with `builtin_kernel`, a user's with
`register_kernel`, which refuses to replace any kernel without `override=True`.

The built-in kernels register themselves when their modules are imported
(numpy_kernels.py, tosa_kernels.py); the package's `__init__` imports them,
so they are registered before anything can look a kernel up or register one
of the user's (which must not collide with a built-in loaded later).
"""

from __future__ import annotations

import dataclasses
import functools
from typing import Any, Callable, Sequence

import torch

from ...core.registry import Registry
from ...contract.encoding import DOMAIN, DecodedCall

__all__ = ["KernelCall", "Kernel", "register_kernel", "builtin_kernel", "registered_kernels", "find_kernel",
           "torch_kernel", "is_builtin", "builtin_quantized_kernel"]


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

    @functools.cached_property
    def arguments(self) -> dict[str, Any]:
        """Every ATen argument by schema name, operands bound to tensors (or
        scalars); bound once per call (the numpy kernels' dtype check reads it too)."""
        args, kwargs = self.decoded.bind(self.inputs)
        names = [a.name for a in self.decoded.overload._schema.arguments if not a.kwarg_only]
        return {**dict(zip(names, args)), **kwargs}


Kernel = Callable[[KernelCall], Any]

_KERNELS: Registry[Kernel] = Registry("kernel")


def _key(operator_name: str, domain_name: str) -> str:
    return f"{domain_name}::{operator_name}"


def _describe(fn: Kernel) -> str:
    return f"{getattr(fn, '__module__', '?')}.{getattr(fn, '__qualname__', repr(fn))}"


def register_kernel(operator_name: str, domain_name: str = DOMAIN, *,
                    override: bool = False) -> Callable[[Kernel], Kernel]:
    """Decorator: the kernel for `operator_name` (e.g. "torch.aten.layer_norm").

    The compiled ops carry `domain_name="torch_mlir"` (the default here), so a
    kernel for a listed ATen op is registered without `domain_name`. An op that
    already has a kernel (one of this package's built-in kernels, or one
    registered before) is refused unless `override=True`: replacing a kernel
    is then explicit, and the user's kernel runs instead of the built-in
    Python and native ones (`Program.kernels` shows it).
    """

    def decorate(fn: Kernel) -> Kernel:
        _register(_key(operator_name, domain_name), fn, override=override)
        return fn

    return decorate


def builtin_kernel(operator_name: str, domain_name: str = DOMAIN) -> Callable[[Kernel], Kernel]:
    """Decorator for this package's own kernels: marked built-in, so a native
    kernel replaces them and `kernels="user"` leaves them out."""

    def decorate(fn: Kernel) -> Kernel:
        _register(_key(operator_name, domain_name), fn, override=False)
        _BUILTIN[id(fn)] = fn
        return fn

    return decorate


def _register(key: str, fn: Kernel, *, override: bool) -> None:
    existing = _KERNELS.get(key)
    if existing is None:
        _KERNELS.add(key, fn)
        return
    if not override:
        owner = "the built-in kernel" if is_builtin(existing) else "the kernel"
        raise ValueError(
            f"cannot register {_describe(fn)} for {key}: {owner} {_describe(existing)} is registered for it "
            f"already; pass register_kernel(..., override=True) to replace it"
        )
    _KERNELS.replace(key, fn)


def registered_kernels(builtin: bool = True) -> list[str]:
    """`domain::operator` of every Python kernel; `builtin=False`: the user's only."""
    return sorted(k for k, v in _KERNELS.as_dict().items() if builtin or not is_builtin(v))


def torch_kernel(call: KernelCall):
    """The generic kernel: the decoded ATen call, run by eager PyTorch; on
    quantized values, quantize(op(dequantize(operands))) (CONTRACT.md §18)."""
    if call.decoded.quantization is not None:
        return call.decoded(*call.inputs)
    args, kwargs = call.decoded.bind(call.inputs)
    result = call.decoded.overload(*args, **kwargs)
    if _bool_result_lost(call, result):
        args, kwargs = _bool_scalars(call.decoded.overload, args, kwargs)
        result = call.decoded.overload(*args, **kwargs)
    return result


def _bool_result_lost(call: KernelCall, result) -> bool:
    """Whether the op's type says bool where eager's result is not: torch-mlir
    has no bool Scalar (its importer makes `mul(t, False)` `mul(t, Int.bool(
    False))`, folded to 0), and `mul(bool_tensor, 0)` is int64 where
    `mul(bool_tensor, False)` is bool (every-sample OpInfo index_add bool/1).
    ATen never makes bool from a bool tensor and an int Scalar, so a bool
    result type says the Scalar was a bool."""
    return (isinstance(result, torch.Tensor) and len(call.outputs) == 1 and call.outputs[0].dtype == torch.bool
            and result.dtype != torch.bool)


def _bool_scalars(overload, args: tuple, kwargs: dict) -> tuple[tuple, dict]:
    """`args, kwargs` with each Scalar argument of 0 or 1 as False or True."""
    def as_bool(argument, value):
        scalar = isinstance(argument.type, torch.NumberType) and type(value) is int and value in (0, 1)
        return bool(value) if scalar else value

    schema = {a.name: a for a in overload._schema.arguments}
    positional = tuple(as_bool(a, v) for a, v in zip(overload._schema.arguments, args))
    return positional, {k: as_bool(schema[k], v) for k, v in kwargs.items()}


def find_kernel(operator_name: str, domain_name: str, decoded: DecodedCall | None,
                torch_fallback: bool = True, builtin: bool = True) -> Kernel | None:
    """A registered kernel, else (with `torch_fallback`) the generic torch one
    for any op of our domain that decoded, else None. `builtin=False` leaves
    out this package's kernels (and the generic one): only the user's count."""
    kernel = _KERNELS.get(_key(operator_name, domain_name))
    if getattr(decoded, "quantization", None) is not None and is_builtin(kernel):
        # A kept op on quantized values (CONTRACT.md §18): the package's float
        # kernels do not read its parameters; its own quantized ones do.
        quantized = _QUANTIZED.get(_key(operator_name, domain_name)) if builtin else None
        return quantized or (torch_kernel if builtin and torch_fallback else None)
    if kernel is not None and (builtin or not is_builtin(kernel)):
        return kernel
    if not builtin:
        return None
    if torch_fallback and domain_name == DOMAIN and decoded is not None:
        return torch_kernel
    return None


_BUILTIN: dict[int, Kernel] = {}  # by id: kernels need not be hashable
_QUANTIZED: dict[str, Kernel] = {}  # this package's kernels for kept ops on quantized values


def builtin_quantized_kernel(operator_name: str) -> Callable[[Kernel], Kernel]:
    """Decorator for this package's kernels of an op on quantized values
    (CONTRACT.md §18: `call.decoded.quantization` is set); a user's kernel
    for the op, which reads that itself, and a native one still win."""

    def decorate(fn: Kernel) -> Kernel:
        _QUANTIZED[_key(operator_name, DOMAIN)] = fn
        _BUILTIN[id(fn)] = fn
        return fn

    return decorate


def is_builtin(kernel: Kernel | None) -> bool:
    """No kernel, or one of this package's (numpy or generic torch): a native kernel replaces it."""
    return kernel is None or kernel is torch_kernel or _BUILTIN.get(id(kernel)) is kernel

