"""The pass `tosa-custom-vulkan-distinct-results`: a VGF returns each value once.

The ML SDK's converter gives a graph one output per distinct value: a
function that returns one value twice (`return %5, %5`: `(a / b,
torch.div(a, b))` after CSE, or a model returning a tensor twice) leaves
the first of those outputs unwritten, and the runner hands back zeros
(measured with the 0.11.0 SDK; a `tosa.identity` between is folded away: it
counts as its operand here). So the entry returns each value once, and its attribute
`tosa_custom.vulkan_results` says which returned value each of the
original results is; `vgf.load` gives the caller the original results
(copies where a value was returned more than once, as eager's distinct
tensors), and a saved directory's outputs are the distinct values.
"""

from __future__ import annotations

from torch_mlir import ir

from ..core import ir as _ir
from ..core.passes import PassContext, register_pass

__all__ = ["VULKAN_DISTINCT_RESULTS", "RESULT_MAP", "distinct_results", "result_map"]

VULKAN_DISTINCT_RESULTS = "tosa-custom-vulkan-distinct-results"
RESULT_MAP = "tosa_custom.vulkan_results"


def _terminator(func: ir.Operation) -> ir.Operation:
    return func.regions[0].blocks[0].operations[len(func.regions[0].blocks[0].operations) - 1]


def _through_identities(value: ir.Value) -> ir.Value:
    """The value a chain of `tosa.identity` passes on (the converter folds them)."""
    while not isinstance(value.owner, ir.Block) and value.owner.operation.name == "tosa.identity":
        value = value.owner.operation.operands[0]
    return value


def _distinct(func: ir.Operation) -> None:
    ret = _terminator(func)
    values = [_through_identities(v) for v in ret.operands]
    firsts: list[ir.Value] = []
    mapping: list[int] = []
    for v in values:
        index = next((k for k, seen in enumerate(firsts) if seen == v), None)
        if index is None:
            index = len(firsts)
            firsts.append(v)
        mapping.append(index)
    if len(firsts) == len(values):
        return
    with ir.InsertionPoint(ret), ret.location:
        ir.Operation.create("func.return", operands=firsts)
    ret.erase()
    first_of = [mapping.index(k) for k in range(len(firsts))]
    if "res_attrs" in func.attributes:
        attrs = list(ir.ArrayAttr(func.attributes["res_attrs"]))
        func.attributes["res_attrs"] = ir.ArrayAttr.get([attrs[i] for i in first_of])
    ftype = _ir.function_type(func)
    _ir.set_function_type(func, ftype.inputs, [ftype.results[i] for i in first_of])
    i64 = ir.IntegerType.get_signless(64)
    func.attributes[RESULT_MAP] = ir.ArrayAttr.get([ir.IntegerAttr.get(i64, k) for k in mapping])


@register_pass(VULKAN_DISTINCT_RESULTS,
               "Return each value of a public function once, recording in tosa_custom.vulkan_results which "
               "returned value each original result is (the ML SDK leaves an output unwritten when a graph "
               "returns one value twice)")
def distinct_results(module_op, ctx: PassContext) -> None:
    for func in _ir.public_functions(module_op):
        _distinct(func)


def result_map(func: ir.Operation) -> list[int] | None:
    """Which returned value each original result is, or None when the pass changed nothing."""
    if RESULT_MAP not in func.attributes:
        return None
    return [ir.IntegerAttr(a).value for a in ir.ArrayAttr(func.attributes[RESULT_MAP])]
