"""What each result of the entry function is to the caller (CONTRACT.md §12).

torch.export returns, in one flat list, the new values of the user inputs and
buffers the model wrote in place, then the user's outputs; the structure the
model returned them in (a dict, a namedtuple, a `ModelOutput`) is only in the
ExportedProgram's `call_spec`. compile() writes both into the module at
import, as attributes, so every later stage, the opt tool and a backend see
them, and the runtime can give the caller what eager PyTorch gives:

- on result #i, one of `tosa_custom.output = <k>` (the k-th leaf of the
  user's output), `tosa_custom.mutates_input = <p>` (the new value of user
  input p) or `tosa_custom.mutates_buffer = "<fully qualified name>"`;
- on the function, `tosa_custom.output_tree = "<JSON>"` (`tree_to_json`).

The tree is our own JSON rather than `treespec_dumps`, which refuses a
namedtuple that was not registered for serialization and a node whose context
is a class; ours names the class and its fields, and `tree_from_json` rebuilds
a class it cannot import as a namedtuple (or a dict) of the same fields.
"""

from __future__ import annotations

import collections
import dataclasses
import importlib
import json
from typing import Any

import torch.utils._pytree as pytree
from torch_mlir import ir

from ..core.attrs import SCALAR

__all__ = ["LEAF", "OUTPUT_ATTR", "MUTATES_INPUT_ATTR", "MUTATES_BUFFER_ATTR", "OUTPUT_TREE_ATTR", "RESULT_ATTRS",
           "ResultRole", "result_roles", "mark_results", "read_roles", "tree_to_json", "rebuild"]

OUTPUT_ATTR = "tosa_custom.output"
MUTATES_INPUT_ATTR = "tosa_custom.mutates_input"
MUTATES_BUFFER_ATTR = "tosa_custom.mutates_buffer"
OUTPUT_TREE_ATTR = "tosa_custom.output_tree"
RESULT_ATTRS = (OUTPUT_ATTR, MUTATES_INPUT_ATTR, MUTATES_BUFFER_ATTR)
LEAF = "*"  # a leaf of the output tree: the next user output


@dataclasses.dataclass(frozen=True)
class ResultRole:
    """One result of the entry function: what it is (`kind` is a key of
    RESULT_ATTRS) and which one (`index`: output leaf or input position;
    `name`: buffer)."""

    kind: str
    index: int | None = None
    name: str | None = None

    def attribute(self) -> ir.Attribute:
        if self.kind == MUTATES_BUFFER_ATTR:
            return ir.StringAttr.get(self.name)
        return ir.IntegerAttr.get(ir.IntegerType.get_signless(64), self.index)


def result_roles(signature) -> list[ResultRole]:
    """The role of each output of an ExportedProgram's graph, in order.
    A parameter updated in place is state like a buffer."""
    from torch.export.graph_signature import OutputKind

    user_inputs = [s.arg.name for s in signature.input_specs if s.kind.name == "USER_INPUT"]
    roles, outputs = [], 0
    for spec in signature.output_specs:
        if spec.kind == OutputKind.USER_INPUT_MUTATION:
            roles.append(ResultRole(MUTATES_INPUT_ATTR, index=user_inputs.index(spec.target)))
        elif spec.kind in (OutputKind.BUFFER_MUTATION, OutputKind.PARAMETER_MUTATION):
            roles.append(ResultRole(MUTATES_BUFFER_ATTR, name=spec.target))
        elif spec.kind == OutputKind.USER_OUTPUT:
            roles.append(ResultRole(OUTPUT_ATTR, index=outputs))
            outputs += 1
        else:  # losses, gradients, tokens: not produced by an inference export
            raise ValueError(f"unexpected output kind {spec.kind.name} in the exported program")
    return roles


def mark_results(func, program) -> None:
    """Write the roles of `func`'s results and the output tree (see module doc)."""
    roles = result_roles(program.graph_signature)
    ftype = ir.TypeAttr(func.attributes["function_type"]).value
    if len(roles) != len(ftype.results):
        raise ValueError(f"the exported program has {len(roles)} outputs, the imported function "
                         f"{len(ftype.results)} results")
    old = list(ir.ArrayAttr(func.attributes["res_attrs"])) if "res_attrs" in func.attributes else \
        [ir.DictAttr.get({})] * len(roles)
    new = []
    for role, attrs in zip(roles, old):
        entries = {a.name: a.attr for a in ir.DictAttr(attrs)}
        entries[role.kind] = role.attribute()
        new.append(ir.DictAttr.get(entries))
    func.attributes["res_attrs"] = ir.ArrayAttr.get(new)
    tree = tree_to_json(program.call_spec.out_spec)
    if tree is not False:
        func.attributes[OUTPUT_TREE_ATTR] = ir.StringAttr.get(json.dumps(tree, separators=(",", ":")))


def read_roles(func) -> tuple[list[ResultRole | None], list[str | None], Any]:
    """Each result's role (None: unmarked), its `tosa_custom.scalar` kind, and
    the decoded output tree (None when absent)."""
    n = len(ir.TypeAttr(func.attributes["function_type"]).value.results)
    dicts = [ir.DictAttr(a) for a in ir.ArrayAttr(func.attributes["res_attrs"])] \
        if "res_attrs" in func.attributes else []
    roles, scalars = [], []
    for i in range(n):
        attrs = {a.name: a.attr for a in dicts[i]} if i < len(dicts) else {}
        role = None
        for kind in RESULT_ATTRS:
            if kind in attrs:
                role = ResultRole(kind, name=ir.StringAttr(attrs[kind]).value) if kind == MUTATES_BUFFER_ATTR \
                    else ResultRole(kind, index=ir.IntegerAttr(attrs[kind]).value)
        roles.append(role)
        scalars.append(ir.StringAttr(attrs[SCALAR]).value if SCALAR in attrs else None)
    tree = json.loads(ir.StringAttr(func.attributes[OUTPUT_TREE_ATTR]).value) \
        if OUTPUT_TREE_ATTR in func.attributes else None
    return roles, scalars, tree


# --------------------------------------------------------------------------
# The output tree as JSON.
# --------------------------------------------------------------------------

_BUILTINS = {tuple: "tuple", list: "list", dict: "dict", type(None): "none"}


def _class_name(cls: type) -> str:
    return f"{cls.__module__}:{cls.__qualname__}"


def tree_to_json(spec) -> Any:
    """A pytree TreeSpec as JSON: a leaf is "*"; a node is {"type", "children",
    and "keys" (dict, ModelOutput) or "class" and "fields" (namedtuple, other
    registered classes)}. False when a node cannot be written (no tree is
    stored then, and the runtime returns the flat results)."""
    if spec.is_leaf():
        return LEAF
    children = [tree_to_json(c) for c in spec.children()]
    if any(c is False for c in children):
        return False
    kind = _BUILTINS.get(spec.type)
    if kind in ("tuple", "list", "none"):
        return {"type": kind, "children": children}
    if kind == "dict":
        return {"type": "dict", "keys": list(spec.context), "children": children}
    if pytree.is_structseq_class(spec.type):  # torch.return_types.sort, .max, ...
        return {"type": "structseq", "class": _class_name(spec.type), "children": children}
    cls = spec.context if spec.type is collections.namedtuple else spec.type  # pytree's namedtuple node
    if pytree.is_namedtuple_class(cls):
        return {"type": "namedtuple", "class": _class_name(cls), "fields": list(cls._fields), "children": children}
    context = spec.context
    if isinstance(context, (list, tuple)) and all(isinstance(k, str) for k in context):
        return {"type": "class", "class": _class_name(spec.type), "keys": list(context), "children": children}
    return False


def _import_class(name: str) -> type | None:
    module, _, qualname = name.partition(":")
    try:
        found: Any = importlib.import_module(module)
        for part in qualname.split("."):
            found = getattr(found, part)
    except (ImportError, AttributeError):
        return None
    return found if isinstance(found, type) else None


def rebuild(tree: Any, leaves: list) -> Any:
    """The user's output from its leaves, in the structure `tree` describes."""
    it = iter(leaves)
    return _build(tree, it)


def _build(tree: Any, it) -> Any:
    if tree == LEAF:
        return next(it)
    kind = tree["type"]
    children = [_build(c, it) for c in tree["children"]]
    if kind == "none":
        return None
    if kind in ("tuple", "list"):
        return tuple(children) if kind == "tuple" else children
    if kind == "dict":
        return dict(zip(tree["keys"], children))
    cls = _import_class(tree["class"])
    if kind == "structseq":
        return cls(children) if cls is not None else tuple(children)
    if kind == "namedtuple":
        if cls is None:  # defined where we cannot import it: same name, same fields
            cls = collections.namedtuple(tree["class"].rpartition(".")[2].rpartition(":")[2], tree["fields"])
        return cls(*children)
    node = pytree.SUPPORTED_NODES.get(cls) if cls is not None else None
    if node is None:
        return dict(zip(tree["keys"], children))
    return node.unflatten_fn(children, tree["keys"])
