"""`tosa-custom-audit-compare`: hold auto mode to "never worse" case by case.

Auto mode promises to compile whatever dummy or stock mode compiles. Counts
per mode cannot show that (auto may gain ten cases and lose three); this
reads the `audit.json` of runs over the same cases and lists each case that
runs right in another mode but not in the first. A difference is accepted
only with a reviewed reason (`REVIEWED` below, a regex on the case name);
any other makes the exit code 1. Crashes and timeouts in any run are listed
too: "no case crashes" is the other half of the promise.

    tosa-custom-audit --mode auto  --report out/auto  ...
    tosa-custom-audit --mode dummy --report out/dummy ...
    tosa-custom-audit-compare out/auto out/dummy out/stock
"""

from __future__ import annotations

import argparse
import json
import re
import sys
from pathlib import Path
from typing import Sequence

__all__ = ["REVIEWED", "Comparison", "ReportError", "compare", "load", "main", "unpassed"]

# Cases where the first run (auto) may fail although another mode runs them
# right, each with why that is right (not merely why it happens).
REVIEWED: dict[str, str] = {}

_RAN_RIGHT = ("pass", "xpass")
_BROKE = ("crash", "timeout")


class ReportError(Exception):
    """A report folder that cannot be read as one run."""


def _read(path: Path) -> dict:
    try:
        return json.loads(path.read_text())
    except (OSError, ValueError) as e:
        raise ReportError(f"cannot read {path}: {e} (give folders written by tosa-custom-audit --report DIR)") from None


def load(directory: Path) -> tuple[str, dict[str, dict]]:
    """(mode, case name -> result row) of one audit report folder, or of a
    folder of them (one per `--shard`, or a shard's run and its re-runs),
    read as one run: a suite too long for one run is compared whole."""
    mode, rows, _ = _load(directory)
    return mode, rows


def _load(directory: Path) -> tuple[str, dict[str, dict], set[str]]:
    """`load`, and the cases a Ctrl-C left unfinished (a partial run on Ray) that no part ran."""
    path = Path(directory)
    if path.is_dir() and not (path / "audit.json").exists():
        parts = sorted(path.glob("*/audit.json"))
        if not parts:
            raise ReportError(f"{path} has no audit.json, nor folders that have one "
                              f"(give folders written by tosa-custom-audit --report DIR)")
    else:
        parts = [path / "audit.json" if path.is_dir() else path]
    modes, rows, versions, unfinished = set(), {}, {}, set()
    for part in parts:
        data = _read(part)
        modes.add(data["meta"]["mode"])
        unfinished.update(data["meta"].get("unfinished") or ())
        rows.update((c["name"], c) for c in data["cases"])
        versions.setdefault(_versions_text(data["meta"].get("versions", {})), part.parent)
    if len(modes) > 1:
        raise ReportError(f"{path} mixes runs of modes {', '.join(sorted(modes))}: give one folder per mode")
    if len(versions) > 1:
        raise ReportError(f"{path} mixes runs of different package versions ("
                          + "; ".join(f"{where}: {v}" for v, where in versions.items())
                          + "): their results are not one run; re-run the odd ones at the same versions")
    return modes.pop(), rows, unfinished - set(rows)


def _versions_text(versions: dict) -> str:
    return ", ".join(f"{k} {v}" for k, v in sorted(versions.items())) or "no versions recorded"


def unpassed(directory: Path) -> frozenset[str]:
    """The cases of a run (as `load` reads it) that did not run right, or did not run (a Ctrl-C's)."""
    _, rows, unfinished = _load(directory)
    return frozenset(name for name, row in rows.items() if row["status"] not in _RAN_RIGHT) | unfinished


class Comparison:
    """The cases of `first` that another run runs right and it does not."""

    def __init__(self, first: tuple[str, dict], others: Sequence[tuple[str, dict]],
                 reviewed: dict[str, str] | None = None):
        self.mode, rows = first
        self.others = [m for m, _ in others]
        reviewed = REVIEWED if reviewed is None else reviewed
        common = set(rows).intersection(*(set(r) for _, r in others))
        self.cases = len(common)
        # A case the first run ran right needs no other run to judge it (the
        # others may be re-runs of its unpassed cases only); any other is a gap.
        self.missing = sorted(n for n in set(rows).union(*(set(r) for _, r in others)) - common
                              if rows.get(n, {}).get("status") not in _RAN_RIGHT)
        self.regressions: list[tuple[str, dict, list[str], str | None]] = []
        self.gains = 0
        for name in sorted(common):
            mine = rows[name]
            better = [m for m, r in others if r[name]["status"] in _RAN_RIGHT]
            if mine["status"] in _RAN_RIGHT:
                self.gains += not better
                continue
            if better:
                reason = next((why for pattern, why in reviewed.items() if re.search(pattern, name)), None)
                self.regressions.append((name, mine, better, reason))
        self.broke = sorted((m, n, r[n]["status"]) for m, r in [first, *others] for n in r
                            if r[n]["status"] in _BROKE)

    @property
    def unreviewed(self) -> list:
        return [r for r in self.regressions if r[3] is None]

    def text(self) -> str:
        lines = [f"{self.mode} against {', '.join(self.others)}: {self.cases} cases in every run; "
                 f"{len(self.regressions)} run right elsewhere but not in {self.mode} "
                 f"({len(self.unreviewed)} without a reviewed reason); "
                 f"{self.gains} run right only in {self.mode}; {len(self.broke)} crashes or timeouts"]
        for name, mine, better, reason in self.regressions:
            why = f"reviewed: {reason}" if reason else f"{mine['category']}: {mine['message'][:200]}"
            lines.append(f"  {'REVIEWED' if reason else 'WORSE'}: {name} (right in {', '.join(better)}) {why}")
        for mode, name, status in self.broke:
            lines.append(f"  {status.upper()}: {name} in {mode} mode")
        if self.missing:
            lines.append(f"  {len(self.missing)} cases cannot be judged: not in every run (compare runs of the same "
                         f"selection, or re-runs of the first run's unpassed cases), e.g. {', '.join(self.missing[:3])}")
        return "\n".join(lines)


def compare(first: Path, others: Sequence[Path]) -> Comparison:
    return Comparison(load(first), [load(o) for o in others])


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="tosa-custom-audit-compare", description=__doc__.split("\n\n")[0])
    parser.add_argument("first", type=Path, help="the report folder of the mode held to the others (auto)")
    parser.add_argument("others", type=Path, nargs="+", help="report folders of the same cases in other modes")
    args = parser.parse_args(argv)
    try:
        result = compare(args.first, args.others)
    except ReportError as e:
        raise SystemExit(f"tosa-custom-audit-compare: {e}") from None
    print(result.text())
    return 1 if result.unreviewed or result.broke else 0


if __name__ == "__main__":
    sys.exit(main())
