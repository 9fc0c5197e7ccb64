"""The OpInfo suite's expected failures: one reviewed table, a reason each.

As for the e2e suite's `xfail=`, per mode; a case listed here that passes is
reported as xpass and fails the run, so the table cannot silently go stale.

Keys (selectors), the most specific match wins:
  "<op>"                   every sample of the op, every dtype
  "<op>/<dtype>"           every sample at that dtype
  "<op>/<dtype>/<index>"   one sample
where <op> is OpInfo's name plus ".<variant>" when it has one (`opinfo.op_id`).

`WRONG_LOWERING` is apart on purpose: ops stock mode compiles and runs but
whose numbers differ from eager PyTorch. It is the list a later `auto` mode
reads (it tunnels those ops), so each entry carries the sample that shows it.
Its entries are stock-mode expected failures too (selective inherits them).
"""

from __future__ import annotations

import dataclasses

__all__ = ["WrongLowering", "WRONG_LOWERING", "XFAIL", "expected_failures", "selectors"]


@dataclasses.dataclass(frozen=True)
class WrongLowering:
    """Stock mode's result differs from eager on this sample."""

    op: str
    dtype: str
    index: int  # the sample, as in opinfo.case_name
    max_diff: float  # largest |actual - expected| seen (inf: NaN/inf where eager has a number, or v.v.)
    detail: str  # what differs, in a few words

    @property
    def selector(self) -> str:
        return f"{self.op}/{self.dtype}/{self.index}"

    @property
    def reason(self) -> str:
        return f"wrong-lowering: stock's result differs from eager by up to {self.max_diff:.3g} ({self.detail})"


WRONG_LOWERING: tuple[WrongLowering, ...] = (
)

# mode -> selector -> reason.
XFAIL: dict[str, dict[str, str]] = {
    "stock": {
    },
    "selective": {
    },
    "dummy": {
    },
}


def selectors(op: str, dtype: str, index: int) -> list[str]:
    """The keys that can name this sample, most specific first."""
    return [f"{op}/{dtype}/{index}", f"{op}/{dtype}", op]


def expected_failures(op: str, dtype: str, index: int) -> dict[str, str]:
    """mode -> reason for the sample's case, from XFAIL and WRONG_LOWERING."""
    keys = selectors(op, dtype, index)
    found = {}
    for mode, table in XFAIL.items():
        reason = next((table[k] for k in keys if k in table), None)
        if reason is not None:
            found[mode] = reason
    wrong = next((w for w in WRONG_LOWERING if w.selector == keys[0]), None)
    if wrong is not None and keys[0] not in XFAIL.get("stock", {}):
        found["stock"] = wrong.reason
    return found
