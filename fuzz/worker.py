"""The worker: runs cases one after another, reporting each over a pipe.

Protocol (one JSON object per line). The supervisor writes
`{"target": t, "seed": s, "index": i}`; the worker draws that case, writes
`{"case": ...}` *before* running it (so a crash still leaves the reproducer
with the supervisor), then `{"outcome": kind, "detail": ...}`.

The protocol uses a private copy of the original stdout; file descriptor 1
is pointed at stderr, so whatever native code prints cannot corrupt it.
"""

from __future__ import annotations

import json
import os
import sys
import traceback


def _protocol_stream():
    out = os.fdopen(os.dup(1), "w", buffering=1, encoding="utf-8")
    os.dup2(2, 1)
    sys.stdout = sys.stderr
    return out


def serve(inp, out) -> None:
    from .draw import case_random, draw
    from .outcome import Defect
    from .targets import load_target

    out.write(json.dumps({"ready": True}) + "\n")
    out.flush()
    for line in inp:
        request = json.loads(line)
        target = load_target(request["target"])
        rng = case_random(request["target"], request["seed"], request["index"])
        try:
            case = request.get("case") or draw(target.strategy(), rng)
            line = json.dumps({"case": case})
        except Exception:  # a generator bug: reported as a defect of the harness, not a lost worker
            out.write(json.dumps({"case": None}) + "\n")
            out.write(json.dumps({"outcome": "exception", "detail": "drawing the case failed:\n"
                                  + traceback.format_exc()[-3000:]}) + "\n")
            out.flush()
            continue
        out.write(line + "\n")
        out.flush()
        print(f"--- case {request['target']} {request['seed']}:{request['index']}", file=sys.stderr, flush=True)
        try:
            outcome = target.check(case)
            reply = {"outcome": outcome.kind, "detail": outcome.detail}
        except Defect as d:
            reply = {"outcome": d.kind, "detail": d.detail}
        except BaseException as e:  # a check that itself failed is reported, not lost
            reply = {"outcome": "exception", "detail": "the check itself raised:\n" + traceback.format_exc()[-3000:]}
            if isinstance(e, KeyboardInterrupt):
                raise
        out.write(json.dumps(reply) + "\n")
        out.flush()


def main() -> None:
    out = _protocol_stream()
    serve(sys.stdin, out)


if __name__ == "__main__":
    main()
