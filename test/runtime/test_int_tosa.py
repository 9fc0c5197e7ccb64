"""INT TOSA on our executors, bit for bit against TOSA's reference model
(which defines the semantics): hand-written programs of each op family
(_int_programs.py) on runtime.load, iree.load and refmodel.load, on random
inputs with the extremes of each type at the first positions."""

from __future__ import annotations

import pytest
import torch

from tosa_custom import refmodel, runtime
from tosa_custom.core.diagnostics import CompileError

from _int_programs import PROGRAMS

pytestmark = pytest.mark.usefixtures("tosa_tools")

SEEDS = (0, 1)


def _executors():
    found = {"runtime": runtime.load}
    try:
        import iree.compiler  # noqa: F401
        import iree.runtime  # noqa: F401
    except ImportError:  # pragma: no cover - IREE is a test dependency
        return found
    from tosa_custom import iree as iree_executor

    found["iree"] = iree_executor.load
    return found


def _results(out) -> list[torch.Tensor]:
    return list(out) if isinstance(out, (tuple, list)) else [out]


@pytest.mark.parametrize("executor", ["runtime", "iree"])
@pytest.mark.parametrize("name", sorted(PROGRAMS))
def test_equals_the_reference_model(name, executor):
    case = PROGRAMS[name]
    load = _executors().get(executor)
    if load is None:
        pytest.skip(f"{executor} is not installed")
    if executor in case.refused_by:
        with pytest.raises(CompileError, match=case.refused_by[executor]):
            load(case.text)
        return
    reference, program = refmodel.load(case.text), load(case.text)
    for seed in SEEDS:
        inputs = case.inputs(seed)
        expected = _results(reference(*inputs))
        got = _results(program(*inputs))
        for variant, e, g in zip(case.variants, expected, got):
            assert g.dtype == e.dtype and torch.equal(g, e), \
                f"{name} [{variant}] seed {seed}: {int((g != e).sum())} of {e.numel()} differ\n" \
                f"input {inputs}\nexpected {e}\ngot {g}"
