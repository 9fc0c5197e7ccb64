"""PyTorch's fixed cost of each `run_decompositions`, which we remove.

A compile runs `run_decompositions` once or twice; an audit over thousands of
small programs runs it thousands of times, and for a small program its fixed
cost is larger than exporting and lowering it. Two parts of that cost depend
on nothing the program does; `install` (called by capture) removes them,
answering exactly as PyTorch does.
"""

from __future__ import annotations

import torch
from torch._C import DispatchKey

__all__ = ["install"]


def _cia_fingerprint() -> tuple:
    """What the set of CompositeImplicitAutograd ops depends on: the op
    namespaces and the C++ CIA registrations (a library that registers an op
    changes one or the other)."""
    return (tuple(torch.ops._dir),
            len(torch._C._dispatch_get_registrations_for_dispatch_key("CompositeImplicitAutograd")))


def _cache_cia_ops() -> None:
    """Memoize torch.export's `_collect_all_valid_cia_ops` per fingerprint.

    Every `run_decompositions` walks every op of every non-aten namespace to
    find the CompositeImplicitAutograd ops it may preserve (about 0.3 s a
    call; only the aten walk is cached by PyTorch). The answer changes only
    when ops are registered, which changes the fingerprint.
    """
    from torch.export import exported_program

    collect = exported_program._collect_all_valid_cia_ops
    if getattr(collect, "_tosa_custom_cached", False):
        return
    memo: dict[tuple, frozenset] = {}

    def cached():
        key = _cia_fingerprint()
        if key not in memo:
            memo.clear()
            memo[key] = frozenset(collect())
        return set(memo[key])  # the caller removes from its copy

    cached._tosa_custom_cached = True
    exported_program._collect_all_valid_cia_ops = cached


def _cheap_dispatch_key_py_impl() -> None:
    """`OperatorBase.py_impl` for a DispatchKey, without defining an annotated
    closure at each call.

    Each `run_decompositions` registers Python kernels for about 20 dispatch
    keys of each of about 525 CompositeImplicitAutograd ops, then removes
    them. PyTorch's `py_impl` defines its inner function with the annotation
    `Callable[_P, _T]`, which Python evaluates at every definition: two
    typing aliases built per key, over 11,000 a call, 60% of the fixed cost
    (0.12 s of a 0.28 s compile of a small model). For a DispatchKey the
    registration is three steps, done here the same way: refuse the Python
    key and a key already taken, store the kernel, drop the op's dispatch
    cache. Every other key (a mode, a tensor subclass, a functorch
    transform) goes to PyTorch's own `py_impl`. `HigherOrderOperator.py_impl`
    calls this one through `super()`.
    """
    from torch._ops import OperatorBase

    original = OperatorBase.py_impl
    if getattr(original, "_tosa_custom_cheap", False):
        return

    def py_impl(self, k):
        if not isinstance(k, DispatchKey):
            return original(self, k)

        def register(fn):
            if k == DispatchKey.Python:
                raise AssertionError("Please register a mode for the DispatchKey.Python key instead.")
            if k in self.py_kernels:
                raise RuntimeError(f"Trying to override a python impl for {k} on operator {self.name()}")
            self.py_kernels[k] = fn
            self._dispatch_cache.clear()
            return fn

        return register

    py_impl.__doc__ = original.__doc__
    py_impl._tosa_custom_cheap = True
    py_impl._tosa_custom_original = original
    OperatorBase.py_impl = py_impl


def install() -> None:
    """Both replacements; idempotent."""
    _cache_cia_ops()
    _cheap_dispatch_key_py_impl()
