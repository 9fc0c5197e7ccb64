"""Shape expressions (CONTRACT.md §15): how a dynamic size is written down.

One grammar serves both places a size is not a constant: the entry
function's boundary (`tosa_custom.shape`, over torch.export's symbols `s0`,
`s1`, ...) and a `tosa.custom`'s `result_shapes` (over its operands' dims,
`dim(k, i)`, and the integers they hold, `value(k)`), so any consumer can
size a result before calling a kernel without our code, and one parser,
printer and evaluator read both.

An expression is a tree; `fold(ops)` walks it with one callback per node
kind, so evaluating to an int (`evaluate`), building `arith` ops in IR, or
anything else a consumer needs is one walk, not a second interpreter.
"""

from __future__ import annotations

import dataclasses
import re
from typing import Any, Callable, Mapping, Sequence

from .errors import ContractError

__all__ = ["ShapeError", "ShapeExpr", "FUNCTIONS", "parse", "evaluate", "from_sympy", "from_affine",
           "dim", "value", "symbol", "const"]

# Functions of the grammar, with their argument counts.
FUNCTIONS = {"min": 2, "max": 2, "ceildiv": 2, "dim": 2, "value": 1}
# Binary operators by precedence level (a higher level binds tighter).
_LEVELS = ({"+": "add", "-": "sub"}, {"*": "mul", "//": "floordiv", "%": "mod"})
_PRECEDENCE = {"add": 0, "sub": 0, "mul": 1, "floordiv": 1, "mod": 1}
_SPELLING = {kind: text for level in _LEVELS for text, kind in level.items()}
_TOKEN = re.compile(r"\s*(?:(\d+)|([A-Za-z_]\w*)|(//|[-+*%(),]))")


class ShapeError(ContractError):
    """A shape expression the grammar cannot read, or cannot evaluate."""


@dataclasses.dataclass(frozen=True)
class ShapeExpr:
    """A node: `kind` is "const" (`value` an int), "symbol" (`value` its
    name), a binary operator ("add", "sub", "mul", "floordiv", "mod") or "neg"
    over `args`, or a function of FUNCTIONS over `args` (`dim`'s and
    `value`'s arguments are constants)."""

    kind: str
    args: tuple["ShapeExpr", ...] = ()
    value: Any = None

    @property
    def symbol(self) -> str | None:
        """The name if this is a bare symbol, else None: such an input dim
        binds the symbol."""
        return self.value if self.kind == "symbol" else None

    @property
    def operand_dim(self) -> tuple[int, int] | None:
        """(k, i) if this is exactly `dim(k, i)`, else None."""
        return (self.args[0].value, self.args[1].value) if self.kind == "dim" else None

    def fold(self, ops) -> Any:
        """Walk the tree bottom-up: `ops.const(int)`, `ops.symbol(name)`,
        `ops.dim(k, i)`, `ops.value(k)`, `ops.neg(a)` and `ops.<kind>(a, b)` for
        the binary operators and min/max/ceildiv."""
        if self.kind == "const":
            return ops.const(self.value)
        if self.kind == "symbol":
            return ops.symbol(self.value)
        if self.kind in ("dim", "value"):
            return getattr(ops, self.kind)(*(a.value for a in self.args))
        return getattr(ops, self.kind)(*(a.fold(ops) for a in self.args))

    def evaluate(self, symbols: Mapping[str, int] | None = None, *, dim: Callable[[int, int], int] | None = None,
                 value: Callable[[int], int] | None = None) -> int:
        """The int this expression stands for, given the symbols' values (the
        boundary) or the operands' dims and values (result_shapes)."""
        return self.fold(_IntOps(symbols or {}, dim, value))

    def names(self) -> set[str]:
        """The symbols the expression reads."""
        if self.kind == "symbol":
            return {self.value}
        return set().union(*(a.names() for a in self.args)) if self.args else set()

    def __str__(self) -> str:
        return _print(self, -1)

    # Arithmetic, so a walk can build expressions (from_sympy, from_affine).
    def __add__(self, other): return _binary("add", self, other)
    def __sub__(self, other): return _binary("sub", self, other)
    def __mul__(self, other): return _binary("mul", self, other)
    def __floordiv__(self, other): return _binary("floordiv", self, other)
    def __mod__(self, other): return _binary("mod", self, other)
    def __neg__(self): return ShapeExpr("neg", (self,))


def const(v: int) -> ShapeExpr:
    return ShapeExpr("const", value=int(v))


def symbol(name: str) -> ShapeExpr:
    return ShapeExpr("symbol", value=name)


def dim(k: int, i: int) -> ShapeExpr:
    return ShapeExpr("dim", (const(k), const(i)))


def value(k: int) -> ShapeExpr:
    return ShapeExpr("value", (const(k),))


def _wrap(x) -> ShapeExpr:
    return x if isinstance(x, ShapeExpr) else const(x)


def _binary(kind: str, a, b) -> ShapeExpr:
    return ShapeExpr(kind, (_wrap(a), _wrap(b)))


def _print(e: ShapeExpr, context: int) -> str:
    """Canonical text: no spaces, parentheses only where precedence needs
    them (a right operand of the same level is parenthesized: a-(b-c))."""
    if e.kind == "const":
        return str(e.value) if e.value >= 0 or context < 0 else f"({e.value})"
    if e.kind == "symbol":
        return e.value
    if e.kind == "neg":
        inner = _print(e.args[0], 2)
        return f"-{inner}" if context < 0 else f"(-{inner})"
    if e.kind in FUNCTIONS:
        return f"{e.kind}({','.join(_print(a, -1) for a in e.args)})"
    level = _PRECEDENCE[e.kind]
    text = f"{_print(e.args[0], level)}{_SPELLING[e.kind]}{_print(e.args[1], level + 0.5)}"
    return f"({text})" if level < context else text


class _IntOps:
    """`fold` callbacks that compute the int (Python's floor semantics)."""

    def __init__(self, symbols: Mapping[str, int], dim, value):
        self._symbols, self._dim, self._value = symbols, dim, value

    def const(self, v): return v

    def symbol(self, name):
        if name not in self._symbols:
            raise ShapeError(f"symbol {name} has no value (known: {', '.join(sorted(self._symbols)) or 'none'})")
        return int(self._symbols[name])

    def dim(self, k, i):
        if self._dim is None:
            raise ShapeError("dim(k, i) needs the operands' shapes")
        return int(self._dim(k, i))

    def value(self, k):
        if self._value is None:
            raise ShapeError("value(k) needs the operands' values")
        return int(self._value(k))

    def neg(self, a): return -a
    def add(self, a, b): return a + b
    def sub(self, a, b): return a - b
    def mul(self, a, b): return a * b
    def min(self, a, b): return min(a, b)
    def max(self, a, b): return max(a, b)

    def floordiv(self, a, b):
        if b == 0:
            raise ShapeError("division by zero in a shape expression")
        return a // b

    def mod(self, a, b):
        if b == 0:
            raise ShapeError("modulo by zero in a shape expression")
        return a % b

    def ceildiv(self, a, b):
        return -self.floordiv(-a, b)


# --- Parsing ---------------------------------------------------------------


def _tokens(text: str) -> list[str]:
    tokens, pos, text = [], 0, text.rstrip()
    while pos < len(text):
        m = _TOKEN.match(text, pos)
        if not m:
            raise ShapeError(f"shape expression {text!r}: unexpected {text[pos:].lstrip()[:10]!r}")
        tokens.append(m.group(m.lastindex))
        pos = m.end()
    return tokens


class _Parser:
    def __init__(self, text: str, symbols: bool):
        self.text, self.symbols = text, symbols
        self.tokens, self.pos = _tokens(text), 0

    def error(self, what: str) -> ShapeError:
        return ShapeError(f"shape expression {self.text!r}: {what}")

    def peek(self) -> str | None:
        return self.tokens[self.pos] if self.pos < len(self.tokens) else None

    def take(self, expected: str | None = None) -> str:
        token = self.peek()
        if token is None or (expected is not None and token != expected):
            raise self.error(f"expected {expected or 'more'}, found {token or 'the end'}")
        self.pos += 1
        return token

    def binary(self, level: int) -> ShapeExpr:
        if level == len(_LEVELS):
            return self.unary()
        left = self.binary(level + 1)
        while self.peek() in _LEVELS[level]:
            kind = _LEVELS[level][self.take()]
            left = ShapeExpr(kind, (left, self.binary(level + 1)))
        return left

    def unary(self) -> ShapeExpr:
        if self.peek() == "-":
            self.take()
            operand = self.unary()
            return const(-operand.value) if operand.kind == "const" else ShapeExpr("neg", (operand,))
        return self.atom()

    def atom(self) -> ShapeExpr:
        token = self.take()
        if token.isdigit():
            return const(int(token))
        if token == "(":
            inner = self.binary(0)
            self.take(")")
            return inner
        if token in FUNCTIONS:
            return self.call(token)
        if token[0].isalpha() or token[0] == "_":
            if not self.symbols:
                raise self.error(f"{token} is not allowed here (result_shapes use dim(k,i) and value(k))")
            return symbol(token)
        raise self.error(f"unexpected {token!r}")

    def call(self, name: str) -> ShapeExpr:
        self.take("(")
        args = [self.binary(0)]
        while self.peek() == ",":
            self.take()
            args.append(self.binary(0))
        self.take(")")
        if len(args) != FUNCTIONS[name]:
            raise self.error(f"{name} takes {FUNCTIONS[name]} argument(s), got {len(args)}")
        if name in ("dim", "value"):
            if self.symbols:
                raise self.error(f"{name}() is for result_shapes, not the boundary")
            if any(a.kind != "const" or a.value < 0 for a in args):
                raise self.error(f"{name}() takes non-negative integer constants")
        return ShapeExpr(name, tuple(args))


def parse(text: str, *, symbols: bool) -> ShapeExpr:
    """Read one expression: over symbols (`symbols=True`, the boundary) or
    over `dim(k,i)`/`value(k)` (`symbols=False`, result_shapes)."""
    if not isinstance(text, str):
        raise ShapeError(f"a shape expression is text, got {type(text).__name__}")
    parser = _Parser(text, symbols)
    expr = parser.binary(0)
    if parser.peek() is not None:
        raise parser.error(f"unexpected {parser.peek()!r} after a complete expression")
    return expr


def evaluate(dims: Sequence, symbols: Mapping[str, int] | None = None, **operands) -> tuple[int, ...]:
    """A shape (a list of ints and expressions) as ints."""
    return tuple(d if isinstance(d, int) else d.evaluate(symbols, **operands) for d in dims)


# --- From PyTorch's and MLIR's shape propagation ----------------------------


def from_sympy(expr, rename: Mapping[Any, "ShapeExpr | str"]) -> ShapeExpr:
    """torch's sympy size expression as a ShapeExpr; `rename` maps each
    sympy symbol (or its name) to what stands for it. ShapeError naming the
    part that has no form here (a true division, a float, an unknown symbol)."""
    import sympy
    from torch.utils._sympy import functions as f

    def walk(e) -> ShapeExpr:
        if isinstance(e, sympy.Integer) or (isinstance(e, sympy.Number) and e == int(e) and e.is_integer):
            return const(int(e))
        if isinstance(e, sympy.Symbol):
            target = rename.get(e, rename.get(e.name))
            if target is None:
                raise ShapeError(f"size {expr} reads {e.name}, which no operand dim or value binds")
            return symbol(target) if isinstance(target, str) else target
        args = [walk(a) for a in e.args] if not isinstance(e, sympy.Pow) else None
        if isinstance(e, sympy.Add):
            return _chain("add", args)
        if isinstance(e, sympy.Mul):
            return _chain("mul", args)
        if isinstance(e, sympy.Pow) and e.exp.is_Integer and int(e.exp) >= 1:
            return _chain("mul", [walk(e.base)] * int(e.exp))
        if isinstance(e, f.PowByNatural) and e.args[1].is_Integer:
            return _chain("mul", [walk(e.args[0])] * int(e.args[1]))
        for types, kind in (((f.FloorDiv,), "floordiv"), ((f.CeilDiv,), "ceildiv"),
                            ((f.Mod, f.PythonMod), "mod"), ((sympy.Max, f.Max), "max"), ((sympy.Min, f.Min), "min")):
            if isinstance(e, types):
                return _chain(kind, args) if kind in ("max", "min") else ShapeExpr(kind, tuple(args))
        raise ShapeError(f"size {expr} uses {type(e).__name__}, which a shape expression cannot write")

    return walk(expr)


def _chain(kind: str, args: list[ShapeExpr]) -> ShapeExpr:
    """n-ary Add/Mul/Max/Min as left-nested binary nodes, constants last
    (`2*s0-1`, not `-1+2*s0`); a term with a negative constant factor, or a
    negative constant, added prints as a subtraction."""
    args = [a for a in args if a.kind != "const"] + [a for a in args if a.kind == "const"]
    if kind == "mul":  # a constant factor first: 2*s0
        args = args[-1:] + args[:-1] if args[-1].kind == "const" and len(args) > 1 else args
    out = args[0]
    for a in args[1:]:
        negated = _negated(a) if kind == "add" else None
        out = ShapeExpr("sub", (out, negated)) if negated is not None else ShapeExpr(kind, (out, a))
    return out


def _negated(e: ShapeExpr) -> ShapeExpr | None:
    """x if e is -x (a negative constant, or a product with a negative
    constant factor), else None."""
    if e.kind == "const" and e.value < 0:
        return const(-e.value)
    if e.kind == "mul":
        for c, x in ((e.args[0], e.args[1]), (e.args[1], e.args[0])):
            if c.kind == "const" and c.value < 0:
                return x if c.value == -1 else ShapeExpr("mul", (const(-c.value), x))
    return None


def from_affine(expr, symbols: Sequence[ShapeExpr], dims: Sequence[ShapeExpr] = ()) -> ShapeExpr:
    """An MLIR AffineExpr (as `torch.bind_symbolic_shape` carries a value's
    shape) as a ShapeExpr, each affine symbol and dim replaced by the given one."""
    from torch_mlir import ir

    kinds = ((ir.AffineAddExpr, "add"), (ir.AffineMulExpr, "mul"), (ir.AffineFloorDivExpr, "floordiv"),
             (ir.AffineCeilDivExpr, "ceildiv"), (ir.AffineModExpr, "mod"))
    if isinstance(expr, ir.AffineConstantExpr):
        return const(expr.value)
    if isinstance(expr, ir.AffineSymbolExpr):
        return symbols[expr.position]
    if isinstance(expr, ir.AffineDimExpr):
        return dims[expr.position]
    for cls, kind in kinds:
        if isinstance(expr, cls):
            lhs, rhs = from_affine(expr.lhs, symbols, dims), from_affine(expr.rhs, symbols, dims)
            return _chain(kind, [lhs, rhs]) if kind in ("add", "mul") else ShapeExpr(kind, (lhs, rhs))
    raise ShapeError(f"affine expression {expr} has no shape-expression form")
