"""The TOSA target compile()'s output is declared for and validated against.

A target is what MLIR's `tosa-attach-target` takes: profiles (`pro_int`,
`pro_fp`), extensions, a level and a specification version. compile() attaches
it to the module (`tosa.target_env`) and runs `tosa-validate` last, so what a
backend team reads is TOSA its own tools accept (README, "Handing the output to
another tool"); a failure names every op, the rule it breaks and the fixes.
"""

from __future__ import annotations

import dataclasses
import re
from typing import Any, Mapping

from torch_mlir import ir

from ..core.diagnostics import CompileError, Diagnostic, format_location
from ..core import attrs as _attrs
from ..core import dtypes as _dtypes
from ..core.passes import PassContext, parse_names, parse_option_text, register_pass, run_pipeline

__all__ = ["TosaTarget", "ATTACH", "VALIDATE", "RECORD", "TARGET_ATTR", "ELEMENT_TYPES", "NO_PROFILE",
           "parse_target", "auto_target", "fit_target", "fitted_target", "has_profile", "no_profile",
           "not_conformant"]

ATTACH = "tosa-attach-target"
# Strict: in this MLIR, tosa-validate checks profiles, extensions and the
# specification version only with strict op-spec alignment; without it a float
# program passes as pro_int. TOSA's own tools check them.
VALIDATE = "tosa-validate{strict-op-spec-alignment=true}"
RECORD = "tosa-custom-record-target"
TARGET_ATTR = _attrs.TOSA_TARGET

PROFILES = ("pro_int", "pro_fp")
# The names tosa-attach-target knows (MLIR's TOSA extension enum); it does not
# check them itself, so a misspelling is caught here.
EXTENSIONS = ("int16", "int4", "int64", "bf16", "fp8e4m3", "fp8e5m2", "fft", "variable", "controlflow",
              "doubleround", "inexactround", "dynamic", "shape", "mxfp")
LEVELS = ("8k", "none")
VERSIONS = ("1.0", "1.1.draft")


@dataclasses.dataclass(frozen=True)
class TosaTarget:
    """One TOSA target, as `tosa-attach-target` names it."""

    profiles: tuple[str, ...] = ("pro_fp",)
    extensions: tuple[str, ...] = ()
    level: str = "8k"
    specification_version: str = "1.0"

    def __post_init__(self):
        for field, allowed in (("profiles", PROFILES), ("extensions", EXTENSIONS)):
            value = getattr(self, field)
            if isinstance(value, str):
                value = parse_names(value)
            object.__setattr__(self, field, tuple(value))
            unknown = [v for v in value if v not in allowed]
            if unknown:
                raise ValueError(f"tosa_target: unknown {field[:-1]} {', '.join(map(repr, unknown))}; "
                                 f"expected some of {', '.join(allowed)}")
        if not self.profiles:
            raise ValueError("tosa_target: name at least one profile (pro_int, pro_fp)")
        for field, allowed in (("level", LEVELS), ("specification_version", VERSIONS)):
            if getattr(self, field) not in allowed:
                raise ValueError(f"tosa_target: {field} must be one of {', '.join(allowed)}, "
                                 f"not {getattr(self, field)!r}")

    def options(self) -> str:
        """The option text of `tosa-attach-target`."""
        text = f"profiles={','.join(self.profiles)}"
        if self.extensions:
            text += f" extensions={','.join(self.extensions)}"
        return text + f" level={self.level} specification_version={self.specification_version}"

    def pipeline(self, validated: bool = False) -> list[str]:
        """Attach, validate, record: the elements compile() runs last; without
        the validation for a module `fitted_target` validated already."""
        return [f"{ATTACH}{{{self.options()}}}", *([] if validated else [VALIDATE]), RECORD]

    def __str__(self) -> str:
        return self.options()


_DICT_KEYS = {f.name for f in dataclasses.fields(TosaTarget)}


def parse_target(spec: Any) -> "TosaTarget | str | None":
    """compile()'s `tosa_target=`: None (no check), "auto", a TosaTarget, a
    dict of its fields, or the option text of tosa-attach-target
    (`profiles=pro_fp extensions=bf16`, braces and the pass name optional)."""
    if spec is None or isinstance(spec, TosaTarget):
        return spec
    if isinstance(spec, Mapping):
        unknown = set(spec) - _DICT_KEYS
        if unknown:
            raise ValueError(f"tosa_target: unknown key(s) {', '.join(sorted(unknown))}; "
                             f"expected {', '.join(sorted(_DICT_KEYS))}")
        return TosaTarget(**spec)
    if not isinstance(spec, str):
        raise TypeError(f"tosa_target must be None, 'auto', a TosaTarget, a dict or option text, not {spec!r}")
    text = spec.strip()
    if text == "auto":
        return "auto"
    if text.startswith(ATTACH):
        text = text[len(ATTACH):].strip()
    fields = {}
    for key, value in parse_option_text(text, "tosa_target"):
        key = key.replace("-", "_")
        if value is None or key not in _DICT_KEYS:
            item = key if value is None else f"{key}={value}"
            raise ValueError(f"tosa_target: cannot read {item!r}; expected NAME=VALUE with NAME one of "
                             f"{', '.join(sorted(_DICT_KEYS))}, or 'auto'")
        fields[key] = value
    return TosaTarget(**fields)


# Every element type some TOSA profile or extension has (TOSA 1.0 and the 1.1
# draft, as MLIR spells them), with the extension it needs (None: a base
# profile; i16 and i4 are pro_int's extensions, f16/f32 pro_fp's base). What is
# not here no tosa_target can declare: f64 (so complex128, carried as f64
# pairs), unsigned integers wider than 8 bits, fp8 variants other than these.
ELEMENT_TYPES = {"i1": None, "i8": None, "i32": None, "f16": None, "f32": None, "i16": "int16", "i4": "int4",
                 "i64": "int64", "bf16": "bf16", "f8E4M3FN": "fp8e4m3", "f8E5M2": "fp8e5m2"}
# The extensions "auto" adds for the element types it sees: all but EXT-INT64,
# which needs the 1.1 draft (CONTRACT.md 13.1).
_EXTENSION_OF = {e: x for e, x in ELEMENT_TYPES.items() if x and x != "int64"}
NO_PROFILE = "no-tosa-profile"  # the category of a type no TOSA target can declare


def has_profile(element: str) -> bool:
    """Whether some TOSA profile or extension has the element type (MLIR spelling)."""
    return element in ELEMENT_TYPES
# Extensions of the integer profile: tosa-validate refuses them without pro_int
# ("use of extension 'int16' requires any of profiles: [pro_int]").
_PRO_INT_EXTENSIONS = {"int16", "int4"}


@register_pass(RECORD,
               "Replace the tosa.target_env attribute by the string attribute tosa_custom.tosa_target (its "
               "tosa-attach-target options): MLIR prints a target without extensions as `extensions = []`, which "
               "its own parser (and IREE's) refuses, so a module carrying it could not be read back")
def record_target(module: ir.Operation, ctx: PassContext) -> None:
    if "tosa.target_env" not in module.attributes:
        return
    text = str(module.attributes["tosa.target_env"])
    fields = dict(re.findall(r'(\w+) = (\[[^\]]*\]|"[^"]*")', text))
    target = TosaTarget(profiles=_names(fields.get("profiles", "")), extensions=_names(fields.get("extensions", "")),
                        level=fields.get("level", '"8k"').strip('"'),
                        specification_version=fields.get("specification_version", '"1.0"').strip('"'))
    del module.attributes["tosa.target_env"]
    module.attributes[TARGET_ATTR] = ir.StringAttr.get(target.options())


def _names(listed: str) -> tuple[str, ...]:
    return parse_names(listed.strip("[]"))


def auto_target(module: ir.Module) -> TosaTarget:
    """The target that fits the module: pro_fp when it computes with floats,
    pro_int otherwise (an integer-only model), both when a float model has
    int16 or int4 tensors (their extensions extend pro_int), and the extensions its element
    types need; dynamic shapes need EXT-DYNAMIC of the 1.1 draft. 64-bit types are left to validation: no 1.0 extension allows
    f64, and EXT-INT64 needs the 1.1 draft, which a backend must opt into."""
    elements: set[str] = set()
    dynamic = False

    def visit(op):
        nonlocal dynamic
        for value in list(op.operands) + list(op.results):
            if isinstance(value.type, ir.ShapedType):
                elements.add(str(value.type.element_type))
                dynamic = dynamic or (value.type.has_rank and not value.type.has_static_shape)
        return ir.WalkResult.ADVANCE

    module.operation.walk(visit)
    floats = any(e.startswith(("f", "bf")) for e in elements)
    extensions = {ext for e, ext in _EXTENSION_OF.items() if e in elements}
    if dynamic:  # TOSA 1.0 has static shapes only; EXT-DYNAMIC is in the 1.1 draft
        extensions.add("dynamic")
    profiles = ("pro_fp",) if floats else ("pro_int",)
    if extensions & _PRO_INT_EXTENSIONS:  # a float model with int16 tensors needs pro_int too
        profiles = ("pro_int", "pro_fp") if floats else profiles
    return TosaTarget(profiles=profiles, extensions=tuple(sorted(extensions)),
                      specification_version="1.1.draft" if dynamic else "1.0")


def fit_target(module: "ir.Module | ir.Operation", draft: bool = True) -> TosaTarget:
    """`tosa_target="auto"`: the smallest target the module strictly
    validates for. It starts from `auto_target` (the element types') and adds
    what tosa-validate says each rejected op requires: a profile (a float
    model computing positions in i32 needs pro_int: TOSA 1.0 reshapes and
    compares i32 only under it), an extension, and, as the last resort, the
    1.1 draft with EXT-INT64 for the 64-bit integers no narrowing could make
    i32 (`draft=False` never moves a 1.0 program there: auto mode's tunnel
    first tries to keep the program 1.0). What no target allows (f64) is left
    for validation to name."""
    return fitted_target(module, draft)[0]


def fitted_target(module: "ir.Module | ir.Operation", draft: bool = True) -> tuple[TosaTarget, bool]:
    """`fit_target`, and whether the module validated for that target as it
    is: then attaching and recording it is all that is left to do (validation
    is most of a small model's compile passes: two runs were 0.25 s of BERT's 0.26)."""
    op = getattr(module, "operation", module)
    target, errors = auto_target(op), None
    for _ in range(4):  # each round adds what the last one's errors require
        errors = _validation_errors(op, target)
        wider = _widened(target, errors, draft) if errors else None
        if wider is None:
            break
        target, errors = wider, None
    if "tosa.target_env" in op.attributes:
        del op.attributes["tosa.target_env"]
    return target, errors == []


def _validation_errors(op: ir.Operation, target: TosaTarget) -> list[str]:
    try:
        run_pipeline(op, [f"{ATTACH}{{{target.options()}}}", VALIDATE], "Validating the TOSA")
    except CompileError as e:
        return [d.message for d in e.diagnostics if d.severity == "error"]
    return []


# tosa-validate's requirements of an op, in one alternative of several joined by " OR ".
_REQUIRES_ANY = re.compile(r"requires any of \[([^\]]*)\]")
_REQUIRES_VERSION = re.compile(r"requires specification version compatible with ([\w.]+)")


def _widened(target: TosaTarget, errors: list[str], draft: bool) -> TosaTarget | None:
    """`target` with what the errors require added, choosing per op the first
    alternative auto may take; None when nothing changes."""
    names, version = set(target.profiles) | set(target.extensions), target.specification_version
    for message in errors:
        for alternative in message.split(" OR "):
            wanted = _REQUIRES_VERSION.search(alternative)
            found = _REQUIRES_ANY.search(alternative)
            needs = set(parse_names(found.group(1))) if found else set()
            if needs & names or (not needs and not wanted):
                break  # already there, or nothing auto can add: validation names it
            usable = sorted(n for n in needs if n in PROFILES or n in EXTENSIONS) or sorted(needs)
            if wanted and wanted.group(1) != version and not (draft and wanted.group(1) == "1.1.draft"):
                continue
            version = wanted.group(1) if wanted else version
            names.update(usable[:1])
            break
    if names == set(target.profiles) | set(target.extensions) and version == target.specification_version:
        return None
    return TosaTarget(profiles=tuple(p for p in PROFILES if p in names),
                      extensions=tuple(sorted(names - set(PROFILES))), level=target.level,
                      specification_version=version)


_FIXES = ("keep the source op as tosa.custom (backend_legal_ops), widen the target (tosa_target=), "
          "or skip the check (tosa_target=None)")
# What to compute in instead of a dtype no profile has (by torch's dtype name).
_INSTEAD = {"float64": "float32 instead of float64 (model.float() and float32 inputs; no .double() in the model)",
            "complex128": "complex64 instead of complex128 (carried as f32 pairs)"}
_SKIP = "or skip the check (tosa_target=None): the output is then TOSA that no TOSA tool validates"


def _instead(dtypes) -> str:
    fixes = [_INSTEAD.get(d, f"a dtype TOSA has (int8, int16, int32, float16, float32) instead of {d}")
             for d in sorted(set(dtypes))]
    return "Fixes: " + "; ".join(fixes) + f"; {_SKIP}."


def no_profile(found: list[tuple[str, str, str, str]]) -> CompileError:
    """The CompileError for a program whose boundary has types no TOSA
    profile has: `found` is (what, name, torch dtype name, TOSA element) for
    each input, result or weight. Said before lowering: keeping ops
    as tosa.custom cannot help, as the type is at the function's boundary."""
    lines = [f"  {what} {name}: {dtype}" for what, name, dtype, _ in found]
    types = sorted({f"{dtype} ({element} in TOSA)" for _, _, dtype, element in found})
    message = (f"The program takes or returns {', '.join(types)}, which no TOSA profile or extension has, so no "
               "tosa_target can validate it:\n" + "\n".join(lines) + "\n" + _instead(d for _, _, d, _ in found))
    error = CompileError(message, category=NO_PROFILE, ops=[])
    error.violations = [(what, name, f"{dtype}: no TOSA profile has {element}") for what, name, dtype, element in found]
    return error


def not_conformant(target: TosaTarget, diagnostics: list[Diagnostic], sources: Mapping[str, list[str]]) -> CompileError:
    """The CompileError for a module tosa-validate rejected: every op with its
    location, the rule it breaks and the torch op(s) it was lowered from. When
    a rule names a type no profile has (f64 reaching a tosa.custom), that is
    said first, with the fixes that can help; when every rejection is such a
    type, the category is NO_PROFILE."""
    errors = [d for d in diagnostics if d.severity == "error"]
    lines, ops = [], set()
    for d in errors:
        op = _op_name(d)
        ops.add(op)
        origin = sources.get(d.location, [])
        lines.append(f"  {format_location(d.location)}: {op}: {d.message}"
                     + (f" (lowered from {', '.join(origin)})" if origin else ""))
    untyped = [sorted(e for e in _ELEMENT_RULE.findall(d.message) if not has_profile(e)) for d in errors]
    elements = sorted({e for found in untyped for e in found})
    category = NO_PROFILE if errors and all(untyped) else "not-conformant"
    fixes = "" if category == NO_PROFILE else f" For each: {_FIXES}."
    message = (f"The TOSA does not conform to the target ({target}): tosa-validate rejected {len(errors)} op(s)."
               f"{fixes}\n" + "\n".join(lines))
    if elements:
        dtypes = [d.name for d in _dtypes.DTYPES if d.builtin in elements] or elements
        message = (f"The program computes in {', '.join(elements)} where TOSA must carry it (a tosa.custom operand "
                   "or result, a function argument or result, or an op no narrowing pass can narrow), and no TOSA "
                   "profile or extension has it: keeping ops as tosa.custom cannot help. " + _instead(dtypes)
                   + "\n" + message)
    error = CompileError(message, category=category, ops=sorted(ops))
    # (TOSA op, location, rule) per rejected op, for audits: nothing downstream reads the message.
    error.violations = [(_op_name(d), format_location(d.location), d.message) for d in errors]
    return error


# tosa-validate's rule for a type: "... element type 'f64' is not legal".
_ELEMENT_RULE = re.compile(r"element type '([^']+)' is not legal")


def _op_name(d: Diagnostic) -> str:
    """The TOSA op a validation error is about (`'tosa.gather' op ...`)."""
    if d.message.startswith("'") and "' op" in d.message:
        return d.message[1:d.message.index("' op")]
    return "module"
