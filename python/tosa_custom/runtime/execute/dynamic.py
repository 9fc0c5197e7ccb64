"""The boundary of a program with `?` dims (CONTRACT.md §15.1): what sizes a
call may bring, checked before anything runs.

compile() writes each symbol's range on the entry function
(`tosa_custom.symbols`) and each `?` argument's dims as expressions over the
symbols (`tosa_custom.shape`). A call binds each symbol from the first input
dim that is exactly that symbol, then checks every other dim and every range,
so a wrong size is refused with the input, the dim, the value and the range
(or the input it must equal) instead of reaching compiled code that would
read past a buffer. A `?` without attributes (a module from elsewhere) is
any size >= 0.

The checks are planned once at load (`InputShapes`), so a call only reads
sizes and compares ints.
"""

from __future__ import annotations

import dataclasses

from torch_mlir import ir

from ...contract.shapes import ShapeError, ShapeExpr, const, parse
from ...core.attrs import SHAPE, SYMBOLS
from ...core.diagnostics import CompileError

__all__ = ["SYMBOLS_ATTR", "SHAPE_ATTR", "UNBOUNDED", "InputShapes", "describe_dims"]

# On the entry function: {s0 = array<i64: MIN, MAX>, ...}; on an argument or
# result with a `?` dim: [int or expression text, ...] (CONTRACT.md §15.1).
SYMBOLS_ATTR = SYMBOLS
SHAPE_ATTR = SHAPE
UNBOUNDED = 2 ** 63 - 1  # the range's max when the symbol has none


def describe_dims(shape, names=None) -> str:
    """`[s0, 4]`: a `?` dim by its expression if known, else `?`."""
    names = names or {}
    return "[" + ", ".join(str(names.get(i, "?")) if d is None else str(d) for i, d in enumerate(shape)) + "]"


def _range(lo: int, hi: int) -> str:
    return f"[{lo}, {'inf' if hi >= UNBOUNDED else hi}]"


@dataclasses.dataclass(frozen=True)
class _Check:
    """One `?` dim of one input: the expression it must equal (None: any size)."""

    input: int
    dim: int
    expr: ShapeExpr | None


class InputShapes:
    """The per-call size checks of a program's inputs, planned at load."""

    def __init__(self, func, shapes: list[tuple], count: int):
        self.ranges: dict[str, tuple[int, int]] = _read_symbols(func)
        exprs = _read_arg_shapes(func, shapes, count)
        self.names = [{d: e for d, e in enumerate(es) if e is not None} for es in exprs]
        self.binders: dict[str, tuple[int, int]] = {}  # symbol -> (input, dim) that gives it
        self.checks: list[_Check] = []
        for i, (shape, es) in enumerate(zip(shapes, exprs)):
            for d, (size, e) in enumerate(zip(shape, es)):
                if size is not None:
                    continue
                name = e.symbol if e is not None else None
                if name is not None and name not in self.binders:
                    self.binders[name] = (i, d)
                    continue
                self.checks.append(_Check(i, d, e))
        for name in set().union(*(e.names() for es in exprs for e in es if e is not None)):
            if name not in self.binders:
                raise CompileError(f"{SHAPE_ATTR}: symbol {name} is no input dim of its own, so a call cannot "
                                   "bind it; give some input a dim that is exactly that symbol",
                                   category="dynamic-shape")
        for name in self.binders:
            self.ranges.setdefault(name, (0, UNBOUNDED))
        self._shapes = shapes
        self._passed: set[tuple] = set()  # input sizes that passed the checks

    def check(self, tensors) -> None:
        """ValueError naming the input, the dim, its size and what it must
        be, unless every size fits; sizes that passed before pass at once."""
        key = tuple([t.shape for t in tensors])
        if key in self._passed:
            return
        self.symbols(tensors)
        if len(self._passed) >= 64:  # sizes of a long-running server: keep the recent ones
            self._passed.clear()
        self._passed.add(key)

    def symbols(self, tensors) -> dict[str, int]:
        """Each symbol's value for this call; ValueError naming the input,
        the dim, its size and what it must be."""
        for i, shape in enumerate(self._shapes):
            if tensors[i].dim() != len(shape):
                raise ValueError(f"input #{i} has rank {tensors[i].dim()} ({list(tensors[i].shape)}); expected "
                                 f"rank {len(shape)}: {describe_dims(shape, self.names[i])}")
        symbols = {}
        for name, (i, d) in self.binders.items():
            size = tensors[i].shape[d]
            lo, hi = self.ranges[name]
            if not lo <= size <= hi:
                raise ValueError(f"input #{i} dim {d} is {size}, outside the range of {name} {_range(lo, hi)}"
                                 f" (input #{i} is {describe_dims(self._shapes[i], self.names[i])})")
            symbols[name] = size
        for c in self.checks:
            size = tensors[c.input].shape[c.dim]
            if c.expr is None:
                continue
            expected = c.expr.evaluate(symbols)
            if size != expected:
                raise ValueError(f"input #{c.input} dim {c.dim} is {size}; it must equal {self._source(c.expr)}"
                                 f" = {expected}")
        for i, shape in enumerate(self._shapes):
            for d, size in enumerate(shape):
                if size is not None and tensors[i].shape[d] != size:
                    raise ValueError(f"input #{i} dim {d} is {tensors[i].shape[d]}; expected {size} (input #{i} "
                                     f"is {describe_dims(shape, self.names[i])})")
        return symbols

    def _source(self, expr: ShapeExpr) -> str:
        """`input #0 dim 1` for a bare symbol, else the expression with where its symbols come from."""
        if expr.symbol is not None:
            i, d = self.binders[expr.symbol]
            return f"input #{i} dim {d} ({expr.symbol})"
        where = ", ".join(f"{n} from input #{self.binders[n][0]} dim {self.binders[n][1]}"
                          for n in sorted(expr.names()))
        return f"{expr} ({where})" if where else str(expr)


def _read_symbols(func) -> dict[str, tuple[int, int]]:
    if SYMBOLS_ATTR not in func.attributes:
        return {}
    ranges = {}
    for named in ir.DictAttr(func.attributes[SYMBOLS_ATTR]):
        bounds = list(ir.DenseI64ArrayAttr(named.attr))
        if len(bounds) != 2 or bounds[0] > bounds[1]:
            raise CompileError(f"{SYMBOLS_ATTR}: {named.name} = {named.attr} is not a range [min, max]",
                               category="dynamic-shape")
        ranges[named.name] = (bounds[0], bounds[1])
    return ranges


def _read_arg_shapes(func, shapes: list[tuple], count: int) -> list[list[ShapeExpr | None]]:
    """Per input, per dim: the expression a `?` dim must equal (None: unconstrained or static)."""
    exprs = [[None] * len(s) for s in shapes]
    if "arg_attrs" not in func.attributes:
        return exprs
    for i, attrs in enumerate(list(ir.ArrayAttr(func.attributes["arg_attrs"]))[:count]):
        attrs = ir.DictAttr(attrs)
        if SHAPE_ATTR not in attrs:
            continue
        dims = list(ir.ArrayAttr(attrs[SHAPE_ATTR]))
        if len(dims) != len(shapes[i]):
            raise CompileError(f"input #{i}: {SHAPE_ATTR} has {len(dims)} dims, the argument {len(shapes[i])}",
                               category="dynamic-shape")
        for d, (attr, size) in enumerate(zip(dims, shapes[i])):
            if size is not None:
                continue
            if isinstance(attr, ir.IntegerAttr):
                exprs[i][d] = const(ir.IntegerAttr(attr).value)
                continue
            try:
                exprs[i][d] = parse(ir.StringAttr(attr).value, symbols=True)
            except (ShapeError, ValueError) as e:
                raise CompileError(f"input #{i} dim {d}: {SHAPE_ATTR}: {e}", category="dynamic-shape") from None
    return exprs
