"""decomposition_cost: PyTorch's fixed cost of run_decompositions removed,
with the same answers as PyTorch's own code."""

from __future__ import annotations

import functools
import types

import pytest
import torch
from torch._export import utils as export_utils
from torch._subclasses import fake_impls
from torch.export import exported_program

from tosa_custom.core.schema import OpSelection
from tosa_custom.frontend.capture import decomposition_table


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


def test_a_recomputed_memo_makes_the_cpp_ops_python_ops_once(monkeypatch):
    """PyTorch's walk makes the C++ CIA ops Python ops once per namespace; the
    memo's walk once in all, with the same answer, and puts PyTorch's function back."""
    calls = []
    materialize = export_utils._materialize_cpp_cia_ops
    monkeypatch.setattr(export_utils, "_materialize_cpp_cia_ops", lambda: calls.append(1) or materialize())
    lib = torch.library.Library("tosa_custom_capture_test_once", "DEF")
    lib.define("thrice(Tensor x) -> Tensor")
    lib.impl("thrice", lambda x: x + x + x, "CompositeImplicitAutograd")
    found = exported_program._collect_all_valid_cia_ops()
    assert len(calls) == 1
    assert torch.ops.tosa_custom_capture_test_once.thrice.default in found
    export_utils._materialize_cpp_cia_ops()
    assert len(calls) == 2  # the function the memo found is back
    assert found == export_utils._collect_all_valid_cia_ops()  # PyTorch's own walk


def _describe(value):
    """A callable as what it does: a function by its code and captured
    values, a partial by its function and arguments, anything else itself."""
    if isinstance(value, functools.partial):
        return ("partial", _describe(value.func), tuple(map(_describe, value.args)),
                tuple(sorted((k, _describe(v)) for k, v in value.keywords.items())))
    if isinstance(value, types.FunctionType):
        return (value.__code__, tuple(_describe(c.cell_contents) for c in value.__closure__ or ()))
    return value


def _state(ops):
    """Every Python kernel of the ops, and which of them have a fake-tensor rule."""
    kernels = {op: {key: _describe(fn) for key, fn in op.py_kernels.items()} for op in ops}
    fake_rules = {op for op in ops if fake_impls._is_op_registered_to_fake_rule(op)}
    return kernels, fake_rules


def _fake_rule_callables(ops):
    """What each op's fake-tensor rule runs (PyTorch's rule is a closure of
    its own, ours a module function: the same call, checked by reading)."""
    rules = {op: fake_impls.op_implementations_dict[op] for op in ops if fake_impls._is_op_registered_to_fake_rule(op)}
    return {op: _describe(rule.keywords["original_callable"] if isinstance(rule, functools.partial) else rule)
            for op, rule in rules.items()}


def test_cia_override_leaves_pytorchs_state_inside_and_after():
    """Inside the context every overridden op has the kernels and fake-tensor
    rule PyTorch's context gives it, and after it the same tables and rules.
    (PyTorch's exit deregisters the fake-tensor rule of every overridden op,
    including rules that were there before, such as aten.item's: ours does
    the same, so a program decomposes alike either way.)"""
    table = decomposition_table(OpSelection([]))
    cia, _ = exported_program._split_decomp_table_to_cia_and_python_decomp(dict(table))
    assert len(cia) > 400
    ours = exported_program._override_composite_implicit_decomp
    assert ours._tosa_custom_cheap
    rules_before = {op: fake_impls.op_implementations_dict[op] for op in cia
                    if fake_impls._is_op_registered_to_fake_rule(op)}
    before = _state(cia)
    inside, after = {}, {}
    try:
        for name, override in (("pytorch", ours._tosa_custom_original), ("ours", ours)):
            with override(cia):
                inside[name] = (_state(cia), _fake_rule_callables(cia))
                assert all(op._dispatch_cache == {} for op in cia)
            after[name] = _state(cia)
            assert all(op._dispatch_cache == {} for op in cia)
            fake_impls.op_implementations_dict.update(rules_before)  # the next context starts alike
    finally:
        fake_impls.op_implementations_dict.update(rules_before)
    assert inside["ours"] == inside["pytorch"]
    assert after["ours"] == after["pytorch"]
    assert after["ours"][0] == before[0]  # every kernel table as it was
    assert inside["ours"][0] != before[0]  # the comparison sees the overrides


def test_cia_override_restores_when_entering_fails():
    """PyTorch's context restores nothing when a registration fails halfway;
    ours restores what it changed."""
    ops = list(exported_program._collect_all_valid_cia_ops())[:3]
    before = _state(ops)
    broken = {ops[0]: lambda *a, **k: NotImplemented, ops[1]: None, ops[2]: lambda *a, **k: NotImplemented}
    original = export_utils._get_decomp_for_cia

    def fails_on_second(op):
        if op is ops[1]:
            raise RuntimeError("registration failed")
        return original(op)

    export_utils._get_decomp_for_cia = fails_on_second
    try:
        with pytest.raises(RuntimeError, match="registration failed"):
            with exported_program._override_composite_implicit_decomp(broken):
                pass
    finally:
        export_utils._get_decomp_for_cia = original
    assert _state(ops) == before


def test_run_decompositions_with_the_cheap_override_decomposes_as_pytorch():
    """The same graph from both contexts, for a program whose ops include
    preserved and decomposed composites."""
    class Model(torch.nn.Module):
        def forward(self, x):
            return torch.nn.functional.gelu(torch.nn.functional.linear(x, x)).flatten()

    program = torch.export.export(Model(), (torch.ones(3, 3),))
    table = decomposition_table(OpSelection(["aten.linear"]))
    ours = exported_program._override_composite_implicit_decomp
    graphs = {}
    for name, override in (("ours", ours), ("pytorch", ours._tosa_custom_original)):
        exported_program._override_composite_implicit_decomp = override
        try:
            graphs[name] = str(program.run_decompositions(dict(table)).graph)
        finally:
            exported_program._override_composite_implicit_decomp = ours
    assert graphs["ours"] == graphs["pytorch"]
    assert "aten.linear" in graphs["ours"]


def test_uninstall_gives_pytorchs_functions_back_and_install_retakes_them():
    from tosa_custom.frontend import decomposition_cost

    ours = (exported_program._collect_all_valid_cia_ops, exported_program._override_composite_implicit_decomp)
    assert all(getattr(f, "_tosa_custom_original", None) for f in ours)  # installed at import
    try:
        decomposition_cost.uninstall()
        decomposition_cost.uninstall()  # idempotent
        restored = (exported_program._collect_all_valid_cia_ops, exported_program._override_composite_implicit_decomp)
        assert restored == tuple(f._tosa_custom_original for f in ours)
        assert not any(hasattr(f, "_tosa_custom_original") for f in restored)
    finally:
        decomposition_cost.install()
    assert getattr(exported_program._collect_all_valid_cia_ops, "_tosa_custom_cached", False)
    assert exported_program._override_composite_implicit_decomp is ours[1]
