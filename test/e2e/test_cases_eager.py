"""The e2e suite's cases (e2e/*.py) themselves: each runs in eager PyTorch,
names are unique and follow the pattern, and the suite covers every family.

This checks the suite, not the compiler: a case that cannot run eagerly would
make every mode's verdict meaningless.
"""

from __future__ import annotations

import collections
import importlib.util
import os
import pathlib

os.environ.setdefault("HF_HUB_OFFLINE", "1")  # model cases build transformers models offline
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")

import pytest
import torch
import torch.utils._pytree as pytree

from tosa_custom.e2e import NAME_PATTERN, cases
from tosa_custom.e2e.vision import TorchvisionUnavailable
from tosa_custom.frontend.quantized import fixed_mode

SUITE = pathlib.Path(__file__).resolve().parents[2] / "e2e"

FAMILIES = (
    "elementwise", "comparison", "reduction", "matmul", "convolution", "pooling", "normalization",
    "activation", "softmax", "attention", "embedding", "indexing", "shape", "cumulative", "sort",
    "conversion", "integer", "boolean", "random", "model", "misc", "inplace", "dynamic", "dynamic_model", "quantized",
    "torchvision",
)
MIN_CASES = 300
MIN_MODELS = 6


def _load_suite() -> list:
    """Import every e2e/*.py by path (as the audit does), once per process."""
    loaded = {c.source for c in cases()}
    for path in sorted(SUITE.glob("*.py")):
        if str(path) in loaded or path.name.startswith("_"):
            continue
        spec = importlib.util.spec_from_file_location(f"e2e_suite_{path.stem}", path)
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
    return [c for c in cases() if pathlib.Path(c.source).parent == SUITE]


SUITE_CASES = _load_suite()


def test_suite_size_and_families():
    per_family = collections.Counter(c.family for c in SUITE_CASES)
    assert len(SUITE_CASES) >= MIN_CASES, per_family
    assert set(per_family) <= set(FAMILIES), set(per_family) - set(FAMILIES)
    missing = set(FAMILIES) - set(per_family)
    assert not missing, f"no case in families {sorted(missing)}"
    assert per_family["model"] >= MIN_MODELS


def test_names():
    names = [c.name for c in SUITE_CASES]
    assert len(names) == len(set(names))
    bad = [n for n in names if not NAME_PATTERN.match(n)]
    assert not bad


def test_statistics_cases_are_random_ops():
    """compare='statistics' hides wrong values: keep it to the random family."""
    assert {c.family for c in SUITE_CASES if c.compare == "statistics"} <= {"random"}


def _flat(out) -> list:
    return pytree.tree_leaves(out)


def _eval(model):
    """eval() as the runner does: a PT2E model's mode is fixed (it refuses eval())."""
    return model if fixed_mode(model) else model.eval()


@pytest.mark.parametrize("case", SUITE_CASES, ids=lambda c: c.name)
def test_case_runs_eagerly(case):
    torch.manual_seed(0)
    args = case.inputs()
    assert isinstance(args, tuple), "inputs() must return a tuple"
    try:
        model = case.factory()
    except TorchvisionUnavailable as e:  # the torchvision family without torchvision: said, not failed
        pytest.skip(str(e))
    assert isinstance(model, torch.nn.Module)
    with torch.no_grad():
        first = _flat(_eval(model)(*args))
        torch.manual_seed(0)
        args_again = case.inputs()
        again = _flat(_eval(case.factory())(*args_again))
    assert first, "the model returns nothing"
    assert len(first) == len(again)
    for a, b in zip(first, again):
        assert type(a) is type(b)
        if isinstance(a, torch.Tensor) and case.compare in ("values", "quantized"):
            # Reproducible: same seed, same inputs and same result, or the
            # audit could not compare against eager at all.
            torch.testing.assert_close(a, b, equal_nan=True)
