"""Auto mode's feedback (frontend/feedback.py): a stage failing after auto
mode decided (the lowering to the backend contract, the whole-program TOSA
lowering, the target check) tunnels, at import and in a new attempt, the op
instances its diagnostics' locations name; each site says which stage forced
it. And a tosa.scatter whose indices may repeat is never left as TOSA."""

from __future__ import annotations


import pytest
import torch
import torch.nn.functional as F

from tosa_custom import runtime
from tosa_custom.core.diagnostics import CompileError, Diagnostic
from tosa_custom.e2e.modules import Fn
from tosa_custom.frontend.feedback import MAX_ROUNDS, Feedback
from tosa_custom.tunnel.auto import STAGES
from _compile import compile_with_report


def _gen(seed=0):
    return torch.Generator().manual_seed(seed)


def _stages(report) -> dict[str, set[str]]:
    found: dict[str, set[str]] = {}
    for site in report.tunneled:
        found.setdefault(site.identifier, set()).add(site.stage)
    return found


def _matches_eager(module, model, args, tol=1e-5):
    with torch.no_grad():
        expected = model(*args)
    torch.testing.assert_close(runtime.load(module)(*args), expected, rtol=tol, atol=tol)


def test_a_contract_failure_naming_no_op_tunnels_the_op_at_its_location():
    """torch-mlir's conv_tbc lowering returns the wrong layout: the error is on
    func.return at conv_tbc's location and names no op."""
    model = Fn(lambda x, w, b: torch.conv_tbc(x, w, b, 1))
    args = (torch.randn(7, 2, 4, generator=_gen()), torch.randn(3, 4, 5, generator=_gen(1)), torch.randn(5, generator=_gen(2)))
    with pytest.raises(CompileError, match="doesn't match function result type"):
        compile_with_report(model, args)
    module, report = compile_with_report(model, args, backend_legal_ops="auto")
    assert _stages(report) == {"torch.aten.conv_tbc": {"retry-contract"}}
    site = report.tunneled[0]
    assert site.category == "no-tosa-lowering" and site.reason.startswith(STAGES["retry-contract"])
    assert "doesn't match function result type" in site.reason
    assert report.tosa_target  # validated
    _matches_eager(module, model, args, tol=1e-5)


def test_an_assert_left_for_torch_mlir_is_tunneled_after_the_lowering_fails():
    """The checks on an item() value become torch.runtime.assert, whose Bool.Tensor
    carrier TorchToTosa cannot lower: the lowering fails, the asserts are tunneled."""
    def f(x, i):
        n = i.item()
        torch.ops.aten.sym_constrain_range.default(n, min=0, max=4)
        return x + n

    model, args = Fn(f), (torch.randn(5, 3, generator=_gen()), torch.tensor(2))
    module, report = compile_with_report(model, args, backend_legal_ops="auto")
    assert "retry-lowering" in _stages(report)["torch.aten._assert_scalar"]
    _matches_eager(module, model, args)


@pytest.mark.parametrize("indices, tunneled", [([0, 2], False), ([2, 2], True)])
def test_constant_indices_known_unique_stay_tosa(indices, tunneled):
    class ConstantIndices(torch.nn.Module):
        def forward(self, x, v):
            return torch.index_put(x, (torch.tensor(indices),), v)

    model, args = ConstantIndices(), (torch.randn(4, 3, generator=_gen()), torch.randn(2, 3, generator=_gen(1)))
    module, report = compile_with_report(model, args, backend_legal_ops="auto")
    assert ("tosa.scatter" in str(module)) is not tunneled
    assert bool(report.tunneled) is tunneled
    if not tunneled:
        _matches_eager(module, model, args)


def test_run_time_indices_that_may_repeat_are_tunneled():
    """Stock mode compiles it, and the runtime refuses the repeated row; auto
    mode tunnels index_put, and the report says its tosa.scatter was why."""
    model = Fn(lambda x, i, v: torch.index_put(x, (i,), v))
    args = (torch.randn(6, 4, generator=_gen()), torch.tensor([1, 3, 1]), torch.randn(4, generator=_gen(1)).expand(3, 4))
    stock, _ = compile_with_report(model, args)
    with pytest.raises(runtime.KernelError, match="one row"):
        runtime.load(stock)(*args)
    module, report = compile_with_report(model, args, backend_legal_ops="auto")
    assert "tosa.scatter" not in str(module)
    assert {s.identifier: s.category for s in report.tunneled} == {"torch.aten.index_put": "wrong-lowering"}
    assert "tosa.scatter with indices that are not constants known unique" in report.tunneled[0].reason
    _matches_eager(module, model, args)


def test_grid_sampler_casts_the_target_forbids_are_tunneled():
    model = Fn(lambda x, g: F.grid_sample(x, g, mode="bilinear", padding_mode="zeros", align_corners=False))
    args = (torch.randn(1, 2, 5, 6, generator=_gen()), torch.rand(1, 3, 4, 2, generator=_gen(1)) * 2 - 1)
    with pytest.raises(CompileError) as stock:
        compile_with_report(model, args)
    assert stock.value.category == "not-conformant"
    module, report = compile_with_report(model, args, backend_legal_ops="auto")
    assert report.tosa_target and report.tunneled
    assert all(s.category == "not-conformant" for s in report.tunneled)
    _matches_eager(module, model, args)


def _error(location: str, ops=()) -> CompileError:
    return CompileError("failed:", [Diagnostic("error", location, "boom")], ops=ops)


def test_feedback_takes_the_instances_at_the_error_locations_and_stops():
    imported = {'loc("a")': ["torch.aten.x#0", "torch.aten._assert_scalar#0"], 'loc("b")': ["torch.aten.y#0"]}
    feedback = Feedback()
    assert not feedback.learn("import", imported, _error('loc("a")'))  # not a stage after auto mode decided
    assert feedback.learn("lowering", imported, _error('loc("a")'))
    assert feedback.at_import == {"no-tosa-lowering": ["torch.aten.x#0", "torch.aten._assert_scalar#0"]}
    assert feedback.why["torch.aten.x#0"] == ("retry-lowering", "boom")
    assert not feedback.learn("lowering", imported, _error('loc("a")'))  # nothing new: the error stands
    assert feedback.learn("target", imported, _error('loc("c")', ops=["torch.aten.y"]))  # an op the error names
    assert feedback.at_import["not-conformant"] == ["torch.aten.y#0"]


def test_feedback_rounds_are_bounded():
    imported = {f'loc("{i}")': [f"torch.aten.op{i}#0"] for i in range(MAX_ROUNDS + 1)}
    feedback = Feedback()
    assert all(feedback.learn("lowering", imported, _error(f'loc("{i}")')) for i in range(MAX_ROUNDS))
    assert not feedback.learn("lowering", imported, _error(f'loc("{MAX_ROUNDS}")'))
