"""compile(backend_legal_ops="auto"): exactly what torch-mlir cannot lower to
TOSA, lowers wrongly, or lowers to TOSA the target forbids becomes tosa.custom,
each site with its category (CONTRACT.md 7.1), and the program matches eager.

The ops are those a third-party suite of small modules stopped on in stock
mode (issue 16).
"""

from __future__ import annotations


import pytest
import torch
import torch.nn.functional as F

import tosa_custom
from tosa_custom import runtime
from tosa_custom.core.diagnostics import CompileError
from tosa_custom.e2e.modules import Fn
from tosa_custom.tools.example import TransformerBlock
from _compile import compile_with_report


def _randn(*shape):
    return torch.randn(*shape, generator=torch.Generator().manual_seed(0))


_NONE = "no-tosa-lowering"
_WRONG = "wrong-lowering"
_CASES = {
    "scatter_reduce": (lambda x, s: x.scatter_reduce(0, torch.tensor([[0, 1, 0]]), s, "amax"),
                       (_randn(2, 3), _randn(1, 3)), {"torch.aten.scatter_reduce.two": _NONE}),
    "scatter_add": (lambda x, s: x.scatter_add(0, torch.tensor([[0, 1, 0]]), s),
                    (_randn(2, 3), _randn(1, 3)), {"torch.aten.scatter_add": _NONE}),
    "max_pool2d_with_indices": (lambda x: F.max_pool2d(x, 2, return_indices=True), (_randn(1, 2, 4, 4),),
                                {"torch.aten.max_pool2d_with_indices": _NONE}),
    "avg_pool3d": (lambda x: F.avg_pool3d(x, 2), (_randn(1, 2, 4, 4, 4),), {"torch.aten.avg_pool3d": _NONE}),
    "adaptive_max_pool3d": (lambda x: F.adaptive_max_pool3d(x, 2), (_randn(1, 2, 4, 4, 4),),
                            {"torch.aten.adaptive_max_pool3d": _NONE}),
    "atan2": (lambda x, y: torch.atan2(x, y), (_randn(3, 4), _randn(3, 4) + 0.5), {"torch.aten.atan2": _NONE}),
    "kthvalue": (lambda x: torch.kthvalue(x, 2, 1)[0], (_randn(3, 4),), {"torch.aten.kthvalue": _NONE}),
    "embedding_bag": (lambda w: F.embedding_bag(torch.tensor([[0, 2], [1, 3]]), w, mode="sum"), (_randn(5, 3),),
                      {"torch.aten.embedding_bag.padding_idx": _NONE}),
    "cumprod": (lambda x: torch.cumprod(x, 1), (_randn(3, 4),), {"torch.aten.cumprod": _NONE}),
    "sort": (lambda x: torch.sort(x, 1)[0], (torch.randint(0, 9, (3, 4), generator=torch.Generator().manual_seed(1)),),
             {"torch.aten.sort": _NONE}),
    "inverse_trig": (lambda x: torch.asin(x.clamp(-1, 1)) + torch.acosh(x.abs() + 1), (_randn(3, 4),),
                     {"torch.aten.asin": _NONE, "torch.aten.acosh": _NONE}),
    # Per instance: the same op lowers on f32 and is tunneled on int64.
    "pow_by_dtype": (lambda x, n: (x ** 2, n ** 2), (_randn(3), torch.arange(4)),
                     {"torch.aten.pow.Tensor_Scalar": _NONE}),
    # torch-mlir has no op for median: imported as torch.operator, tunneled at import.
    "median": (lambda x: torch.median(x), (_randn(3, 5),), {"torch.aten.median": _NONE}),
    # Ops as PyTorch wrote them: torch-mlir turns _embedding_bag into embedding_bag.padding_idx, whose
    # padding_idx=-1 then means the last row: the imported op is tunneled. (roll, which torch-mlir turned into
    # slices it could not lower, is decomposed before it now: test/frontend/test_capture.py.)
    "embedding_bag_module": (torch.nn.EmbeddingBag(10, 5, mode="mean"),
                             (torch.randint(0, 10, (3, 4), generator=torch.Generator().manual_seed(2)),),
                             # Its int64 indices reach the kept op as int64 (a tosa.custom's operand types are
                             # the contract's): their reshape, i64 where TOSA 1.0 has none, is tunneled too.
                             {"torch.aten._embedding_bag": _NONE, "torch.aten.view": "not-conformant"}),
    # Complex values reach the tunneled op and leave it through the function boundary (CONTRACT.md 4.7).
    "complex_mul": (torch.mul, (torch.randn(3, 4, dtype=torch.complex64), torch.randn(3, 4, dtype=torch.complex64)),
                    {"torch.aten.mul.Tensor": _NONE}),
    # A lowering known wrong for some instances (wrong_lowerings.py): a negative pad crops wrongly.
    "negative_pad": (lambda x: F.pad(x, (-1, 1, 1, -1)), (_randn(2, 3, 4),), {"torch.aten.constant_pad_nd": _WRONG}),
    # torch-mlir decomposes logcumsumexp without subtracting the max (inf above ~88): kept from it, tunneled.
    "logcumsumexp": (lambda x: torch.logcumsumexp(x, 1), (_randn(3, 5) * 10 + 100,), {"torch.aten.logcumsumexp": _WRONG}),
    # Refused in stock mode (a silently wrong answer): tunneled instead.
    "uint8_maximum": (lambda x, y: torch.maximum(x, y),
                      (torch.tensor([200, 3], dtype=torch.uint8), torch.tensor([100, 7], dtype=torch.uint8)),
                      {"torch.aten.maximum": _WRONG}),
    "bool_add": (lambda x, y: (x + y).to(torch.int32), (torch.tensor([True, False, True]), torch.tensor([True, True, False])),
                 {"torch.aten.add.Tensor": _WRONG}),
}


_STOCK_WRONG = {"logcumsumexp"}  # negative_pad: strict validation refuses its negative tosa.pad


def _flat(value):
    return list(value) if isinstance(value, (tuple, list)) else [value]


@pytest.mark.parametrize("name", sorted(_CASES))
def test_auto_tunnels_exactly_what_stock_cannot_lower(name):
    fn, args, expected = _CASES[name]
    model = fn.eval() if isinstance(fn, torch.nn.Module) else Fn(fn)
    if name in _STOCK_WRONG:  # stock mode computes something else
        stock, _ = compile_with_report(model, args)
        assert not torch.allclose(runtime.load(stock)(*args), model(*args))
    else:
        with pytest.raises(CompileError):  # stock mode stops on it
            compile_with_report(model, args)
    module, report = compile_with_report(model, args, backend_legal_ops="auto")
    tunneled = {site.identifier: site.category for site in report.tunneled}
    assert tunneled == expected
    assert all(site.reason for site in report.tunneled)
    assert str(module).count("tosa.custom ") == len(report.tunneled)
    with torch.no_grad():
        expected_values = _flat(model(*args))
    for actual, reference in zip(_flat(runtime.load(module)(*args)), expected_values, strict=True):
        torch.testing.assert_close(actual, reference, rtol=1e-5, atol=1e-6)


def test_a_python_number_result_of_a_tunneled_op():
    """item() as a Python float: Float.Tensor has no TOSA lowering; its f64
    result is outside TOSA 1.0, hence no target here."""
    model, args = Fn(lambda x: x.sum().item()), (_randn(3, 4),)
    module, report = compile_with_report(model, args, backend_legal_ops="auto", tosa_target=None)
    assert [(s.identifier, s.category) for s in report.tunneled] == [("torch.aten.Float.Tensor", _NONE)]
    result = runtime.load(module)(*args)
    assert type(result) is float and result == pytest.approx(model(*args), rel=1e-6)


def test_auto_with_nothing_to_tunnel_is_stock():
    torch.manual_seed(0)
    model, args = TransformerBlock(dim=16, heads=2).eval(), (torch.randn(1, 4, 16),)
    stock, _ = compile_with_report(model, args)
    auto, report = compile_with_report(model, args, backend_legal_ops="auto")
    assert report.tunneled == []
    assert str(auto) == str(stock)


def test_auto_keeps_the_listed_ops_and_adds_what_is_needed():
    model, args = Fn(lambda x, y: torch.atan2(torch.tanh(x), y).softmax(-1)), (_randn(3, 4), _randn(3, 4) + 1)
    module, report = compile_with_report(model, args, backend_legal_ops=["aten.tanh", "auto"])
    assert sorted((s.identifier, s.category) for s in report.tunneled) == [
        ("torch.aten.atan2", _NONE), ("torch.aten.tanh", "user-listed")]
    assert str(module).count("tosa_custom.tunneled") == 1  # what auto mode added says why; listed ops need not
    torch.testing.assert_close(runtime.load(module)(*args), model(*args))


def test_not_conformant_instances_are_tunneled_and_the_output_validates():
    """torch-mlir lowers an int64 argmin through i64 tosa.argmax, which no
    TOSA 1.0 profile allows: stock fails the target check, auto tunnels it."""
    model, args = Fn(lambda x: torch.argmin(x, 1)), (torch.tensor([[3, 1, 2], [0, 5, -1]]),)
    with pytest.raises(CompileError) as stock:
        compile_with_report(model, args)
    assert stock.value.category == "not-conformant"
    module, report = compile_with_report(model, args, backend_legal_ops="auto")
    # torch-mlir made the min.dim from the model's argmin: the argmin is tunneled, as PyTorch wrote it.
    assert [(s.identifier, s.category) for s in report.tunneled] == [("torch.aten.argmin", "not-conformant")]
    assert report.tosa_target  # validated
    assert torch.equal(runtime.load(module)(*args), model(*args))


class _UnboundedToInt(torch.nn.Module):
    """A float of no known range truncated to int64, on `?` dims: TOSA casts no
    float to i64, and nothing bounds it within i32. (OPT's positions, a cumsum
    of ones, were this test's program: tosa/ranges.py bounds them on `?` dims
    now, and stock mode takes them.)"""

    def forward(self, x):
        return (x.abs() * 3).exp().long()


def test_a_program_failing_only_validation_is_not_probed():
    """A dynamic program whose whole lowering succeeds but does not validate:
    only the op the target forbids is tunneled. Probing each op alone (which
    TorchToTosa refuses for an aten.size.int of a `?` dim) tunneled OPT's
    sizes, and no consumer's size could be read from them (issue 41)."""
    from torch.export import Dim

    model = _UnboundedToInt().eval()
    dims = ({0: Dim("b", min=1, max=4), 1: Dim("s", min=1, max=32)},)
    example = (torch.rand(2, 8),)
    with pytest.raises(CompileError) as stock:
        compile_with_report(model, example, dynamic_shapes=dims)
    assert stock.value.category == "not-conformant"
    module, report = compile_with_report(model, example, dynamic_shapes=dims, backend_legal_ops="auto")
    # the cast as PyTorch wrote it (torch-mlir made the aten.to.dtype that failed from it), and nothing else
    assert [(s.identifier, s.category) for s in report.tunneled] == [("torch.prims.convert_element_type",
                                                                      "not-conformant")]
    program = runtime.load(module)
    g = torch.Generator().manual_seed(0)
    for b, t in ((1, 1), (3, 5), (4, 32)):
        x = torch.rand(b, t, generator=g) * 2 - 1
        with torch.no_grad():
            torch.testing.assert_close(program(x), model(x), rtol=0, atol=0)


def test_verbose_prints_each_tunneled_site(capsys):
    compile_with_report(Fn(lambda x: torch.atan2(x, x + 1)), (_randn(2, 3),), backend_legal_ops="auto", verbose=True)
    out = capsys.readouterr().out
    assert "==== tunneled ops" in out
    assert "no-tosa-lowering: torch.aten.atan2 at " in out and "failed to legalize" in out


def test_auto_is_refused_where_tosa_custom_cannot_go():
    with pytest.raises(ValueError, match="only output_type='tosa'"):
        tosa_custom.compile(Fn(torch.tanh), (_randn(2),), output_type="linalg-on-tensors", backend_legal_ops="auto")


def test_tosa_target_none_tunnels_nothing_for_conformance():
    model, args = Fn(lambda x: torch.argmin(x, 1)), (torch.tensor([[3, 1, 2], [0, 5, -1]]),)
    module, report = compile_with_report(model, args, backend_legal_ops="auto", tosa_target=None)
    assert report.tunneled == [] and "tosa.custom" not in str(module)


def test_an_op_whose_decomposition_has_effects_is_kept_whole():
    """PyTorch decomposes linalg_inv into linalg_inv_ex and an effectful
    check (with_effects) torch-mlir's FX importer cannot import."""
    model, args = Fn(torch.linalg.inv), (_randn(3, 3) + 3 * torch.eye(3),)
    with pytest.raises(CompileError, match="with_effects"):
        compile_with_report(model, args)
    module, report = compile_with_report(model, args, backend_legal_ops="auto")
    assert list(report.kept_from_decomposition) == ["torch.aten.linalg_inv"]
    assert [(s.identifier, s.category) for s in report.tunneled] == [("torch.aten.linalg_inv", _NONE)]
    torch.testing.assert_close(runtime.load(module)(*args), model(*args))


class _Gpt2Sdpa(torch.nn.Module):
    """GPT-2 with its default attention (sdpa): PyTorch's decomposition of
    scaled_dot_product_attention breaks a later view in stock mode."""

    def __init__(self):
        super().__init__()
        transformers = pytest.importorskip("transformers")
        config = transformers.GPT2Config(n_layer=1, n_embd=32, n_head=2, vocab_size=64, n_positions=16,
                                         bos_token_id=0, eos_token_id=0, attn_implementation="sdpa")
        torch.manual_seed(0)
        self.gpt2 = transformers.GPT2Model(config).eval()

    def forward(self, ids):
        return self.gpt2(ids, use_cache=False).last_hidden_state


def test_gpt2_sdpa_whose_pytorch_decomposition_fails_compiles_in_stock_and_auto():
    """PyTorch's sdpa decomposition fails on GPT-2's non-contiguous views; frontend/attention.py decomposes it by
    reshapes instead (issue 41), so stock mode no longer refuses it and auto mode need not keep it."""
    model, args = _Gpt2Sdpa(), (torch.randint(0, 64, (2, 8), generator=torch.Generator().manual_seed(0)),)
    with torch.no_grad():
        expected = model(*args)
    for ops in (None, "auto"):
        module, _ = compile_with_report(model, args, backend_legal_ops=ops)
        torch.testing.assert_close(runtime.load(module)(*args), expected, rtol=1e-5, atol=1e-5)


def test_a_scalar_argument_read_by_a_tunneled_op_lowers():
    """The pass fuzzer: after ops=auto, the rest of the lowering made a
    `!torch.int` argument a 0-d tensor behind a carrier TorchToTosa cannot
    lower; after the tunnel only results are made tensors."""
    from torch_mlir import ir

    from tosa_custom.core import ir as _ir
    from tosa_custom.core.passes import build_pass_manager
    from tosa_custom.tunnel.pipelines import after_tunnel

    text = """
    func.func @f(%arg0: !torch.vtensor<[4],si64>, %arg1: !torch.int) -> !torch.vtensor<[4],si64> {
      %0 = torch.aten.pow.Tensor_Scalar %arg0, %arg1 : !torch.vtensor<[4],si64>, !torch.int -> !torch.vtensor<[4],si64>
      return %0 : !torch.vtensor<[4],si64>
    }"""
    with _ir.make_context(), ir.Location.unknown():
        module = ir.Module.parse(text)
        build_pass_manager(["convert-torch-backend-legal-to-tosa-custom{ops=auto}", *after_tunnel()]).run(
            module.operation)
        assert 'operator_name = "torch.aten.pow.Tensor_Scalar", tosa_custom.tunneled = "no-tosa-lowering"' \
            in str(module)


def test_four_index_select_calls_on_computed_indices():
    """Found by the OpInfo auto run (cross of int64): after CSE two calls
    read one computed index through one view, and bufferization reused its
    buffer before the second call (tosa-custom-to-buffer-per-call)."""
    a, b = torch.arange(15.0).reshape(5, 3), torch.arange(15.0).reshape(5, 3) * 2 + 1

    def i1():
        return (torch.arange(3) + 1) % 3

    def i2():
        return (torch.arange(3) + 2) % 3

    model = Fn(lambda a, b: torch.index_select(a, 1, i1()) * torch.index_select(b, 1, i2())
               - torch.index_select(a, 1, i2()) * torch.index_select(b, 1, i1()))
    module, _ = compile_with_report(model, (a, b), backend_legal_ops=["aten.index_select"], tosa_target=None)
    torch.testing.assert_close(runtime.load(module)(a, b), model(a, b))


@pytest.mark.parametrize("ops", [None, "auto"])
def test_nonzero_of_a_0d_tensor_is_a_compile_error_not_a_crash(ops):
    """Found by the OpInfo suite: torch-mlir's decomposition of nonzero on a
    0-d input is a segmentation fault (tosa-custom-check-known-crashes)."""
    with pytest.raises(CompileError, match=r"decomposition of aten\.nonzero crashes the process") as e:
        compile_with_report(Fn(torch.nonzero), (torch.tensor(1.5),), backend_legal_ops=ops)
    assert "torch.aten.nonzero" in e.value.ops


def test_lists_of_runtime_ints_read_by_a_tunneled_op_leave_no_carrier():
    """The pass fuzzer (runtime-int): a tunneled op read the list's elements
    from the carriers' operands; the list and carriers, now dead, were left
    for TorchToTosa, which cannot lower a carrier."""
    from torch_mlir import ir

    from tosa_custom.core import ir as _ir
    from tosa_custom.core.passes import build_pass_manager
    from tosa_custom.tunnel.pipelines import after_tunnel

    text = """
    func.func @f(%arg0: !torch.vtensor<[],si64>, %arg1: !torch.vtensor<[],si64>) -> !torch.vtensor<[2,3],f32> {
      %0 = torch.aten.Int.Tensor %arg0 : !torch.vtensor<[],si64> -> !torch.int
      %1 = torch.aten.Int.Tensor %arg1 : !torch.vtensor<[],si64> -> !torch.int
      %2 = torch.prim.ListConstruct %0, %1 : (!torch.int, !torch.int) -> !torch.list<int>
      %float1 = torch.constant.float 1.0
      %none = torch.constant.none
      %3 = torch.aten.full %2, %float1, %none, %none, %none, %none : !torch.list<int>, !torch.float, !torch.none, !torch.none, !torch.none, !torch.none -> !torch.vtensor<[2,3],f32>
      return %3 : !torch.vtensor<[2,3],f32>
    }"""
    with _ir.make_context(), ir.Location.unknown():
        module = ir.Module.parse(text)
        build_pass_manager(["convert-torch-backend-legal-to-tosa-custom{ops=auto}", *after_tunnel()]).run(
            module.operation)
        assert str(module).count("tosa_custom.tunneled") == 3 and "tosa_custom.carrier" not in str(module)
