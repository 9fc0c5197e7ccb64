"""torch.export's run-time asserts on input sizes become the program's
boundary checks (issue 41, item 2).

An exported program may assert what it knows of its sizes in the graph
(`_assert_scalar` of a comparison, `sym_constrain_range(_for_size)`):
`prefer_deferred_runtime_asserts_over_guards=True`, an ExportedProgram
compiled as it is, a model's own `torch._check`. Each reads the sizes with
`aten.sym_size.int` (located at torch/fx/passes/runtime_assert.py), which
TorchToTosa cannot lower and TOSA has no use for: the program's boundary
already refuses an input whose dim is outside its symbol's range, naming the
input, the dim and the range (runtime/execute/dynamic.py, CONTRACT.md §15.1). So an
assert the symbols' ranges imply goes; one that bounds a single input
symbol narrows its range (`program.range_constraints`, which the boundary
is written from) and goes; any other assert on input sizes (a divisibility,
a relation of two symbols) cannot be checked there and is refused by name.
An assert on any other symbol (a value the data makes, an unbacked u0 of
`item()`; a SymInt argument) is left as it is, even when its range implies it:
torch.export derived that range from the assert itself, so the assert is the
only run-time check of the value eager makes (it stays for the lowering, or
auto mode's tunnel).
"""

from __future__ import annotations


import sympy
import torch
from torch.utils._sympy.value_ranges import ValueRanges, bound_sympy

from ..core.diagnostics import CompileError

__all__ = ["asserts_at_boundary"]

_ASSERT = torch.ops.aten._assert_scalar.default
_CONSTRAIN = (torch.ops.aten.sym_constrain_range.default, torch.ops.aten.sym_constrain_range_for_size.default)
# sympy relation -> (lower bound, upper bound) of its symbol when the other side is the constant c.
_BOUNDS = {sympy.LessThan: lambda c: (None, c), sympy.StrictLessThan: lambda c: (None, c - 1),
           sympy.GreaterThan: lambda c: (c, None), sympy.StrictGreaterThan: lambda c: (c + 1, None),
           sympy.Equality: lambda c: (c, c)}
_FLIPPED = {sympy.LessThan: sympy.GreaterThan, sympy.StrictLessThan: sympy.StrictGreaterThan,
            sympy.GreaterThan: sympy.LessThan, sympy.StrictGreaterThan: sympy.StrictLessThan,
            sympy.Equality: sympy.Equality}


def _expression(node: torch.fx.Node):
    """The sympy condition an assert node states, or None when it is not about
    sizes (a constant, a value the graph computes from data)."""
    if node.target is _ASSERT:
        value = node.args[0].meta.get("val") if isinstance(node.args[0], torch.fx.Node) else node.args[0]
        return value.node.expr if isinstance(value, torch.SymBool) else sympy.sympify(bool(value))
    size = node.args[0].meta.get("val") if isinstance(node.args[0], torch.fx.Node) else node.args[0]
    if not isinstance(size, torch.SymInt):
        return sympy.true
    expr, low, high = size.node.expr, node.kwargs.get("min"), node.kwargs.get("max")
    parts = ([expr >= low] if low is not None else []) + ([expr <= high] if high is not None else [])
    return sympy.And(*parts)


def _single_bound(expr, ranges) -> "tuple[sympy.Symbol, int | None, int | None] | None":
    """(symbol, min, max) when `expr` bounds one input symbol by a constant."""
    if type(expr) not in _BOUNDS:
        return None
    lhs, rhs, kind = expr.lhs, expr.rhs, type(expr)
    if lhs.is_number and rhs in ranges:
        lhs, rhs, kind = rhs, lhs, _FLIPPED[kind]
    if lhs not in ranges or not rhs.is_number:
        return None
    low, high = _BOUNDS[kind](int(rhs))
    return lhs, low, high


def _check(expr, ranges: dict, node: torch.fx.Node) -> None:
    """Narrow `ranges` so that `expr` holds of them, or refuse the assert."""
    for part in (expr.args if isinstance(expr, sympy.And) else (expr,)):
        if bound_sympy(part, ranges) == ValueRanges(True, True):
            continue
        bound = _single_bound(part, ranges)
        if bound is None:
            raise CompileError(
                f"the exported program asserts {part} of its input sizes ({node.name}"
                f"{': ' + node.args[1] if node.target is _ASSERT and len(node.args) > 1 else ''}), which the "
                "compiled program's boundary cannot check (it checks each size symbol's range, CONTRACT.md §15.1). "
                "State the sizes with a torch.export.Dim range instead, or make the dims static.",
                category="dynamic-shape")
        symbol, low, high = bound
        old = ranges[symbol]
        ranges[symbol] = ValueRanges(old.lower if low is None else max(old.lower, low),
                                     old.upper if high is None else min(old.upper, high))
        if ranges[symbol].lower > ranges[symbol].upper:
            raise CompileError(f"the exported program asserts {part} ({node.name}), which no size in the range "
                               f"of {symbol} [{old.lower}, {old.upper}] meets", category="dynamic-shape")


def _erase_with_inputs(graph: torch.fx.Graph, node: torch.fx.Node) -> None:
    """Erase `node`, then the size arithmetic feeding it that nothing else reads."""
    inputs = [a for a in node.all_input_nodes]
    graph.erase_node(node)
    for source in inputs:
        if source.op == "call_function" and not source.users and \
                isinstance(source.meta.get("val"), (torch.SymInt, torch.SymBool, torch.SymFloat, int, bool)):
            _erase_with_inputs(graph, source)


def _input_dim_symbols(program: torch.export.ExportedProgram) -> set:
    """The symbols of the user inputs' dims: the only ones the boundary checks."""
    user = set(program.graph_signature.user_inputs)
    found: set = set()
    for node in program.graph.nodes:
        value = node.meta.get("val") if node.op == "placeholder" and node.name in user else None
        if isinstance(value, torch.Tensor):
            for size in value.shape:
                found |= size.node.expr.free_symbols if isinstance(size, torch.SymInt) else set()
    return found


def asserts_at_boundary(program: torch.export.ExportedProgram) -> int:
    """Turn `program`'s asserts on input sizes into ranges of its symbols
    (module doc), in place; the number of asserts erased."""
    ranges = dict(program.range_constraints)
    checked = _input_dim_symbols(program) & set(ranges)
    graph = program.graph_module.graph
    erased = 0
    for node in [n for n in graph.nodes if n.op == "call_function" and (n.target is _ASSERT or n.target in _CONSTRAIN)]:
        expr = _expression(node)
        if expr is None or not expr.free_symbols <= checked:
            continue  # a value the data makes (or a SymInt argument): not the boundary's to check
        _check(expr, ranges, node)
        _erase_with_inputs(graph, node)
        erased += 1
    if erased:
        program.range_constraints.update(ranges)
        program.graph_module.recompile()
    return erased
