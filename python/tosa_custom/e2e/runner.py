"""Run one e2e case in one mode and say what happened, in one `CaseResult`.

The steps are those of torch-mlir's e2e harness: seed, build the module and
inputs, run eager PyTorch for the reference, compile (with a `CompileReport`
so the audit learns which ops were seen and converted), load into the
reference runtime, run, compare. Each step that can fail maps to one category
of `categories.CATEGORIES`, so a result is never just "an exception".
Everything here runs inside an audit worker; crashes and hangs are the
supervisor's business (audit.py).
"""

from __future__ import annotations

import copy
import dataclasses
import warnings
import time
import unittest.mock
from typing import Any, Sequence

import torch
import torch.utils._pytree as pytree

from ..frontend.compiler import CompileReport, compile as tc_compile
from ..frontend.quantized import fixed_mode
from ..core.diagnostics import CompileError
from ..tosa.target import NO_PROFILE
from . import precision
from .categories import CATEGORIES
from .quantized import output_scales, quantized_mismatch
from .registry import EXECUTORS, MODES, Case

__all__ = ["CaseResult", "SkippedOp", "STATUSES", "CONFORMANCE", "UNEXPECTED_CONFORMANCE", "run_case",
           "compare_outputs", "compare_structure", "legal_ops_for", "final_status", "expected_reason",
           "conformance_verdict", "conformance_message", "REFUSALS"]

# pass / fail / crash / timeout as measured, then adjusted by the case's xfail:
# an expected failure becomes "xfail", an expected failure that passed "xpass".
STATUSES = ("pass", "fail", "crash", "timeout", "xfail", "xpass")

# Whether the output validated for its TOSA target, against the case's
# `nonconformant` listing: the second axis of a result, beside its status
# (a program can compute what eager does and still not be TOSA a backend
# accepts). The last two fail the run, as xpass and fail do for the status.
CONFORMANCE = ("validated", "listed", "unreviewed", "not-conformant", "validates-listed")
UNEXPECTED_CONFORMANCE = ("not-conformant", "validates-listed")


@dataclasses.dataclass
class SkippedOp:
    identifier: str
    category: str
    message: str


@dataclasses.dataclass
class CaseResult:
    name: str
    mode: str
    family: str = ""
    source: str = ""
    status: str = "fail"
    category: str | None = None  # None when the case passed
    message: str = ""
    xfail_reason: str | None = None
    timings: dict[str, float] = dataclasses.field(default_factory=dict)
    legal_ops: list[str] | None = None  # what compile() was asked to keep
    export_mode: str | None = None  # "strict", or "non-strict" after strict export failed
    export_strict_error: str = ""  # why strict export failed, when non-strict was used
    ops_seen: dict[str, int] = dataclasses.field(default_factory=dict)
    converted: dict[str, int] = dataclasses.field(default_factory=dict)
    integer: dict[str, int] = dataclasses.field(default_factory=dict)  # CompileReport.integer
    skipped: list[SkippedOp] = dataclasses.field(default_factory=list)
    failing_ops: list[str] = dataclasses.field(default_factory=list)  # ops named by a run-time failure
    # The TOSA target compile() validated the output against ("" when it did not);
    # conformant is None when no output was validated, else whether it validated.
    tosa_target: str = ""
    conformant: bool | None = None
    violations: list[list[str]] = dataclasses.field(default_factory=list)  # [TOSA op, location, rule]
    # Every tosa.custom site, [op identifier, category] (CONTRACT.md 7.1): what auto mode tunneled and why.
    tunneled: list[list[str]] = dataclasses.field(default_factory=list)
    kept_from_decomposition: list[str] = dataclasses.field(default_factory=list)  # auto mode
    conformance: str | None = None  # one of CONFORMANCE; None when no output was validated
    nonconformant_reason: str | None = None  # why the case is listed as not conformant in this mode
    executor: str = "reference"  # what ran the program: the reference runtime, IREE, the TOSA reference model
    # The executor refused the program by design (REFUSALS_BY_EXECUTOR: for
    # IREE an op without any kernel, TOSA that does not conform, a
    # dynamic shape): not a regression; the status is "xfail", the category
    # and xfail_reason say which.
    refused: bool = False

    @property
    def failed(self) -> bool:
        return self.status in ("fail", "crash", "timeout", "xpass") or self.conformance in UNEXPECTED_CONFORMANCE

    def to_json(self) -> dict:
        return dataclasses.asdict(self)

    @staticmethod
    def from_json(data: dict) -> "CaseResult":
        data = dict(data)
        data["skipped"] = [SkippedOp(**s) for s in data.get("skipped", [])]
        return CaseResult(**data)


class _Failure(Exception):
    """A step failed with a known category."""

    def __init__(self, category: str, message: str, failing_ops: Sequence[str] = ()):
        assert category in CATEGORIES, category
        super().__init__(message)
        self.category = category
        self.failing_ops = list(failing_ops)


def final_status(case: Case, mode: str, measured: str, executor: str = "reference") -> str:
    """lit's rule: an xfailed case that fails is fine ("xfail"); one that
    passes is an unexpected pass ("xpass"), which fails the run. A failure
    a mode inherits (selective from stock, auto from dummy) is not strict:
    passing is a pass; but it covers failing, not crashing: a crash the other
    mode did not list is news (the OpInfo auto run hid two so)."""
    if case.expected_failure(mode, executor) is None:
        inherited = measured not in ("pass", "crash") and case.inherited_failure(mode)
        return "xfail" if inherited else measured
    return "xpass" if measured == "pass" else "xfail"


def expected_reason(case: Case, mode: str, executor: str = "reference") -> str | None:
    """Why `case` is expected to fail in `mode`, if it is (stock's, inherited, says so)."""
    inherited = case.inherited_failure(mode)
    source = "dummy" if mode == "auto" else "stock"
    return case.expected_failure(mode, executor) or (f"as in {source} mode: {inherited}" if inherited else None)


def conformance_verdict(case: Case, mode: str, conformant: bool | None) -> str | None:
    """Hold a validation outcome to the case's listing, as `final_status`
    holds a run to its xfail: an unlisted non-conformant output and a listed
    one that validates are both news. A listing selective mode inherits from
    stock is not strict (keeping an op may remove the offending ops)."""
    if conformant is None:
        return None
    listed = case.expected_nonconformance(mode)
    if conformant:
        return "validates-listed" if listed and not case.conformance_inherited(mode) else "validated"
    if case.nonconformant is None:
        return "unreviewed"
    return "listed" if listed else "not-conformant"


def conformance_message(result: "CaseResult") -> str:
    """Why a result's conformance is news, in one line (empty when it is not)."""
    if result.conformance == "not-conformant":
        rules = sorted({f"{op}: {rule}" for op, _, rule in result.violations})
        return (f"the TOSA does not validate for {result.tosa_target or 'its target'} and the case does not list "
                f"{result.mode} mode as nonconformant: " + "; ".join(rules))
    if result.conformance == "validates-listed":
        return (f"the TOSA validates for {result.tosa_target}, but the case lists {result.mode} mode as "
                f"nonconformant: {result.nonconformant_reason}")
    return ""


def legal_ops_for(case: Case, mode: str, ops: Sequence[str] | None) -> list[str] | None:
    """What compile() keeps: nothing (stock), everything (dummy), what it must (auto), or a list."""
    if mode not in MODES:
        raise ValueError(f"unknown mode {mode!r}: expected one of {', '.join(MODES)}")
    if mode == "stock":
        return None
    if mode == "dummy":
        return ["*"]
    if mode == "auto":
        return ["auto"]
    return list(ops) if ops else list(case.selective_ops)


# --------------------------------------------------------------------------
# Classifying compile() and runtime failures.
# --------------------------------------------------------------------------

def _first_line(e: BaseException) -> str:
    text = str(e).strip()
    return f"{type(e).__name__}: {text}" if text else type(e).__name__


def _classify_compile_error(e: BaseException) -> _Failure:
    """compile() files its errors where it raises them (category, ops)."""
    if not isinstance(e, CompileError):
        return _Failure("compile-failed", _first_line(e))
    category = e.category if e.category in CATEGORIES else "compile-failed"
    return _Failure(category, str(e).strip() or type(e).__name__, list(e.ops))


def _classify_load_error(e: BaseException) -> _Failure:
    """runtime.load files its errors where it raises them (category, ops);
    anything else it raises is a failure of its lowering."""
    if isinstance(e, CompileError) and e.category in CATEGORIES and e.category != "compile-failed":
        return _Failure(e.category, str(e).strip() or type(e).__name__, list(e.ops))
    return _Failure("runtime-lowering-failed", _first_line(e))


# --------------------------------------------------------------------------
# Comparing.
# --------------------------------------------------------------------------


def _leaves(value) -> list:
    return pytree.tree_leaves(value)


def _as_tensor(x) -> torch.Tensor:
    return x if isinstance(x, torch.Tensor) else torch.tensor(x)


def _describe(t: torch.Tensor) -> str:
    return f"{list(t.shape)} {str(t.dtype).replace('torch.', '')}"


def _statistics(t: torch.Tensor) -> tuple[float, float]:
    f = t.detach().to(torch.float64)
    if f.numel() == 0:
        return 0.0, 0.0
    return f.mean().item(), (f.std().item() if f.numel() > 1 else 0.0)


def compare_outputs(actual: Sequence, expected: Sequence, *, compare: str = "values",
                    rtol: float = 1e-5, atol: float = 1e-5) -> None:
    """Raise `_Failure` unless the flattened results match eager's.

    Python scalars among eager's results compare with the 0-d tensors the
    program returns for them, by value (their dtype is Python's). With
    compare="statistics" (random ops) values are never compared: shape and
    dtype must match, and mean and std must agree within 10% of eager's std
    (plus atol), which catches a wrong distribution but not a different draw.
    """
    actual, expected = list(actual), list(expected)
    if len(actual) != len(expected):
        raise _Failure("result-mismatch", f"the program returned {len(actual)} results, eager returned {len(expected)}")
    for i, (a, e) in enumerate(zip(actual, expected)):
        scalar = not isinstance(e, torch.Tensor)
        a, e = _as_tensor(a), _as_tensor(e)
        if tuple(a.shape) != tuple(e.shape) or (not scalar and a.dtype != e.dtype):
            raise _Failure("result-mismatch", f"result #{i} is {_describe(a)}, eager's is {_describe(e)}")
        if compare == "statistics":
            (ma, sa), (me, se) = _statistics(a), _statistics(e)
            tol = 0.1 * se + atol
            if abs(ma - me) > tol or abs(sa - se) > tol:
                raise _Failure(
                    "numeric-mismatch",
                    f"result #{i}: mean {ma:.4g} std {sa:.4g}, eager's mean {me:.4g} std {se:.4g} "
                    f"(tolerance {tol:.3g})",
                )
            continue
        try:
            torch.testing.assert_close(a, e.to(a.dtype) if scalar else e, rtol=rtol, atol=atol, equal_nan=True)
        except AssertionError as err:
            detail = " ".join(line.strip() for line in str(err).splitlines() if line.strip())
            raise _Failure("numeric-mismatch", f"result #{i}: {detail}") from None


def _kind(leaf) -> str:
    return "tensor" if isinstance(leaf, torch.Tensor) else type(leaf).__name__


def compare_structure(actual, expected, what: str = "the result") -> None:
    """Raise `_Failure` unless `actual` has eager's structure exactly: the
    same containers (a dict is not a tuple, a namedtuple not a tuple) and
    leaves of the same kind (an `int` is not a 0-d tensor), as torch-mlir's
    harness checks."""
    a_leaves, a_spec = pytree.tree_flatten(actual)
    e_leaves, e_spec = pytree.tree_flatten(expected)
    if a_spec != e_spec:
        raise _Failure("result-mismatch", f"{what} has structure {a_spec}, eager's is {e_spec}")
    for i, (a, e) in enumerate(zip(a_leaves, e_leaves)):
        if _kind(a) != _kind(e):
            raise _Failure("result-mismatch", f"{what}: leaf #{i} is a {_kind(a)}, eager's is a {_kind(e)}")


# Eager draws with other seeds that a random op's statistics are judged against when they differ from the
# first draw's: a statistic of a different draw varies by the op's own sampling noise, which only the op knows
# (dropout2d on 2 channels keeps 0, 1 or 2 of them: its mean moves by half its size).
_REDRAWS = 24
_REDRAW_SDS = 4.0  # a correct draw is within 4 standard deviations of the draws' mean (a normal tail of 6e-5)


def _within_draws(actual: Sequence, draws: list[Sequence], rtol: float, atol: float) -> str | None:
    """None when each result's mean and std are within _REDRAW_SDS standard
    deviations of those of eager's `draws` (plus the case's tolerance), else
    what is not."""
    for i, a in enumerate(actual):
        stats = torch.tensor([_statistics(_as_tensor(d[i])) for d in draws], dtype=torch.float64)
        centre, spread = stats.mean(0), stats.std(0)
        got = torch.tensor(_statistics(_as_tensor(a)), dtype=torch.float64)
        tol = _REDRAW_SDS * spread + atol + rtol * centre.abs()
        if bool(((got - centre).abs() > tol).any()):
            return (f"result #{i}: mean {got[0]:.4g} std {got[1]:.4g}; {len(draws)} eager draws with other seeds: "
                    f"mean {centre[0]:.4g} +- {spread[0]:.3g}, std {centre[1]:.4g} +- {spread[1]:.3g}")
    return None


def _compare_values(case: Case, got, expected, precise, compare: str, redraw=None, model=None) -> None:
    """compare_outputs; a floating mismatch is judged again against
    eager's float64 result (precision.py): `precise()` gives it, or None; a
    random op's statistics that differ from eager's draw are judged again
    against the spread of eager's draws with other seeds, `redraw()`; a
    quantized case's results within 1 LSB of `model`'s output scales."""
    try:
        if compare == "quantized":
            why = quantized_mismatch(_leaves(got), _leaves(expected), output_scales(model), case.atol)
            if why:
                raise _Failure("numeric-mismatch", why)
            return
        compare_outputs(_leaves(got), _leaves(expected), compare=compare, rtol=case.rtol, atol=case.atol)
    except _Failure as f:
        if f.category == "numeric-mismatch" and compare == "statistics" and redraw is not None:
            draws = [_leaves(d) for d in redraw()]  # a numeric mismatch: as many results as eager's
            if not draws:
                raise
            outside = _within_draws(_leaves(got), draws, case.rtol, case.atol)
            if outside is None:
                return
            raise _Failure(f.category, outside, f.failing_ops) from None
        if f.category != "numeric-mismatch" or compare != "values" or not precision.has_float(expected):
            raise
        wide = precise()
        if wide is None or not precision.as_accurate_as_eager(_leaves(got), _leaves(expected), _leaves(wide),
                                                              case.rtol, case.atol):
            raise _Failure(f.category, f"{f} (and farther from eager's float64 result than eager's own)"
                           if wide is not None else str(f), f.failing_ops) from None


def _compare_call(case: Case, call: int, got, expected, args, eager_args, sizes: str = "", precise=None,
                  redraw=None, model=None) -> None:
    """One call: the results (structure, then values) and what the model
    wrote into its inputs; `sizes` names the input set of a dynamic case;
    `precise()`: eager's (result, inputs after the call) in float64, or None;
    `redraw(part)`: eager's results (0) or inputs after the call (1) with other seeds."""
    where = sizes + (f"call {call + 1}: " if case.calls > 1 else "")
    compare_structure(got, expected, f"{where}the result")
    precise = precise or (lambda: None)
    try:
        _compare_values(case, got, expected, lambda: (precise() or (None, None))[0], case.compare,
                        (lambda: redraw(0)) if redraw else None, model)
        # What a random op wrote into its inputs is a draw too (exponential_): judged as its results are.
        random = case.compare == "statistics"
        _compare_values(case, args, eager_args, lambda: (precise() or (None, None))[1],
                        "statistics" if random else "values", (lambda: redraw(1)) if redraw and random else None)
    except _Failure as f:
        raise _Failure(f.category, where + str(f), f.failing_ops) from None


def _precise_calls(case: Case, model, inputs):
    """A memo of eager's calls in float64 (computed on first use): call index -> (result, inputs after)."""
    memo = []

    def call(i: int):
        if not memo:
            memo.append(precision.in_float64(model, inputs, lambda m, x: _eager_calls(case, m, x)[0]))
        return memo[0][i] if memo[0] is not None else None

    return call


def _redraw_calls(case: Case, model, inputs):
    """A memo of eager's calls with seeds 1.._REDRAWS (computed on first use): (call index, part) ->
    the results (part 0) or the inputs after the call (part 1) of each draw.

    Every torch.manual_seed is shifted: eager's own, and a model's that
    seeds itself (OpInfo wraps its random ops in `wrapper_set_seed`, which
    calls torch.manual_seed(42)), or every draw would be the first."""
    memo = []
    seed_as_asked = torch.manual_seed

    def call(i: int, part: int = 0) -> list:
        if not memo:
            draws = []
            try:
                for offset in range(1, _REDRAWS + 1):
                    shifted = lambda seed, offset=offset: seed_as_asked(seed + 7919 * offset)  # noqa: E731
                    with unittest.mock.patch.object(torch, "manual_seed", shifted):
                        draws.append(_eager_calls(case, model, inputs, offset)[0])
            except Exception:  # eager ran with seed 0; a failure now decides nothing
                draws = []
            memo.append(draws)
        return [calls[i][part] for calls in memo[0]]

    return call


def _eager_calls(case: Case, model, inputs, seed: int = 0) -> tuple[list[tuple], Any]:
    """Eager's (result, inputs after the call) for each call, and the model
    after them; a copy runs, so compile() sees the buffers as they were built."""
    calls = []
    model = copy.deepcopy(model)
    torch.manual_seed(seed)
    with torch.no_grad():
        for _ in range(case.calls):
            args = _clone(inputs)
            calls.append((model(*args), args))
    return calls, model


def _compare_state(program, model) -> None:
    """The buffers the model wrote, after the last call, against the
    program's state of the same name."""
    if not isinstance(model, torch.nn.Module):
        return
    buffers = dict(model.named_buffers())
    state = program.state_dict() if program.weights_manifest.weights else {}
    for name, value in state.items():
        if name in buffers:
            try:
                torch.testing.assert_close(value, buffers[name], rtol=1e-5, atol=1e-5)
            except AssertionError as err:
                detail = " ".join(line.strip() for line in str(err).splitlines() if line.strip())
                raise _Failure("numeric-mismatch", f"buffer {name} after the calls: {detail}") from None


def _program_call(program, inputs):
    """Call the program as a user would: the model's inputs, minus the Python
    numbers the export baked in."""
    leaves = _leaves(inputs)
    tensors = leaves if len(program.input_specs) == len(leaves) else [
        x for x in leaves if isinstance(x, torch.Tensor)]
    return program(*tensors)


def _compile_recording_conformance(result: "CaseResult", model, inputs, tc_compile, export_strict="auto",
                                   dynamic_shapes=None):
    """compile() for the case, recording whether its TOSA validates for the
    declared target. A non-conformant output is recorded (with the ops and
    rules; the reports list them per mode) and the case goes on without the
    check, so the audit still says whether the program computes what the
    model does; `conformance_verdict` then holds the outcome to the case's
    `nonconformant` listing."""
    declared = ""
    dynamic = {} if dynamic_shapes is None else {"dynamic_shapes": dynamic_shapes}
    for target in ("auto", None):
        report = CompileReport()
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                module = tc_compile(model, _clone(inputs), output_type="tosa", backend_legal_ops=result.legal_ops,
                                    report=report, export_strict=export_strict,  # "auto": strict, then non-strict
                                    tosa_target=target, **dynamic)
        except Exception as e:
            conformance = isinstance(e, CompileError) and e.category in ("not-conformant", NO_PROFILE)
            if conformance:
                result.conformant = False
                result.violations = [list(v) for v in e.violations]
                declared = report.tosa_target
            if not conformance:
                _fill_from_report(result, report)
                raise _classify_compile_error(e) from None
            continue
        _fill_from_report(result, report)
        if target is None:
            result.tosa_target = declared  # what the output was checked against, and failed
        elif result.tosa_target:
            result.conformant = True
        return module
    raise AssertionError("unreachable")


# What IREE refuses by design, by the category it is filed under, and why.
REFUSALS = {
    "no-kernel": "IREE has no kernel for an op: none of the allowed ones (native, or Python called back "
                 "in-process) takes it, or its element types are not the C ABI's (run it on the reference runtime)",
    "not-conformant": "IREE validates the TOSA for the pro_fp/pro_int profiles before compiling it, and this "
                      "output does not conform (f64 or i64 values: see the case's conformance)",
    "dynamic-shape": "tosa_custom.iree runs static shapes only: a program with a dynamic dim is refused at load "
                     "(run it on the reference runtime)",
    "executor-limit": "IREE takes a dispatch to be free of side effects and removes one whose results nobody reads: "
                      "a kept op without results (an assertion; aten._assert_tensor_metadata excepted, checked at "
                      "load) would never run, so it is refused at load",
}
# What TOSA's reference model refuses by design (tosa_custom.refmodel).
REFMODEL_REFUSALS = {
    "not-conformant": "the TOSA reference model implements the specification's types and ops, and this output "
                      "does not conform (f64 or i64 values: see the case's conformance): it refused the graph "
                      "at load",
    "dynamic-shape": "the TOSA reference model interprets static graphs only: a program with a dynamic dim is "
                     "refused at load (run it on the reference runtime)",
}
# What Vulkan through Arm's ML SDK refuses by design (tosa_custom.vgf).
VGF_REFUSALS = {
    "no-kernel": "tosa_custom.vgf runs each kept op as a compute shader: an op no shader takes (built-in ones are "
                 "float32/float16 layer_norm, rms_norm, softmax, log_softmax, gelu, silu) is refused at load",
    "not-conformant": "the ML SDK converts TOSA, and this output does not conform (f64 or i64 values: see the "
                      "case's conformance)",
    "dynamic-shape": "a VGF is static: a program with a dynamic dim is refused at load (run it on the reference "
                     "runtime)",
    "executor-limit": "the ML SDK's tensors have no 64-bit integers and no zero-size dims: a program that takes "
                      "or returns int64 (EXT-INT64), or has an empty tensor, is refused at load",
}
# Each executor's refusals by design; the reference runtime has none.
REFUSALS_BY_EXECUTOR = {"iree": REFUSALS, "refmodel": REFMODEL_REFUSALS, "vgf": VGF_REFUSALS}


def _refusal(executor: str, failure: _Failure, conformant: bool | None) -> _Failure | None:
    """The load failure as a refusal by design of `executor`, or None when it is not one."""
    refusals = REFUSALS_BY_EXECUTOR.get(executor, {})
    if failure.category in refusals and failure.category != "not-conformant":
        return failure
    if conformant is False and "not-conformant" in refusals:
        return _Failure("not-conformant", str(failure), failure.failing_ops)
    return None


def _load(module, executor: str, torch_fallback: bool, kernels: str):
    """The program on `executor`; IREE runs with as many worker threads as
    the audit gives this worker (torch's thread count), its kernels chosen
    as the reference runtime's."""
    if executor == "iree":
        from .. import iree  # lazily: IREE's compiler and runtime only where a case runs there

        return iree.load(module, threads=torch.get_num_threads(), torch_fallback=torch_fallback, kernels=kernels)
    if executor == "vgf":
        from .. import vgf  # lazily: the ML SDK and a Vulkan device only where a case runs there

        return vgf.load(module)
    if executor == "refmodel":
        from .. import refmodel  # lazily: TOSA's toolchain only where a case runs there

        return refmodel.load(module, torch_fallback=torch_fallback, kernels=kernels)
    from .. import runtime

    return runtime.load(module, torch_fallback=torch_fallback, kernels=kernels)


def _load_or_refuse(result: "CaseResult", module, executor: str, torch_fallback: bool, kernels: str):
    """The loaded program, or the load failure (marked on `result` when it
    is one of the executor's refusals by design)."""
    try:
        return _load(module, executor, torch_fallback, kernels)
    except Exception as e:
        failure = _classify_load_error(e)
        refusal = _refusal(executor, failure, result.conformant)
        result.refused = refusal is not None
        raise refusal or failure from None


def _sizes(inputs: tuple, input_sets: list[tuple]) -> str:
    """`at [2, 5], [7]: `, the shapes of one input set of a dynamic case
    (nothing for a case with one input set)."""
    if len(input_sets) == 1:
        return ""
    shapes = ", ".join(str(list(x.shape)) for x in _leaves(inputs) if isinstance(x, torch.Tensor))
    return f"at {shapes}: "


def _run_calls(case: Case, program, inputs, sizes: str = "") -> list[tuple]:
    """The program's (result, inputs after the call) for each call."""
    from .. import runtime  # lazily: the runtime (execution engine, kernels) only where a case runs

    calls = []
    torch.manual_seed(0)
    for _ in range(case.calls):
        args = _clone(inputs)
        try:
            calls.append((_program_call(program, args), args))
        except runtime.KernelError as e:
            raise _Failure("kernel-error", sizes + str(e), [e.op] if e.op else []) from None
        except Exception as e:
            raise _Failure("runtime-error", sizes + _first_line(e)) from None
    return calls


# --------------------------------------------------------------------------
# Running one case.
# --------------------------------------------------------------------------


def _clone(value):
    return pytree.tree_map(lambda x: x.clone() if isinstance(x, torch.Tensor) else copy.deepcopy(x), value)


def _fill_from_report(result: CaseResult, report: CompileReport) -> None:
    result.export_mode = report.export_mode or None
    result.export_strict_error = report.export_strict_error
    result.ops_seen = dict(report.ops_seen)
    result.converted = dict(report.converted)
    result.integer = dict(report.integer)
    result.tosa_target = report.tosa_target
    result.skipped = [SkippedOp(s.identifier, s.category, s.message) for s in report.skipped]
    result.tunneled = [[s.identifier, s.category] for s in report.tunneled]
    result.kept_from_decomposition = sorted(report.kept_from_decomposition)


class _Clock:
    def __init__(self, timings: dict[str, float]):
        self.timings = timings

    def step(self, name: str):
        clock = self

        class _Step:
            def __enter__(self):
                self.t0 = time.perf_counter()

            def __exit__(self, *exc):
                clock.timings[name] = round(time.perf_counter() - self.t0, 4)
                return False

        return _Step()


def run_case(case: Case, mode: str, ops: Sequence[str] | None = None, *, torch_fallback: bool = True,
             kernels: str = "all", executor: str = "reference") -> CaseResult:
    """Run `case` in `mode` (`ops`: selective mode's list, else the case's own);
    without `torch_fallback`, custom ops run only by registered kernels; with
    `kernels="user"`, only by the user's (runtime.load's `kernels=`);
    `executor="iree"`: compiled by IREE, each kept op by the runtime's choice
    of kernel (native where one takes it, else Python, called back);
    `executor="refmodel"`: the TOSA on the TOSA reference model, each kept op
    by its kernel; `executor="vgf"`: a VGF on Vulkan, each kept op by its shader."""
    if executor not in EXECUTORS:
        raise ValueError(f"unknown executor {executor!r}: expected one of {', '.join(EXECUTORS)}")
    result = CaseResult(case.name, mode, case.family, case.source, xfail_reason=expected_reason(case, mode, executor),
                        nonconformant_reason=case.expected_nonconformance(mode), executor=executor)
    result.legal_ops = legal_ops_for(case, mode, ops)
    clock = _Clock(result.timings)
    start = time.perf_counter()
    report = None
    try:
        with clock.step("build"):
            try:
                torch.manual_seed(0)
                model = case.factory()
                if isinstance(model, torch.nn.Module) and not fixed_mode(model):
                    model.eval()  # as compile() does (PT2E fixes its mode): the reference is what is compiled
                torch.manual_seed(0)
                input_sets = case.input_sets()
                inputs = input_sets[0]
            except Exception as e:
                raise _Failure("case-error", _first_line(e)) from None
        with clock.step("eager"):
            try:
                eager = [_eager_calls(case, model, s) for s in input_sets]
            except Exception as e:
                raise _Failure("eager-failed", _first_line(e)) from None
        with clock.step("compile"):
            module = _compile_recording_conformance(
                result, model, inputs, tc_compile, case.export_strict,
                case.dynamic_shapes() if case.dynamic_shapes else None)
        with clock.step("load"):
            program = _load_or_refuse(result, module, executor, torch_fallback, kernels)
        with clock.step("run"):
            actual = [_run_calls(case, program, s, _sizes(s, input_sets)) for s in input_sets]
        with clock.step("compare"):
            for runs, (expected, _), s in zip(actual, eager, input_sets):
                precise, redraw = _precise_calls(case, model, s), _redraw_calls(case, model, s)
                for call, ((got, args), (eager_result, eager_args)) in enumerate(zip(runs, expected)):
                    _compare_call(case, call, got, eager_result, args, eager_args, _sizes(s, input_sets),
                                  lambda call=call: precise(call),
                                  lambda part, call=call: redraw(call, part), model)
            if len(input_sets) == 1:  # state carries from call to call of one input set
                _compare_state(program, eager[0][1])
        measured = "pass"
    except _Failure as f:
        measured = "fail"
        result.category, result.message, result.failing_ops = f.category, str(f), f.failing_ops
    result.timings["total"] = round(time.perf_counter() - start, 4)
    result.conformance = conformance_verdict(case, mode, result.conformant)
    result.status = "xfail" if result.refused else final_status(case, mode, measured, executor)
    if result.refused:
        result.xfail_reason = result.xfail_reason or REFUSALS_BY_EXECUTOR[executor][result.category]
    if result.status == "xpass":
        result.message = f"passed, but is expected to fail in {mode} mode: {result.xfail_reason}"
    elif result.status == "pass" and result.xfail_reason:
        result.message = f"passes, although it inherits an expected failure: the kept ops fixed it ({result.xfail_reason})"
    if result.status == "pass" and not result.message:
        result.message = conformance_message(result)
    return result
