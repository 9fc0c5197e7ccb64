"""The audit's refmodel executor, in process: a case's TOSA runs on TOSA's
reference model, its kept ops on their kernels, compared with eager; what
the reference model refuses by design (a dynamic shape, TOSA that does not
conform) is an expected refusal with its category; an `xfail` keyed
"refmodel" holds there only."""

import pytest
import torch

from tosa_custom.e2e import Fn, runner
from tosa_custom.e2e.registry import Case

pytestmark = pytest.mark.usefixtures("tosa_tools")

F = torch.nn.functional
_GELU_LAYER_NORM = lambda: Fn(lambda x: F.layer_norm(F.gelu(x), (16,)) * 2)  # noqa: E731


def _case(name, module, inputs, xfail=None, **kwargs):
    return Case(name, module, inputs, "refmodel", dict(xfail or {}), rtol=1e-4, atol=1e-4, **kwargs)


def test_a_case_runs_on_the_reference_model_with_its_kept_ops_on_kernels():
    c = _case("GeluLayerNormModule_refmodel", _GELU_LAYER_NORM, lambda: (torch.randn(4, 8, 16),))
    r = runner.run_case(c, "selective", ["aten.gelu", "aten.layer_norm"], executor="refmodel")
    assert (r.status, r.category, r.executor, r.refused) == ("pass", None, "refmodel", False), r.message
    assert r.converted == {"torch.aten.gelu": 1, "torch.aten.layer_norm": 1}


def test_tosa_that_does_not_conform_is_an_expected_refusal():
    c = _case("DoubleModule_refmodel", lambda: Fn(lambda x: x.double() / 3), lambda: (torch.randn(3, 4),), nonconformant={"stock": "f64"})
    r = runner.run_case(c, "stock", executor="refmodel")
    assert (r.status, r.category, r.refused, r.conformant) == ("xfail", "not-conformant", True, False), r.message
    assert "TOSA has no f64" in r.message
    assert r.xfail_reason == runner.REFMODEL_REFUSALS["not-conformant"]


def test_a_dynamic_shape_is_an_expected_refusal_and_a_refmodel_expectation_holds_there_only():
    failure = runner._Failure("dynamic-shape", "a ? dim")
    assert runner._refusal("refmodel", failure, True) is failure
    assert runner._refusal("reference", failure, True) is None
    c = _case("GeluLayerNormModule_xfail", _GELU_LAYER_NORM, lambda: (torch.randn(2, 16),), xfail={"refmodel": "why"})
    assert runner.expected_reason(c, "selective", "refmodel") == "why"
    assert runner.expected_reason(c, "selective", "iree") is None
