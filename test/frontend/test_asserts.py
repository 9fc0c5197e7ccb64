"""torch.export's run-time asserts on input sizes become the boundary's
range checks (issue 41, item 2; frontend/asserts.py): none reaches the TOSA,
a size outside the range is refused at the call naming the input, the dim
and the range, and an assert the boundary cannot check is refused at compile
time by its condition."""

from __future__ import annotations

import warnings

import pytest
import torch
from torch.export import Dim

import tosa_custom
from tosa_custom import runtime
from tosa_custom.core.diagnostics import CompileError
from tosa_custom.frontend.asserts import asserts_at_boundary


class Bounded(torch.nn.Module):
    def forward(self, x):
        torch._check(x.shape[1] <= 48)
        return x * 2 + x.shape[1]


class Even(torch.nn.Module):
    def forward(self, x):
        torch._check(x.shape[1] % 2 == 0)
        return x.view(x.shape[0], x.shape[1] // 2, 2 * x.shape[2])


def _exported(model, dim):
    """The program as torch.export leaves it with its asserts in the graph."""
    return torch.export.export(model, (torch.randn(2, 8, 4),), dynamic_shapes=({1: dim},), strict=False,
                               prefer_deferred_runtime_asserts_over_guards=True)


def _asserts(graph) -> list:
    return [n for n in graph.nodes if n.op == "call_function" and n.target in (
        torch.ops.aten._assert_scalar.default, torch.ops.aten.sym_constrain_range.default,
        torch.ops.aten.sym_constrain_range_for_size.default)]


def test_a_bound_no_range_states_narrows_it_and_goes():
    program = _exported(Bounded(), Dim.DYNAMIC).run_decompositions()
    assert _asserts(program.graph)  # what the compile meets: the assert and its sym_size
    (symbol,) = program.range_constraints
    program.range_constraints[symbol] = type(program.range_constraints[symbol])(2, 64)  # as if export had not
    assert asserts_at_boundary(program) == 1
    assert not _asserts(program.graph)
    assert (program.range_constraints[symbol].lower, program.range_constraints[symbol].upper) == (2, 48)
    assert [n.target for n in program.graph.nodes if n.op == "call_function"].count(torch.ops.aten.sym_size.int) == 1


@pytest.mark.parametrize("mode", [None, "auto"])
def test_range_assert_is_a_boundary_check(mode):
    program = _exported(Bounded(), Dim.DYNAMIC)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        torch_ir = tosa_custom.compile(program, (torch.randn(2, 8, 4),), dynamic_shapes=({1: Dim.DYNAMIC},),
                                       backend_legal_ops=mode, output_type="torch")
        module = tosa_custom.compile(program, (torch.randn(2, 8, 4),), dynamic_shapes=({1: Dim.DYNAMIC},),
                                     backend_legal_ops=mode)
    text = torch_ir.operation.get_asm()
    assert "_assert_scalar" not in text and "sym_constrain_range" not in text
    assert "runtime_assert.py" not in text  # no size read for an assert reaches TorchToTosa
    tosa = module.operation.get_asm(large_elements_limit=4)
    assert "tosa.custom" not in tosa  # nothing left for auto mode to tunnel either
    program_ = runtime.load(module)
    for n in (2, 17, 48):  # the range's ends and inside
        x = torch.randn(2, n, 4)
        torch.testing.assert_close(program_(x), Bounded()(x))
    with pytest.raises(ValueError, match=r"input #0 dim 1 is 49, outside the range of s\d+ \[2, 48\]"):
        program_(torch.randn(2, 49, 4))


def test_an_assert_the_boundary_cannot_check_is_refused_by_its_condition():
    program = _exported(Even(), Dim.DYNAMIC)
    with pytest.raises(CompileError, match=r"asserts Eq\(Mod\(s\d+, 2\), 0\) of its input sizes .* cannot check"):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            tosa_custom.compile(program, (torch.randn(2, 8, 4),), dynamic_shapes=({1: Dim.DYNAMIC},))


def test_size_as_divisor_in_a_view_compiles_without_asserts():
    """The same model exported by compile() itself (no asserts in the graph):
    the view's size n // 2 is bound as a floor division (the importer's
    translation lacked it) and runs at even sizes."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        module = tosa_custom.compile(Even(), (torch.randn(2, 8, 4),), dynamic_shapes=({1: Dim.DYNAMIC},))
    program = runtime.load(module)
    for n in (2, 10, 64):
        x = torch.randn(2, n, 4)
        torch.testing.assert_close(program(x), Even()(x))


class ItemBounded(torch.nn.Module):
    def forward(self, x, i):
        v = i[0].item()
        torch._check(v < 10)
        torch._check(v >= 0)
        return x * v


def test_an_assert_on_an_item_value_stays_though_its_range_implies_it():
    """torch.export derives u0's range [0, 9] from the asserts themselves: they
    are the only check of the value, so none goes (the graph keeps them)."""
    program = torch.export.export(ItemBounded(), (torch.randn(5, 3), torch.tensor([2, 7])), strict=False)
    program = program.run_decompositions()
    before = len(_asserts(program.graph))
    assert before and asserts_at_boundary(program) == 0
    assert len(_asserts(program.graph)) == before


def test_an_item_value_outside_its_asserted_range_raises_at_run_time_like_eager():
    model, args = ItemBounded(), (torch.randn(5, 3), torch.tensor([2, 7]))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        program = runtime.load(tosa_custom.compile(model, args, backend_legal_ops="auto"))
    torch.testing.assert_close(program(*args), model(*args))
    torch.testing.assert_close(program(args[0], torch.tensor([9, 0])), model(args[0], torch.tensor([9, 0])))
    for bad in (10, -1):
        with pytest.raises(RuntimeError, match="Expected cond to be True"):
            model(args[0], torch.tensor([bad, 0]))
        with pytest.raises(runtime.KernelError, match=r"Runtime assertion failed for expression u\d+ (<|>=) "):
            program(args[0], torch.tensor([bad, 0]))
