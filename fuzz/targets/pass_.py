"""Target `pass`: random torch-dialect modules through convert-torch-backend-legal-to-tosa-custom.

Valid cases are calls drawn by the contract tests' strategies (every op of
their OPS list, every operand kind, both encodings), emitted as the FX
importer would; the oracle is the contract tests' own `round_trip` (the call
decodes back exactly, after a print and re-parse too). Invalid cases mutate
such a module where the pass must refuse or skip: zero-size, unranked,
non-value and complex tensors, a result type that is a list or a number, an
op renamed to a mutating or unknown one, an operand dropped; and random op
selections, encodings and strictness.

Clean for an invalid case: the module still verifies and every `tosa.custom`
the pass did write decodes; a skipped op has a warning, and with strict=true
the pass fails with an error on the op's location (`ConversionFailed`). An
"internal error" diagnostic, an escaping exception, IR that no longer
verifies, or a tosa.custom that does not decode is a defect.
"""

from __future__ import annotations

import re

from hypothesis import strategies as st

from ..outcome import CLEAN, CORRECT, Defect, Outcome, clean_or_defect, describe
from . import _common

__all__ = ["strategy", "check"]


MUTATIONS = [
    ("result-zero-size", r"-> !torch\.vtensor<\[[^\]]*\]", "-> !torch.vtensor<[0,3]"),
    ("result-complex", r"(-> !torch\.vtensor<\[[^\]]*\]),\w+>", r"\1,complex<f32>>"),
    ("result-ui16", r"(-> !torch\.vtensor<\[[^\]]*\]),\w+>", r"\1,ui16>"),
    ("unranked", r"!torch\.vtensor<\[[^\]]*\],(\w+)>", r"!torch.vtensor<*,\1>"),
    ("non-value", r"!torch\.vtensor<", "!torch.tensor<"),
    ("result-int", r"-> !torch\.vtensor<\[[^\]]*\],\w+>\n", "-> !torch.int\n"),
    ("result-list", r"-> !torch\.vtensor<\[[^\]]*\],\w+>\n", "-> !torch.list<vtensor>\n"),
    ("operand-zero-size", r"(%arg0: !torch\.vtensor<\[)[^\]]*", r"\g<1>0,2"),
    ("mutating", r'"torch\.aten\.(\w+)"', r'"torch.aten.\1_"'),
    ("unknown-op", r'"torch\.aten\.(\w+)', r'"torch.aten.\1_nope'),
    ("other-namespace", r'"torch\.aten\.', '"torch.mylib.'),
    ("drop-operand", r'\(%(\w+), ', "("),
    ("f64-to-f16", r",f32>", ",f16>"),
    ("dynamic", r"\[(\d+),", "[?,"),
]
SELECTIONS = ["SELF", "SELF", "*", "aten.*", "aten.gelu", "aten.no_such", "torch.aten.layer_norm",
              "aten.add", "prims", "SELF,aten.gelu"]


@st.composite
def strategy_(draw):
    overload = draw(st.sampled_from(_common.rt.OPS))
    values, style, _ = draw(_common.rt.calls(overload))
    style["form"] = draw(st.sampled_from([style["form"], "operator"]))
    mutations = draw(st.lists(st.sampled_from([m[0] for m in MUTATIONS]), max_size=2, unique=True))
    return {
        "op": _common._schema.overload_name(overload),
        "values": repr(values),  # reproducer text; the case is re-drawn from (seed, index)
        "text": None,
        "style": style,
        "encoding": draw(st.sampled_from(["json", "const"])),
        "mutations": mutations,
        "selection": draw(st.sampled_from(SELECTIONS)) if mutations else "SELF",
        "strict": draw(st.booleans()),
        "_values": values,
    }


def strategy():
    return strategy_().map(_emit_text)


def _emit_text(case):
    overload = _common._schema.overload_for(case["op"])
    values = case.pop("_values")
    try:
        em = _common.rt.emit(overload, values, **case["style"])
    except ValueError as e:  # the emitter refuses (e.g. a form the dialect cannot spell)
        case["text"], case["emit_error"] = None, str(e)
        return case
    case["text"] = em.text
    case["identifier"] = em.identifier
    case["values"] = repr(values)
    return case


def _mutate(text: str, names: list[str]) -> str:
    for name in names:
        _, pattern, repl = next(m for m in MUTATIONS if m[0] == name)
        text = re.sub(pattern, repl, text, count=1)
    return text


def _valid(case) -> Outcome:
    from torch_mlir import ir

    from _emit import emit

    overload = _common._schema.overload_for(case["op"])
    values = eval(case["values"], _VALUE_NAMES)  # noqa: S307 - our own repr of T/Literal/Runtime/torch values
    em = emit(overload, values, **case["style"])
    try:
        _common.rt.round_trip(_common.context(), em, case["encoding"])
    except AssertionError as e:
        raise Defect("wrong", f"{case['op']}({case['values']}) did not round-trip: {e}\n{em.text}") from None
    except ir.MLIRError as e:
        raise Defect("exception", f"{case['op']}: valid IR failed: {e}\n{em.text}") from None
    return Outcome(CORRECT, case["op"])


def _names():
    import math

    import torch

    from _emit import Literal, Runtime, T

    names = {"T": T, "Literal": Literal, "Runtime": Runtime, "inf": math.inf, "nan": math.nan, "torch": torch,
             "device": torch.device}
    for v in list(_common._schema.DTYPES.values()) + list(_common._schema.LAYOUTS.values()) \
            + list(_common._schema.MEMORY_FORMATS.values()):
        names[str(v)] = v
    return names


_VALUE_NAMES: dict = {}


def setup():
    _VALUE_NAMES.update(_names())


def check(case: dict) -> Outcome:
    from torch_mlir import ir

    import tosa_custom
    from tosa_custom.conversion import ConversionFailed, PassOptions, convert_module
    from tosa_custom.diagnostics import DiagnosticLog

    if case["text"] is None:
        return Outcome(CLEAN, "emitter refused: " + case.get("emit_error", ""))
    if not case["mutations"]:
        return _valid(case)
    text = _mutate(case["text"], case["mutations"])
    selection = case["selection"].replace("SELF", case["identifier"])
    ctx = _common.context()
    with ctx, ir.Location.unknown():
        try:
            module = ir.Module.parse(text)
        except ir.MLIRError as e:
            return Outcome(CLEAN, f"mutated IR does not parse: {str(e).splitlines()[-1][:150]}")
        if not module.operation.verify():
            return Outcome(CLEAN, "mutated IR does not verify")
        log = DiagnosticLog().attach(ctx)
        try:
            try:
                options = PassOptions(selection.split(","), encoding=case["encoding"], strict=case["strict"])
                convert_module(module.operation, options, log)
            except ConversionFailed as e:
                errors = log.of("error")
                _no_internal_error(log, text)
                if not errors or any("loc(unknown)" in d.location for d in errors):
                    raise Defect("wrong", f"ConversionFailed without an error on a location: {e}; {log.diagnostics}")
                return Outcome(CLEAN, f"strict: {errors[0].message[:150]}")
            except Defect:
                raise
            except Exception as e:
                return clean_or_defect(e, (ValueError,))
        finally:
            log.detach()
        _no_internal_error(log, text)
        try:
            module.operation.verify()
        except ir.MLIRError as e:
            raise Defect("wrong", f"the pass left IR that does not verify: {e}\n{text}") from None
        customs = tosa_custom.custom_ops(module)
        for custom in customs:
            try:
                tosa_custom.decode(custom)
            except Exception as e:
                raise Defect("wrong", f"the pass wrote a tosa.custom that does not decode: {describe(e)}\n{text}") \
                    from None
    if customs:
        return Outcome(CORRECT, f"{len(customs)} converted")
    warnings = log.of("warning")
    return Outcome(CLEAN, warnings[0].message[:150] if warnings else "nothing selected")


def _no_internal_error(log, text):
    for d in log.diagnostics:
        if "internal error" in d.message:
            raise Defect("exception", f"{d}\n{text}")
