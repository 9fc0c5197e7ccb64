"""Auto mode's feedback: what fails after auto mode decided is tunneled next time.

Auto mode decides per op instance, from probes and trial lowerings of copies
(tunnel/auto.py). A stage after those decisions can still fail on what it
left to torch-mlir: the lowering to the backend contract, the whole
program's lowering to TOSA (a carrier left without its tunneled op, a
zero-size literal), the target check. Auto mode promises a program whenever
dummy or stock mode makes one, so such a failure is not the end: torch-mlir's
passes and TorchToTosa give the ops they make the location of the op they
rewrite, so the failing diagnostics' locations (and the torch ops the error
names) point at the imported op instances responsible. Those are tunneled
at import, as PyTorch wrote them, in a new `Attempt` on a fresh import, at
most `MAX_ROUNDS` times; a round that finds no new instance ends the search
and the error stands. Each instance keeps the stage that forced it, for the
report (CompileReport.tunneled[i].stage, tunnel/auto.py STAGES).
"""

from __future__ import annotations

import dataclasses

from ..core.diagnostics import CompileError
from ..tunnel.auto import STAGES
from ..tunnel.options import Site

__all__ = ["Feedback", "MAX_ROUNDS"]

MAX_ROUNDS = 4
# The stage of an Attempt that failed -> the category its culprits are tunneled in.
_CATEGORY = {"contract": "no-tosa-lowering", "lowering": "no-tosa-lowering", "target": "not-conformant"}


@dataclasses.dataclass
class Feedback:
    """What earlier attempts learnt: the imported op instances (`OP#N`, as
    `tosa-custom-auto-at-import` counts them) to tunnel at import, and why."""

    at_import: dict[str, list[str]] = dataclasses.field(default_factory=dict)  # category -> instances
    why: dict[str, tuple[str, str]] = dataclasses.field(default_factory=dict)  # instance -> (stage, reason)
    rounds: int = 0

    def learn(self, stage: str, imported: dict[str, list[str]], error: CompileError) -> bool:
        """Take the culprits of `error`, raised at `stage` by an attempt whose
        import had `imported` (location -> instances); whether a retry may help."""
        if stage not in _CATEGORY or self.rounds >= MAX_ROUNDS:
            return False
        found = [i for i in _culprits(imported, error) if i not in self.why]
        if not found:
            return False
        errors = [d for d in error.diagnostics if d.severity == "error"]
        message = (errors[0].message if errors else str(error).splitlines()[0])[:300]
        self.rounds += 1
        self._add(_CATEGORY[stage], found, f"retry-{stage}", message)
        return True

    def replaced(self, by_category: dict[str, dict[str, str]]) -> bool:
        """Take the instances torch-mlir replaced by ops auto mode tunneled
        (Attempt.replaced: category -> instance -> what took its place);
        whether any is new."""
        new = False
        for category, instances in by_category.items():
            fresh = [i for i in instances if i not in self.why]
            if fresh and self.rounds < MAX_ROUNDS:
                self.at_import.setdefault(category, []).extend(fresh)
                self.why.update({i: ("replaced", instances[i]) for i in fresh})
                new = True
        self.rounds += new
        return new

    def explained(self, site: Site, instances: list[str]) -> Site:
        """`site` (tunneled at import, where `instances` were imported) with
        the stage and error that made an earlier attempt or round tunnel it."""
        for instance in instances:
            if instance.partition("#")[0] == site.identifier and (instance in self.why or site.identifier in self.why):
                stage, reason = self.why.get(instance) or self.why[site.identifier]
                return dataclasses.replace(site, stage=stage,
                                           reason=f"{STAGES[stage]}: {reason}" if reason else STAGES[stage])
        return site

    def _add(self, category: str, instances: list[str], stage: str, reason: str) -> None:
        self.at_import.setdefault(category, []).extend(instances)
        for instance in instances:
            self.why[instance] = (stage, reason)


def _culprits(imported: dict[str, list[str]], error: CompileError) -> list[str]:
    """The imported instances at the locations of the error's diagnostics
    (their notes too), then every instance of a torch op the error names."""
    found: list[str] = []
    pending = list(error.diagnostics)
    while pending:
        d = pending.pop(0)
        if d.severity in ("error", "note"):
            found += imported.get(d.location, [])
        pending += d.notes
    named = set(error.ops)
    found += [i for instances in imported.values() for i in instances if i.partition("#")[0] in named]
    return list(dict.fromkeys(found))
