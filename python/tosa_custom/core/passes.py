"""Our Python passes: one registry entry each, declared next to its code.

MLIR's textual pipeline parser cannot see a pass added from Python, so the opt
tool, `compile()` and the runtime look ours up here and splice them between the
C++ passes in order: a pipeline is text either way, and any stage can be
replayed from a dump with `tosa-custom-opt --pass-pipeline=...`.

Every pass body has the same shape, `body(module_op, ctx: PassContext)`, and
runs under one wrapper: `PassFailure` and `ctx.error` become error diagnostics
on the op's location and fail the pass; any other exception is reported as an
internal error on the module, never a Python traceback out of the pass manager.
Options are parsed once, by `parse_options`, for every pass.
"""

from __future__ import annotations

import dataclasses
import re
import shlex
import warnings
from typing import Any, Callable

from torch_mlir import ir, passmanager

from .registry import Registry
from .diagnostics import CompileError, Diagnostic, DiagnosticLog

__all__ = [
    "Option", "PassContext", "PassFailure", "PythonPass", "register_pass", "registered_passes", "lookup_pass",
    "build_pass_manager", "run_pipeline", "split_pipeline", "option_field", "parse_option_text", "parse_flag",
    "parse_names", "parse_count", "pipeline_text",
]


class PassFailure(Exception):
    """Raised in a pass body: reported as an error at `where` (an op, a value
    or a location; the module when None), and the pass fails."""

    def __init__(self, message: str, where=None):
        super().__init__(message)
        self.where = where


def _location_of(where, default: ir.Location) -> ir.Location:
    if where is None:
        return default
    if isinstance(where, ir.Location):
        return where
    if isinstance(where, ir.Value):
        return where.owner.location if hasattr(where.owner, "location") else default
    return getattr(where, "location", default)


def option_field(name: str) -> str:
    """The options object's field for the option `name` (`tosa-target` -> `tosa_target`)."""
    return name.replace("-", "_")


def parse_option_text(text: str, what: str = "the options") -> list[tuple[str, str | None]]:
    """Option text as MLIR writes it, `a=1 b=x,y c` (braces optional, values
    may be quoted or braced), as (name, value) pairs in order; a bare name's
    value is None. The one reader of option text: pass options, the TOSA
    target's and the opt tool's."""
    text = text.strip()
    if text.startswith("{") and text.endswith("}"):
        text = text[1:-1]
    try:
        items = shlex.split(text)
    except ValueError as e:
        raise ValueError(f"cannot read {what} ({e})") from None
    pairs = []
    for item in items:
        key, sep, value = item.partition("=")
        pairs.append((key, (value.strip("{}") if value.startswith("{") else value) if sep else None))
    return pairs


def parse_names(text: str) -> tuple[str, ...]:
    """A comma-separated option value (`a, b,c`): its non-empty names."""
    return tuple(name.strip() for name in text.split(",") if name.strip())


def parse_flag(text: str) -> bool:
    value = text.lower()
    if value not in ("true", "false", "1", "0"):
        raise ValueError(f"takes true or false, not '{text}'")
    return value in ("true", "1")


def parse_count(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise ValueError(f"takes a whole number, not '{text}'") from None
    if value < 0:
        raise ValueError(f"takes a number >= 0, not '{text}'")
    return value


@dataclasses.dataclass(frozen=True)
class Option:
    name: str
    help: str
    default: Any = None
    # text -> value; a ValueError's message is shown after "NAME= " unless it names the option.
    parse: Callable[[str], Any] = str
    # A bare `NAME` (no `=value`) means this; None: a value is required.
    implicit: str | None = None
    # The value's form in `--list-passes` (`a,b`, `json|const`); the default's text when empty.
    metavar: str = ""


@dataclasses.dataclass
class PassContext:
    """What a pass body gets: its parsed options, and where its warnings,
    errors and result go. Errors are collected so that one run reports every
    offending op; the wrapper fails the pass afterwards."""

    argument: str
    options: Any  # the pass's options object (PythonPass.options_type)
    log: DiagnosticLog | None = None
    on_result: Callable[[Any], None] | None = None
    failed: bool = False

    def warn(self, where, message: str) -> None:
        loc = _location_of(where, ir.Location.unknown())
        if self.log is not None:
            self.log.warning(loc, message)
        else:
            warnings.warn(f"{loc}: {message}", stacklevel=3)

    def error(self, where, message: str) -> None:
        _location_of(where, ir.Location.unknown()).emit_error(message)
        self.failed = True


@dataclasses.dataclass(frozen=True)
class PythonPass:
    argument: str
    description: str
    # (module op, context) -> a result for `on_result`, or None.
    body: Callable[[ir.Operation, PassContext], Any]
    options: tuple[Option, ...] = ()
    # A frozen dataclass with a field per option (`tosa-target` is `tosa_target`), made at registration.
    options_type: type = dataclasses.field(default=None, compare=False, repr=False)

    def __post_init__(self):
        if self.options_type is None:
            fields = [(option_field(o.name), Any, dataclasses.field(default=o.default)) for o in self.options]
            object.__setattr__(self, "options_type", dataclasses.make_dataclass(
                f"{self.name}Options", fields, frozen=True))

    @property
    def name(self) -> str:
        return "".join(part.capitalize() for part in self.argument.split("-"))

    def summary(self) -> str:
        """The one-line `--list-passes` text, options included."""
        if not self.options:
            return self.description
        return f"{self.description} (options: " + " ".join(
            f"{o.name}={o.metavar or _show(o.default)}" for o in self.options) + ")"

    def parse_options(self, text: str | dict = "") -> Any:
        """MLIR pass-option syntax, `a=1 b=x,y c` (braces optional), or a dict
        of already-typed values, as this pass's options object; unknown names
        and bad values are ValueErrors."""
        by_name = {o.name: o for o in self.options}
        given: dict[str, Any] = {}
        if isinstance(text, dict):  # typed values as they are; text is parsed as on the command line
            for key, value in text.items():
                option = self._known(key, by_name)
                given[key] = self._parse_value(option, value) if isinstance(value, str) else value
        else:
            for key, value in parse_option_text(text, f"the options of {self.argument}"):
                option = self._known(key, by_name)
                if value is None:
                    if option.implicit is None:
                        raise ValueError(f"option '{key}' of {self.argument} needs a value ({key}=...)")
                    value = option.implicit
                if not value and option.implicit is None:
                    raise ValueError(f"option '{key}' of {self.argument} needs a value ({key}=...)")
                given[key] = self._parse_value(option, value)
        return self.options_type(**{option_field(o.name): given.get(o.name, o.default) for o in self.options})

    @staticmethod
    def _parse_value(option: Option, value: str) -> Any:
        try:
            return option.parse(value)
        except ValueError as e:  # "takes ..." reads after the option's name
            raise ValueError(str(e) if option.name in str(e) else f"{option.name}= {e}") from None

    def _known(self, key: str, by_name: dict[str, Option]) -> Option:
        if key not in by_name:
            expected = ", ".join(f"{name}=" for name in by_name) or "no options"
            raise ValueError(f"unknown option '{key}' for {self.argument}: expected {expected}")
        return by_name[key]

    def create(self, options: str | dict = "", log: DiagnosticLog | None = None,
               on_result: Callable[[Any], None] | None = None) -> Callable:
        """The callable `PassManager.add` runs; options are checked now."""
        parsed = self.parse_options(options)

        def run(op, pass_) -> None:
            ctx = PassContext(self.argument, parsed, log, on_result)
            try:
                result = self.body(op, ctx)
            except PassFailure as e:
                _location_of(e.where, op.location).emit_error(f"{self.argument}: {e}")
                ctx.failed = True
            except Exception as e:  # a bug of ours: say so, on the IR, with the pass
                op.location.emit_error(
                    f"internal error in {self.argument} ({type(e).__name__}: {e}); please report this with the IR")
                ctx.failed = True
            else:
                if on_result is not None and result is not None:
                    on_result(result)
            if ctx.failed:
                pass_.signal_pass_failure()

        run.__name__ = self.name
        return run

    def add_to(self, pm: passmanager.PassManager, options: str | dict = "", log: DiagnosticLog | None = None,
               on_result: Callable[[Any], None] | None = None) -> None:
        pm.add(self.create(options, log, on_result), name=self.name, argument=self.argument)


def _show(value: Any) -> str:
    if isinstance(value, bool):
        return str(value).lower()
    if isinstance(value, (tuple, list)):
        return ",".join(map(str, value))
    return str(value)


_PASSES: Registry[PythonPass] = Registry("pass")


def register_pass(argument: str, description: str, options: tuple[Option, ...] = ()):
    """Decorator: register `body(module_op, ctx)` as the pass `argument`.
    Returns the body unchanged (callable directly on a module op)."""

    def decorate(body):
        _PASSES.add(argument, PythonPass(argument, description, body, tuple(options)))
        return body

    return decorate


def registered_passes() -> dict[str, PythonPass]:
    """The passes registered so far: each layer registers its own when it is
    imported (as each MLIR library does), so a caller sees the passes of the
    layers it imported; the opt tool imports them all."""
    return _PASSES.as_dict()


def lookup_pass(argument: str) -> PythonPass | None:
    return _PASSES.get(argument)


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


def pipeline_text(elements: list[str]) -> str:
    """The textual pipeline `build_pass_manager(elements)` runs."""
    return "builtin.module(" + ", ".join(elements) + ")"


def name_and_options(element: str) -> tuple[str, str]:
    brace = element.find("{")
    if brace >= 0 and element.endswith("}"):
        return element[:brace].strip(), element[brace + 1:-1]
    return element.strip(), ""


def build_pass_manager(elements: list[str] | str, log: DiagnosticLog | None = None,
                       on_result: dict[str, Callable[[Any], None]] | None = None) -> passmanager.PassManager:
    """A module PassManager running `elements` (or a pipeline's text) in
    order, ours spliced in; `on_result` maps a pass argument to the callback
    that receives what each of its runs returns.

    Must be called inside the target `ir.Context`. Raises ValueError naming an
    unknown pass or bad options.
    """
    if isinstance(elements, str):
        elements = split_pipeline(elements)
    pm = passmanager.PassManager.parse("builtin.module()")
    for element in elements:
        name, options = name_and_options(element)
        entry = lookup_pass(name)
        if entry is not None:
            entry.add_to(pm, options, log, (on_result or {}).get(name))
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


def run_pipeline(module, pipeline: "str | list[str]", what: str, *, category: str = "lowering-failed",
                 log: DiagnosticLog | None = None, on_result: dict[str, Callable[[Any], None]] | None = None,
                 verify_each: bool = True) -> None:
    """Run a pass pipeline (text or elements; ours spliced in) on `module`
    (an `ir.Module` or a module op) in place. A failure is one `CompileError`
    of `category`, "WHAT failed:" with every diagnostic, the warnings our
    passes logged before it included, and the torch ops the conversion driver
    could not legalize as its `ops`; an unknown pass or bad options are a
    ValueError. `verify_each=False` verifies the result once instead of after
    every pass (on 10^5 LLVM ops, verifying is ~0.1 s a pass: half of a long
    lowering's time); an invalid result is then the same CompileError, naming
    no pass."""
    op = getattr(module, "operation", module)
    with op.context:
        pm = build_pass_manager(pipeline, log, on_result)
        pm.enable_verifier(verify_each)
        try:
            pm.run(op)
            if not verify_each:
                op.verify()
        except ir.MLIRError as e:
            diagnostics = (log.diagnostics if log else []) + [Diagnostic.from_mlir(d) for d in e.error_diagnostics]
            raise CompileError(f"{what} failed:", diagnostics, category=category,
                               ops=_illegal_ops(diagnostics)) from None


# A torch.operator names nothing useful: its op name is in an attribute.
_ILLEGAL_OP = re.compile(r"failed to legalize operation '(?P<op>torch\.(?!operator')[\w.]+)'")


def _illegal_ops(diagnostics: list[Diagnostic]) -> list[str]:
    """The torch ops MLIR's conversion driver could not legalize, as it names them."""
    return sorted({m["op"] for d in diagnostics for m in [_ILLEGAL_OP.search(d.message)] if m})
