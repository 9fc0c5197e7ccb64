"""The e2e case registry: one `@case` next to each module factory.

A case is what torch-mlir's e2e suite calls a test: a module factory, the
example inputs, and the expected failures kept beside it (per mode, each with
its reason), so the audit can tell an expected failure from a regression and
an unexpected pass from luck. Beside `xfail` sits `nonconformant`: the modes
whose TOSA is expected not to validate for its target (CONTRACT.md §13), each
with the reason no conformant equivalent exists; the audit holds every other
output to validating. Cases are registered by importing the file that
declares them; the audit imports the suite's files and users' own files alike.
"""

from __future__ import annotations

import dataclasses
import re
from typing import Callable, Iterator, Mapping, Sequence

import torch

from ..core.registry import Registry

__all__ = ["Case", "MODES", "EXECUTORS", "COMPARISONS", "case", "cases", "get_case", "NAME_PATTERN", "xfail_except"]

MODES = ("stock", "selective", "dummy", "auto")

# What runs a compiled case: the reference runtime (every kernel kind),
# IREE (tosa_custom.iree: IREE's code for the TOSA, the kept ops by the
# kernels the reference runtime chooses: native where one takes the op,
# else its Python kernel, called back from IREE's workers), or
# TOSA's reference model (tosa_custom.refmodel: the TOSA between kept ops
# interpreted by the specification's model, the kept ops by our kernels), or
# Vulkan (tosa_custom.vgf: a VGF of Arm's ML SDK, the kept ops as compute shaders).
EXECUTORS = ("reference", "iree", "refmodel", "vgf")

# "values": allclose against eager; "statistics": outputs of random ops are
# compared by shape, dtype and mean/std (see runner), never by value;
# "quantized": a PT2E model's outputs within 1 LSB of each one's scale (e2e/quantized.py).
COMPARISONS = ("values", "statistics", "quantized")

NAME_PATTERN = re.compile(r"^[A-Z][A-Za-z0-9]*Module_[a-z0-9_]+$")


@dataclasses.dataclass(frozen=True)
class Case:
    name: str
    factory: Callable[[], torch.nn.Module]
    inputs: Callable[[], tuple]
    family: str
    xfail: Mapping[str, str]  # mode -> reason
    compare: str = "values"
    rtol: float = 1e-5
    atol: float = 1e-5
    selective_ops: Sequence[str] = ()  # the ops `selective` mode keeps for this case, if not given on the command line
    source: str = ""  # file that declared it
    calls: int = 1  # how many times the same inputs are run: state (buffers) carries from call to call
    # compile()'s export_strict: "auto" tries strict (dynamo) capture first, as a
    # user's model would be; a generated harness around one op call (the OpInfo
    # suite) gains nothing from dynamo tracing the harness and says False.
    export_strict: "bool | str" = "auto"
    # mode -> why its output cannot validate for the TOSA target; None: never
    # reviewed (generated suites), so conformance is recorded but not held to.
    nonconformant: Mapping[str, str] | None = dataclasses.field(default_factory=dict)
    # compile()'s dynamic_shapes (torch.export's spec; a callable, as Dims are made fresh), and more
    # input tuples the one compiled program runs on after `inputs`: each compared with eager.
    dynamic_shapes: Callable[[], object] | None = None
    sizes: Callable[[], Sequence[tuple]] | None = None

    def input_sets(self) -> list[tuple]:
        """Every input tuple a case runs: `inputs`, then each of `sizes`."""
        return [tuple(self.inputs())] + [tuple(s) for s in (self.sizes() if self.sizes else ())]

    def expected_nonconformance(self, mode: str) -> str | None:
        """Why `mode`'s output is listed as not validating. Selective mode
        lowers the ops it does not keep as stock does, so it inherits stock's
        listing unless it says otherwise (`conformance_inherited`)."""
        if self.nonconformant is None:
            return None
        return self.nonconformant.get(mode) or self.conformance_inherited(mode)

    def conformance_inherited(self, mode: str) -> str | None:
        """Stock's listing, for selective mode when it lists none of its own:
        keeping an op may make the output validate, which is news, not an error.
        Auto mode tunnels what breaks the target where it can, so dummy's or
        stock's listing (what stays: f64 or i64 values at the boundary) holds
        for it in the same way."""
        if self.nonconformant and mode not in self.nonconformant:
            for source in {"selective": ("stock",), "auto": ("dummy", "stock")}.get(mode, ()):
                if self.nonconformant.get(source):
                    return self.nonconformant[source]
        return None

    def expected_failure(self, mode: str, executor: str = "reference") -> str | None:
        """Why the case fails in `mode`; on another executor, an `xfail` keyed
        "<executor>/<mode>" (its own limit in that mode only), then one keyed
        by its name (its own limits, in any mode) comes first."""
        if executor != "reference":
            for key in (f"{executor}/{mode}", executor):
                if key in self.xfail:
                    return self.xfail[key]
        return self.xfail.get(mode)

    def inherited_failure(self, mode: str) -> str | None:
        """Selective mode lowers every op it does not keep as stock does, so a
        case expected to fail in stock is expected to fail there too, unless
        it says otherwise; keeping an op may fix it, which is news, not an error.
        Auto mode tunnels what stock cannot lower: what fails with every op
        tunneled (dummy) is expected to fail there too, unless it says otherwise."""
        inherits = {"selective": "stock", "auto": "dummy"}.get(mode)
        if inherits and mode not in self.xfail:
            return self.xfail.get(inherits)
        return None


def xfail_except(executor: str, reason: str, *modes: str) -> dict[str, str]:
    """An `xfail` for a limit of `executor`'s own in every mode but `modes`
    ("<executor>/<mode>" keys): e.g. IREE's code for an op, which dummy mode
    never runs (it keeps every op, run by its kernel)."""
    unknown = set(modes) - set(MODES)
    if unknown:
        raise ValueError(f"xfail_except: modes {sorted(unknown)} are not among {MODES}")
    return {f"{executor}/{m}": reason for m in MODES if m not in modes}


_CASES: Registry[Case] = Registry("e2e case")


def case(
    *,
    inputs: Callable[[], tuple],
    family: str,
    xfail: Mapping[str, str] | None = None,
    compare: str = "values",
    rtol: float = 1e-5,
    atol: float = 1e-5,
    selective_ops: Sequence[str] = (),
    name: str | None = None,
    calls: int = 1,
    export_strict: "bool | str" = "auto",
    nonconformant: Mapping[str, str] | str | None = None,
    reviewed: bool = True,
    dynamic_shapes: Callable[[], object] | None = None,
    sizes: Callable[[], Sequence[tuple]] | None = None,
):
    """Register the decorated module factory as an e2e case.

    The case is named after the factory (`<Op><Variant>Module_basic`).
    `inputs` builds the example arguments; the runner seeds torch before
    calling it, so inputs are reproducible. `xfail` maps a mode to the reason
    it is expected to fail there, or an executor ("iree", "refmodel", "vgf") to why
    it fails there in any mode (a limit of that executor's own), or
    "<executor>/<mode>" ("iree/stock") to why it fails there in that mode
    only (`xfail_except`). `calls`: run the model that many times on
    copies of the inputs, comparing every call (the model's state carries).
    `nonconformant` maps a mode to why its TOSA cannot validate for the
    target (a string: every mode); `reviewed=False` (generated suites whose
    outputs nobody has checked yet) records conformance without holding to it.
    `dynamic_shapes` (a callable giving torch.export's spec) compiles the case
    once with symbolic dims; `sizes` gives more input tuples, at other sizes
    (the range's ends, 1), that the same program must run and match eager on.
    """
    listed = {m: nonconformant for m in MODES} if isinstance(nonconformant, str) else dict(nonconformant or {})

    def register(factory: Callable[[], torch.nn.Module]):
        case_name = name or factory.__name__
        if not NAME_PATTERN.match(case_name):
            raise ValueError(
                f"e2e case '{case_name}' must be named <Op><Variant>Module_<variant>, e.g. AddTensorModule_basic"
            )
        on_executors = tuple(f"{e}/{m}" for e in EXECUTORS[1:] for m in MODES)
        for field, modes, known in (("xfail", xfail or {}, MODES + EXECUTORS[1:] + on_executors),
                                    ("nonconformant", listed, MODES)):
            unknown = set(modes) - set(known)
            if unknown:
                raise ValueError(f"e2e case '{case_name}': {field} modes {sorted(unknown)} are not among {known}")
        if compare not in COMPARISONS:
            raise ValueError(f"e2e case '{case_name}': compare must be one of {COMPARISONS}, not {compare!r}")
        code = getattr(factory, "__code__", None)
        _CASES.add(
            case_name,
            Case(
                case_name,
                factory,
                inputs,
                family,
                dict(xfail or {}),
                compare,
                rtol,
                atol,
                tuple(selective_ops),
                code.co_filename if code else "",
                calls,
                export_strict,
                listed if reviewed else None,
                dynamic_shapes,
                sizes,
            ),
        )
        return factory

    return register


def cases() -> Iterator[Case]:
    for key in _CASES:
        yield _CASES[key]


def get_case(name: str) -> Case:
    return _CASES[name]
