"""End-to-end tests of `tosa_custom.compile()` on real (tiny) PyTorch modules.

Every tunneling case is checked three ways:
  * with the op listed, the TOSA holds exactly the expected `tosa.custom` (name,
    domain, decoded arguments) and none of the ops its decomposition lowers to,
    while the ops around it still lower to ordinary TOSA;
  * with the const encoding, numbers travel as `tosa.const` operands and
    `decode()` still gives the same Python values;
  * the control: with `backend_legal_ops=None` there is no `tosa.custom` and
    the decomposed form *is* there, so the "absent" assertions can fail.
"""

from __future__ import annotations

import collections
import dataclasses
import json
import warnings
from typing import Any, Callable

import numpy as np
import pytest
import torch
import torch.nn.functional as F
from torch_mlir import ir

import tosa_custom
from tosa_custom import CompileError, Operand, OutputType

# PyTorch itself warns about its own internals (pytree deprecations) during
# export; those are not what these tests look at.
pytestmark = pytest.mark.filterwarnings("ignore::FutureWarning", "ignore::DeprecationWarning")


# --------------------------------------------------------------------------
# Helpers.
# --------------------------------------------------------------------------


def op_counts(module: ir.Module) -> collections.Counter:
    """Every op in the module by name (`torch.operator` by its `name`)."""
    counts: collections.Counter = collections.Counter()

    def visit(op):
        counts[op.name] += 1
        return ir.WalkResult.ADVANCE

    module.operation.walk(visit)
    return counts


custom_ops = tosa_custom.custom_ops


def str_attr(op, name: str) -> str:
    return ir.StringAttr(op.attributes[name]).value


def impl_attrs(op) -> dict:
    return json.loads(str_attr(op, "implementation_attrs"))


def const_operand_value(op, index: int):
    """The Python value of a `tosa.const` operand (read here, not via decode())."""
    producer = op.operands[index].owner
    assert not isinstance(producer, ir.Block), f"operand {index} is a block argument"
    producer = producer.operation
    assert producer.name == "tosa.const", f"operand {index} comes from {producer.name}"
    attr = ir.DenseElementsAttr(producer.attributes["values"])
    shape = tuple(ir.ShapedType(attr.type).shape)
    array = np.array(attr)
    if attr.is_splat and array.shape != shape:
        array = np.full(shape, array.reshape(-1)[0])
    return array.tolist()


def compile_quiet(*args, **kwargs) -> ir.Module:
    """compile() that fails the test on any UserWarning (e.g. 'no such op')."""
    with warnings.catch_warnings():
        warnings.simplefilter("error", UserWarning)
        return tosa_custom.compile(*args, **kwargs)


class Fn(torch.nn.Module):
    """A module around a function of (self, *inputs), with optional submodules."""

    def __init__(self, fn: Callable, **modules: torch.nn.Module):
        super().__init__()
        self.fn = fn
        for name, m in modules.items():
            self.add_module(name, m)

    def forward(self, *inputs):
        return self.fn(self, *inputs)


# --------------------------------------------------------------------------
# The tunneling cases.
# --------------------------------------------------------------------------

T = Operand  # tensor operand placeholder, for readability in the tables


@dataclasses.dataclass
class Case:
    id: str
    build: Callable[[], tuple[torch.nn.Module, tuple]]
    legal: list[str]
    operator_name: str
    overload: Any
    arguments: dict  # expected decode().arguments; Operand(i) for tensors
    absent: list[str]  # decomposed form: must be missing with the op listed ...
    control: list[str]  # ... and (a subset of it) present without
    surrounding: list[str] = dataclasses.field(default_factory=list)  # ordinary TOSA around it
    numbers: bool = True  # has number arguments (const encoding moves them to operands)


def _seeded(fn):
    def build():
        torch.manual_seed(0)
        model, args = fn()
        return model.eval(), args

    return build


@_seeded
def _layer_norm():
    model = Fn(lambda s, x: s.norm(s.lin(x)), lin=torch.nn.Linear(4, 4), norm=torch.nn.LayerNorm(4, eps=1e-3))
    return model, (torch.randn(2, 4),)


@_seeded
def _softmax():
    return Fn(lambda s, x: F.softmax(s.lin(x), dim=-1), lin=torch.nn.Linear(4, 4)), (torch.randn(2, 4),)


@_seeded
def _log_softmax():
    return Fn(lambda s, x: F.log_softmax(s.lin(x), dim=1), lin=torch.nn.Linear(4, 4)), (torch.randn(2, 4),)


@_seeded
def _gelu():
    return (Fn(lambda s, x: F.gelu(s.lin(x), approximate="tanh"), lin=torch.nn.Linear(4, 4)),
            (torch.randn(2, 4),))


@_seeded
def _silu():
    return Fn(lambda s, x: F.silu(s.lin(x)), lin=torch.nn.Linear(4, 4)), (torch.randn(2, 4),)


@_seeded
def _group_norm():
    model = Fn(lambda s, x: s.norm(x) + 1.0, norm=torch.nn.GroupNorm(2, 4, eps=1e-4))
    return model, (torch.randn(1, 4, 2, 2),)


@_seeded
def _sdpa():
    model = Fn(lambda s, q, k, v: F.scaled_dot_product_attention(q * 2.0, k, v, is_causal=True, scale=0.5))
    return model, tuple(torch.randn(1, 2, 3, 4) for _ in range(3))


@_seeded
def _embedding():
    model = Fn(lambda s, i: s.lin(s.emb(i)), emb=torch.nn.Embedding(5, 4, padding_idx=1), lin=torch.nn.Linear(4, 4))
    return model, (torch.tensor([[0, 1, 4]]),)


@_seeded
def _cat():
    return Fn(lambda s, x, y: torch.cat([s.lin(x), y], dim=1), lin=torch.nn.Linear(4, 4)), (
        torch.randn(2, 4), torch.randn(2, 3))


@_seeded
def _index():
    return Fn(lambda s, x, i: s.lin(x)[i], lin=torch.nn.Linear(4, 4)), (torch.randn(3, 4), torch.tensor([0, 2]))


@_seeded
def _index_none():
    # x[:, idx] indexes with [None, idx]: a Tensor?[] with a null element.
    return Fn(lambda s, x, i: s.lin(x)[:, i], lin=torch.nn.Linear(4, 4)), (torch.randn(3, 4), torch.tensor([0, 2]))


@_seeded
def _topk():
    return (Fn(lambda s, x: torch.topk(s.lin(x), 2, dim=1, largest=False), lin=torch.nn.Linear(4, 4)),
            (torch.randn(2, 4),))


@_seeded
def _max_dim():
    return Fn(lambda s, x: torch.max(s.lin(x), dim=1), lin=torch.nn.Linear(4, 4)), (torch.randn(2, 4),)


aten = torch.ops.aten

CASES = [
    Case("layer_norm", _layer_norm, ["aten.layer_norm"], "torch.aten.layer_norm", aten.layer_norm.default,
         {"input": T(0), "normalized_shape": [4], "weight": T(1), "bias": T(2), "eps": 1e-3,
          "cudnn_enable": False},
         absent=["tosa.rsqrt", "tosa.reduce_sum"], control=["tosa.rsqrt", "tosa.reduce_sum"],
         surrounding=["tosa.matmul"]),
    Case("softmax", _softmax, ["aten.softmax.int"], "torch.aten.softmax.int", aten.softmax.int,
         {"self": T(0), "dim": -1, "dtype": None},
         absent=["tosa.exp", "tosa.reduce_max", "tosa.reduce_sum"], control=["tosa.exp", "tosa.reduce_max"],
         surrounding=["tosa.matmul"]),
    Case("log_softmax", _log_softmax, ["aten.log_softmax.int"], "torch.aten.log_softmax.int",
         aten.log_softmax.int, {"self": T(0), "dim": 1, "dtype": None},
         absent=["tosa.log", "tosa.exp", "tosa.reduce_max"], control=["tosa.log", "tosa.exp"],
         surrounding=["tosa.matmul"]),
    Case("gelu_tanh", _gelu, ["aten.gelu"], "torch.aten.gelu", aten.gelu.default,
         {"self": T(0), "approximate": "tanh"},
         absent=["tosa.tanh", "tosa.erf", "tosa.pow"], control=["tosa.tanh"],
         surrounding=["tosa.matmul"], numbers=False),
    Case("silu", _silu, ["aten.silu"], "torch.aten.silu", aten.silu.default, {"self": T(0)},
         absent=["tosa.sigmoid"], control=["tosa.sigmoid"], surrounding=["tosa.matmul"], numbers=False),
    Case("group_norm", _group_norm, ["aten.group_norm"], "torch.aten.group_norm", aten.group_norm.default,
         {"input": T(0), "num_groups": 2, "weight": T(1), "bias": T(2), "eps": 1e-4, "cudnn_enabled": False},
         absent=["tosa.rsqrt", "tosa.reduce_sum", "tosa.gather"], control=["tosa.rsqrt", "tosa.reduce_sum"],
         surrounding=["tosa.add"]),
    Case("sdpa", _sdpa, ["aten.scaled_dot_product_attention"], "torch.aten.scaled_dot_product_attention",
         aten.scaled_dot_product_attention.default,
         {"query": T(0), "key": T(1), "value": T(2), "attn_mask": None, "dropout_p": 0.0, "is_causal": True,
          "scale": 0.5, "enable_gqa": False},
         absent=["tosa.exp", "tosa.reduce_max", "tosa.matmul"], control=["tosa.exp", "tosa.matmul"],
         surrounding=["tosa.mul"]),
    Case("embedding", _embedding, ["aten.embedding"], "torch.aten.embedding", aten.embedding.default,
         {"weight": T(0), "indices": T(1), "padding_idx": 1, "scale_grad_by_freq": False, "sparse": False},
         absent=["tosa.gather"], control=["tosa.gather"], surrounding=["tosa.matmul"]),
    Case("cat", _cat, ["aten.cat"], "torch.aten.cat", aten.cat.default,
         {"tensors": [T(0), T(1)], "dim": 1},
         absent=["tosa.concat"], control=["tosa.concat"], surrounding=["tosa.matmul"]),
    Case("index", _index, ["aten.index.Tensor"], "torch.aten.index.Tensor", aten.index.Tensor,
         {"self": T(0), "indices": [T(1)]},
         absent=["tosa.gather"], control=["tosa.gather"], surrounding=["tosa.matmul"], numbers=False),
    Case("index_none", _index_none, ["aten.index"], "torch.aten.index.Tensor", aten.index.Tensor,
         {"self": T(0), "indices": [None, T(1)]},
         absent=["tosa.gather", "tosa.tile"], control=["tosa.gather"], surrounding=["tosa.matmul"],
         numbers=False),
    Case("topk", _topk, ["aten.topk"], "torch.aten.topk", aten.topk.default,
         {"self": T(0), "k": 2, "dim": 1, "largest": False, "sorted": True},
         absent=["tosa.argmax", "tosa.reduce_max", "tosa.scatter"], control=["tosa.argmax"],
         surrounding=["tosa.matmul"]),
    Case("max_dim", _max_dim, ["aten.max.dim"], "torch.aten.max.dim", aten.max.dim,
         {"self": T(0), "dim": 1, "keepdim": False},
         absent=["tosa.argmax", "tosa.reduce_max"], control=["tosa.argmax", "tosa.reduce_max"],
         surrounding=["tosa.matmul"]),
]

def _case_params(encodings):
    for case in CASES:
        for encoding in encodings:
            yield pytest.param(case, encoding, id=f"{case.id}-{encoding}")


def tensors_as_kind(arguments: dict) -> dict:
    """Tensor Operands with their index replaced by a marker (indices depend on the encoding)."""
    def sub(v):
        if isinstance(v, Operand):
            return ("operand", v.kind)
        if isinstance(v, list):
            return [sub(x) for x in v]
        return v

    return {k: sub(v) for k, v in arguments.items()}


def tensor_indices(arguments: dict) -> list[int]:
    found = []
    for v in arguments.values():
        for x in v if isinstance(v, list) else [v]:
            if isinstance(x, Operand):
                found.append(x.index)
    return found


def check_single_custom(module: ir.Module, case: Case):
    counts = op_counts(module)
    customs = custom_ops(module)
    assert len(customs) == 1, f"expected one tosa.custom, got {len(customs)}"
    (custom,) = customs
    assert str_attr(custom, "operator_name") == case.operator_name
    assert str_attr(custom, "domain_name") == "torch_mlir"
    attrs = impl_attrs(custom)
    assert attrs["version"] == 1
    assert set(attrs["args"]) == {a.name for a in case.overload._schema.arguments}
    for name in case.absent:
        assert counts[name] == 0, f"{name} of the decomposed form is still there: {dict(counts)}"
    for name in case.surrounding:
        assert counts[name] >= 1, f"the surrounding {name} is missing: {dict(counts)}"
    leftovers = [n for n in counts if n.split(".")[0] in ("torch", "torch_c")]
    assert not leftovers, f"torch ops left in TOSA output: {leftovers}"
    assert module.operation.verify()
    return custom


@pytest.mark.parametrize("case,encoding", list(_case_params(["json", "const"])))
def test_listed_op_becomes_one_tosa_custom(case: Case, encoding: str):
    model, args = case.build()
    module = compile_quiet(model, args, output_type="tosa", backend_legal_ops=case.legal, encoding=encoding)
    custom = check_single_custom(module, case)

    attrs = impl_attrs(custom)["args"]
    number_refs = {
        name: j for name, j in attrs.items()
        if isinstance(j, dict) and "operand" in j and not isinstance(case.arguments[name], Operand)
    }
    if encoding == "json":
        assert not number_refs, f"json encoding put numbers in operands: {number_refs}"
    elif case.numbers:
        # Numbers became tosa.const operands holding the same values.
        assert number_refs, "const encoding left every number in JSON"
        for name, j in number_refs.items():
            assert const_operand_value(custom, j["operand"]) == case.arguments[name], name

    call = tosa_custom.decode(custom)
    assert call.overload == case.overload
    if encoding == "json":
        # json: the tensors are the only operands, numbered in schema order
        assert call.arguments == case.arguments
        assert len(custom.operands) == len(tensor_indices(case.arguments))
    else:
        # const: same Python values; tensor operands are interleaved with the constants
        assert tensors_as_kind(call.arguments) == tensors_as_kind(case.arguments)
        indices = tensor_indices(call.arguments)
        assert indices == sorted(set(indices))
        assert set(indices).isdisjoint(j["operand"] for j in number_refs.values())
        assert len(custom.operands) == len(indices) + len(number_refs)
    for name, value in call.arguments.items():
        if isinstance(value, float):
            assert isinstance(case.arguments[name], float)


@pytest.mark.parametrize("case", CASES, ids=[c.id for c in CASES])
def test_control_without_legal_ops_is_decomposed(case: Case):
    model, args = case.build()
    module = compile_quiet(model, args, output_type="tosa", backend_legal_ops=None)
    counts = op_counts(module)
    assert counts["tosa.custom"] == 0
    for name in case.control:
        assert counts[name] >= 1, f"control lacks {name} of the decomposed form: {dict(counts)}"
    assert module.operation.verify()


def test_tensor_operands_are_wired_to_the_surrounding_tosa():
    """The custom's input is the Linear's output, and its result is returned."""
    model, args = _layer_norm()
    module = compile_quiet(model, args, backend_legal_ops=["aten.layer_norm"])
    (custom,) = custom_ops(module)
    producer = custom.operands[0].owner.operation
    assert producer.name.startswith("tosa."), producer.name
    assert producer.name != "tosa.const"
    # weight and bias of the LayerNorm arrive as tosa.const, as TorchToTosa makes them
    assert custom.operands[1].owner.operation.name == "tosa.const"
    assert custom.operands[2].owner.operation.name == "tosa.const"
    users = [u.owner.name for u in custom.results[0].uses]
    assert users == ["func.return"]
    assert str(custom.results[0].type) == "tensor<2x4xf32>"


def test_multi_result_op_keeps_both_results():
    model, args = _max_dim()
    module = compile_quiet(model, args, backend_legal_ops=["aten.max.dim"])
    (custom,) = custom_ops(module)
    assert [str(r.type) for r in custom.results] == ["tensor<2xf32>", "tensor<2xi64>"]


def test_several_listed_ops_each_become_a_custom():
    torch.manual_seed(0)
    model = Fn(lambda s, x: F.gelu(F.softmax(s.norm(x), dim=-1), approximate="tanh"),
               norm=torch.nn.LayerNorm(4)).eval()
    module = compile_quiet(model, torch.randn(2, 4),
                           backend_legal_ops=["aten.layer_norm", "aten.softmax.int", "aten.gelu"])
    names = sorted(str_attr(c, "operator_name") for c in custom_ops(module))
    assert names == ["torch.aten.gelu", "torch.aten.layer_norm", "torch.aten.softmax.int"]
    counts = op_counts(module)
    for decomposed in ("tosa.rsqrt", "tosa.exp", "tosa.tanh", "tosa.reduce_sum", "tosa.reduce_max"):
        assert counts[decomposed] == 0


@pytest.mark.parametrize("spelling", ["aten.layer_norm", "torch.aten.layer_norm", "aten.layer_norm.default",
                                      "torch.aten.layer_norm.default",
                                      # op objects, a convenience (they used to fail with an AttributeError)
                                      torch.ops.aten.layer_norm, torch.ops.aten.layer_norm.default])
def test_spellings_of_the_same_op(spelling):
    model, args = _layer_norm()
    module = compile_quiet(model, args, backend_legal_ops=[spelling])
    assert [str_attr(c, "operator_name") for c in custom_ops(module)] == ["torch.aten.layer_norm"]


def test_softmax_lower_spelling_keeps_underscore_softmax():
    """Listing aten._softmax lets PyTorch turn softmax.int into _softmax, which is kept."""
    model, args = _softmax()
    module = compile_quiet(model, args, backend_legal_ops=["aten._softmax"])
    (custom,) = custom_ops(module)
    assert str_attr(custom, "operator_name") == "torch.aten._softmax"
    assert tosa_custom.decode(custom).arguments == {"self": T(0), "dim": -1, "half_to_float": False}
    assert op_counts(module)["tosa.exp"] == 0


def test_const_encoding_numbers_are_tosa_const_operands():
    """Independent of decode(): every number of layer_norm sits in a tosa.const."""
    model, args = _layer_norm()
    module = compile_quiet(model, args, backend_legal_ops=["aten.layer_norm"], encoding="const")
    (custom,) = custom_ops(module)
    attrs = impl_attrs(custom)["args"]
    for name in ("normalized_shape", "eps", "cudnn_enable"):
        assert set(attrs[name]) == {"operand"}, (name, attrs[name])
    values = {n: const_operand_value(custom, attrs[n]["operand"]) for n in ("normalized_shape", "eps", "cudnn_enable")}
    assert values == {"normalized_shape": [4], "eps": 1e-3, "cudnn_enable": False}
    types = {n: str(custom.operands[attrs[n]["operand"]].type) for n in values}
    assert types == {"normalized_shape": "tensor<1xi64>", "eps": "tensor<f64>", "cudnn_enable": "tensor<i1>"}
    assert len(custom.operands) == 6
    assert module.operation.verify()


def test_unknown_encoding_is_refused():
    model, args = _softmax()
    with pytest.raises(ValueError, match="encoding"):
        tosa_custom.compile(model, args, backend_legal_ops=["aten.softmax.int"], encoding="yaml")


# --------------------------------------------------------------------------
# batch_norm (eval).
# --------------------------------------------------------------------------


@_seeded
def _batch_norm():
    bn = torch.nn.BatchNorm2d(4, eps=1e-4)
    with torch.no_grad():
        bn.running_mean.uniform_()
        bn.running_var.uniform_(0.5, 1.5)
    return Fn(lambda s, x: s.bn(x) + 1.0, bn=bn), (torch.randn(1, 4, 2, 2),)


def test_batch_norm_control_is_decomposed():
    model, args = _batch_norm()
    counts = op_counts(compile_quiet(model, args))
    assert counts["tosa.custom"] == 0
    assert counts["tosa.reciprocal"] + counts["tosa.rsqrt"] >= 1


def test_batch_norm_listed_by_its_composite_name_reports_pytorch_decomposed_it():
    """aten.batch_norm is CompositeImplicitAutograd: export always replaces it."""
    model, args = _batch_norm()
    with pytest.raises(CompileError, match=r"aten\.batch_norm.*PyTorch decomposed it") as info:
        tosa_custom.compile(model, args, backend_legal_ops=["aten.batch_norm"])
    assert (info.value.category, info.value.ops) == ("decomposed-before-import", ("torch.aten.batch_norm",))


def test_batch_norm_eval_tunnels_as_native_batch_norm_legit_no_training():
    model, args = _batch_norm()
    module = tosa_custom.compile(model, args, backend_legal_ops=["aten._native_batch_norm_legit_no_training"])
    (custom,) = custom_ops(module)
    assert str_attr(custom, "operator_name") == "torch.aten._native_batch_norm_legit_no_training"
    decoded = tosa_custom.decode(custom)
    assert decoded.arguments["eps"] == 1e-4
    # save_mean/save_invstd are empty in inference: dropped (CONTRACT.md 3.4)
    assert decoded.dropped_results == (1, 2)
    assert len(custom.results) == 1
    assert op_counts(module)["tosa.reciprocal"] == 0


# --------------------------------------------------------------------------
# Warnings and errors.
# --------------------------------------------------------------------------


def test_listed_op_absent_warns_naming_it():
    model, args = _layer_norm()
    with pytest.warns(UserWarning, match=r"aten\.softmax.*no such op") as record:
        module = tosa_custom.compile(model, args, backend_legal_ops=["aten.layer_norm", "aten.softmax"])
    messages = [str(w.message) for w in record if issubclass(w.category, UserWarning)]
    assert not any("layer_norm" in m for m in messages), messages
    # the warning points at the caller, not into the package
    assert any(w.filename == __file__ for w in record if "no such op" in str(w.message))
    # the present op is still tunneled
    assert [str_attr(c, "operator_name") for c in custom_ops(module)] == ["torch.aten.layer_norm"]


def test_typo_in_op_name_is_a_value_error_with_suggestion():
    model, args = _layer_norm()
    with pytest.raises(ValueError, match=r"aten\.layernorm.*did you mean.*aten\.layer_norm"):
        tosa_custom.compile(model, args, backend_legal_ops=["aten.layernorm"])


def test_unknown_overload_is_a_value_error_listing_overloads():
    model, args = _softmax()
    with pytest.raises(ValueError, match=r"softmax\.Int.*int"):
        tosa_custom.compile(model, args, backend_legal_ops=["aten.softmax.Int"])


@pytest.mark.parametrize("output_type", ["linalg-on-tensors", OutputType.LINALG_ON_TENSORS])
def test_linalg_with_legal_ops_is_refused(output_type):
    model, args = _layer_norm()
    with pytest.raises(ValueError, match="tosa"):
        tosa_custom.compile(model, args, output_type=output_type, backend_legal_ops=["aten.layer_norm"])


def test_ignore_traced_shapes_requires_use_tracing():
    model, args = _layer_norm()
    with pytest.raises(ValueError, match="use_tracing"):
        tosa_custom.compile(model, args, ignore_traced_shapes=True)


def test_ignore_traced_shapes_with_tracing_makes_inputs_dynamic():
    torch.manual_seed(0)
    model = torch.nn.LayerNorm(4).eval()
    module = compile_quiet(model, torch.randn(2, 4), use_tracing=True, ignore_traced_shapes=True,
                           backend_legal_ops=["aten.layer_norm"])
    (custom,) = custom_ops(module)
    assert str(custom.operands[0].type) == "tensor<?x4xf32>"  # the normalized shape fixes the last dim
    static = compile_quiet(model, torch.randn(2, 4), use_tracing=True, backend_legal_ops=["aten.layer_norm"])
    (custom,) = custom_ops(static)
    assert str(custom.operands[0].type) == "tensor<2x4xf32>"


class _VarArgs(torch.nn.Module):
    def forward(self, scale, *rest):
        return torch.nn.functional.gelu(rest[0] * scale + rest[1])


def test_ignore_traced_shapes_with_varargs_forward():
    """torch.export wants `dynamic_shapes` grouped by forward's parameters,
    so `*rest` gets its specs as one tuple."""
    args = (torch.randn(2, 4), torch.randn(2, 4), torch.randn(2, 4))
    module = compile_quiet(_VarArgs().eval(), args, use_tracing=True, ignore_traced_shapes=True,
                           backend_legal_ops=["aten.gelu"])
    (custom,) = custom_ops(module)
    assert str(custom.operands[0].type) == "tensor<?x?xf32>"


@pytest.mark.parametrize("entry", [lambda *a: None, print])
def test_callables_in_extra_library_are_a_type_error(entry):
    model, args = _softmax()
    with pytest.raises(TypeError, match="extra_library"):
        tosa_custom.compile(model, args, extra_library=[entry])


def test_more_than_one_extra_library_file_is_refused(tmp_path):
    model, args = _softmax()
    paths = [tmp_path / "a.mlir", tmp_path / "b.mlir"]
    for p in paths:
        p.write_text("module {}\n")
    with pytest.raises(ValueError, match="one extra_library"):
        tosa_custom.compile(model, args, extra_library=paths)


def test_unknown_output_type_is_a_value_error():
    model, args = _softmax()
    with pytest.raises(ValueError, match="output_type"):
        tosa_custom.compile(model, args, output_type="stablehlo")


def test_example_args_of_wrong_type_are_a_type_error():
    model, _ = _softmax()
    with pytest.raises(TypeError, match="example_args"):
        tosa_custom.compile(model, {"x": torch.randn(2, 4)})


def test_export_failure_is_a_compile_error():
    class DataDependent(torch.nn.Module):
        def forward(self, x):
            if x.sum() > 0:  # data-dependent control flow: torch.export refuses it
                return x + 1
            return x - 1

    with pytest.raises(CompileError, match="torch.export") as info:
        tosa_custom.compile(DataDependent(), torch.randn(2, 4))
    assert info.value.category == "export-failed"


def test_op_torch_mlir_rewrites_anyway_is_a_compile_error_naming_it():
    """aten.split survives PyTorch but torch-mlir turns it into slices anyway
    (for TOSA output it is tunneled before torch-mlir sees it; torch output is not)."""
    model = Fn(lambda s, x: torch.split(x, 2, dim=1)[0] * 2.0).eval()
    with pytest.raises(CompileError, match=r"aten\.split\.Tensor.*torch-mlir") as info:
        tosa_custom.compile(model, torch.randn(2, 4), output_type="torch", backend_legal_ops=["aten.split"])
    assert (info.value.category, info.value.ops) == ("rewritten-by-torch-mlir", ("torch.aten.split.Tensor",))


def test_op_the_importer_imports_as_another_overload_is_a_compile_error_saying_so():
    """`x + 1` is aten.add.Tensor in the exported graph and aten.add.Scalar once
    imported: the error names the importer, not a pass that never ran."""
    model = Fn(lambda s, x: x + 1).eval()
    with pytest.raises(CompileError, match=r"aten\.add\.Tensor.*FX importer imported it as another op.*add\.Scalar") as info:
        tosa_custom.compile(model, torch.randn(2, 4), backend_legal_ops=["aten.add.Tensor"])
    assert (info.value.category, info.value.ops) == ("rewritten-by-torch-mlir", ("torch.aten.add.Tensor",))


def test_an_op_torch_mlir_cannot_lower_is_a_lowering_error_naming_the_op():
    with pytest.raises(CompileError, match=r"failed to legalize operation 'torch\.aten\.asin'") as info:
        tosa_custom.compile(Fn(lambda s, x: torch.asin(x)), torch.rand(2, 4))
    assert (info.value.category, info.value.ops) == ("lowering-failed", ("torch.aten.asin",))


class _SoftmaxPlusOne(torch.nn.Module):
    def forward(self, x):
        return F.softmax(x, dim=-1) + 1.0


def _zero_size_softmax():
    """A zero-size tensor with a dynamic dim ([0,?]): its shape cannot be
    written down (CONTRACT.md 3.4), so softmax cannot be tunneled."""
    return _SoftmaxPlusOne(), (torch.randn(0, 4),)


def test_untunnelable_op_with_strict_is_a_compile_error_with_reason():
    model, args = _zero_size_softmax()
    with pytest.raises(CompileError, match=r"softmax\.int left unconverted \[zero-size-tensor\]"):
        tosa_custom.compile(model, args, use_tracing=True, ignore_traced_shapes=True,
                            backend_legal_ops=["aten.softmax.int"], strict=True)


def test_untunnelable_op_without_strict_reports_the_reason():
    model, args = _zero_size_softmax()
    text = []
    with warnings.catch_warnings(record=True) as record:
        warnings.simplefilter("always")
        try:
            tosa_custom.compile(model, args, use_tracing=True, ignore_traced_shapes=True,
                                backend_legal_ops=["aten.softmax.int"])
        except CompileError as e:
            text.append(str(e))
    text += [str(w.message) for w in record]
    assert any("zero-size-tensor" in t for t in text), text


# --------------------------------------------------------------------------
# Output types.
# --------------------------------------------------------------------------


def _dialects(module: ir.Module) -> set[str]:
    return {name.split(".")[0] for name in op_counts(module)} - {"builtin", "func"}


@pytest.mark.parametrize("output_type,dialects", [
    ("torch", {"torch"}),
    ("raw", {"torch"}),
    ("tosa", {"tosa"}),
])
def test_output_types_give_their_dialect(output_type, dialects):
    model, args = _layer_norm()
    module = compile_quiet(model, args, output_type=output_type)
    assert _dialects(module) == dialects
    assert module.operation.verify()


def test_linalg_on_tensors_output():
    model, args = _layer_norm()
    module = compile_quiet(model, args, output_type="linalg-on-tensors")
    found = _dialects(module)
    assert "linalg" in found
    assert not found & {"torch", "tosa", "torch_c"}
    assert module.operation.verify()


def test_torch_output_keeps_listed_op_and_decomposes_it_otherwise():
    model, args = _layer_norm()
    kept = op_counts(compile_quiet(model, args, output_type="torch", backend_legal_ops=["aten.layer_norm"]))
    assert kept["torch.aten.layer_norm"] == 1
    assert kept["torch.aten.rsqrt"] == 0
    assert kept["tosa.custom"] == 0
    plain = op_counts(compile_quiet(model, args, output_type="torch"))
    assert plain["torch.aten.layer_norm"] == 0
    assert plain["torch.aten.rsqrt"] >= 1


def test_raw_output_keeps_listed_op():
    model, args = _layer_norm()
    counts = op_counts(compile_quiet(model, args, output_type="raw", backend_legal_ops=["aten.layer_norm"]))
    assert counts["torch.aten.layer_norm"] == 1


def _torch_mlir_output_type():
    from torch_mlir.compiler_utils import OutputType as TorchMlirOutputType

    return TorchMlirOutputType.TOSA


@pytest.mark.parametrize("output_type", [
    pytest.param(OutputType.TOSA, id="enum"),
    pytest.param("TOSA", id="upper"),
    pytest.param("tosa", id="lower"),
    pytest.param(" Tosa ", id="padded"),
    pytest.param(_torch_mlir_output_type(), id="torch_mlir-enum"),
])
def test_output_type_spellings(output_type):
    model, args = _softmax()
    module = compile_quiet(model, args, output_type=output_type, backend_legal_ops=["aten.softmax.int"])
    assert [str_attr(c, "operator_name") for c in custom_ops(module)] == ["torch.aten.softmax.int"]


def test_output_type_enum_accepts_torch_mlir_names():
    from torch_mlir.compiler_utils import OutputType as TorchMlirOutputType

    assert OutputType.get(TorchMlirOutputType.LINALG_ON_TENSORS) is OutputType.LINALG_ON_TENSORS
    assert OutputType.get("LINALG_ON_TENSORS") is OutputType.LINALG_ON_TENSORS
    assert OutputType.get(TorchMlirOutputType.RAW) is OutputType.RAW
    with pytest.raises(ValueError):
        OutputType.get(TorchMlirOutputType.STABLEHLO)


# --------------------------------------------------------------------------
# Arguments, verbose, compatibility shim.
# --------------------------------------------------------------------------


@pytest.mark.parametrize("wrap", [lambda x: x, lambda x: (x,), lambda x: [x]], ids=["tensor", "tuple", "list"])
def test_single_tensor_or_sequence_as_example_args(wrap):
    model, (x,) = _softmax()
    module = compile_quiet(model, wrap(x), backend_legal_ops=["aten.softmax.int"])
    (custom,) = custom_ops(module)
    assert str(custom.operands[0].type) == "tensor<2x4xf32>"


def test_func_name():
    model, args = _softmax()
    module = compile_quiet(model, args, func_name="main")
    names = []

    def visit(op):
        if op.name == "func.func":
            names.append(ir.StringAttr(op.attributes["sym_name"]).value)
        return ir.WalkResult.ADVANCE

    module.operation.walk(visit)
    assert names == ["main"]


def test_verbose_prints_every_stage(capsys):
    model, args = _layer_norm()
    tosa_custom.compile(model, args, backend_legal_ops=["aten.layer_norm"], verbose=True)
    out = capsys.readouterr().out
    stages = ["FX graph after decompositions", "torch IR (import, listed ops tunneled)", "torch IR (backend contract)", "TOSA"]
    positions = [out.find("==== " + s) for s in stages]
    assert all(p >= 0 for p in positions), out[:2000]
    assert positions == sorted(positions)
    assert "aten.layer_norm" in out[positions[0]:positions[1]]
    assert "tosa.custom" in out[positions[3]:]


def test_not_verbose_prints_nothing(capsys):
    model, args = _layer_norm()
    tosa_custom.compile(model, args, backend_legal_ops=["aten.layer_norm"])
    assert capsys.readouterr().out == ""


def test_install_torch_mlir_compile(monkeypatch):
    import torch_mlir

    # install_torch_mlir_compile() patches the module: make sure the test undoes it.
    monkeypatch.setattr(torch_mlir, "compile", None, raising=False)
    monkeypatch.setattr(torch_mlir, "OutputType", None, raising=False)
    tosa_custom.install_torch_mlir_compile()
    assert torch_mlir.compile is tosa_custom.compile
    assert torch_mlir.OutputType is tosa_custom.OutputType

    # an old script, unchanged
    model, (x,) = _layer_norm()
    module = torch_mlir.compile(model, x, output_type=torch_mlir.OutputType.TOSA,
                                backend_legal_ops=["aten.layer_norm"])
    assert [str_attr(c, "operator_name") for c in custom_ops(module)] == ["torch.aten.layer_norm"]
    assert module.operation.verify()


def _dropout_model():
    torch.manual_seed(0)
    return Fn(lambda s, x: F.softmax(s.drop(x), dim=-1), drop=torch.nn.Dropout(0.5)).train()


def test_model_is_put_in_eval_mode_saying_so():
    """Dropout in a training-mode model must not reach the TOSA (compile() evals
    it), and the switch is said, once, with how to keep the mode (it was silent)."""
    model = _dropout_model()
    with pytest.warns(UserWarning, match=r"compile\(\) puts the Fn in eval\(\) mode \(it was in training mode\).*"
                                         r"Pass train=True to compile it in training mode") as record:
        module = tosa_custom.compile(model, torch.randn(2, 4), backend_legal_ops=["aten.softmax.int"])
    assert len([w for w in record if "eval() mode" in str(w.message)]) == 1
    assert op_counts(module)["tosa.custom"] == 1
    assert not model.training
    with warnings.catch_warnings():
        warnings.simplefilter("error", UserWarning)  # already in eval mode: nothing to say
        tosa_custom.compile(model, torch.randn(2, 4), backend_legal_ops=["aten.softmax.int"])


def test_train_true_keeps_training_mode():
    model = _dropout_model()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        module = tosa_custom.compile(model, torch.randn(2, 4), output_type="raw", train=True)
    assert model.training
    assert "dropout" in str(module)  # the dropout is compiled in


# --------------------------------------------------------------------------
# The TOSA compile() returns: only TOSA, func and CONTRACT.md 4.5's builtin ops.
# --------------------------------------------------------------------------


def test_python_numbers_at_the_boundary_of_a_stock_model_are_0d_tensors():
    """No op kept: torch-mlir leaves f64/i64/i1 arguments and results, which
    compile() makes 0-d tensors marked tosa_custom.scalar (CONTRACT.md 4.7)."""
    model = Fn(lambda s, x, scale, flag: (x * scale if flag else x, x.shape[0])).eval()
    args = (torch.randn(3), 2.5, True)
    module = compile_quiet(model, args)
    text = str(module)
    assert 'tosa_custom.scalar = "float"}' in text and 'tosa_custom.scalar = "bool"}' in text
    # The int, a constant that fits, travels as i32 (CONTRACT.md 13.4d): TOSA 1.0 has no i64.
    assert ('-> (tensor<3xf32> {tosa_custom.output = 0 : i64}, tensor<i32> {tosa_custom.dtype = "int64", '
            'tosa_custom.output = 1 : i64, tosa_custom.scalar = "int"})') in text
    assert "arith." not in text
    from tosa_custom import runtime

    got = runtime.load(module)(*args)
    torch.testing.assert_close(got[0], model(*args)[0])
    assert got[1] == 3 and type(got[1]) is int  # the Python type eager returned (CONTRACT.md §12)


def test_importer_failure_is_a_compile_error_with_the_fix():
    model = Fn(lambda s, x: torch.full((2,), x.shape[0] * 1.5))
    with pytest.raises(CompileError, match=r"FX importer could not import.*sym_float.*give static shapes"):
        tosa_custom.compile(model, torch.randn(3, 4), use_tracing=True, ignore_traced_shapes=True)


def test_bad_encoding_is_refused_before_export():
    """compile() checks `encoding` with the pass's own parser before it
    exports anything (it once parsed nothing and failed only after export)."""

    class ExportWouldFail(torch.nn.Module):
        def forward(self, x):
            raise AssertionError("compile() exported the model before checking its arguments")

    with pytest.raises(ValueError, match=r"unknown encoding 'bogus': expected one of json, const"):
        tosa_custom.compile(ExportWouldFail(), (torch.ones(2),), backend_legal_ops=["aten.gelu"], encoding="bogus")
