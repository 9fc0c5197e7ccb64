"""Draft entries for the OpInfo expectations table from an audit report.

`python -m tosa_custom.e2e.opinfo_triage audit.json` reads an OpInfo run's
report and prints, for review and pasting into `opinfo_expectations.py`
(stock mode's entries: `opinfo_xfail_stock.py`):
- `XFAIL` entries: each failing op (or op/dtype, or sample, whichever is
  the widest selector every failing sample of it shares) with its cause
  (`reason`: the category, the stage and the op or rule the error names);
- stock-mode numeric mismatches under value comparison that
  `tosa_custom.wrong_lowerings` does not list yet, each re-run here to
  measure the largest difference from eager: find the op at the backend
  contract whose tunneling makes the sample match, and list it there (the
  stock expectation is derived from that table, not written here).
It drafts; a reviewer checks the reasons. Nothing here runs in the audit.
"""

from __future__ import annotations

import argparse
import collections
import json
import math
import re
import sys
from pathlib import Path

import torch
import torch.utils._pytree as pytree

from ..frontend.compiler import compile as tc_compile
from ..tosa.wrong_lowerings import WRONG_LOWERINGS
from . import opinfo

__all__ = ["max_difference", "reason", "draft", "main"]


def max_difference(case) -> float | None:
    """Largest |stock - eager| over the case's results (inf where one side is
    NaN or inf and the other is not); None when the results match within the
    case's tolerance, or stock mode does not get as far as a result."""
    from .. import runtime  # lazily: the runtime (execution engine, kernels) only for a re-run

    torch.manual_seed(0)
    model, inputs = case.factory().eval(), tuple(case.inputs())
    with torch.no_grad():
        expected = pytree.tree_leaves(model(*inputs))
    try:
        program = runtime.load(tc_compile(model, inputs, output_type="tosa", export_strict=case.export_strict))
        actual = program(*inputs)
    except Exception:
        return None
    actual = list(actual) if isinstance(actual, (tuple, list)) else [actual]
    worst, mismatch = 0.0, False
    for a, e in zip(actual, expected):
        a, e = torch.as_tensor(a).double(), torch.as_tensor(e).double()
        if a.shape != e.shape:
            return math.inf
        close = torch.isclose(a, e, rtol=case.rtol, atol=case.atol, equal_nan=True)
        mismatch |= not bool(close.all())
        diff = (a - e).abs()
        diff[torch.isnan(a) & torch.isnan(e)] = 0
        diff[torch.isnan(diff)] = math.inf
        worst = max(worst, float(diff.max()) if diff.numel() else 0.0)
    return worst if mismatch else None


def _selector(op: str, failing: dict[tuple[str, int], str], all_samples: dict[str, list[tuple[str, int]]]) -> dict:
    """Widest selector per distinct reason: the op, a dtype, or one sample."""
    by_reason = collections.defaultdict(list)
    for key, reason in failing.items():
        by_reason[reason].append(key)
    out = {}
    for reason, keys in by_reason.items():
        if len(by_reason) == 1 and sorted(keys) == sorted(all_samples[op]):
            out[op] = reason
            continue
        for dtype in sorted({d for d, _ in keys}):
            at = [k for k in keys if k[0] == dtype]
            if sorted(at) == sorted(k for k in all_samples[op] if k[0] == dtype):
                out[f"{op}/{dtype}"] = reason
            else:
                out.update({f"{op}/{d}/{i}": reason for d, i in at})
    return out


_LOC = re.compile(r"loc\((?:[^()]|\([^()]*\))*\)|\S+\.py:\d+:\d+")
_OPERATOR = re.compile(r"torch\.operator.*?name = \"torch\.(\S+?)\"")
_FIRST_ERROR = re.compile(r"error: (.*?)(?:\n|$)")
_SIGN_REFUSAL = re.compile(r"uint8 values reach .*?: ([\w.]+?)\. Keep")
_ACC_TYPE = re.compile(r"'(tosa\.\w+)' op attribute 'acc_type' failed.*?acc_type = (\w+)", re.S)
_STACK_STEP = re.compile(r"tosa_custom/compiler\.py\", line \d+ in (\w+)")


def _short(text: str, limit: int = 160) -> str:
    text = " ".join(_LOC.sub("", text).split()).replace(" :", ":")
    return text if len(text) <= limit else text[:limit - 3] + "..."


def reason(c: dict) -> str:
    """The actual cause of a failed case, from its result: the category, the
    stage and the op or rule the error names; never a location or a stack."""
    category, message, ops = c["category"], c["message"], c["failing_ops"]
    named = ", ".join(o.replace("torch.", "", 1) for o in ops)
    left = [k for k in c.get("skipped", []) if k["identifier"] in ops]
    if category == "lowering-failed" and left:  # a mode that asked for it: not tunneled, so TorchToTosa got it
        k = left[0]
        return (f"lowering-failed: {named} not tunneled [{k['category']}: {_short(k['message'], 100)}] "
                f"and TorchToTosa has no lowering for it")
    if category == "lowering-failed" and ops:
        return f"lowering-failed: TorchToTosa has no lowering for {named}"
    operators = sorted(set(_OPERATOR.findall(message)))
    if category == "lowering-failed" and operators:
        return (f"lowering-failed: torch-mlir has no torch-dialect op for {', '.join(operators)} "
                f"(imported as torch.operator, illegal at the backend contract)")
    error = _FIRST_ERROR.search(message)
    sign = _SIGN_REFUSAL.search(message)
    if category == "lowering-failed" and sign:
        return (f"lowering-failed: our uint8 sign check refuses {sign[1]} on uint8 values "
                f"(TorchToTosa would compute it as signed int8)")
    accumulator = _ACC_TYPE.search(message)
    if category == "lowering-failed" and accumulator:
        return (f"lowering-failed: TorchToTosa emits {accumulator[1]} with an {accumulator[2]} accumulator "
                f"(acc_type), which TOSA does not allow")
    if category == "lowering-failed" and error:
        return f"lowering-failed: the lowering to TOSA produces invalid IR: {_short(error[1])}"
    if category == "runtime-lowering-failed" and error:
        return f"runtime-lowering-failed (ours): the runtime's TOSA-to-LLVM lowering: {_short(error[1])}"
    if category == "kernel-error":
        return f"kernel-error (ours): the {named or 'runtime'} kernel: {_short(message.split('failed:', 1)[-1])}"
    if category == "crash":
        step = [f for f in _STACK_STEP.findall(message) if f not in ("compile", "run", "run_pipeline")]
        where = f"compile()'s {step[-1]} step" if step else "the worker"
        return f"crash: {_short(message.split(';')[0], 40)} in {where} (torch-mlir's passes, not Python)"
    if category == "export-failed":
        why = message.split("; strict export failed first")[0].split("could not capture the model ", 1)[-1]
        return "export-failed: torch.export cannot capture it " + _short(why)
    return f"{category}: {_short(message)}"


def draft(summary: dict, measure: bool = True) -> tuple[dict[str, str], list[str]]:
    """(XFAIL entries, comment lines for unlisted wrong lowerings) for the report's mode."""
    spec = next(f for f in summary["meta"]["files"] if opinfo.is_spec(f))
    cases = {c.name: c for c in opinfo.load(spec)}
    all_samples, failing = collections.defaultdict(list), collections.defaultdict(dict)
    wrong = []
    for c in summary["cases"]:
        if c["name"] not in cases:
            print(f"# {c['name']}: no longer a case of the suite, left out", file=sys.stderr)
            continue
        s = opinfo.sample_of(c["name"])
        all_samples[s.op].append((s.dtype, s.index))
        if c["status"] in ("pass", "xpass"):
            continue
        if c["category"] == "numeric-mismatch" and cases[c["name"]].compare == "values" \
                and summary["meta"]["mode"] == "stock":
            selector = f"{s.op}/{s.dtype}/{s.index}"
            if any(w.sample == selector for w in WRONG_LOWERINGS):
                continue  # its expectation is derived from wrong_lowerings.py
            diff = max_difference(cases[c["name"]]) if measure else None
            wrong.append(f"# {selector}: stock differs from eager (max diff {diff}); find the op tunneling "
                         f"fixes (backend_legal_ops=[...]) and add it to wrong_lowerings.py")
            continue
        failing[s.op][(s.dtype, s.index)] = reason(c)
    xfail = {}
    for op, keys in failing.items():
        xfail.update(_selector(op, keys, all_samples))
    return xfail, wrong


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("report", type=Path, help="audit.json of an OpInfo run")
    p.add_argument("--no-measure", action="store_true", help="do not re-run numeric mismatches")
    args = p.parse_args(argv)
    summary = json.loads(args.report.read_text())
    xfail, wrong = draft(summary, measure=not args.no_measure)
    print(f'    "{summary["meta"]["mode"]}": {{')
    for key in sorted(xfail):
        print(f"        {json.dumps(key)}: {json.dumps(xfail[key])},")
    print("    },")
    print("\n".join(wrong))
    return 0


if __name__ == "__main__":
    sys.exit(main())
