"""Registry of our Python-defined passes, by their command-line argument.

MLIR's textual pipeline parser cannot see a pass added from Python, so the opt
tool and `build_pass_manager()` look ours up here and splice them between the
C++ passes in order. A pass declares its entry next to its code.
"""

from __future__ import annotations

import dataclasses
from typing import Callable

from torch_mlir import passmanager

from ._registry import Registry
from .diagnostics import DiagnosticLog

__all__ = ["PythonPass", "register_pass", "registered_passes", "lookup_pass", "build_pass_manager", "split_pipeline"]


@dataclasses.dataclass(frozen=True)
class PythonPass:
    argument: str
    name: str
    description: str
    # (options text, diagnostic log) -> callable(op, pass_) for PassManager.add
    factory: Callable[[str, DiagnosticLog | None], Callable]


_PASSES: Registry[PythonPass] = Registry("pass")


def register_pass(entry: PythonPass) -> PythonPass:
    return _PASSES.add(entry.argument, entry)


def registered_passes() -> dict[str, PythonPass]:
    _load_builtin_passes()
    return _PASSES.as_dict()


def lookup_pass(argument: str) -> PythonPass | None:
    _load_builtin_passes()
    return _PASSES.get(argument)


def _load_builtin_passes() -> None:
    from . import conversion  # noqa: F401  (registers itself)
    from .weights import passes as _weight_passes  # noqa: F401  (registers itself)


def split_pipeline(text: str) -> list[str]:
    """Top-level elements of `builtin.module(a, b{x=1,y}, func.func(c))`."""
    text = text.strip()
    if text.startswith("builtin.module(") and text.endswith(")"):
        text = text[len("builtin.module("):-1]
    elements, depth, start, quote = [], 0, 0, False
    for i, ch in enumerate(text):
        if ch == '"':
            quote = not quote
        elif quote:
            continue
        elif ch in "({":
            depth += 1
        elif ch in ")}":
            depth -= 1
            if depth < 0:
                raise ValueError(f"unbalanced '{ch}' in pass pipeline at column {i + 1}")
        elif ch == "," and depth == 0:
            elements.append(text[start:i].strip())
            start = i + 1
    if depth != 0 or quote:
        raise ValueError("unbalanced brackets or quotes in pass pipeline")
    elements.append(text[start:].strip())
    return [e for e in elements if e]


def _name_and_options(element: str) -> tuple[str, str]:
    brace = element.find("{")
    if brace >= 0 and element.endswith("}"):
        return element[:brace].strip(), element[brace + 1:-1]
    return element.strip(), ""


def build_pass_manager(elements: list[str], log: DiagnosticLog | None = None) -> passmanager.PassManager:
    """A module PassManager running `elements` in order, ours spliced in.

    Must be called inside the target `ir.Context`. Raises ValueError naming an
    unknown pass or bad options.
    """
    pm = passmanager.PassManager.parse("builtin.module()")
    for element in elements:
        name, options = _name_and_options(element)
        entry = lookup_pass(name)
        if entry is not None:
            pm.add(entry.factory(options, log), name=entry.name, argument=entry.argument)
            continue
        if any(argument in element for argument in _PASSES):
            raise ValueError(
                f"'{element}': our Python passes run on the module; put them at the top level "
                f"of the pipeline, not nested in an op pipeline"
            )
        try:
            pm.add(element)
        except ValueError as e:
            raise ValueError(str(e).splitlines()[0].replace("MLIR Textual PassPipeline Parser:1:1: error: ", "")) from None
    return pm
