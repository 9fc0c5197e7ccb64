"""`python -m fuzz --cases N [--target a,b] [--seed S] [--timeout T]`: print the table.

Exit code 1 if any case was a defect (crash, hang, unexpected exception,
wrong answer); each defect's reproducer is saved under --findings.
`--replay FILE` re-runs one saved case in this process (for a debugger).
"""

from __future__ import annotations

import argparse
import json
import sys

from .supervisor import format_table, run, Supervisor
from .targets import DEFAULT_TARGETS, TARGETS


def main(argv=None) -> int:
    p = argparse.ArgumentParser(prog="python -m fuzz", description=__doc__.splitlines()[0])
    p.add_argument("--cases", type=int, default=100, help="cases per target")
    p.add_argument("--target", default=",".join(DEFAULT_TARGETS), help=f"comma-separated: {', '.join(TARGETS)}")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--timeout", type=float, default=30.0, help="seconds per case before it counts as a hang")
    p.add_argument("--findings", default="fuzz-findings", help="folder for reproducers of defects")
    p.add_argument("--only", type=int, help="run only this case index (with one --target)")
    p.add_argument("--replay", help="re-run a saved finding in this process")
    args = p.parse_args(argv)
    if args.replay:
        from .targets import load_target

        with open(args.replay, encoding="utf-8") as f:
            record = json.load(f)
        print(load_target(record["target"]).check(record["case"]))
        return 0
    targets = [t.strip() for t in args.target.split(",") if t.strip()]
    unknown = [t for t in targets if t not in TARGETS]
    if unknown:
        p.error(f"unknown target(s) {unknown}: expected {', '.join(TARGETS)}")
    if args.only is not None:
        sup = Supervisor(timeout=args.timeout, findings_dir=args.findings)
        try:
            kind, detail, case = sup.run_case(targets[0], args.seed, args.only)
        finally:
            sup.close()
        print(json.dumps({"kind": kind, "detail": detail, "case": case}, indent=1))
        return 0 if kind in ("correct", "clean") else 1
    stats = run(targets, args.cases, args.seed, args.timeout, args.findings,
                progress=lambda m: print(m, file=sys.stderr, flush=True))
    print(format_table(stats))
    for s in stats:
        for f in s.findings:
            print(f"{s.target}: defect saved to {f}")
    return 1 if any(s.defect_count for s in stats) else 0


if __name__ == "__main__":
    sys.exit(main())
