"""The audit's report: one summary, written as JSON, Markdown and HTML.

`build()` turns the case results into the summary (counts, the per-op table,
coverage by family and by failure reason); the writers only format it, so the
three files always agree. The HTML page is self-contained (inline CSS and SVG,
no script, no external file) so it can be attached to a review or a CI run.
"""

from __future__ import annotations

import collections
import datetime
import json
import re
from importlib import metadata
from pathlib import Path
from typing import Any

from ..core.schema import OpSelection
from . import opinfo
from .categories import categories, describe
from .runner import CONFORMANCE, STATUSES, UNEXPECTED_CONFORMANCE, CaseResult, conformance_message

__all__ = ["build", "text_summary", "to_json", "to_markdown", "versions", "OP_STATUSES"]

# An op is "converted" when every case that has it converted it and none failed
# on it, "failing" when every case converted it but one failed on it at run
# time, "partial" when only some cases converted it, "not-converted" when none did.
OP_STATUSES = ("converted", "failing", "partial", "not-converted")
_WEAK = ("not-selected", "lowered-to-integer", "not-reached", "unaccounted")  # reasons a real one outranks
_RUNTIME_BLAME = ("numeric-mismatch", "result-mismatch")
_CONVERSION = tuple(c.name for c in categories() if c.stage in ("export", "conversion"))

_COLORS = {
    "pass": "#2e9d4f", "xfail": "#8fc79d", "fail": "#d9453b", "crash": "#7b2d8e", "timeout": "#e08a1e",
    "xpass": "#3b6fd9", "validated": "#2e9d4f", "listed": "#8fc79d", "unreviewed": "#999",
    "not-conformant": "#d9453b", "validates-listed": "#3b6fd9", "converted": "#2e9d4f", "failing": "#e08a1e", "partial": "#e0c21e", "not-converted": "#d9453b",
}


def versions() -> dict[str, str]:
    """The versions of the packages that decide a case's result: a run's
    results are comparable, and mergeable, only at the same ones."""
    found = {}
    for dist in ("torch", "torch-mlir", "tosa-custom"):
        try:
            found[dist] = metadata.version(dist)
        except metadata.PackageNotFoundError:
            pass
    return found


def _selection(legal_ops):
    if not legal_ops:
        return None
    try:
        return OpSelection(legal_ops, allow_unknown=True)
    except ValueError:
        return None


def _asked(selection, identifier: str) -> bool:
    if selection is None:
        return False
    user = identifier.startswith("torch.operator:")
    return selection.matches(identifier.split(":", 1)[1] if user else identifier, user_op=user)


def _why_not_converted(r: CaseResult, selection, explained: set, problems: dict) -> None:
    """Each op `r` saw, neither converted nor explained by a failure, with why."""
    for op in r.ops_seen:
        if op in r.converted or op in explained:
            continue
        if op in r.integer:
            problems[op].append(("lowered-to-integer", "", r.name))
        elif not _asked(selection, op):
            problems[op].append(("not-selected", "", r.name))
        elif r.category is not None and r.timings.get("load") is None:
            problems[op].append(("not-reached", f"the case failed first: {r.category}", r.name))
        else:
            problems[op].append(("unaccounted", "", r.name))


def _op_table(results: list[CaseResult]) -> list[dict]:
    """One row per op identifier seen in any case, with why it was not converted."""
    ops: dict[str, dict] = {}
    problems: dict[str, list[tuple[str, str, str]]] = collections.defaultdict(list)

    def row(op: str, family: str) -> dict:
        return ops.setdefault(op, {"identifier": op, "family": family, "first_case": case_name, "cases": 0,
                                   "count": 0, "converted_in": 0, "failed_in": 0})

    # Ops converted in a passing case are known good: a numeric mismatch is
    # blamed only on converted ops that never passed anywhere else.
    good = {op for r in results if r.status in ("pass", "xpass") for op in r.converted}
    case_name = None
    for r in results:
        case_name = r.name
        selection = _selection(r.legal_ops)
        for op, n in r.ops_seen.items():
            entry = row(op, r.family)
            entry["cases"] += 1
            entry["count"] += n
        for op in r.converted:
            row(op, r.family)["converted_in"] += 1
        explained = set()
        for s in r.skipped:
            row(s.identifier, r.family)
            problems[s.identifier].append((s.category, s.message, r.name))
            explained.add(s.identifier)
        blamed = list(r.failing_ops)
        if r.category in _RUNTIME_BLAME and not blamed:
            blamed = sorted(op for op in r.converted if op not in good)
        if r.category is not None:
            for op in blamed:
                row(op, r.family)["failed_in"] += 1
                problems[op].append((r.category, r.message, r.name))
                explained.add(op)
        _why_not_converted(r, selection, explained, problems)
    table = []
    for op, entry in ops.items():
        found = problems.get(op, [])
        if entry["converted_in"] == 0:
            status = "not-converted"
        elif entry["converted_in"] < entry["cases"] or any(p[0] in _WEAK or p[0] in _CONVERSION for p in found):
            status = "partial"
        elif found:
            status = "failing"  # converted wherever seen, but a case failed on it at run time
        else:
            status = "converted"
        strong = [p for p in found if p[0] not in _WEAK] or found
        category, message, first = strong[0] if strong else (None, "", None)
        if category in ("not-selected", "lowered-to-integer"):
            first = None  # not a failure: the mode never asked for the op
        entry.update(status=status, category=category, message=message, first_failing_case=first,
                     categories=dict(collections.Counter(p[0] for p in found)))
        table.append(entry)
    order = {s: i for i, s in enumerate(OP_STATUSES)}
    table.sort(key=lambda e: (order[e["status"]], e["family"], e["identifier"]))
    return table


def _skipped_samples(run) -> list[dict]:
    """Samples of a built-in suite (OpInfo) that were not made cases, each
    with why: a run's coverage is what ran plus what it left out, so a
    reader sees what "all pass" does not cover. With --filter, those whose
    case would have matched it (a whole-op skip as its sample 0)."""
    pattern = re.compile(run.filter) if run.filter else None
    found = []
    for spec in run.files:
        if not opinfo.is_spec(spec):
            continue
        opinfo.load(spec)  # a no-op in the process that ran the audit
        for s in opinfo.skipped(spec):
            if pattern is None or pattern.search(opinfo.case_name(s.op, s.dtype, s.index or 0)):
                found.append({"op": s.op, "dtype": s.dtype, "index": s.index, "reason": s.reason})
    return found


def build(run) -> dict[str, Any]:
    """The summary of an `audit.AuditRun`, as plain JSON-able data."""
    results: list[CaseResult] = run.results
    counts = collections.Counter(r.status for r in results)
    by_family: dict[str, collections.Counter] = collections.defaultdict(collections.Counter)
    for r in results:
        by_family[r.family][r.status] += 1
    ops = _op_table(results)
    ops_by_family: dict[str, collections.Counter] = collections.defaultdict(collections.Counter)
    for op in ops:
        ops_by_family[op["family"]][op["status"]] += 1
    by_category: dict[str, dict[str, int]] = {}
    for r in results:
        if r.category:
            by_category.setdefault(r.category, {"cases": 0, "ops": 0})["cases"] += 1
    for op in ops:
        if op["status"] != "converted" and op["category"]:
            by_category.setdefault(op["category"], {"cases": 0, "ops": 0})["ops"] += 1
    rank = {c.name: i for i, c in enumerate(categories())}
    export = collections.Counter(r.export_mode for r in results if r.export_mode)
    conformance = _conformance(results)
    return {
        "meta": {
            "mode": run.mode, "ops": run.ops, "jobs": run.jobs, "timeout": run.timeout, "seconds": run.seconds,
            "filter": run.filter, "files": run.files, "torch_fallback": run.torch_fallback,
            "kernels": run.kernels, "executor": getattr(run, "executor", "reference"), "versions": versions(),
            "created": datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds"),
            # On Ray: each node's host facts, the node each case ran on, the cases a Ctrl-C left.
            "nodes": getattr(run, "nodes", None), "ran_on": getattr(run, "ran_on", None),
            "unfinished": list(getattr(run, "unfinished", [])),
        },
        "counts": {s: counts.get(s, 0) for s in STATUSES},
        "by_executor": _by_executor(results),
        "total": len(results),
        "unexpected": [r.name for r in results if r.failed],
        "ok": not any(r.failed for r in results),
        "by_family": {f: dict(c) for f, c in sorted(by_family.items())},
        "ops_by_family": {f: dict(c) for f, c in sorted(ops_by_family.items())},
        "export": {
            "strict": export.get("strict", 0), "non-strict": export.get("non-strict", 0),
            "fallbacks": [{"case": r.name, "strict_error": r.export_strict_error}
                          for r in results if r.export_mode == "non-strict" and r.export_strict_error],
        },
        "conformance": conformance,
        "skipped_samples": _skipped_samples(run),
        "kernels_needed": _kernels_needed(results) if run.mode == "auto" else None,
        "by_category": dict(sorted(by_category.items(), key=lambda kv: rank.get(kv[0], len(rank)))),
        "categories": {c.name: {"stage": c.stage, "description": c.description} for c in categories()},
        "cases": [r.to_json() for r in results],
        "ops": ops,
    }


def _by_executor(results: list[CaseResult]) -> dict[str, Any]:
    """Per executor, the cases it ran by status, those that stopped before
    reaching it (compile), and the cases it refused at load by design
    (runner.REFUSALS_BY_EXECUTOR), by category, with the ops that had no
    kernel (IREE's no-kernel refusals)."""
    out: dict[str, Any] = {}
    for r in results:
        entry = out.setdefault(r.executor, {"ran": {}, "not_reached": 0, "refused": {},
                                            "refused_ops": collections.Counter()})
        if "load" not in r.timings:
            entry["not_reached"] += 1
        elif r.refused:
            entry["refused"][r.category] = entry["refused"].get(r.category, 0) + 1
            entry["refused_ops"].update(set(r.failing_ops) if r.category == "no-kernel" else ())
        else:
            entry["ran"][r.status] = entry["ran"].get(r.status, 0) + 1
    for entry in out.values():
        entry["refused_ops"] = dict(entry["refused_ops"].most_common())
    return out


def _executor_line(executor: str, entry: dict) -> str:
    """`on iree: 300 ran (290 pass, 10 xfail), 80 stopped before it (compile); refused at load: 120 no-kernel
    (torch.aten.atan2 (3), ...), 9 not-conformant`."""
    line = f"on {executor}: {sum(entry['ran'].values())} ran ({status_counts(entry['ran']) or 'none'})"
    if entry.get("not_reached"):
        line += f", {entry['not_reached']} stopped before it (compile)"
    refused = []
    for category, n in entry["refused"].items():
        top = ", ".join(f"{op} ({k})" for op, k in list(entry["refused_ops"].items())[:5])
        refused.append(f"{n} {category}" + (f" ({top}{', ...' if len(entry['refused_ops']) > 5 else ''})"
                                              if category == "no-kernel" and top else ""))
    return line + ("; refused at load: " + ", ".join(refused) if refused else "")


def status_counts(counts) -> str:
    """`12 pass, 1 fail, 2 xfail`: one wording for the progress line and the summary."""
    return ", ".join(f"{counts[s]} {s}" for s in STATUSES if counts.get(s))


def failure_line(r: dict) -> str:
    """One unexpected result: name, status, category and the first line of its
    reason; a case whose run is as expected but whose conformance is not says so."""
    if r.get("conformance") in UNEXPECTED_CONFORMANCE and r["status"] in ("pass", "xfail"):
        label, category, reason = r["conformance"], "not-conformant", conformance_message(CaseResult.from_json(r))
    else:
        label, category, reason = r["status"], r.get("category") or "no category", r.get("message") or ""
    reason = " ".join(reason.split())
    return f"{label.upper()}: {r['name']} [{category}] {reason}"[:300]


def _ops_line(ops: list[dict]) -> str:
    """Ops by outcome. An op no case converted is either one the mode did not
    ask for (stock mode, or not in selective mode's list: torch-mlir lowers
    it, as asked) or one it asked for that was never converted."""
    status = collections.Counter(o["status"] for o in ops)
    unasked = sum(1 for o in ops if o["status"] == "not-converted" and o["category"] == "not-selected")
    return (f"ops: {len(ops)} seen, {status['converted']} converted everywhere, "
            f"{status['failing']} failing at run time, {status['partial']} converted in some cases only, "
            f"{status['not-converted'] - unasked} asked for but never converted, "
            f"{unasked} not asked for (lowered by torch-mlir)")


def _conformance(results: list[CaseResult]) -> dict[str, Any]:
    """How many outputs validated for their TOSA target, which did not (listed,
    with the reason, or not), and which ops broke which rule."""
    rules: collections.Counter = collections.Counter()
    for r in results:
        for op, _, rule in r.violations:
            rules[f"{op}: {rule}"] += 1
    verdicts = collections.Counter(r.conformance for r in results if r.conformance)
    return {
        "validated": sum(1 for r in results if r.conformant is True),
        "not_conformant": [r.name for r in results if r.conformant is False],
        "counts": {v: verdicts.get(v, 0) for v in CONFORMANCE},
        "unexpected": [r.name for r in results if r.conformance in UNEXPECTED_CONFORMANCE],
        "cases": [{"name": r.name, "target": r.tosa_target, "conformance": r.conformance,
                   "reason": r.nonconformant_reason, "violations": r.violations}
                  for r in results if r.conformant is False or r.conformance in UNEXPECTED_CONFORMANCE],
        "rules": dict(rules.most_common()),
    }


def _kernels_needed(results: list[CaseResult]) -> dict[str, Any]:
    """The ops a backend needs kernels for to run every case, ranked by how
    many cases need each (auto mode's tunneled sites: what a backend team
    reads first), with the categories that put them there."""
    by_op: dict[str, dict] = {}
    for r in results:
        for identifier, category in r.tunneled:
            entry = by_op.setdefault(identifier, {"op": identifier, "cases": [], "sites": 0,
                                                  "categories": collections.Counter()})
            if r.name not in entry["cases"]:
                entry["cases"].append(r.name)
            entry["sites"] += 1
            entry["categories"][category] += 1
    ranked = sorted(by_op.values(), key=lambda e: (-len(e["cases"]), e["op"]))
    return {
        "cases_with_custom_ops": sum(1 for r in results if r.tunneled),
        "ranked": [{"op": e["op"], "cases": len(e["cases"]), "sites": e["sites"],
                    "categories": dict(e["categories"].most_common()), "example": e["cases"][0]} for e in ranked],
        "kept_from_decomposition": dict(collections.Counter(op for r in results for op in r.kept_from_decomposition)),
    }


def _kernels_line(needed: dict) -> str:
    top = ", ".join(f"{e['op'][len('torch.'):]} ({e['cases']})" for e in needed["ranked"][:5])
    return (f"tunneled: {needed['cases_with_custom_ops']} cases need custom ops, {len(needed['ranked'])} distinct"
            + (f"; most needed: {top}" if top else ""))


def _conformance_line(conformance: dict) -> str:
    """`TOSA target: 446 outputs validated, 40 listed as not conformant, 1 not conformant (unlisted): X`."""
    counts = conformance.get("counts", {})
    parts = [f"{conformance['validated']} outputs validated"]
    parts += [f"{counts[v]} {label}" for v, label in (
        ("listed", "listed as not conformant"), ("unreviewed", "not conformant (suite not reviewed)"),
        ("not-conformant", "not conformant and not listed"),
        ("validates-listed", "listed as not conformant but validated")) if counts.get(v)]
    unexpected = conformance.get("unexpected", [])
    return "TOSA target: " + ", ".join(parts) + (": " + ", ".join(unexpected) if unexpected else "")


def text_summary(summary: dict) -> str:
    meta, counts = summary["meta"], summary["counts"]
    executor = meta.get("executor", "reference")
    lines = [
        f"{meta['mode']} mode{'' if executor == 'reference' else ' on ' + executor}: {summary['total']} cases in "
        f"{meta['seconds']:.1f} s (-j {meta['jobs']}): " + status_counts(counts),
        _ops_line(summary["ops"]),
    ]
    lines += [_executor_line(e, entry) for e, entry in summary.get("by_executor", {}).items()
              if e != "reference" or len(summary["by_executor"]) > 1]
    export = summary.get("export")
    if export and (export["strict"] or export["non-strict"]):
        fallbacks = len(export.get("fallbacks", []))
        direct = export["non-strict"] - fallbacks  # cases that ask for non-strict (Case.export_strict)
        lines.append(f"export: {export['strict']} strict, {fallbacks} non-strict after strict failed"
                     + (f", {direct} non-strict as the case asks" if direct else ""))
    conformance = summary.get("conformance")
    if conformance and (conformance["validated"] or conformance["not_conformant"]):
        lines.append(_conformance_line(conformance))
    needed = summary.get("kernels_needed")
    if needed and needed["ranked"]:
        lines.append(_kernels_line(needed))
    skipped = summary.get("skipped_samples")
    if skipped:
        lines.append(f"not run: {len(skipped)} OpInfo samples, each with its reason in the report "
                     f"({_top_reasons(skipped)})")
    if summary["unexpected"]:
        lines.append(f"unexpected results ({len(summary['unexpected'])}):")
        lines += ["  " + failure_line(r) for r in summary["cases"] if r["name"] in set(summary["unexpected"])]
    return "\n".join(lines)


def _top_reasons(skipped: list[dict], n: int = 3) -> str:
    """`12 no tensor argument, 3 ...`: the commonest reasons, by their first words."""
    counts = collections.Counter(s["reason"].split(":")[0].split("(")[0].strip() for s in skipped)
    return ", ".join(f"{k} {why}" for why, k in counts.most_common(n))


def _sample_label(s: dict) -> str:
    return f"{s['op']}/{s['dtype']}" + ("" if s["index"] is None else f"/{s['index']}")


def to_json(summary: dict) -> str:
    return json.dumps(summary, indent=1, sort_keys=False) + "\n"


# --------------------------------------------------------------------------
# Markdown.
# --------------------------------------------------------------------------


def _md(text: Any) -> str:
    """One table cell: no newline, no stray pipe, not too long."""
    text = "" if text is None else str(text)
    text = " ".join(text.split()).replace("|", "\\|")
    return text if len(text) <= 240 else text[:237] + "..."


def _violations_text(violations: list) -> str:
    """Each rejected op and its rule, once (a case repeats them per location)."""
    return "; ".join(sorted({f"{op}: {rule}" for op, _, rule in violations}))


def _conformance_markdown(conformance: dict) -> list[str]:
    out = []
    if conformance.get("cases"):
        out += ["", "## Not conformant to the TOSA target", "",
                "| case | target | conformance | listed reason | ops rejected |", "|---|---|---|---|---|"]
        out += [f"| {c['name']} | {_md(c['target'])} | {c['conformance'] or ''} | {_md(c['reason'])} | "
                f"{_md(_violations_text(c['violations']))} |" for c in conformance["cases"]]
    if conformance.get("rules"):
        out += ["", "## Rules broken", "", "| op: rule | ops rejected |", "|---|---|"]
        out += [f"| {_md(rule)} | {n} |" for rule, n in conformance["rules"].items()]
    return out


def to_markdown(summary: dict) -> str:
    meta = summary["meta"]
    executor = meta.get("executor", "reference")
    out = [f"# tosa-custom audit: {meta['mode']} mode" + ("" if executor == "reference" else f" on {executor}"), ""]
    out.append(text_summary(summary).replace("\n", "  \n"))
    if meta["ops"]:
        out.append(f"\nops kept: {', '.join(meta['ops'])}")
    if meta.get("kernels", "all") == "user":
        out.append("\nkernels: yours only (--only-user-kernels)")
    elif not meta.get("torch_fallback", True):
        out.append("\nkernels: registered ones only (--no-torch-fallback)")
    out += ["", "## Cases by family", "", "| family | " + " | ".join(STATUSES) + " |",
            "|---|" + "---|" * len(STATUSES)]
    for family, c in summary["by_family"].items():
        out.append(f"| {_md(family)} | " + " | ".join(str(c.get(s, 0)) for s in STATUSES) + " |")
    out += ["", "## Failures by reason", "", "| category | cases | ops | meaning |", "|---|---|---|---|"]
    for name, c in summary["by_category"].items():
        out.append(f"| {name} | {c['cases']} | {c['ops']} | {_md(describe(name))} |")
    out += ["", "## Ops", "", "| op | status | cases | converted in | reason | first failing case | message |",
            "|---|---|---|---|---|---|---|"]
    for o in summary["ops"]:
        out.append(f"| `{_md(o['identifier'])}` | {o['status']} | {o['cases']} | {o['converted_in']} | "
                   f"{o['category'] or ''} | {_md(o['first_failing_case'])} | {_md(o['message'])} |")
    out += ["", "## Cases", "", "| case | family | status | reason | message | seconds |", "|---|---|---|---|---|---|"]
    for r in summary["cases"]:
        message = r["message"] or (f"expected to fail: {r['xfail_reason']}" if r["xfail_reason"] else "")
        out.append(f"| {r['name']} | {r['family']} | {r['status']} | {r['category'] or ''} | {_md(message)} | "
                   f"{r['timings'].get('total', 0):.2f} |")
    out += _kernels_markdown(summary.get("kernels_needed"))
    if summary.get("kernels_needed"):
        out += _tunneled_per_case(summary["cases"])
    out += _conformance_markdown(summary.get("conformance", {}))
    fallbacks = summary.get("export", {}).get("fallbacks", [])
    if fallbacks:
        out += ["", "## Exported non-strict", "", "Strict `torch.export` failed on these cases; "
                "non-strict export was used.", "", "| case | why strict export failed |", "|---|---|"]
        out += [f"| {f['case']} | {_md(f['strict_error'])} |" for f in fallbacks]
    skipped = summary.get("skipped_samples", [])
    if skipped:
        out += ["", "## Samples not run", "", "OpInfo samples the suite does not make cases of (`op/dtype` alone: "
                "every sample of it).", "", "| sample | why |", "|---|---|"]
        out += [f"| `{_md(_sample_label(s))}` | {_md(s['reason'])} |" for s in skipped]
    slowest = sorted(summary["cases"], key=lambda r: -r["timings"].get("total", 0))[:10]
    out += ["", "## Slowest cases", "", "| case | seconds | compile | load | run |", "|---|---|---|---|---|"]
    for r in slowest:
        t = r["timings"]
        out.append(f"| {r['name']} | {t.get('total', 0):.2f} | {t.get('compile', 0):.2f} | {t.get('load', 0):.2f} | "
                   f"{t.get('run', 0):.2f} |")
    out += _nodes_markdown(meta)
    out += ["", "## Categories", "", "| category | stage | meaning |", "|---|---|---|"]
    for name, c in summary["categories"].items():
        out.append(f"| {name} | {c['stage']} | {_md(c['description'])} |")
    return "\n".join(out) + "\n"


def _nodes_markdown(meta: dict) -> list[str]:
    """The Ray nodes that ran the cases (meta["ran_on"] says which ran which)."""
    if not meta.get("nodes"):
        return []
    ran = collections.Counter((meta.get("ran_on") or {}).values())
    out = ["", "## Nodes", "", "| node | host | CPU | cases | versions |", "|---|---|---|---|---|"]
    out += [f"| {node[:12]} | {_md(f['hostname'])} | {_md(f['cpu'])} ({f['cpus']}) | {ran[node]} | "
            f"{_md(', '.join(f'{k} {v}' for k, v in f['versions'].items()))} |" for node, f in meta["nodes"].items()]
    return out


def _tunneled_per_case(cases: list[dict]) -> list[str]:
    rows = [c for c in cases if c.get("tunneled")]
    if not rows:
        return []
    out = ["", "## Tunneled per case", "", "| case | status | ops (category) |", "|---|---|---|"]
    for c in rows:
        counts = collections.Counter(f"`{op[len('torch.'):]}` ({category})" for op, category in c["tunneled"])
        ops = ", ".join(f"{k} x{n}" if n > 1 else k for k, n in counts.items())
        out.append(f"| {c['name']} | {c['status']} | {_md(ops)} |")
    return out


def _kernels_markdown(needed: dict | None) -> list[str]:
    if not needed or not needed["ranked"]:
        return []
    out = ["", "## Ops a backend needs kernels for", "",
           "What auto mode tunneled, ranked by the cases that need each op (CONTRACT.md 7.1 explains the "
           "categories).", "", "| rank | op | cases | sites | why | e.g. case |", "|---|---|---|---|---|---|"]
    for i, e in enumerate(needed["ranked"], 1):
        why = ", ".join(f"{c} {n}" for c, n in e["categories"].items())
        out.append(f"| {i} | `{_md(e['op'])}` | {e['cases']} | {e['sites']} | {why} | {_md(e['example'])} |")
    kept = needed.get("kept_from_decomposition") or {}
    if kept:
        out += ["", "Kept from PyTorch's decompositions (decomposing them failed): "
                + ", ".join(f"`{op}` ({n})" for op, n in kept.items())]
    return out


# --------------------------------------------------------------------------
# HTML with inline SVG charts.
# --------------------------------------------------------------------------
