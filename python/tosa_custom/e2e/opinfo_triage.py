"""Draft entries for the OpInfo expectations table from an audit report.

`python -m tosa_custom.e2e.opinfo_triage audit.json` reads an OpInfo run's
report and prints, for review and pasting into `opinfo_expectations.py`:
- `XFAIL` entries: each failing op (or op/dtype, or sample, whichever is
  the widest selector every failing sample of it shares) with its category
  and the ops the failure names;
- `WRONG_LOWERING` entries: stock-mode numeric mismatches under value
  comparison, each re-run here to measure the largest difference from eager
  with the suite's current tolerance (a case that now passes is left out).
It drafts; a reviewer edits the reasons. Nothing here runs in the audit.
"""

from __future__ import annotations

import argparse
import collections
import json
import math
import sys
from pathlib import Path

import torch
import torch.utils._pytree as pytree

from . import opinfo

__all__ = ["max_difference", "draft", "main"]


def max_difference(case) -> float | None:
    """Largest |stock - eager| over the case's results (inf where one side is
    NaN or inf and the other is not); None when the results match within the
    case's tolerance, or stock mode does not get as far as a result."""
    from .. import compile as tc_compile
    from .. import runtime

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


def _reason(c: dict) -> str:
    ops = ", ".join(o.replace("torch.", "", 1) for o in c["failing_ops"])
    if c["category"] == "lowering-failed" and ops:
        return f"lowering-failed: torch-mlir's TOSA lowering leaves {ops} illegal"
    first = " ".join(c["message"].split())[:140]
    return f"{c['category']}: {ops + ': ' if ops else ''}{first}"


def draft(summary: dict, measure: bool = True) -> tuple[dict[str, str], list[str]]:
    """(XFAIL entries, WRONG_LOWERING entries as source lines) for the report's mode."""
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
                and summary["meta"]["mode"] == "stock" and measure:
            diff = max_difference(cases[c["name"]])
            if diff is None:
                continue  # passes with the current tolerance
            wrong.append(f'    WrongLowering("{s.op}", "{s.dtype}", {s.index}, {diff:.3g}, "TODO: what differs"),')
            continue
        failing[s.op][(s.dtype, s.index)] = _reason(c)
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
    print("WRONG_LOWERING = (\n" + "\n".join(wrong) + "\n)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
