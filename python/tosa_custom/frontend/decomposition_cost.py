"""PyTorch's fixed cost of each `run_decompositions`, which we remove.

A compile runs `run_decompositions` once or twice; an audit over thousands of
small programs runs it thousands of times, and for a small program its fixed
cost is larger than exporting and lowering it. Two parts of that cost depend
on nothing the program does; `install` (called by capture) removes them,
answering exactly as PyTorch does.
"""

from __future__ import annotations

import contextlib
import functools

import torch
from torch._C import DispatchKey
from torch._export import utils as export_utils
from torch._higher_order_ops.utils import autograd_not_implemented
from torch._subclasses import fake_impls
from torch.export import exported_program

__all__ = ["install", "uninstall"]


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
    collect = exported_program._collect_all_valid_cia_ops
    if getattr(collect, "_tosa_custom_cached", False):
        return
    memo: dict[tuple, frozenset] = {}

    def cached():
        key = _cia_fingerprint()
        if key not in memo:
            memo.clear()
            memo[key] = frozenset(_materializing_once(collect))
        return set(memo[key])  # the caller removes from its copy

    cached._tosa_custom_cached = True
    cached._tosa_custom_original = collect
    exported_program._collect_all_valid_cia_ops = cached


def _materializing_once(collect):
    """`collect()` with the C++ CompositeImplicitAutograd ops made Python ops
    once, before it. The walk does so once per op namespace (34 here, a
    getattr per registered CIA op each time, 20 ms of a process's first
    compile), and nothing registers an op during the walk: every time after
    the first finds them made."""
    materialize = export_utils._materialize_cpp_cia_ops
    materialize()
    export_utils._materialize_cpp_cia_ops = lambda: None
    try:
        return collect()
    finally:
        export_utils._materialize_cpp_cia_ops = materialize


def _run_original_cia(fake_tensor_mode, op, *args, original_callable, **kwargs):
    """The fake-tensor rule of an overridden op: its own decomposition, run in
    the fake mode (as PyTorch registers it, see the NOTE in
    `_override_composite_implicit_decomp`)."""
    with fake_tensor_mode:
        return original_callable(*args, **kwargs)


@contextlib.contextmanager
def _override_composite_implicit_decomp(cia_ops_to_callable):
    """PyTorch's context of the same name, leaving the same state at a tenth
    of the cost.

    Each `run_decompositions` enters it with about 510 CompositeImplicitAutograd
    ops. For each op it registers a Python kernel for 12 autograd keys, the
    op's CompositeImplicitAutograd key and 9 backend keys, and a fake-tensor
    rule, then removes them all. PyTorch registers each kernel through
    `py_impl`, which defines a closure annotated `Callable[_P, _T]` that
    Python evaluates at every call (two typing aliases), checks the key, and
    drops the op's dispatch cache: 11,000 calls, 48-75 ms per
    `run_decompositions`, more than exporting a small program. Here each
    op's table is written directly and its cache dropped once, with the same
    kernels for the same keys (a key already taken is kept, as there), and
    the same restoration: every table as it was, every cache dropped, the
    fake-tensor rule of every overridden op deregistered. PyTorch's lists of
    keys are read at each entry. A test compares the state inside and after
    with PyTorch's own context.
    """
    autograd_keys = exported_program._AUTOGRAD_ALIAS_BACKEND_KEYS_TO_OVERRIDE
    backend_keys = exported_program._BACKEND_KEYS_TO_OVERRIDE
    composite = DispatchKey.CompositeImplicitAutograd
    saved = {}
    try:
        for op, decomposition in cia_ops_to_callable.items():
            kernels = op.py_kernels
            saved[op] = kernels.copy()
            refuse = autograd_not_implemented(op, deferred_error=True)
            for key in autograd_keys:
                kernels.setdefault(key, refuse)
            original = export_utils._get_decomp_for_cia(op)  # before the CIA kernel is replaced
            kernels.pop(composite, None)
            kernels[composite] = decomposition
            if not fake_impls._is_op_registered_to_fake_rule(op):
                fake_impls.register_op_impl(op)(functools.partial(_run_original_cia, original_callable=original))
            for key in backend_keys:
                kernels.setdefault(key, original)
            op._dispatch_cache.clear()
        yield
    finally:
        for op, table in saved.items():
            op.py_kernels.clear()
            op.py_kernels.update(table)
            op._dispatch_cache.clear()
            fake_impls._deregister_op_impl(op)


def _cheap_cia_override() -> None:
    if getattr(exported_program._override_composite_implicit_decomp, "_tosa_custom_cheap", False):
        return
    _override_composite_implicit_decomp._tosa_custom_original = exported_program._override_composite_implicit_decomp
    _override_composite_implicit_decomp._tosa_custom_cheap = True
    exported_program._override_composite_implicit_decomp = _override_composite_implicit_decomp


def install() -> None:
    """Both replacements; idempotent."""
    _cache_cia_ops()
    _cheap_cia_override()


def uninstall() -> None:
    """PyTorch's own functions back (idempotent): for measuring another
    tool's use of torch.export in a process that imported this package
    (benchmarks/latency.py's torch-mlir path), as that tool's users run it."""
    for name in ("_collect_all_valid_cia_ops", "_override_composite_implicit_decomp"):
        original = getattr(getattr(exported_program, name), "_tosa_custom_original", None)
        if original is not None:
            setattr(exported_program, name, original)
