"""compile() marks what each result is, and the output tree (signature.py,
CONTRACT.md §12), at import; the marks reach the final module in every mode."""

from __future__ import annotations

import collections
import json
import warnings

import pytest
import torch
import torch.utils._pytree as pytree

import tosa_custom
from tosa_custom.contract import signature
from tosa_custom.core.ir import public_functions


class InPlace(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.bn = torch.nn.BatchNorm1d(3)

    def forward(self, x, y):
        y.mul_(2)
        return {"out": self.bn(x) + y.sum(), "n": (x.shape[0],)}


def _roles(module):
    func = public_functions(module)[0]
    with module.context:
        return signature.read_roles(func)


@pytest.mark.parametrize("output_type,ops,weights", [
    ("raw", None, "inline"), ("torch", None, "inline"), ("tosa", None, "inline"), ("tosa", ["*"], "inline"),
    ("tosa", ["aten.native_batch_norm"], "arguments"), ("linalg-on-tensors", None, "inline"),
])
def test_roles_and_tree_reach_the_final_module(output_type, ops, weights):
    model = InPlace().train()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        module = tosa_custom.compile(model, (torch.randn(4, 3), torch.randn(2)), output_type=output_type,
                                     backend_legal_ops=ops, weights=weights)
    roles, scalars, tree = _roles(module)
    B, I, O = signature.MUTATES_BUFFER_ATTR, signature.MUTATES_INPUT_ATTR, signature.OUTPUT_ATTR
    # compile() puts the model in eval mode (as torch_mlir.compile did): only the input is written.
    assert [(r.kind, r.index if r.kind != B else r.name) for r in roles] == [(I, 1), (O, 0), (O, 1)]
    assert tree == {"type": "dict", "keys": ["out", "n"], "children": ["*", {"type": "tuple", "children": ["*"]}]}
    if output_type == "tosa":
        assert scalars == [None, None, "int"]


def test_buffer_updates_are_named_by_their_fully_qualified_name():
    from torch.export.graph_signature import OutputKind

    model = InPlace().train()
    exported = torch.export.export(model, (torch.randn(4, 3), torch.randn(2))).run_decompositions({})
    roles = signature.result_roles(exported.graph_signature)
    kinds = [s.kind for s in exported.graph_signature.output_specs]
    assert kinds.count(OutputKind.BUFFER_MUTATION) == 3
    assert {r.name for r in roles if r.kind == signature.MUTATES_BUFFER_ATTR} == {
        "bn.running_mean", "bn.running_var", "bn.num_batches_tracked"}


Point = collections.namedtuple("Point", ["x", "y"])


@pytest.mark.parametrize("value", [
    1, (1, 2), [1, (2, 3)], {"a": 1, "b": [2, None]}, Point(1, 2), {"p": Point(1, (2, 3))},
])
def test_tree_json_round_trips(value):
    tree = signature.tree_to_json(pytree.tree_structure(value))
    back = signature.rebuild(json.loads(json.dumps(tree)), pytree.tree_leaves(value))
    assert back == value and type(back) is type(value)


def test_a_namedtuple_that_cannot_be_imported_comes_back_with_its_fields():
    Local = collections.namedtuple("Local", ["a", "b"])
    tree = signature.tree_to_json(pytree.tree_structure(Local(1, 2)))
    back = signature.rebuild(tree, [1, 2])
    assert back._fields == ("a", "b") and tuple(back) == (1, 2) and type(back).__name__ == "Local"
