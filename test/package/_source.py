"""Reading the package's own sources: its modules, the imports each makes
(function-level ones included), and the lines of code of a node."""

from __future__ import annotations

import ast
import io
import pathlib
import tokenize

import tosa_custom

__all__ = ["PACKAGE", "ROOT", "code_lines", "imports", "modules"]

PACKAGE = "tosa_custom"
ROOT = pathlib.Path(tosa_custom.__file__).resolve().parent


def modules() -> dict[str, pathlib.Path]:
    """Dotted module name -> file, for every module of the package."""
    found = {}
    for path in sorted(ROOT.rglob("*.py")):
        parts = [PACKAGE, *path.relative_to(ROOT).with_suffix("").parts]
        if parts[-1] == "__init__":
            parts.pop()
        found[".".join(parts)] = path
    return found


def imports(name: str, path: pathlib.Path, known: set[str]) -> list[tuple[str, int]]:
    """The package's modules that module `name` imports, with the line: a
    `from X import y` names X.y when that is a module, else X."""
    tree = ast.parse(path.read_text())
    package = name if path.name == "__init__.py" else name.rsplit(".", 1)[0]
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            targets = [a.name for a in node.names]
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")
                base = base[: len(base) - node.level + 1]
                source = ".".join(base + ([node.module] if node.module else []))
            else:
                source = node.module or ""
            targets = [f"{source}.{a.name}" if f"{source}.{a.name}" in known else source for a in node.names]
        else:
            continue
        found += [(t, node.lineno) for t in targets if t == PACKAGE or t.startswith(PACKAGE + ".")]
    return found


def code_lines(source: str) -> set[int]:
    """The lines that hold code: not blank, not only a comment, not part of a docstring."""
    tree = ast.parse(source)
    docstrings = set()
    for node in ast.walk(tree):
        if isinstance(node, (ast.Module, ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)) and node.body:
            first = node.body[0]
            if isinstance(first, ast.Expr) and isinstance(first.value, ast.Constant) \
                    and isinstance(first.value.value, str):
                docstrings.update(range(first.lineno, first.end_lineno + 1))
    lines = set()
    skip = {tokenize.COMMENT, tokenize.NL, tokenize.NEWLINE, tokenize.INDENT, tokenize.DEDENT, tokenize.ENDMARKER}
    for token in tokenize.generate_tokens(io.StringIO(source).readline):
        if token.type not in skip:
            lines.update(range(token.start[0], token.end[0] + 1))
    return lines - docstrings
