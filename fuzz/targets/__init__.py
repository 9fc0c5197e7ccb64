"""The fuzz targets, by name. Each module has:

- `strategy()`: a hypothesis strategy of cases (JSON-able dicts);
- `check(case) -> Outcome`: runs one case, raises `Defect` on a defect;
- `setup()` (optional): one-time work in a worker (e.g. loading programs).

A native-kernel runtime target (issue 6) is one more module here, with the
same shape as `runtime`.
"""

from __future__ import annotations

import importlib

__all__ = ["TARGETS", "DEFAULT_TARGETS", "load_target"]

TARGETS = {
    "pass": "fuzz.targets.pass_",
    "opt": "fuzz.targets.opt",
    "decode": "fuzz.targets.decode",
    "runtime": "fuzz.targets.runtime",
    "selftest": "fuzz.targets.selftest",  # the supervisor's own test: aborts, hangs, ...
}
DEFAULT_TARGETS = ("pass", "opt", "decode", "runtime")


def load_target(name: str):
    if name not in TARGETS:
        raise ValueError(f"unknown fuzz target '{name}': expected one of {', '.join(TARGETS)}")
    module = importlib.import_module(TARGETS[name])
    if hasattr(module, "setup") and not getattr(module, "_set_up", False):
        module.setup()
        module._set_up = True
    return module
