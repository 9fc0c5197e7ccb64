"""Unit tests of `tosa_custom.OpSelection`: which ops a backend_legal_ops list names."""

from __future__ import annotations

import re

import pytest
import torch

from tosa_custom import OpSelection
from tosa_custom.core.schema import overload_for, overload_name

aten = torch.ops.aten


def all_overloads(packet) -> set:
    return {getattr(packet, o) for o in packet.overloads()}


# --------------------------------------------------------------------------
# Spellings.
# --------------------------------------------------------------------------


@pytest.mark.parametrize("spelling", [
    "aten.layer_norm",
    "torch.aten.layer_norm",
    "aten.layer_norm.default",
    "torch.aten.layer_norm.default",
    "  aten.layer_norm  ",
    '"aten.layer_norm"',
    "'torch.aten.layer_norm'",
])
def test_spellings_of_layer_norm(spelling):
    sel = OpSelection([spelling])
    assert sel
    assert sel.overloads() == [aten.layer_norm.default]
    # the default overload has no suffix in torch-mlir's spelling
    assert sel.torch_mlir_names() == ["aten.layer_norm"]
    assert sel.matches("torch.aten.layer_norm")
    assert not sel.matches("torch.aten.native_layer_norm")


@pytest.mark.parametrize("spelling", ["aten.softmax.int", "torch.aten.softmax.int"])
def test_explicit_overload_selects_only_it(spelling):
    sel = OpSelection([spelling])
    assert sel.overloads() == [aten.softmax.int]
    assert sel.torch_mlir_names() == ["aten.softmax.int"]
    assert sel.matches("torch.aten.softmax.int")
    assert sel.matches("aten.softmax.int")  # the "torch." prefix is optional here too
    others = set(aten.softmax.overloads()) - {"int"}
    assert others, "softmax should have more than one overload"
    for other in others:
        assert not sel.matches(f"torch.aten.softmax.{other}")
    assert not sel.matches("torch.aten.softmax")  # the default overload is another one
    assert not sel.matches("torch.aten._softmax")


def test_specs_are_kept_stripped_in_order():
    sel = OpSelection([' "aten.gelu" ', "torch.aten.silu", "", "   "])
    assert sel.specs == ["aten.gelu", "torch.aten.silu"]
    assert repr(sel) == "OpSelection(['aten.gelu', 'torch.aten.silu'])"


def test_comma_separated_string():
    sel = OpSelection("aten.gelu, aten.softmax.int,torch.aten.layer_norm")
    assert sel.specs == ["aten.gelu", "aten.softmax.int", "torch.aten.layer_norm"]
    assert {"aten.gelu", "aten.softmax.int", "aten.layer_norm"} <= set(sel.torch_mlir_names())
    assert OpSelection("aten.gelu").specs == ["aten.gelu"]


# --------------------------------------------------------------------------
# All-overloads expansion.
# --------------------------------------------------------------------------


@pytest.mark.parametrize("name,packet", [
    ("aten.softmax", aten.softmax),
    ("aten.max", aten.max),
    ("aten.index", aten.index),
    ("aten.gelu", aten.gelu),
])
def test_name_without_overload_means_every_overload(name, packet):
    sel = OpSelection([name])
    assert set(sel.overloads()) == all_overloads(packet)
    assert len(sel.overloads()) == len(packet.overloads())
    for o in packet.overloads():
        assert sel.matches(overload_name(getattr(packet, o)))


def test_max_expansion_names():
    names = OpSelection(["aten.max"]).torch_mlir_names()
    assert "aten.max" in names  # the default overload, without suffix
    assert "aten.max.dim" in names
    assert "aten.max.other" in names
    assert not any(n.endswith(".default") for n in names)


def test_index_expansion_includes_the_hacked_twin():
    """torch-mlir names x[idx] `aten.index.Tensor_hacked_twin`; `aten.index` must keep that too."""
    names = OpSelection(["aten.index"]).torch_mlir_names()
    assert {"aten.index.Tensor", "aten.index.Tensor_hacked_twin"} <= set(names)
    sel = OpSelection(["aten.index"])
    assert sel.matches("torch.aten.index.Tensor_hacked_twin")


def test_torch_mlir_names_are_sorted_unique_without_prefix():
    sel = OpSelection(["aten.gelu", "aten.softmax.int", "aten.gelu", "torch.aten.gelu.default"])
    names = sel.torch_mlir_names()
    assert names == sorted(set(names))
    assert names == sorted({"aten.gelu", "aten.gelu.out", "aten.softmax.int"} | {
        overload_name(o)[len("torch."):] for o in all_overloads(aten.gelu)})
    assert not any(n.startswith("torch.") for n in names)


def test_packet_and_one_of_its_overloads_together():
    sel = OpSelection(["aten.softmax", "aten.softmax.int"])
    assert set(sel.torch_mlir_names()) == {
        overload_name(o)[len("torch."):] for o in all_overloads(aten.softmax)}


def test_non_aten_namespaces():
    sel = OpSelection(["prims.convert_element_type"])
    assert sel.overloads() == [torch.ops.prims.convert_element_type.default]
    assert sel.torch_mlir_names() == ["prims.convert_element_type"]
    assert sel.matches("torch.prims.convert_element_type")


# --------------------------------------------------------------------------
# matches().
# --------------------------------------------------------------------------


@pytest.mark.parametrize("identifier,expected", [
    ("torch.aten.softmax.int", True),
    ("aten.softmax.int", True),
    ("torch.aten.softmax", True),  # any overload of the packet
    ("torch.aten._softmax", False),
    ("torch.aten.log_softmax.int", False),
    ("softmax", False),  # unreadable identifiers match nothing
    ("torch.aten.softmax.int.extra", False),
    ("", False),
])
def test_matches_packet(identifier, expected):
    assert OpSelection(["aten.softmax"]).matches(identifier) is expected


def test_empty_selection_matches_nothing():
    for sel in (OpSelection(), OpSelection([]), OpSelection(""), OpSelection(["", " "])):
        assert not sel
        assert sel.specs == []
        assert not sel.everything
        assert sel.overloads() == []
        assert sel.torch_mlir_names() == []
        assert not sel.matches("torch.aten.mm")
        assert not sel.matches("torch.mylib.foo", user_op=True)


# --------------------------------------------------------------------------
# `*`.
# --------------------------------------------------------------------------


@pytest.mark.parametrize("star", ["*", "all"])
def test_everything(star):
    sel = OpSelection([star])
    assert sel
    assert sel.everything
    assert sel.specs == [star]
    # nothing to name to the decomposers: `*` keeps what reaches the backend contract
    assert sel.overloads() == []
    assert sel.torch_mlir_names() == []
    for compute in ("torch.aten.mm", "torch.aten.softmax.int", "torch.prims.convert_element_type",
                    "torch.quantized_decomposed.quantize_per_tensor"):
        assert sel.matches(compute), compute
    for structure in ("torch.constant.int", "torch.prim.ListConstruct", "torch.vtensor.literal",
                      "torch.mylib.foo"):
        assert not sel.matches(structure), structure
    # a torch.operator is an op in any namespace
    assert sel.matches("torch.mylib.foo", user_op=True)


def test_everything_with_names():
    sel = OpSelection(["*", "aten.gelu"])
    assert sel.everything
    assert set(sel.overloads()) == all_overloads(aten.gelu)
    assert sel.matches("torch.aten.mm")


# --------------------------------------------------------------------------
# Errors.
# --------------------------------------------------------------------------


@pytest.mark.parametrize("typo,suggestion", [
    ("aten.layernorm", "aten.layer_norm"),
    ("aten.softmx", "aten.softmax"),
    ("torch.aten.gleu", "aten.gelu"),
    ("torch.layer_norm", "aten.layer_norm"),  # forgot the namespace
])
def test_unknown_name_suggests(typo, suggestion):
    with pytest.raises(ValueError) as e:
        OpSelection([typo])
    msg = str(e.value)
    assert f"unknown op '{typo}'" in msg
    assert "did you mean" in msg
    assert suggestion in msg.split("did you mean", 1)[1]


@pytest.mark.parametrize("typo,first", [
    ("aten.layernorm", "aten.layer_norm"),  # used to suggest renorm, norm, native_layer_norm only
    ("aten.LayerNorm", "aten.layer_norm"),
    ("aten.Softmax", "aten.softmax"),  # the exact name before aten._softmax
    ("aten.layer_nrom", "aten.layer_norm"),
    ("aten.scaleddotproductattention", "aten.scaled_dot_product_attention"),  # a packet not touched yet
])
def test_nearest_spelling_comes_first(typo, first):
    with pytest.raises(ValueError, match=rf"did you mean {re.escape(first)}(,|\?)"):
        OpSelection([typo])


@pytest.mark.parametrize("op,names", [
    (aten.layer_norm, ["aten.layer_norm"]),
    (aten.layer_norm.default, ["aten.layer_norm"]),
    (aten.softmax.int, ["aten.softmax.int"]),
    (aten.softmax, ["aten.softmax.int", "aten.softmax.int_out"]),
])
def test_op_objects_are_accepted(op, names):
    assert OpSelection([op]).torch_mlir_names() == names
    assert OpSelection(op).torch_mlir_names() == names  # one object, not in a list


def test_other_objects_are_refused_naming_the_fix():
    with pytest.raises(TypeError, match=r"cannot select ops by a function .*give op names such as "
                                        r"'aten.layer_norm' or torch.ops objects"):
        OpSelection([torch.nn.functional.layer_norm])


def test_unknown_name_without_close_match():
    with pytest.raises(ValueError, match=r"unknown op 'mylib\.frobnicate'") as e:
        OpSelection(["mylib.frobnicate"])
    assert "did you mean" not in str(e.value)


def test_unknown_name_in_other_namespace_suggests_same_namespace():
    with pytest.raises(ValueError, match=r"did you mean.*prims\.convert_element_type"):
        OpSelection(["prims.convert_elment_type"])


@pytest.mark.parametrize("spec,overloads", [
    ("aten.softmax.Int", "int"),
    ("aten.softmax.default", "int"),  # softmax has no default overload
    ("torch.aten.gelu.tanh", "default"),
])
def test_unknown_overload_lists_the_real_ones(spec, overloads):
    with pytest.raises(ValueError, match=rf"unknown overload '{spec}'.*has overloads.*\b{overloads}\b"):
        OpSelection([spec])


@pytest.mark.parametrize("spec", ["layer_norm", "aten.", ".layer_norm", "aten..int", "aten.a.b.c",
                                  "torch.aten.a.b.c"])
def test_unreadable_names(spec):
    with pytest.raises(ValueError, match="cannot read op name"):
        OpSelection([spec])


def test_one_bad_name_refuses_the_whole_list():
    with pytest.raises(ValueError, match="aten.gleu"):
        OpSelection(["aten.gelu", "aten.gleu"])


def test_allow_unknown():
    sel = OpSelection(["mylib.foo", "aten.softmax.bogus"], allow_unknown=True)
    assert sel
    assert sel.matches("torch.mylib.foo", user_op=True)
    assert sel.matches("torch.mylib.foo.default")
    assert sel.matches("torch.aten.softmax.bogus")
    assert not sel.matches("torch.aten.softmax.int")
    # nothing PyTorch knows, so nothing to name to the decomposers
    assert sel.overloads() == []
    assert sel.torch_mlir_names() == []


# --------------------------------------------------------------------------
# overload_for / overload_name (the mapping the selection is built on).
# --------------------------------------------------------------------------


@pytest.mark.parametrize("overload", [aten.layer_norm.default, aten.softmax.int, aten.max.dim,
                                      aten.index.Tensor, torch.ops.prims.convert_element_type.default])
def test_overload_name_round_trip(overload):
    name = overload_name(overload)
    assert name.startswith("torch.")
    assert overload_for(name) == overload
    assert overload_for(name[len("torch."):]) == overload


def test_overload_name_of_default_has_no_suffix():
    assert overload_name(aten.layer_norm.default) == "torch.aten.layer_norm"
    assert overload_name(aten.softmax.int) == "torch.aten.softmax.int"


@pytest.mark.parametrize("identifier", ["torch.aten.nope", "torch.constant.int", "torch.aten.softmax.nope",
                                        "softmax", "torch.a.b.c.d"])
def test_overload_for_unknown_is_none(identifier):
    assert overload_for(identifier) is None
