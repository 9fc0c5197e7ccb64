"""Sizes a reader can hold: no function over 60 lines of code, no class over
200, no module over 550 (docstrings, comments and blank lines aside)."""

from __future__ import annotations

import ast

from _source import code_lines, modules

_LIMITS = {"function": 60, "class": 200, "module": 550}


def _sizes():
    for name, path in modules().items():
        source = path.read_text()
        lines = code_lines(source)
        yield "module", name, len(lines)
        for node in ast.walk(ast.parse(source)):
            kind = {ast.FunctionDef: "function", ast.AsyncFunctionDef: "function", ast.ClassDef: "class"}.get(type(node))
            if kind:
                yield kind, f"{name}.{node.name} (line {node.lineno})", \
                    sum(1 for line in lines if node.lineno <= line <= node.end_lineno)


def test_sizes_within_limits():
    over = [f"{kind} {what}: {n} lines of code (limit {_LIMITS[kind]})"
            for kind, what, n in _sizes() if n > _LIMITS[kind]]
    assert not over, "\n".join(over)


def test_code_lines_leave_out_docstrings_comments_and_blanks():
    source = 'def f():\n    """Doc\n    string."""\n    # a comment\n\n    return (1 +\n            2)\n'
    assert code_lines(source) == {1, 6, 7}
