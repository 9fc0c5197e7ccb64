"""decomposition_cost: PyTorch's fixed cost of run_decompositions removed,
with the same answers as PyTorch's own code."""

from __future__ import annotations

import sys

import pytest
import torch
from torch._C import DispatchKey
from torch._export import utils as export_utils
from torch._ops import OperatorBase
from torch.export import exported_program
from torch.utils._python_dispatch import TorchDispatchMode

from tosa_custom.frontend import capture  # noqa: F401  (installs the replacements)


def test_memo_answers_as_pytorch_and_follows_new_registrations():
    """The CompositeImplicitAutograd op set: the same answer as PyTorch's own
    walk, recomputed when an op is registered."""
    cached = exported_program._collect_all_valid_cia_ops
    assert cached._tosa_custom_cached
    assert cached() == export_utils._collect_all_valid_cia_ops()
    mine = cached()
    mine.clear()  # callers remove from their copy: the memo must not change
    assert cached()

    lib = torch.library.Library("tosa_custom_capture_test", "DEF")
    lib.define("twice(Tensor x) -> Tensor")
    lib.impl("twice", lambda x: x + x, "CompositeImplicitAutograd")
    op = torch.ops.tosa_custom_capture_test.twice.default
    assert op in cached() and op in export_utils._collect_all_valid_cia_ops()


@pytest.fixture
def fresh_op():
    lib = torch.library.Library("tosa_custom_py_impl_test", "DEF")
    lib.define("thrice(Tensor x) -> Tensor")
    lib.impl("thrice", lambda x: x * 3, "CompositeImplicitAutograd")
    op = torch.ops.tosa_custom_py_impl_test.thrice.default
    yield op
    op.py_kernels.clear()
    op.python_key_table.clear()
    op._dispatch_cache.clear()


@pytest.mark.parametrize("impl", ["ours", "pytorch"])
def test_dispatch_key_registration_is_pytorchs(fresh_op, impl):
    """Ours and PyTorch's py_impl leave the same state and refuse the same keys."""
    py_impl = OperatorBase.py_impl
    assert py_impl._tosa_custom_cheap
    if impl == "pytorch":
        py_impl = py_impl._tosa_custom_original
    kernel = lambda *args, **kwargs: NotImplemented  # noqa: E731
    fresh_op._dispatch_cache[DispatchKey.CPU] = "stale"
    assert py_impl(fresh_op, DispatchKey.CPU)(kernel) is kernel
    assert fresh_op.py_kernels == {DispatchKey.CPU: kernel}
    assert fresh_op._dispatch_cache == {}, "a new kernel must drop the dispatch cache"
    with pytest.raises(RuntimeError, match="Trying to override a python impl for DispatchKey.CPU"):
        py_impl(fresh_op, DispatchKey.CPU)(kernel)
    with pytest.raises(AssertionError, match="register a mode for the DispatchKey.Python key"):
        py_impl(fresh_op, DispatchKey.Python)(kernel)


def test_other_keys_go_to_pytorch(fresh_op):
    """A mode, tensor subclass or functorch transform is PyTorch's py_impl's."""
    class Mode(TorchDispatchMode):
        pass

    kernel = lambda *args, **kwargs: NotImplemented  # noqa: E731
    assert OperatorBase.py_impl(fresh_op, Mode)(kernel) is kernel
    assert fresh_op.python_key_table == {Mode: kernel} and fresh_op.py_kernels == {}


def test_run_decompositions_never_reaches_pytorchs_py_impl():
    """The cost removed: PyTorch's py_impl builds typing aliases at each call,
    and run_decompositions makes over ten thousand."""
    class Model(torch.nn.Module):
        def forward(self, x):
            return torch.nn.functional.gelu(torch.nn.functional.linear(x, x))

    program = torch.export.export(Model(), (torch.ones(3, 3),))
    original = OperatorBase.py_impl._tosa_custom_original.__code__
    calls = []

    def profile(frame, event, arg):
        if event == "call" and frame.f_code is original:
            calls.append(frame)

    sys.setprofile(profile)
    try:
        decomposed = program.run_decompositions({})
    finally:
        sys.setprofile(None)
    assert calls == []
    x = torch.randn(3, 3)
    torch.testing.assert_close(decomposed.module()(x), Model()(x))
