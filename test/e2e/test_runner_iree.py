"""The audit's IREE executor, in process: a case runs on IREE (compiled by
IREE, each kept op by the runtime's choice of kernel: native, else Python)
and is compared with eager; what IREE refuses by design (an op without an
allowed kernel, TOSA that does not conform) is an expected refusal with its
category; an `xfail` keyed "iree" holds on IREE only."""

import pytest
import torch

import tosa_custom

from tosa_custom.e2e import runner
from tosa_custom.e2e.registry import Case, case, xfail_except

pytest.importorskip("iree.runtime")
pytest.importorskip("iree.compiler")

F = torch.nn.functional


class _GeluLayerNorm(torch.nn.Module):
    def forward(self, x):
        return F.layer_norm(F.gelu(x), (16,)) * 2


class _Atan2(torch.nn.Module):
    def forward(self, x):
        return torch.atan2(x, x + 1)


class _Double(torch.nn.Module):
    def forward(self, x):
        return x.double() / 3


def _case(name, module, inputs, xfail=None, **kwargs):
    return Case(name, module, inputs, "iree", dict(xfail or {}), rtol=1e-4, atol=1e-4, **kwargs)


def test_a_case_runs_on_iree_with_native_kernels():
    c = _case("GeluLayerNormModule_iree", _GeluLayerNorm, lambda: (torch.randn(4, 8, 16),))
    r = runner.run_case(c, "selective", ["aten.gelu", "aten.layer_norm"], executor="iree")
    assert (r.status, r.category, r.executor, r.refused) == ("pass", None, "iree", False), r.message
    assert r.converted == {"torch.aten.gelu": 1, "torch.aten.layer_norm": 1}


def test_an_op_without_native_kernel_runs_its_python_kernel():
    c = _case("Atan2Module_iree", _Atan2, lambda: (torch.randn(3, 4),))
    r = runner.run_case(c, "selective", ["aten.atan2"], executor="iree")
    assert (r.status, r.category, r.refused) == ("pass", None, False), r.message


def test_an_op_without_an_allowed_kernel_is_an_expected_refusal():
    """Only the user's kernels (--only-user-kernels): atan2 has none."""
    c = _case("Atan2Module_iree", _Atan2, lambda: (torch.randn(3, 4),))
    r = runner.run_case(c, "selective", ["aten.atan2"], executor="iree", kernels="user")
    assert (r.status, r.category, r.refused) == ("xfail", "no-kernel", True), r.message
    assert r.failing_ops == ["torch.aten.atan2"] and "no kernel for torch_mlir::torch.aten.atan2" in r.message
    assert r.xfail_reason == runner.REFUSALS["no-kernel"]


def test_tosa_that_does_not_conform_is_an_expected_refusal():
    c = _case("DoubleModule_iree", _Double, lambda: (torch.randn(3, 4),), nonconformant={"stock": "f64 by design"})
    r = runner.run_case(c, "stock", executor="iree")
    assert (r.status, r.category, r.refused, r.conformant) == ("xfail", "not-conformant", True, False), r.message
    assert "f64" in r.message and r.xfail_reason == runner.REFUSALS["not-conformant"]


def test_an_iree_expectation_holds_on_iree_only():
    c = _case("GeluLayerNormModule_xfail", _GeluLayerNorm, lambda: (torch.randn(2, 16),), xfail={"iree": "why"})
    assert runner.expected_reason(c, "selective", "iree") == "why" and runner.expected_reason(c, "selective") is None
    r = runner.run_case(c, "selective", ["aten.gelu"], executor="iree")
    assert (r.status, r.xfail_reason) == ("xpass", "why")  # strict: a listed IREE failure that passes is news
    with pytest.raises(ValueError, match=r"xfail modes \['cuda'\] are not among"):
        case(inputs=lambda: (), family="x", xfail={"cuda": "no"}, name="CudaModule_basic")(lambda: None)
    with pytest.raises(ValueError, match="unknown executor 'tvm'"):
        runner.run_case(c, "selective", executor="tvm")


def test_an_iree_expectation_of_one_mode_holds_in_that_mode_only():
    c = _case("GeluLayerNormModule_mode", _GeluLayerNorm, lambda: (torch.randn(2, 16),),
              xfail={"iree/stock": "stock's", "iree": "any mode's", "dummy": "dummy's"})
    assert runner.expected_reason(c, "stock", "iree") == "stock's"
    assert runner.expected_reason(c, "selective", "iree") == "any mode's"
    assert runner.expected_reason(c, "stock") is None and runner.expected_reason(c, "dummy") == "dummy's"
    with pytest.raises(ValueError, match=r"xfail modes \['iree/eager'\] are not among"):
        case(inputs=lambda: (), family="x", xfail={"iree/eager": "no"}, name="EagerModule_basic")(lambda: None)
    assert xfail_except("iree", "why", "dummy") == {"iree/stock": "why", "iree/selective": "why", "iree/auto": "why"}
    with pytest.raises(ValueError, match=r"xfail_except: modes \['eager'\] are not among"):
        xfail_except("iree", "why", "eager")


def test_a_metadata_assertion_is_checked_at_load():
    """Dummy mode keeps the assertion torch.export adds for .int() (no
    results, which IREE would drop): checked once at load, then left out."""
    c = _case("IntCastModule_iree", lambda: tosa_custom.e2e.Fn(lambda x: x.int() + 1), lambda: (torch.arange(4),))
    r = runner.run_case(c, "dummy", executor="iree")
    assert (r.status, r.refused) == ("pass", False), r.message
    assert "torch.aten._assert_tensor_metadata" in r.converted


def test_a_dynamic_shape_is_an_expected_refusal():
    """tosa_custom.iree runs static shapes only: the load says so under
    dynamic-shape, which the audit files as a refusal by design."""
    from tosa_custom import iree
    from tosa_custom.core.diagnostics import CompileError

    dynamic = """
func.func @f(%a: tensor<?x4xf32>) -> tensor<?x4xf32> {
  %0 = tosa.abs %a : (tensor<?x4xf32>) -> tensor<?x4xf32>
  return %0 : tensor<?x4xf32>
}"""
    with pytest.raises(CompileError) as info:
        iree.load(dynamic)
    assert info.value.category == "dynamic-shape"
    failure = runner._classify_load_error(info.value)
    assert runner._refusal("iree", failure, True) is failure
    assert runner._refusal("reference", failure, True) is None
