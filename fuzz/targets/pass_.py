"""Target `pass`: random torch-dialect modules through convert-torch-backend-legal-to-tosa-custom.

Valid cases are calls drawn by the contract tests' strategies (every op of
their OPS list, every operand kind, both encodings), emitted as the FX
importer would; the oracle is the contract tests' own `round_trip` (the call
decodes back exactly, after a print and re-parse too). Invalid cases mutate
such a module where the pass must refuse or skip: zero-size, unranked,
non-value and complex tensors, a result type that is a list or a number, an
op renamed to a mutating or unknown one, an operand dropped, an int
known only at run time; and random op
selections, encodings and strictness.

Clean for an invalid case: the module still verifies and every `tosa.custom`
the pass did write decodes; a skipped op has a warning, and with strict=true
the pass fails with an error on the op's location (`ConversionFailed`). An
"internal error" diagnostic, an escaping exception, IR that no longer
verifies, or a tosa.custom that does not decode is a defect.

In-place cases (a quarter) are in-place and `out=` overloads (`add_.Tensor`,
`copy_`, `fill_.Scalar`, `zero_`, `index_put_`, `add.out`,
`arange.start_out`, and the in-place/out= twin of each op above), emitted as
torch-mlir writes non-value-semantic IR: each written operand a
`!torch.tensor` made by `torch.copy.to_tensor`, the result a `!torch.tensor`
returned as it is or through `torch.copy.to_vtensor` (or, as a mutation of
the IR, all value types); sometimes a second function holds a gelu the pass
must still convert. Correct: the in-place op is never a `tosa.custom`; when
selected it is skipped as `mutating-op` (a warning, or with strict=true an
error on its location), and the gelu beside it converts.

Auto cases (a fifth) run the same modules, mutated or not, through `ops=auto`
and then the lowering compile() runs after the tunnel (`pipelines.after_tunnel`):
it must succeed, since auto mode's own trials decided what to leave to it,
unless auto marked an op the contract cannot carry (a warning says so).
"""

from __future__ import annotations

import functools
import re

from hypothesis import strategies as st

from ..outcome import CLEAN, CORRECT, Defect, Outcome, clean_or_defect, describe
from . import _common, _edges

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
    # An int known only at run time, read from a new 0-d argument (a block-argument
    # scalar in auto mode's isolated probes crashed TorchToTosa: OpInfo tensor_split).
    ("runtime-int", r"(?s)func\.func @(\w+)\((.*?)(%\w+) = torch\.constant\.int -?\d+",
     r"func.func @\1(%rt: !torch.vtensor<[],si64>, \2\3 = torch.aten.Int.Tensor %rt : !torch.vtensor<[],si64> -> !torch.int"),
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
    return st.sampled_from(["mutate"] * 3 + ["inplace", "auto", "edge"]).flatmap(
        lambda kind: inplace_strategy_().map(_emit_inplace) if kind == "inplace"
        else _edges.edge_case() if kind == "edge"
        else strategy_().map(_emit_text).map(lambda case: {**case, "kind": kind} if kind == "auto" else case))


def _check_edge(case) -> Outcome:
    """Edge sizes (_edges.py) the three ways compile() meets them, then the
    lowering after the tunnel: any diagnostic is clean; the process must live."""
    from torch_mlir import ir

    from tosa_custom.core.diagnostics import DiagnosticLog
    from tosa_custom.core.passes import build_pass_manager
    from tosa_custom.tunnel.pipelines import after_tunnel

    ctx = _common.context()
    with ctx, ir.Location.unknown():
        module = _parse(case["text"])
        if isinstance(module, Outcome):
            raise Defect("exception", f"the edge generator wrote IR that does not parse: {module.detail}\n"
                                      f"{case['text']}")
        log = DiagnosticLog().attach(ctx)
        try:
            build_pass_manager([*_edges.CASE_PIPELINES[case["pipeline"]], *after_tunnel()], log).run(module.operation)
        except ir.MLIRError as e:
            _no_internal_error(log, case["text"])
            errors = [d.message for d in e.error_diagnostics] or [str(e)]
            return Outcome(CLEAN, f"{case['pipeline']}: {errors[0][:150]}")
        finally:
            log.detach()
        _no_internal_error(log, case["text"])
    return Outcome(CORRECT, f"{case['pipeline']}: {case['op']} {case['sizes']}")


# --------------------------------------------------------------------------
# Auto mode.
# --------------------------------------------------------------------------


def _check_auto(case) -> Outcome:
    """ops=auto, then the lowering compile() runs after the tunnel: what auto
    left as torch IR must lower (its trials said so), or auto left an error
    it could not tunnel away (a skipped op, said in a warning)."""
    from torch_mlir import ir

    from tosa_custom.tunnel.options import PASS_ARGUMENT
    from tosa_custom.core.diagnostics import DiagnosticLog
    from tosa_custom.core.passes import build_pass_manager
    from tosa_custom.tunnel.pipelines import after_tunnel

    text = _mutate(case["text"], case["mutations"])
    ctx = _common.context()
    with ctx, ir.Location.unknown():
        module = _parse(text)
        if isinstance(module, Outcome):
            return module
        log = DiagnosticLog().attach(ctx)
        try:
            try:
                build_pass_manager([f"{PASS_ARGUMENT}{{ops=auto encoding={case['encoding']}}}"], log).run(
                    module.operation)
            except ir.MLIRError as e:
                _no_internal_error(log, text)
                return Outcome(CLEAN, f"auto: {str(e).splitlines()[-1][:150]}")
            _no_internal_error(log, text)
            skipped = log.of("warning")
            try:
                build_pass_manager(after_tunnel(), DiagnosticLog()).run(module.operation)
            except ir.MLIRError as e:
                if skipped:  # auto marked an op the contract cannot carry: the lowering still fails on it
                    return Outcome(CLEAN, f"auto could not tunnel: {skipped[0].message[:150]}")
                if "tosa_custom.carrier" in str(e) and re.search(r"vtensor<\[[^\]]*\?", str(e)):
                    # A known limit, in every mode: TorchToTosa lowers a carrier cast of static shape only.
                    return Outcome(CLEAN, "TorchToTosa cannot lower the cast carrying a dynamic-shape operand")
                raise Defect("wrong", f"after ops=auto the lowering still fails: {str(e)[:600]}\n{text}") from None
        finally:
            log.detach()
    tunneled = str(module).count("tosa_custom.tunneled")
    return Outcome(CORRECT, f"auto: {tunneled} tunneled")


# --------------------------------------------------------------------------
# In-place and out= ops.
# --------------------------------------------------------------------------

_INPLACE_NAMED = ["add_.Tensor", "copy_.default", "fill_.Scalar", "fill_.Tensor", "zero_.default",
                  "index_put_.default", "add.out", "arange.start_out", "mul_.Tensor", "masked_fill_.Scalar",
                  "index_copy_.default", "relu_.default", "clamp_min_.default", "_index_put_impl_.default"]
INPLACE_FORMS = ["copy", "copy-returned", "value"]  # see _non_value
INPLACE_SELECTIONS = ["SELF", "SELF", "*", "aten.gelu", "SELF,aten.gelu"]


@functools.lru_cache(maxsize=None)
def inplace_ops() -> tuple:
    """The named overloads, then the in-place / out= twin of each op of the
    valid cases that has one (`gelu_`, `gelu.out`, `sum.IntList_out` ...)."""
    import torch

    aten = torch.ops.aten
    found = [getattr(getattr(aten, n.split(".")[0]), n.split(".")[1]) for n in _INPLACE_NAMED]
    for overload in _common.OPS:
        name, base = overload._schema.name.split("::")[1], overload._overloadname
        for packet, twin in ((name + "_", base), (name, "out"), (name, f"{base}_out")):
            p = getattr(aten, packet, None)
            if p is not None and twin in p.overloads() and getattr(p, twin) not in found:
                found.append(getattr(p, twin))
    return tuple(o for o in found if o._schema.is_mutable)


@st.composite
def inplace_strategy_(draw):
    overload = draw(st.sampled_from(inplace_ops()))
    values, style, _ = draw(_common.rt.calls(overload))
    return {
        "kind": "inplace",
        "op": _common._schema.overload_name(overload),
        "values": repr(values),
        "text": None,
        "style": style,
        "form": draw(st.sampled_from(INPLACE_FORMS)),
        "gelu_beside": draw(st.booleans()),
        "encoding": draw(st.sampled_from(["json", "const"])),
        "selection": draw(st.sampled_from(INPLACE_SELECTIONS)),
        "strict": draw(st.booleans()),
        "_values": values,
    }


def _emit_inplace(case):
    overload = _common._schema.overload_for(case["op"])
    values = case.pop("_values")
    try:
        em = _common.rt.emit(overload, values, **case["style"])
    except ValueError as e:
        case["text"], case["emit_error"] = None, str(e)
        return case
    case["identifier"] = em.identifier
    case["text"] = _non_value(em, case["form"]) + (_GELU_FUNC if case["gelu_beside"] else "")
    return case


_GELU_FUNC = """func.func @g(%arg0: !torch.vtensor<[2,3],f32>) -> !torch.vtensor<[2,3],f32> {
  %none = torch.constant.str "none"
  %0 = torch.aten.gelu %arg0, %none : !torch.vtensor<[2,3],f32>, !torch.str -> !torch.vtensor<[2,3],f32>
  return %0 : !torch.vtensor<[2,3],f32>
}
"""


def _split_top(text: str) -> list[str]:
    """`a, b<c, d>, e` -> ["a", "b<c, d>", "e"]: commas outside <> [] ()."""
    parts, depth, start = [], 0, 0
    for i, ch in enumerate(text):
        depth += 1 if ch in "<[(" else -1 if ch in ">])" else 0
        if ch == "," and depth == 0:
            parts.append(text[start:i].strip())
            start = i + 1
    return parts + [text[start:].strip()] if text.strip() else parts


def _non_value(em, form: str) -> str:
    """The emitted call as non-value-semantic IR (see INPLACE_FORMS): "copy",
    tensor operands through torch.copy.to_tensor (the dialect's in-place ops
    take only !torch.tensor) and the result back through
    torch.copy.to_vtensor, as torch-mlir's importer writes an in-place op;
    "copy-returned", the !torch.tensor result returned as it is; "value", the
    emitted text unchanged (the mutating op on value types)."""
    if form == "value":
        return em.text
    lines = em.text.splitlines()
    at = next(i for i, line in enumerate(lines) if line.startswith("  %r"))
    lhs, call = lines[at].split(" = ", 1)
    head, rest = call.split(" : ", 1)
    types_text, results_text = rest.rsplit(" -> ", 1)
    operator = em.form == "operator"
    name, operands_text = head.split("(", 1) if operator else head.split(" ", 1)
    operands = _split_top(operands_text[:-1] if operator else operands_text)
    types = _split_top(types_text[1:-1] if operator else types_text)
    copies = []
    for i in range(len(operands)):
        if types[i].startswith("!torch.vtensor<"):
            types[i] = "!torch.tensor" + types[i][len("!torch.vtensor"):]
            copies.append(f"  %nv{i} = torch.copy.to_tensor {operands[i]} : {types[i]}")
            operands[i] = f"%nv{i}"
    value_results = _split_top(results_text[1:-1] if results_text.startswith("(") else results_text)
    results = ["!torch.tensor" + t[len("!torch.vtensor"):] for t in value_results]
    joined = ", ".join(results)
    if operator:
        op = f'{lhs} = {name}({", ".join(operands)}) : ({", ".join(types)}) -> ' \
             + (joined if len(results) == 1 else f"({joined})")
    else:
        op = f"{lhs} = {name} {', '.join(operands)} : {', '.join(types)} -> {joined}"
    names = ["%r"] if len(results) == 1 else [f"%r#{j}" for j in range(len(results))]
    if form == "copy":
        back = [f"  %back{j} = torch.copy.to_vtensor {n} : {t}" for j, (n, t) in enumerate(zip(names, value_results))]
        ret = f"  return {', '.join(f'%back{j}' for j in range(len(names)))} : {', '.join(value_results)}"
        signature = lines[0]
    else:
        back, ret = [], f"  return {', '.join(names)} : {joined}"
        result_sig = joined if len(results) == 1 else f"({joined})"
        signature = lines[0].rsplit(" -> ", 1)[0] + f" -> {result_sig} {{"
    return "\n".join([signature, *lines[1:at], *copies, op, *back, ret, "}"]) + "\n"


def _check_inplace(case) -> Outcome:
    """The in-place op is never converted; selected, it is skipped as mutating-op."""
    from torch_mlir import ir

    import tosa_custom
    from tosa_custom.tunnel.conversion import ConversionFailed, convert_module
    from tosa_custom.tunnel.options import PassOptions
    from tosa_custom.core.diagnostics import DiagnosticLog

    identifier, text = case["identifier"], case["text"]
    ctx = _common.context()
    with ctx, ir.Location.unknown():
        try:
            module = ir.Module.parse(text)
        except ir.MLIRError as e:  # e.g. a list of value tensors where the dialect's op wants !torch.tensor
            return Outcome(CLEAN, f"emitted IR does not parse: {str(e).splitlines()[1][:150]}")
        options = PassOptions(case["selection"].replace("SELF", identifier).split(","),
                              encoding=case["encoding"], strict=case["strict"])
        log = DiagnosticLog().attach(ctx)
        try:
            result = convert_module(module.operation, options, log)
        except ConversionFailed:
            errors = log.of("error")
            _no_internal_error(log, text)
            if not errors or any("loc(unknown)" in d.location for d in errors):
                raise Defect("wrong", f"ConversionFailed without an error on a location; {log.diagnostics}")
            if not any("[mutating-op]" in d.message for d in errors):
                raise Defect("wrong", f"strict: {identifier} refused, but not as mutating-op: {errors}\n{text}")
            return Outcome(CLEAN, f"strict: {errors[0].message[:150]}")
        except Exception as e:
            return clean_or_defect(e, (ValueError,))
        finally:
            log.detach()
        _verified(log, module, text)
        names = [str(c.attributes["operator_name"]).strip('"') for c in tosa_custom.custom_ops(module)]
    return _inplace_outcome(case, options, result, names)


def _inplace_outcome(case, options, result, names: list[str]) -> Outcome:
    identifier, text = case["identifier"], case["text"]
    if identifier in names:
        raise Defect("wrong", f"the mutating op {identifier} became a tosa.custom\n{text}")
    user_op = "torch.operator" in text
    skipped = [s.category for s in result.skipped if s.identifier == identifier]
    if options.ops.matches(identifier, user_op=user_op) and skipped != ["mutating-op"]:
        raise Defect("wrong", f"{identifier} was selected but skipped as {skipped}, not [mutating-op]\n{text}")
    if case["gelu_beside"] and options.ops.matches("torch.aten.gelu", user_op=False):
        if names.count("torch.aten.gelu") != 1:
            raise Defect("wrong", f"the gelu beside {identifier} was not converted: {names}\n{text}")
        return Outcome(CORRECT, f"gelu converted beside {identifier} [mutating-op]")
    return Outcome(CLEAN, f"{identifier} skipped [mutating-op]" if skipped else "not selected")


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
    from tosa_custom.tunnel.conversion import ConversionFailed, convert_module
    from tosa_custom.tunnel.options import PassOptions
    from tosa_custom.core.diagnostics import DiagnosticLog

    if case["text"] is None:
        return Outcome(CLEAN, "emitter refused: " + case.get("emit_error", ""))
    if case.get("kind") == "inplace":
        return _check_inplace(case)
    if case.get("kind") == "auto":
        return _check_auto(case)
    if case.get("kind") == "edge":
        return _check_edge(case)
    if not case["mutations"]:
        return _valid(case)
    text = _mutate(case["text"], case["mutations"])
    selection = case["selection"].replace("SELF", case["identifier"])
    ctx = _common.context()
    with ctx, ir.Location.unknown():
        module = _parse(text)
        if isinstance(module, Outcome):
            return module
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
        _verified(log, module, text)
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


def _parse(text):
    """The mutated module, or the clean outcome of a mutation that broke its syntax."""
    from torch_mlir import ir

    try:
        return ir.Module.parse(text)
    except ir.MLIRError as e:
        return Outcome(CLEAN, f"mutated IR does not parse: {str(e).splitlines()[-1][:150]}")


def _verified(log, module, text) -> None:
    """No internal error was logged and the pass left IR that verifies."""
    from torch_mlir import ir

    _no_internal_error(log, text)
    try:
        module.operation.verify()
    except ir.MLIRError as e:
        raise Defect("wrong", f"the pass left IR that does not verify: {e}\n{text}") from None


def _no_internal_error(log, text):
    for d in log.diagnostics:
        if "internal error" in d.message:
            raise Defect("exception", f"{d}\n{text}")
