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
import re
import time
from typing import Any, Sequence

import torch
import torch.utils._pytree as pytree

from .categories import CATEGORIES
from .registry import MODES, Case

__all__ = ["CaseResult", "SkippedOp", "STATUSES", "run_case", "compare_outputs", "legal_ops_for", "final_status",
           "expected_reason"]

# pass / fail / crash / timeout as measured, then adjusted by the case's xfail:
# an expected failure becomes "xfail", an expected failure that passed "xpass".
STATUSES = ("pass", "fail", "crash", "timeout", "xfail", "xpass")


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
    skipped: list[SkippedOp] = dataclasses.field(default_factory=list)
    failing_ops: list[str] = dataclasses.field(default_factory=list)  # ops named by a run-time failure
    # The TOSA target compile() validated the output against ("" when it did not);
    # conformant is None when no output was validated, else whether it validated.
    tosa_target: str = ""
    conformant: bool | None = None
    violations: list[list[str]] = dataclasses.field(default_factory=list)  # [TOSA op, location, rule]

    @property
    def failed(self) -> bool:
        return self.status in ("fail", "crash", "timeout", "xpass")

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


def final_status(case: Case, mode: str, measured: str) -> str:
    """lit's rule: an xfailed case that fails is fine ("xfail"); one that
    passes is an unexpected pass ("xpass"), which fails the run. A failure
    selective mode inherits from stock is not strict: passing is a pass."""
    if case.expected_failure(mode) is None:
        return "xfail" if measured != "pass" and case.inherited_failure(mode) else measured
    return "xpass" if measured == "pass" else "xfail"


def expected_reason(case: Case, mode: str) -> str | None:
    """Why `case` is expected to fail in `mode`, if it is (stock's, inherited, says so)."""
    inherited = case.inherited_failure(mode)
    return case.expected_failure(mode) or (f"as in stock mode: {inherited}" if inherited else None)


def legal_ops_for(case: Case, mode: str, ops: Sequence[str] | None) -> list[str] | None:
    """What compile() keeps: nothing (stock), everything (dummy), or a list."""
    if mode not in MODES:
        raise ValueError(f"unknown mode {mode!r}: expected one of {', '.join(MODES)}")
    if mode == "stock":
        return None
    if mode == "dummy":
        return ["*"]
    return list(ops) if ops else list(case.selective_ops)


# --------------------------------------------------------------------------
# Classifying compile() and runtime failures.
# --------------------------------------------------------------------------

_LOAD_MESSAGES = [
    (re.compile(r"no kernel for (?:[^:\s]+::)?(?P<op>\S+?);"), "no-kernel"),
    (re.compile(r"cannot decode (?P<op>\S+?):"), "decode-failed"),
    (re.compile(r"(?:input|result) #\d+ has type tensor<[^>]*\?"), "dynamic-shape"),
    (re.compile(r"(?:input|result) #\d+ has type (?!tensor<)"), "non-tensor-interface"),
    (re.compile(r"lowering to LLVM failed|ExecutionEngine failed"), "runtime-lowering-failed"),
]
_KERNEL_OP = re.compile(r"kernel for (?P<op>\S+) at ")


def _first_line(e: BaseException) -> str:
    text = str(e).strip()
    return f"{type(e).__name__}: {text}" if text else type(e).__name__


def _classify_compile_error(e: BaseException) -> _Failure:
    """compile() files its errors where it raises them (category, ops)."""
    from ..diagnostics import CompileError

    if not isinstance(e, CompileError):
        return _Failure("compile-failed", _first_line(e))
    category = e.category if e.category in CATEGORIES else "compile-failed"
    return _Failure(category, str(e).strip() or type(e).__name__, list(e.ops))


def _classify_load_error(e: BaseException) -> _Failure:
    message = str(e).strip() or type(e).__name__
    for pattern, name in _LOAD_MESSAGES:
        m = pattern.search(message)
        if m:
            return _Failure(name, message, [m["op"]] if "op" in pattern.groupindex else [])
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


# --------------------------------------------------------------------------
# Running one case.
# --------------------------------------------------------------------------


def _clone(value):
    return pytree.tree_map(lambda x: x.clone() if isinstance(x, torch.Tensor) else copy.deepcopy(x), value)


def _fill_from_report(result: CaseResult, report: Any) -> None:
    if report is None:
        return
    result.export_mode = getattr(report, "export_mode", None) or None
    result.export_strict_error = str(getattr(report, "export_strict_error", "") or "")
    result.ops_seen = dict(getattr(report, "ops_seen", None) or {})
    result.converted = dict(getattr(report, "converted", None) or {})
    result.tosa_target = str(getattr(report, "tosa_target", "") or "")
    result.skipped = [
        SkippedOp(str(s.identifier), str(s.category), str(getattr(s, "message", "")))
        for s in (getattr(report, "skipped", None) or [])
    ]


def _new_report():
    try:
        from .. import CompileReport  # noqa: F401
    except ImportError:
        raise RuntimeError(
            "tosa_custom.CompileReport is missing: the audit needs compile(..., report=CompileReport()) "
            "to learn which ops were seen and converted; update tosa_custom (python/tosa_custom/compiler.py)"
        ) from None
    return CompileReport()


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


def run_case(case: Case, mode: str, ops: Sequence[str] | None = None, *, torch_fallback: bool = True) -> CaseResult:
    """Run `case` in `mode` (`ops`: selective mode's list, else the case's own);
    without `torch_fallback`, custom ops run only by registered kernels."""
    import warnings

    from .. import compile as tc_compile
    from .. import runtime

    result = CaseResult(case.name, mode, case.family, case.source, xfail_reason=expected_reason(case, mode))
    result.legal_ops = legal_ops_for(case, mode, ops)
    clock = _Clock(result.timings)
    start = time.perf_counter()
    report = None
    try:
        with clock.step("build"):
            try:
                torch.manual_seed(0)
                model = case.factory()
                if isinstance(model, torch.nn.Module):
                    model.eval()  # as compile() does: the reference must be the program compiled
                torch.manual_seed(0)
                inputs = tuple(case.inputs())
            except Exception as e:
                raise _Failure("case-error", _first_line(e)) from None
        with clock.step("eager"):
            try:
                torch.manual_seed(0)
                with torch.no_grad():
                    expected = _leaves(model(*_clone(inputs)))
            except Exception as e:
                raise _Failure("eager-failed", _first_line(e)) from None
        with clock.step("compile"):
            report = _new_report()
            try:
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore")
                    module = tc_compile(model, _clone(inputs), output_type="tosa",
                                        backend_legal_ops=result.legal_ops, report=report,
                                        export_strict="auto")  # strict first, then non-strict
            except TypeError as e:
                if "report" in str(e):
                    raise RuntimeError(f"compile() does not take report= yet ({e}); update tosa_custom") from None
                raise _classify_compile_error(e) from None
            except Exception as e:
                if getattr(e, "category", None) == "not-conformant":
                    result.conformant = False
                    result.violations = [list(v) for v in getattr(e, "violations", [])]
                raise _classify_compile_error(e) from None
            finally:
                _fill_from_report(result, report)
            if result.tosa_target:
                result.conformant = True
        with clock.step("load"):
            try:
                program = runtime.load(module, torch_fallback=torch_fallback)
            except Exception as e:
                raise _classify_load_error(e) from None
        with clock.step("run"):
            # Python scalars the export baked in are not arguments; ones it kept are.
            leaves = _leaves(inputs)
            specs = getattr(program, "input_specs", None)
            tensors = leaves if specs is not None and len(specs) == len(leaves) else [
                x for x in leaves if isinstance(x, torch.Tensor)]
            try:
                torch.manual_seed(0)
                outputs = program(*tensors)
            except runtime.KernelError as e:
                m = _KERNEL_OP.search(str(e))
                raise _Failure("kernel-error", str(e), [m["op"]] if m else []) from None
            except Exception as e:
                raise _Failure("runtime-error", _first_line(e)) from None
        with clock.step("compare"):
            actual = list(outputs) if isinstance(outputs, (tuple, list)) else [outputs]
            compare_outputs(actual, expected, compare=case.compare, rtol=case.rtol, atol=case.atol)
        measured = "pass"
    except _Failure as f:
        measured = "fail"
        result.category, result.message, result.failing_ops = f.category, str(f), f.failing_ops
    result.timings["total"] = round(time.perf_counter() - start, 4)
    result.status = final_status(case, mode, measured)
    if result.status == "xpass":
        result.message = f"passed, but is expected to fail in {mode} mode: {result.xfail_reason}"
    elif result.status == "pass" and result.xfail_reason:
        result.message = f"passes, although stock mode is expected to fail: the kept ops fixed it ({result.xfail_reason})"
    return result
