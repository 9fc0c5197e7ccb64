"""The audit's report as one self-contained HTML page (inline CSS and SVG,
no script, no external file), so it can be attached to a review or a CI
run; it formats the summary `report.build()` made, as the other writers
do, and `write_all` writes the three files."""

from __future__ import annotations

import html
from pathlib import Path
from typing import Any

from .categories import describe
from .report import (_COLORS, OP_STATUSES, _nodes_markdown, _sample_label, _violations_text, text_summary, to_json,
                     to_markdown)
from .runner import CONFORMANCE, STATUSES

__all__ = ["to_html", "write_all"]


_CSS = """
body{font:14px/1.4 system-ui,sans-serif;margin:24px;color:#222}
table{border-collapse:collapse;margin:8px 0 24px}
th,td{border:1px solid #ccc;padding:3px 8px;text-align:left;vertical-align:top}
th{background:#f2f2f2}
td.msg{max-width:60em;font-size:12px;white-space:pre-wrap;word-break:break-word}
.s{display:inline-block;padding:0 6px;border-radius:3px;color:#fff;font-size:12px}
code{font-size:12px}
"""


def _e(text: Any) -> str:
    return html.escape("" if text is None else str(text), quote=True)


def _badge(status: str) -> str:
    return f'<span class="s" style="background:{_COLORS.get(status, "#777")}">{_e(status)}</span>'


def _svg_start(title: str, width: int, height: int) -> list[str]:
    """The opening of a chart: the svg element and its bold title."""
    return [f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" role="img" '
            f'aria-label="{_e(title)}">',
            f'<text x="0" y="16" font-weight="bold">{_e(title)}</text>']


def _stacked_bars(title: str, rows: dict[str, dict[str, int]], keys: tuple[str, ...]) -> str:
    """A horizontal stacked bar per row, one colour per key, with a legend."""
    label_w, bar_w, h, gap = 130, 420, 18, 6
    total_max = max([sum(r.values()) for r in rows.values()] + [1])
    height = 40 + len(rows) * (h + gap) + 24
    parts = _svg_start(title, label_w + bar_w + 60, height)
    y = 32
    for name, counts in rows.items():
        parts.append(f'<text x="{label_w - 6}" y="{y + h - 5}" text-anchor="end" font-size="12">{_e(name)}</text>')
        x = label_w
        for key in keys:
            n = counts.get(key, 0)
            if not n:
                continue
            w = bar_w * n / total_max
            parts.append(f'<rect x="{x:.1f}" y="{y}" width="{w:.1f}" height="{h}" fill="{_COLORS.get(key, "#777")}">'
                         f'<title>{_e(name)}: {n} {_e(key)}</title></rect>')
            x += w
        parts.append(f'<text x="{x + 4:.1f}" y="{y + h - 5}" font-size="12">{sum(counts.values())}</text>')
        y += h + gap
    x = label_w
    for key in keys:
        parts.append(f'<rect x="{x}" y="{y + 4}" width="10" height="10" fill="{_COLORS.get(key, "#777")}"/>'
                     f'<text x="{x + 14}" y="{y + 13}" font-size="11">{_e(key)}</text>')
        x += 24 + 7 * len(key)
    parts.append("</svg>")
    return "".join(parts)


def _simple_bars(title: str, rows: dict[str, int], color: str) -> str:
    label_w, bar_w, h, gap = 230, 360, 16, 5
    top = max(list(rows.values()) + [1])
    height = 32 + len(rows) * (h + gap) + 8
    parts = _svg_start(title, label_w + bar_w + 50, height)
    y = 28
    for name, n in rows.items():
        w = bar_w * n / top
        parts.append(f'<text x="{label_w - 6}" y="{y + h - 4}" text-anchor="end" font-size="12">{_e(name)}</text>'
                     f'<rect x="{label_w}" y="{y}" width="{w:.1f}" height="{h}" fill="{color}">'
                     f'<title>{_e(name)}: {n} — {_e(describe(name))}</title></rect>'
                     f'<text x="{label_w + w + 4:.1f}" y="{y + h - 4}" font-size="12">{n}</text>')
        y += h + gap
    parts.append("</svg>")
    return "".join(parts)


def _conformance_html(conformance: dict) -> list[str]:
    """The conformance section: outputs by verdict, then every output that did
    not validate (or validated against its listing) with its reason and rules."""
    counts = {k: n for k, n in conformance.get("counts", {}).items() if n}
    if not counts:
        return []
    body = ["<h2>Conformance to the TOSA target</h2>",
            _stacked_bars("Outputs by conformance", {"outputs": counts}, CONFORMANCE)]
    if conformance.get("cases"):
        body.append("<table><tr><th>case</th><th>target</th><th>conformance</th><th>listed reason</th>"
                    "<th>ops rejected</th></tr>")
        body += [f"<tr><td>{_e(c['name'])}</td><td><code>{_e(c['target'])}</code></td>"
                 f"<td>{_badge(c['conformance'] or 'unknown')}</td><td class=\"msg\">{_e(c['reason'])}</td>"
                 f"<td class=\"msg\">{_e(_violations_text(c['violations']))}</td></tr>"
                 for c in conformance["cases"]]
        body.append("</table>")
    if conformance.get("rules"):
        body.append("<table><tr><th>op: rule</th><th>ops rejected</th></tr>")
        body += [f"<tr><td class=\"msg\">{_e(rule)}</td><td>{n}</td></tr>" for rule, n in conformance["rules"].items()]
        body.append("</table>")
    return body


def _html_tables(summary: dict) -> list[str]:
    """The ops, the cases and the kernels a backend needs, as tables."""
    body = ["<h2>Ops</h2><table><tr><th>op</th><th>status</th><th>cases</th><th>converted in</th>"
            "<th>reason</th><th>first failing case</th><th>message</th></tr>"]
    for o in summary["ops"]:
        body.append(f"<tr><td><code>{_e(o['identifier'])}</code></td><td>{_badge(o['status'])}</td>"
                    f"<td>{o['cases']}</td><td>{o['converted_in']}</td>"
                    f"<td title=\"{_e(describe(o['category']) if o['category'] else '')}\">{_e(o['category'])}</td>"
                    f"<td>{_e(o['first_failing_case'])}</td><td class=\"msg\">{_e(o['message'])}</td></tr>")
    body.append("</table><h2>Cases</h2><table><tr><th>case</th><th>family</th><th>status</th><th>reason</th>"
                "<th>message</th><th>seconds</th></tr>")
    for r in summary["cases"]:
        message = r["message"] or (f"expected to fail: {r['xfail_reason']}" if r["xfail_reason"] else "")
        body.append(f"<tr><td>{_e(r['name'])}</td><td>{_e(r['family'])}</td><td>{_badge(r['status'])}</td>"
                    f"<td>{_e(r['category'])}</td><td class=\"msg\">{_e(message)}</td>"
                    f"<td>{r['timings'].get('total', 0):.2f}</td></tr>")
    needed = summary.get("kernels_needed")
    if needed and needed["ranked"]:
        body.append("</table><h2>Ops a backend needs kernels for</h2><table><tr><th>rank</th><th>op</th>"
                    "<th>cases</th><th>sites</th><th>why</th><th>e.g. case</th></tr>")
        body += [f"<tr><td>{i}</td><td><code>{_e(e['op'])}</code></td><td>{e['cases']}</td><td>{e['sites']}</td>"
                 f"<td>{_e(', '.join(f'{c} {n}' for c, n in e['categories'].items()))}</td>"
                 f"<td>{_e(e['example'])}</td></tr>" for i, e in enumerate(needed["ranked"], 1)]
    body.append("</table>")
    return body


def _html_appendix(summary: dict) -> list[str]:
    """Cases exported non-strict, samples not run, and the categories."""
    body = []
    fallbacks = summary.get("export", {}).get("fallbacks", [])
    if fallbacks:
        body.append("<h2>Exported non-strict</h2><p>Strict <code>torch.export</code> failed on these "
                    "cases; non-strict export was used.</p><table><tr><th>case</th><th>why strict export failed"
                    "</th></tr>")
        body += [f"<tr><td>{_e(f['case'])}</td><td class=\"msg\">{_e(f['strict_error'])}</td></tr>"
                 for f in fallbacks]
        body.append("</table>")
    skipped = summary.get("skipped_samples", [])
    if skipped:
        body.append("<h2>Samples not run</h2><p>OpInfo samples the suite does not make cases of.</p>"
                    "<table><tr><th>sample</th><th>why</th></tr>")
        body += [f"<tr><td><code>{_e(_sample_label(s))}</code></td><td class=\"msg\">{_e(s['reason'])}</td></tr>"
                 for s in skipped]
        body.append("</table>")
    body.append("<h2>Categories</h2><table><tr><th>category</th><th>stage</th><th>meaning</th></tr>")
    for name, c in summary["categories"].items():
        body.append(f"<tr><td>{_e(name)}</td><td>{_e(c['stage'])}</td><td>{_e(c['description'])}</td></tr>")
    body.append("</table>")
    return body


def to_html(summary: dict) -> str:
    meta = summary["meta"]
    title = f"tosa-custom audit: {meta['mode']} mode"
    body = [f"<h1>{_e(title)}</h1>", f"<p>{_e(text_summary(summary)).replace(chr(10), '<br>')}</p>"]
    if meta["ops"]:
        body.append(f"<p>ops kept: <code>{_e(', '.join(meta['ops']))}</code></p>")
    body.append(f"<p><small>{_e(', '.join(f'{k} {v}' for k, v in meta['versions'].items()))}; "
                f"{_e(meta['created'])}</small></p>")
    body.append("<h2>Coverage</h2>")
    body.append(_stacked_bars("Cases by family", summary["by_family"], STATUSES))
    body.append(_stacked_bars("Ops by family (of the first case that has them)", summary["ops_by_family"],
                              OP_STATUSES))
    cases_by_reason = {k: v["cases"] for k, v in summary["by_category"].items() if v["cases"]}
    ops_by_reason = {k: v["ops"] for k, v in summary["by_category"].items() if v["ops"]}
    if cases_by_reason:
        body.append(_simple_bars("Failing cases by reason", cases_by_reason, _COLORS["fail"]))
    if ops_by_reason:
        body.append(_simple_bars("Unconverted or failing ops by reason", ops_by_reason, _COLORS["timeout"]))
    body += _html_tables(summary)
    body += _conformance_html(summary.get("conformance", {}))
    body += _html_appendix(summary)
    if meta.get("nodes"):
        body.append("<h2>Nodes</h2><pre>" + _e("\n".join(_nodes_markdown(meta)[4:])) + "</pre>")
    return (f"<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><title>{_e(title)}</title>"
            f"<style>{_CSS}</style></head><body>\n" + "\n".join(body) + "\n</body></html>\n")


def write_all(summary: dict, directory: Path) -> list[Path]:
    """audit.json, audit.md and audit.html in `directory` (created)."""
    directory = Path(directory)
    directory.mkdir(parents=True, exist_ok=True)
    written = []
    for name, text in (("audit.json", to_json(summary)), ("audit.md", to_markdown(summary)),
                       ("audit.html", to_html(summary))):
        path = directory / name
        path.write_text(text, encoding="utf-8")
        written.append(path)
    return written
