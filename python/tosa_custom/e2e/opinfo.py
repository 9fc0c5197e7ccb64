"""A second e2e suite nobody here wrote: PyTorch's OpInfo database.

`torch.testing._internal.common_methods_invocations.op_db` describes every
op PyTorch tests, with sample inputs per dtype. Each sample becomes an e2e
`Case` (module calling the op with the sample's arguments, eager PyTorch as
the reference), registered in the same registry as the e2e files' cases, so
the audit's workers, timeouts, reports and exit status apply unchanged.

The audit names the suite with a spec string in place of a case file
(`opinfo:dtypes=float32,int64;samples=1`, see `spec`), so a spawned worker
rebuilds exactly the supervisor's cases from the string alone.

Sampling: per op and dtype, the first `samples` sample inputs in OpInfo's
own order (`samples=all`: every one, as a stranger's test would meet them),
generated with torch seeded 0, so the selection is deterministic; samples without a tensor argument, with
non-strided (sparse) tensors, or on ops without the dtype are left out, each
with a reason (`skipped`). Expected failures come from one reviewed table,
`opinfo_expectations`.
"""

from __future__ import annotations

import contextlib
import dataclasses
import itertools
import re
import unittest.mock
import warnings
from typing import Callable

import torch
import torch.utils._pytree as pytree

from .opinfo_expectations import expected_failures
from .registry import Case, case, get_case

__all__ = ["SPEC_PREFIX", "DEFAULT_DTYPES", "ALL_DTYPES", "EVERY_SAMPLE", "parse_samples", "OpInfoSample", "Skipped", "SampleModule", "spec", "parse_spec",
           "is_spec", "load", "skipped", "sample_of", "pairs_of", "op_id", "declared_tolerance", "tolerance", "case_name"]

SPEC_PREFIX = "opinfo:"
DEFAULT_DTYPES = ("float32", "int64")
FAMILY_PREFIX = "opinfo-"  # the family is per dtype, so the report counts each dtype apart

# The suite's defaults where OpInfo declares nothing: as the e2e suite for
# floating point; integers and bools must match exactly.
_FLOAT_TOL = (1e-5, 1e-5)  # (rtol, atol)
_EXACT_TOL = (0.0, 0.0)
_UNINITIALIZED = re.compile(r"^(new_)?empty")


@dataclasses.dataclass(frozen=True)
class OpInfoSample:
    """Where a case's sample comes from: enough to regenerate it anywhere."""

    op: str  # op_id(): OpInfo's name, plus ".variant" when it has one
    dtype: str
    index: int  # position in op.sample_inputs("cpu", dtype), torch seeded 0


@dataclasses.dataclass(frozen=True)
class Skipped:
    """A sample (or a whole op, index None) the suite does not run, and why."""

    op: str
    dtype: str
    index: int | None
    reason: str


# (spec, pairs) -> (case names, skipped), so loading twice in one process is a no-op.
_LOADED: dict[tuple, tuple[list[str], list[Skipped]]] = {}
_SAMPLES: dict[str, OpInfoSample] = {}  # case name -> its sample
_SAMPLE_CACHE: dict[tuple, tuple[bool, list]] = {}  # (op_id, dtype) -> (exhausted, samples)
# Statistics of fewer values cannot tell a wrong distribution from another draw.
_MIN_RANDOM_VALUES = 64


# Every dtype the suite can sample, in the order a full run takes them.
ALL_DTYPES = ("float32", "float16", "bfloat16", "int64", "int32", "bool", "uint8")
EVERY_SAMPLE = "all"


def spec(dtypes=DEFAULT_DTYPES, samples: "int | str | None" = 1, ops: str | None = None) -> str:
    """The spec string that names this suite selection in place of a case
    file; `samples` None or "all": every sample of each op and dtype."""
    samples = EVERY_SAMPLE if samples is None else samples
    text = f"{SPEC_PREFIX}dtypes={','.join(dtypes)};samples={samples}"
    return text + (f";ops={ops}" if ops else "")


def is_spec(text) -> bool:
    return str(text).startswith(SPEC_PREFIX)


def parse_samples(text: str) -> int | None:
    """`--samples`: a count >= 1, or "all" (None: every sample)."""
    if str(text).strip().lower() == EVERY_SAMPLE:
        return None
    try:
        samples = int(text)
    except ValueError:
        raise ValueError(f"--samples must be a number >= 1 or '{EVERY_SAMPLE}', not {text!r}") from None
    if samples < 1:
        raise ValueError(f"--samples must be >= 1 (or '{EVERY_SAMPLE}')")
    return samples


def parse_spec(text: str) -> tuple[tuple[str, ...], int | None, str | None]:
    """(dtypes, samples per op and dtype (None: all), op-name regex or None);
    ValueError names what is wrong."""
    if not is_spec(text):
        raise ValueError(f"not an OpInfo suite spec: {text!r}")
    fields = dict(part.split("=", 1) for part in text[len(SPEC_PREFIX):].split(";") if "=" in part)
    dtypes = tuple(d.strip() for d in fields.get("dtypes", ",".join(DEFAULT_DTYPES)).split(",") if d.strip())
    for d in dtypes:
        if not isinstance(getattr(torch, d, None), torch.dtype):
            raise ValueError(f"--dtypes: {d!r} is not a torch dtype (e.g. float32, int64)")
    samples = parse_samples(fields.get("samples", "1"))
    ops = fields.get("ops")
    if ops:
        re.compile(ops)
    return dtypes, samples, ops


def op_id(op) -> str:
    """The op's name in the expectations table: OpInfo's name and variant."""
    return f"{op.name}.{op.variant_test_name}" if op.variant_test_name else op.name


def case_name(op: str, dtype: str, index: int) -> str:
    """`OpInfoModule_<op>_<dtype>_<index>`: the registry's name pattern, readable back."""
    # Spelled so distinct ops stay distinct: `__rsub__` is not `rsub`, `T` not `t`.
    spelled = re.sub(r"^__(.*)__", r"dunder_\1", op)
    spelled = re.sub(r"[A-Z]", lambda m: m[0].lower() + "_cap", spelled)
    slug = re.sub(r"[^a-z0-9]+", "_", spelled).strip("_")
    return f"OpInfoModule_{slug}_{dtype}_{index}"


def _op_db():
    """op_db by op_id (needs `expecttest`, which the test extras install)."""
    # Lazily: OpInfo's database takes seconds to import, and needs a test extra.
    from torch.testing._internal.common_methods_invocations import op_db

    return {op_id(op): op for op in op_db}


@contextlib.contextmanager
def _without_test_bookkeeping():
    """Generate samples without two costs of PyTorch's test harness that
    change no sample: each sample iterator walks the Python stack for a
    unittest test to name (`extract_test_fn`, None outside one), and the
    seed set before each sample is queued for CUDA with a formatted stack
    (`torch.cuda.manual_seed_all`, a no-op without CUDA). They were 80% of
    loading every sample of every dtype: 88 s a process, paid by the audit's
    supervisor and each worker of each shard."""
    from torch.testing._internal import common_utils
    from torch.testing._internal.opinfo import core

    with contextlib.ExitStack() as stack:
        for module in (common_utils, core):  # core imports the name: patched where each looks it up
            stack.enter_context(unittest.mock.patch.object(module, "extract_test_fn", lambda: None))
        if not torch.cuda.is_available():
            stack.enter_context(unittest.mock.patch.object(torch.cuda, "manual_seed_all", lambda seed: None))
        yield


def _samples(op, dtype: torch.dtype, count: int | None) -> list:
    """The first `count` samples (None: all), torch seeded 0: the same ones in every process.
    Kept per process: a case builds its module and inputs from the samples the
    load made (inputs are cloned, so a case cannot change them for the next)."""
    key = (op_id(op), dtype)
    cached = _SAMPLE_CACHE.get(key)
    if cached is None or not cached[0] and (count is None or len(cached[1]) < count):
        with warnings.catch_warnings(), _without_test_bookkeeping():
            warnings.simplefilter("ignore")
            torch.manual_seed(0)
            found = list(itertools.islice(op.sample_inputs("cpu", dtype), count))
        cached = _SAMPLE_CACHE[key] = (count is None or len(found) < count, found)  # (exhausted, samples)
    return cached[1][:count]


class SampleModule(torch.nn.Module):
    """Calls `fn` on one sample: the tensors are the module's inputs (the
    runtime passes tensors only); everything else is baked in as constants."""

    def __init__(self, fn: Callable, sample):
        super().__init__()
        self.fn = fn
        leaves, self.spec = pytree.tree_flatten((sample.input, tuple(sample.args), dict(sample.kwargs)))
        self.tensor_at = [i for i, x in enumerate(leaves) if isinstance(x, torch.Tensor)]
        self.constants = [None if isinstance(x, torch.Tensor) else x for x in leaves]

    def forward(self, *tensors):
        leaves = list(self.constants)
        for i, t in zip(self.tensor_at, tensors):
            leaves[i] = t
        first, args, kwargs = pytree.tree_unflatten(leaves, self.spec)
        return self.fn(first, *args, **kwargs)

    @staticmethod
    def tensors(sample) -> tuple:
        """The sample's tensors, contiguous (the runtime takes contiguous inputs)."""
        leaves = pytree.tree_leaves((sample.input, tuple(sample.args), dict(sample.kwargs)))
        return tuple(x.contiguous().clone() for x in leaves if isinstance(x, torch.Tensor))


def _unrunnable(op, sample) -> str | None:
    """Why a sample cannot be a case, or None."""
    leaves = pytree.tree_leaves((sample.input, tuple(sample.args), dict(sample.kwargs)))
    tensors = [x for x in leaves if isinstance(x, torch.Tensor)]
    if not tensors:
        return "no tensor argument (a factory call): nothing for the program to take as input"
    if _UNINITIALIZED.match(op.name):
        return "the result is uninitialized memory (empty*): no value or statistic to compare"
    if _is_random(op) and max(t.numel() for t in tensors) < _MIN_RANDOM_VALUES:
        return (f"a random op on fewer than {_MIN_RANDOM_VALUES} values: statistics cannot tell a wrong "
                f"distribution from another draw")
    if any(t.layout != torch.strided for t in tensors):
        return "a sparse or other non-strided tensor argument: the runtime takes dense tensors"
    return None


def sample_of(name: str) -> OpInfoSample:
    """The OpInfo sample behind a case of a loaded spec."""
    return _SAMPLES[name]


def declared_tolerance(op, dtype: torch.dtype) -> tuple[float, float] | None:
    """(rtol, atol) OpInfo declares for comparing `op` at `dtype`, or None.

    OpInfo declares tolerances per test, as `toleranceOverride` decorators
    inside `DecorateInfo`s; none is about our test, so we take the loosest one
    OpInfo declares for this dtype on CPU (or on any device), in any test:
    OpInfo's own statement of how far two correct implementations may differ.
    """
    # Lazily, as _op_db: only the OpInfo suite needs them.
    from torch.testing._internal.common_device_type import toleranceOverride
    from torch.testing._internal.opinfo.core import DecorateInfo

    rtol = atol = None
    for info in op.decorators:
        wrapped = [info] if not isinstance(info, DecorateInfo) else (
            info.decorators if info.device_type in (None, "cpu")
            and (info.dtypes is None or dtype in info.dtypes) else [])
        for d in wrapped:
            if isinstance(d, toleranceOverride) and dtype in d.d:
                rtol, atol = max(rtol or 0.0, d.d[dtype].rtol), max(atol or 0.0, d.d[dtype].atol)
    return None if rtol is None else (rtol, atol)


def tolerance(op, dtype: torch.dtype, module: "SampleModule", sample) -> tuple[float, float]:
    """(rtol, atol) for a case: the suite's defaults, loosened where OpInfo
    declares more; exact only when every result is an integer or bool (an
    int64 sample of `atan` has a float result, compared as floats are).

    A declared tolerance never tightens the defaults: OpInfo declares `atol=0`
    for matmul's float32 noncontiguous-samples test, which compares one kernel
    with itself; a program that sums in another order is off by a rounding
    (8e-6 on a 1e-5-relative element of every-sample matmul/float32/11)."""
    declared = declared_tolerance(op, dtype)
    if dtype.is_floating_point or dtype.is_complex:
        default = _float_tolerance(dtype)
        return default if declared is None else (max(declared[0], default[0]), max(declared[1], default[1]))
    if declared is not None:
        return declared
    try:
        with torch.no_grad():
            results = pytree.tree_leaves(module(*SampleModule.tensors(sample)))
    except Exception:
        return _EXACT_TOL  # eager fails: the runner reports eager-failed, whatever the tolerance
    inexact = any(isinstance(r, float) or isinstance(r, torch.Tensor) and (r.is_floating_point() or r.is_complex())
                  for r in results)
    return _FLOAT_TOL if inexact else _EXACT_TOL


def _float_tolerance(dtype: torch.dtype) -> tuple[float, float]:
    """The suite's default for a floating dtype: 1e-5 as the e2e suite where
    that is above one rounding of the dtype; for float16 and bfloat16, whose
    one rounding is 5e-4 and 4e-3, `torch.testing.assert_close`'s defaults
    for them (what OpInfo's own tests hold an op to when they declare nothing),
    since a program that computes in float32 and rounds once differs from
    eager, which rounds at each step, by about that much."""
    from torch.testing._comparison import default_tolerances

    rtol, atol = default_tolerances(dtype)
    return max(rtol, _FLOAT_TOL[0]), max(atol, _FLOAT_TOL[1])


def _is_random(op) -> bool:
    """OpInfo makes its random ops reproducible by wrapping them in
    `wrapper_set_seed` (its own mark of a seeded op); the program does not
    reseed, so these are compared by statistics, never by value."""
    code = getattr(op.op, "__code__", None)
    return code is not None and "wrapper_set_seed" in code.co_names


def _selective_ops(op) -> tuple[str, ...]:
    """The ATen op selective mode keeps: OpInfo's aten_name, when PyTorch has it."""
    name = getattr(op, "aten_name", None) or op.name
    if not hasattr(torch.ops.aten, name):
        return ()
    return (f"aten.{name}",)


def _register_sample(op, oid: str, dtype: torch.dtype, index: int, sample) -> str:
    """Register one sample as a case; return its name."""
    dname = str(dtype).replace("torch.", "")
    name = case_name(oid, dname, index)
    rtol, atol = tolerance(op, dtype, SampleModule(op.op, sample), sample)

    def factory():
        return SampleModule(op.op, _samples(op, dtype, index + 1)[index])

    def inputs():
        return SampleModule.tensors(_samples(op, dtype, index + 1)[index])

    case(inputs=inputs, family=FAMILY_PREFIX + dname, xfail=expected_failures(oid, dname, index),
         compare="statistics" if _is_random(op) else "values", rtol=rtol, atol=atol,
         selective_ops=_selective_ops(op), name=name,
         export_strict=False,  # the harness is ours, not a model: dynamo tracing it tests nothing
         reviewed=False)(factory)  # no conformance table yet: outputs are recorded, not held to validating
    _SAMPLES[name] = OpInfoSample(oid, dname, index)
    return name


def _register_op(op, oid: str, dtype: torch.dtype, count: int | None, skips: list[Skipped]) -> list[str]:
    """Register the op's first `count` samples (None: all) at `dtype`; note what is left out."""
    dname = str(dtype).replace("torch.", "")
    if dtype not in op.supported_dtypes("cpu"):
        return []  # not a skip: OpInfo says the op has no such dtype
    try:
        samples = _samples(op, dtype, count)
    except Exception as e:
        skips.append(Skipped(oid, dname, None, f"OpInfo's sample_inputs raised {type(e).__name__}: {e}"))
        return []
    names = []
    for index, sample in enumerate(samples):
        if _SAMPLES.get(case_name(oid, dname, index)) == OpInfoSample(oid, dname, index):
            names.append(case_name(oid, dname, index))  # registered by another spec in this process
            continue
        why = _unrunnable(op, sample)
        if why is None and case_name(oid, dname, index) in _SAMPLES:
            why = f"its case name {case_name(oid, dname, index)} is taken by another op"
        if why:
            skips.append(Skipped(oid, dname, index, why))
            continue
        names.append(_register_sample(op, oid, dtype, index, sample))
    return names


def load(text: str, pairs: frozenset[tuple[str, str]] | None = None) -> list[Case]:
    """Register the cases `text` (a spec) names, once per process; return them.
    `pairs`: only those of these (op id, dtype) pairs (`pairs_of`), which is
    all an audit worker needs of a shard: the same cases under the same
    names, in a fraction of the time every sample of every op takes."""
    if (text, pairs) not in _LOADED:
        with warnings.catch_warnings():  # op_db's import warns about deprecated and beta APIs
            warnings.simplefilter("ignore")
            _load(text, pairs)
    return [get_case(n) for n in _LOADED[text, pairs][0]]


def _load(text: str, pairs: frozenset[tuple[str, str]] | None) -> None:
    """Build the suite: every op of op_db matching the spec, at each dtype.
    Ops load in op_db's order even when `pairs` narrows them, so a case name
    two ops share goes to the same op (the first) either way."""
    dtypes, count, ops = parse_spec(text)
    pattern = re.compile(ops) if ops else None
    names: list[str] = []
    skips: list[Skipped] = []
    for oid, op in _op_db().items():
        if pattern is None or pattern.search(oid):
            for dname in dtypes:
                if pairs is None or (oid, dname) in pairs:
                    names += _register_op(op, oid, getattr(torch, dname), count, skips)
    _LOADED[text, pairs] = (names, skips)


def pairs_of(names) -> frozenset[tuple[str, str]]:
    """The (op id, dtype) pairs of those of `names` that are OpInfo cases."""
    return frozenset((s.op, s.dtype) for s in (_SAMPLES.get(n) for n in names) if s is not None)


def skipped(text: str) -> list[Skipped]:
    """What `load(text)` left out, with reasons (load it first)."""
    return list(_LOADED[text, None][1])
