"""Dynamic shapes at the frontend: which dims torch.export is asked to keep
symbolic, which stay `?` after import, and the program's boundary (CONTRACT.md
§15.1, `tosa_custom.symbols` / `tosa_custom.shape`).

torch.export specializes a dim it was asked to keep dynamic (`Dim.AUTO`) when
the model fixes it (a Linear's input features, a 0/1 example size), but the
fake tensor keeps a SymInt whose expression is a constant; torch-mlir's FX
importer writes every SymInt as `?`. `static_where_specialized` makes the
importer write those as the number they are, so only dims that stay
symbolic become `?`.
"""

from __future__ import annotations

import json
from typing import Any

import torch
from torch_mlir import ir
from torch_mlir.extras import fx_importer as _fx
from torch.utils._sympy.functions import FloorDiv

from ..contract import shapes as _shapes
from ..core import attrs as _attrs
from ..core import ir as _core_ir
from ..core.diagnostics import CompileError

__all__ = ["INT64_MAX", "resolve_dynamic_shapes", "static_where_specialized", "dim_value", "mark_boundary",
           "mark_baked_numbers"]

INT64_MAX = 2**63 - 1


def resolve_dynamic_shapes(dynamic_shapes, ignore_traced_shapes: bool, from_placeholders) -> tuple[Any, bool]:
    """The `dynamic_shapes` torch.export gets, and whether it is the user's
    own (passed as given, in torch.export's format) rather than one we built
    per flat argument (grouped by forward's parameters afterwards).
    `ignore_traced_shapes` is every input dim `Dim.AUTO`; -1 placeholders
    are their dims `Dim.AUTO`."""
    if dynamic_shapes is None:
        return from_placeholders, False
    if ignore_traced_shapes:
        raise ValueError("give either dynamic_shapes= or ignore_traced_shapes=True (every dim Dim.AUTO), not both")
    if from_placeholders is not None:
        raise ValueError("give either dynamic_shapes= or placeholders with -1 dims in example_args, not both")
    return dynamic_shapes, True


def dim_value(d) -> "int | None":
    """A dim of a fake tensor as an int when it is one (a SymInt torch.export
    specialized to a constant included), None when it stays symbolic."""
    if isinstance(d, int):
        return d
    return d.node.maybe_as_int() if isinstance(d, torch.SymInt) else None


class _StaticWhereSpecialized(_fx.ContextCache):
    __slots__ = ()

    def format_asm_shape(self, shape) -> str:
        dims = [dim_value(d) for d in list(shape)]
        return ",".join("?" if d is None else str(d) for d in dims)


_SEMI_AFFINE = _fx.sympy_expr_to_semi_affine_expr


def _semi_affine(expr, symbols_map):
    """torch-mlir's sympy -> affine translation, and floor division, which it
    lacks (`x.view(b, n // 2, 2 * c)` binds a dim to `s0 // 2`; the importer
    raised NotImplementedError). The translation recurses through the module's
    name, so a quotient inside a sum is translated here too."""
    if isinstance(expr, FloorDiv):
        return ir.AffineFloorDivExpr.get(_semi_affine(expr.args[0], symbols_map),
                                         _semi_affine(expr.args[1], symbols_map))
    return _SEMI_AFFINE(expr, symbols_map)


def static_where_specialized(importer: _fx.FxImporter) -> _fx.FxImporter:
    """Make `importer` write a dim torch.export specialized as its number
    (module doc). Its type cache is swapped for our subclass in place, and
    the affine translation of bound shapes takes floor division."""
    if type(importer._cc) is _fx.ContextCache:
        importer._cc.__class__ = _StaticWhereSpecialized
    _fx.sympy_expr_to_semi_affine_expr = _semi_affine
    return importer


# --------------------------------------------------------------------------
# The boundary (CONTRACT.md §15.1).
# --------------------------------------------------------------------------


def _dim_attr(d) -> ir.Attribute:
    """One dim of `tosa_custom.shape`: an i64 when static, else the
    expression's text over the boundary's symbols."""
    value = dim_value(d)
    if value is not None:
        return ir.IntegerAttr.get(ir.IntegerType.get_signless(64), value)
    return ir.StringAttr.get(_expression_text(d.node.expr))


def _expression_text(expr) -> str:
    """The §1 text of a torch sympy size expression, over torch's own symbol names."""
    try:
        return str(_shapes.from_sympy(expr, {s: s.name for s in expr.free_symbols}))
    except _shapes.ShapeError as e:
        raise CompileError(f"a dynamic input or result size ({expr}) cannot be written in the boundary's "
                           f"grammar (CONTRACT.md §15.1): {e}", category="compile-failed") from None


def _range(constraint) -> list[int]:
    def bound(v, default):
        try:
            return int(v)
        except (TypeError, ValueError, AttributeError):  # int_oo, sympy.oo
            return default
    return [max(bound(constraint.lower, 0), 0), min(bound(constraint.upper, INT64_MAX), INT64_MAX)]


def _shape_attrs(vals) -> dict[int, ir.Attribute]:
    """position -> `tosa_custom.shape` for each fake tensor with a symbolic dim."""
    found = {}
    for i, val in enumerate(vals):
        if isinstance(val, torch.Tensor) and any(dim_value(d) is None for d in val.shape):
            found[i] = ir.ArrayAttr.get([_dim_attr(d) for d in val.shape])
    return found


def mark_baked_numbers(func, program) -> None:
    """Mark each argument of the imported entry `func` that stands for a
    Python number torch.export baked in (a placeholder whose value is a
    plain int, float or bool, not a symbol): a call with another number
    would silently compute with the baked one, so the executors refuse it."""
    placeholders = [n for n in program.graph.nodes if n.op == "placeholder"]
    count = len(ir.FunctionType(ir.TypeAttr(func.attributes["function_type"]).value).inputs)
    if len(placeholders) != count:
        return  # not the plain import this reads
    marks = {}
    for i, node in enumerate(placeholders):
        value = node.meta.get("val")
        if isinstance(value, (bool, int, float)) and not node.users:
            marks[i] = {_attrs.BAKED: ir.StringAttr.get(json.dumps(value))}
    if marks:
        _core_ir.add_signature_attrs(func, "arg_attrs", count, marks)


def mark_boundary(func, program) -> None:
    """Write §15.1's attributes on the imported entry `func` of `program`
    (placeholders still in its graph are `func`'s arguments, in order): the
    symbols the arguments' dims use with their ranges, and each argument's
    and result's shape where it has a `?` dim. A static program gets none."""
    graph = program.graph
    inputs = [n.meta.get("val") for n in graph.nodes if n.op == "placeholder"]
    output = next(n for n in graph.nodes if n.op == "output").args[0]
    outputs = [n.meta.get("val") if isinstance(n, torch.fx.Node) else n
               for n in (output if isinstance(output, (list, tuple)) else [output])]
    ftype = ir.FunctionType(ir.TypeAttr(func.attributes["function_type"]).value)
    if len(inputs) != len(ftype.inputs) or len(outputs) != len(ftype.results):
        return  # not the plain import this reads (checked by the tests of every import path)
    used = {s for v in inputs if isinstance(v, torch.Tensor) for d in v.shape
            if dim_value(d) is None for s in d.node.expr.free_symbols}
    if not used:
        return
    names = {s.name for s in used}
    ranges = {str(k): _range(v) for k, v in program.range_constraints.items() if str(k) in names}
    func.attributes[_attrs.SYMBOLS] = ir.DictAttr.get({
        name: ir.DenseI64ArrayAttr.get(ranges.get(name, [0, INT64_MAX])) for name in sorted(names)})
    for key, count, values in (("arg_attrs", len(ftype.inputs), inputs), ("res_attrs", len(ftype.results), outputs)):
        _core_ir.add_signature_attrs(func, key, count, {i: {_attrs.SHAPE: a} for i, a in _shape_attrs(values).items()})
