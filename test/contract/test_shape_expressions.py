"""Shape expressions (CONTRACT.md §15): the grammar, the canonical text, the
evaluation, and the routes from PyTorch's sympy sizes and MLIR affine maps."""

import pytest
import sympy
from torch.utils._sympy import functions as F
from torch_mlir import ir

from tosa_custom.contract import shapes as S

BOUNDARY = ["s0", "2*s0+1", "s0*(s1-1)", "ceildiv(s0,2)", "s0//2%3", "a-(b-c)", "(a+b)*c", "max(s0,1)", "-s0"]
RESULTS = ["dim(0,1)*dim(1,0)", "value(2)-1", "min(dim(0,0),dim(1,0))", "64", "dim(0,0)+dim(1,0)+dim(2,0)"]


@pytest.mark.parametrize("text", BOUNDARY)
def test_boundary_text_round_trips(text):
    expr = S.parse(text, symbols=True)
    assert str(expr) == text
    assert S.parse(str(expr), symbols=True) == expr


@pytest.mark.parametrize("text", RESULTS)
def test_result_text_round_trips(text):
    assert str(S.parse(text, symbols=False)) == text


def test_spaces_are_not_canonical_but_read():
    assert str(S.parse(" 2 * s0 +  1 ", symbols=True)) == "2*s0+1"


def test_evaluate_has_python_floor_semantics():
    env = {"s0": 7, "s1": 3}
    assert S.parse("s0//2", symbols=True).evaluate(env) == 3
    assert S.parse("(-s0)//2", symbols=True).evaluate(env) == -4
    assert S.parse("ceildiv(s0,s1)", symbols=True).evaluate(env) == 3
    assert S.parse("s0%s1", symbols=True).evaluate(env) == 1
    assert S.parse("s0-(s1-1)", symbols=True).evaluate(env) == 5


def test_evaluate_over_operands():
    shapes, values = [(4, 5), (2,)], {2: 9}
    expr = S.parse("dim(0,1)*dim(1,0)+value(2)", symbols=False)
    assert expr.evaluate(dim=lambda k, i: shapes[k][i], value=values.__getitem__) == 19
    assert S.evaluate([3, expr], dim=lambda k, i: shapes[k][i], value=values.__getitem__) == (3, 19)


def test_bare_symbol_and_operand_dim():
    assert S.parse("s3", symbols=True).symbol == "s3"
    assert S.parse("s3+0", symbols=True).symbol is None
    assert S.parse("dim(2,1)", symbols=False).operand_dim == (2, 1)
    assert S.parse("s0*s1+s0", symbols=True).names() == {"s0", "s1"}


@pytest.mark.parametrize("text,symbols,message", [
    ("s0+", True, "expected more, found the end"),
    (")", True, "unexpected ')'"),
    ("dim(0)", False, "dim takes 2 argument(s), got 1"),
    ("s0", False, "s0 is not allowed here"),
    ("dim(0,1)", True, "dim() is for result_shapes"),
    ("dim(0,-1)", False, "non-negative integer constants"),
    ("1 1", True, "after a complete expression"),
    ("s0 / 2", True, "unexpected '/ 2'"),
])
def test_malformed_is_refused_by_message(text, symbols, message):
    with pytest.raises(S.ShapeError, match=message.replace("(", r"\(").replace(")", r"\)")):
        S.parse(text, symbols=symbols)


def test_unbound_symbol_and_zero_division():
    with pytest.raises(S.ShapeError, match="symbol s1 has no value"):
        S.parse("s1", symbols=True).evaluate({"s0": 1})
    with pytest.raises(S.ShapeError, match="division by zero"):
        S.parse("s0//s1", symbols=True).evaluate({"s0": 1, "s1": 0})


def test_from_sympy():
    s0, s1 = sympy.symbols("s0 s1", integer=True, positive=True)
    rename = {s0: S.dim(0, 0), "s1": S.dim(1, 1)}
    cases = {s0 * s1: "dim(0,0)*dim(1,1)", 2 * s0 - 1: "2*dim(0,0)-1", F.FloorDiv(s0, 2): "dim(0,0)//2",
             s0 ** 2: "dim(0,0)*dim(0,0)", F.PythonMod(s0, 3): "dim(0,0)%3"}
    for expr, text in cases.items():
        converted = S.from_sympy(expr, rename)
        assert str(converted) == text
        for a, b in ((1, 1), (7, 3), (64, 9)):  # the same number as sympy's
            got = converted.evaluate(dim=lambda k, i: (a, b)[k])
            assert got == int(expr.subs({s0: a, s1: b})), (expr, a, b)


def test_from_sympy_refuses_what_it_cannot_write():
    s0, u0 = sympy.symbols("s0 u0", integer=True, positive=True)
    with pytest.raises(S.ShapeError, match="reads u0, which no operand dim or value binds"):
        S.from_sympy(s0 + u0, {s0: S.dim(0, 0)})
    with pytest.raises(S.ShapeError, match="FloatTrueDiv|cannot write"):
        S.from_sympy(F.FloatTrueDiv(s0, 2), {s0: S.dim(0, 0)})


def test_from_affine():
    with ir.Context():
        amap = ir.AffineMapAttr(ir.Attribute.parse(
            "affine_map<()[s0, s1] -> (s0, s1 * 2 - 1, 64, s0 floordiv 2, s0 * s1, s0 ceildiv 8, s0 mod 3)>")).value
        texts = [str(S.from_affine(r, [S.symbol("s0"), S.symbol("s1")])) for r in amap.results]
    assert texts == ["s0", "2*s1-1", "64", "s0//2", "s0*s1", "ceildiv(s0,8)", "s0%3"]
