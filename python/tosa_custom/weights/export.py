"""`compile(..., weights="arguments")`: the model's state as entry arguments.

torch.export already lifted every parameter and buffer to a placeholder and
named it in the graph signature; the frozen import then replaces each by a
literal. Here the placeholders of parameters and persistent buffers stay, are
moved after the user inputs, and become arguments of the entry function
marked with their fully qualified names (manifest.py).

Order (CONTRACT.md §10): user inputs first, at the positions the model takes
them; then the weights in `model.state_dict()` order. That is the order a
checkpoint of the model is written and read in, it depends on nothing but the
model's structure (not on tracing), and layers stay together.

What stays a constant: non-persistent buffers (not in `state_dict()`, so no
checkpoint carries them, e.g. BERT's `position_ids`) and tensors the forward
creates (torch.export's lifted constants).
"""

from __future__ import annotations

from typing import Any

import torch
from torch_mlir import ir

from .manifest import INPUT_ATTR, TIED_ATTR, VALUES_ATTR, WEIGHT_ATTR, set_argument_attrs
from .passes import dense_value

__all__ = ["WEIGHT_MODES", "state_buffers", "state_values", "weight_placeholders", "tied_weights",
           "import_with_weight_arguments"]

WEIGHT_MODES = ("inline", "arguments")


def state_buffers(program: torch.export.ExportedProgram) -> list[str]:
    """The buffers (and parameters) the model writes: its state, carried from
    one call to the next (CONTRACT.md §12)."""
    signature = program.graph_signature
    return sorted(set(signature.buffers_to_mutate.values()) | set(getattr(signature, "parameters_to_mutate", {}).values()))


def weight_placeholders(program: torch.export.ExportedProgram, model: Any, everything: bool = True) -> list[str]:
    """Make `program.graph` take its weights as trailing placeholders; return their names.

    `everything`: every parameter, persistent buffer and state buffer (weights
    as arguments); else only the state buffers (inline weights, whose state
    must still be an argument to be carried). Constants that are not kept are
    substituted into the graph, as the frozen import does. The graph is
    changed in place, once: importing it again (compile() re-imports to find
    a culprit pass) sees the same graph.
    """
    from torch.export.graph_signature import InputKind

    signature = program.graph_signature
    state = set(state_buffers(program))
    graph = program.graph
    placeholders = {n.name: n for n in graph.nodes if n.op == "placeholder"}
    users, weights = [], {}
    for spec in signature.input_specs:
        node = placeholders[spec.arg.name]
        weight = spec.kind == InputKind.PARAMETER or (spec.kind == InputKind.BUFFER and spec.persistent)
        if spec.kind == InputKind.USER_INPUT:
            users.append(node)
        elif spec.target in state or (everything and weight):
            weights[spec.target] = node
        else:  # lifted constants, non-persistent buffers
            value = program.constants.get(spec.target)
            if value is None:
                value = program.state_dict[spec.target]
            node.replace_all_uses_with(value)
            graph.erase_node(node)
    order = list(model.state_dict().keys()) if isinstance(model, torch.nn.Module) else []
    rank = {name: i for i, name in enumerate(order)}
    names = sorted(weights, key=lambda n: (rank.get(n, len(rank)), list(weights).index(n)))
    first = next(n for n in graph.nodes if n.op != "placeholder")
    for node in users + [weights[n] for n in names]:
        first.prepend(node)
    graph.lint()
    return names


def state_values(program: torch.export.ExportedProgram, names: list[str], model: Any, everything: bool) -> dict:
    """The initial values the module must hold for the state among `names`:
    all of it with inline weights; with weights as arguments only what no
    checkpoint carries (a non-persistent buffer), the rest is loaded as a weight."""
    checkpoint = set(model.state_dict()) if everything and isinstance(model, torch.nn.Module) else set()
    values = {}
    for name in state_buffers(program):
        if name in names and name not in checkpoint:
            value = program.state_dict.get(name)
            values[name] = program.constants[name] if value is None else value
    return values


def tied_weights(model: Any, names: list[str]) -> dict[str, str]:
    """Each weight that is the same tensor as an earlier one (an LM head tied
    to its embedding), mapped to that first name: a checkpoint written by
    `save_pretrained` stores a tied group under one name only."""
    if not isinstance(model, torch.nn.Module):
        return {}
    state = model.state_dict(keep_vars=True)
    first: dict[tuple, str] = {}
    tied = {}
    for name in names:
        t = state.get(name)
        if t is None:
            continue
        key = (t.untyped_storage().data_ptr(), t.storage_offset(), tuple(t.shape), tuple(t.stride()), t.dtype)
        if key in first:
            tied[name] = first[key]
        else:
            first[key] = name
    return tied


def import_with_weight_arguments(importer, program, names: list[str], func_name: str,
                                 tied: dict[str, str] | None = None, values: dict | None = None,
                                 symbolic: bool = False) -> None:
    """Import the graph `weight_placeholders` prepared, and mark each argument
    (a tied weight also with the name it is tied to); `values` (name ->
    tensor) go into the module's `tosa_custom.weight_values`. `symbolic`
    imports the size symbols and their bindings (torch.symbolic_int,
    torch.bind_symbolic_shape), as `import_frozen_program` does."""
    graph = program.graph
    if symbolic:
        importer._cc.set_symbolic_guards(program)
    if getattr(graph, "owning_module", None) is not None:
        importer._import_all_child_modules(graph.owning_module, func_name, symbolic)
    func = importer.import_stateless_graph(graph, func_name=func_name, import_symbolic_shape_expressions=symbolic)
    n_inputs = len(ir.TypeAttr(func.attributes["function_type"]).value.inputs) - len(names)
    with func.context:
        i64 = ir.IntegerType.get_signless(64)
        attrs = [{INPUT_ATTR: ir.IntegerAttr.get(i64, i)} for i in range(n_inputs)]
        tied = tied or {}
        attrs += [{WEIGHT_ATTR: ir.StringAttr.get(n),
                   **({TIED_ATTR: ir.StringAttr.get(tied[n])} if n in tied else {})} for n in names]
        set_argument_attrs(func, attrs)
        types = ir.TypeAttr(func.attributes["function_type"]).value.inputs
        if values:
            importer.module.operation.attributes[VALUES_ATTR] = ir.DictAttr.get({
                n: dense_value(values[n], types[n_inputs + names.index(n)]) for n in names if n in values})
