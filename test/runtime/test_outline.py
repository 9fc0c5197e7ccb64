"""outline.py: what the outline rewrite makes of a tosa.custom, and the call sites it finds
(the IR shapes are in outline-custom-ops.mlir)."""

from __future__ import annotations

import collections

import pytest
import torch
from torch_mlir import ir, passmanager

from tosa_custom.core import ir as _ir
from tosa_custom import runtime
from tosa_custom.core.diagnostics import CompileError
from tosa_custom.runtime.lower import lowering, outline, tiling
from _runtime_ir import _matmul, _names, _ops, _parse  # noqa: F401  (shared IR helpers)


TWO_CUSTOMS = """
func.func @f(%a: tensor<2x3xf32>, %b: tensor<3xi32>) -> (tensor<2x3xf32>, tensor<3xi32>) {
  %k = "tosa.const"() <{values = dense<7> : tensor<i64>}> : () -> tensor<i64>
  %0 = tosa.custom %a, %k {domain_name = "acme", implementation_attrs = "{}", operator_name = "first"} : (tensor<2x3xf32>, tensor<i64>) -> tensor<2x3xf32>
  %1:2 = tosa.custom %0, %b {domain_name = "torch_mlir", implementation_attrs = "x", operator_name = "second"} : (tensor<2x3xf32>, tensor<3xi32>) -> (tensor<2x3xf32>, tensor<3xi32>)
  return %1#0, %1#1 : tensor<2x3xf32>, tensor<3xi32>
}"""


@pytest.fixture
def outlined():
    module = _parse(TWO_CUSTOMS)
    constants = []

    def read_constant(value):
        owner = value.owner
        if not isinstance(owner, ir.Block) and owner.operation.name == "tosa.const":
            constants.append(value)
            return 7
        return None

    sites = lowering.outline_custom_ops(module, read_constant)
    return module, sites


def test_outline_replaces_every_custom_op(outlined):
    module, sites = outlined
    names = _names(module)
    assert names["tosa.custom"] == 0
    assert names["func.call"] == 2
    module.operation.verify()


def test_outline_call_sites(outlined):
    _, sites = outlined
    first, second = sites
    assert (first.index, first.symbol, first.operator_name, first.domain_name) == (
        0, "tosa_custom_kernel_0", "first", "acme")
    assert first.input_types == ("f32", "i64") and first.input_shapes == ((2, 3), ())
    assert first.output_types == ("f32",) and first.output_shapes == ((2, 3),)
    assert first.const_inputs == (None, 7)
    assert second.symbol == "tosa_custom_kernel_1" and second.implementation_attrs == "x"
    assert second.output_types == ("f32", "i32") and second.output_shapes == ((2, 3), (3,))


def test_outline_extern_declarations(outlined):
    module, _ = outlined
    decls = {ir.StringAttr(op.attributes["sym_name"]).value: op for op in module.body.operations
             if op.operation.name == "func.func" and len(op.regions[0].blocks) == 0}
    assert set(decls) == {"tosa_custom_kernel_0", "tosa_custom_kernel_1"}
    decl = decls["tosa_custom_kernel_1"]
    assert ir.StringAttr(decl.attributes["sym_visibility"]).value == "private"
    assert "llvm.emit_c_interface" in decl.attributes
    ftype = ir.TypeAttr(decl.attributes["function_type"]).value
    # destination-passing: inputs (strided views), then outputs (identity layout); no results
    assert [str(t) for t in ftype.inputs] == [
        "memref<2x3xf32, strided<[?, ?], offset: ?>>",
        "memref<3xi32, strided<[?], offset: ?>>",
        "memref<2x3xf32>",
        "memref<3xi32>",
    ]
    assert list(ftype.results) == []


def test_outline_destination_passing_call(outlined):
    module, _ = outlined
    ops = _ops(module)
    call = next(op for op in ops if op.name == "func.call"
                and ir.FlatSymbolRefAttr(op.attributes["callee"]).value == "tosa_custom_kernel_1")
    operands = list(call.operands)
    assert len(operands) == 4 and len(call.results) == 0
    views, outs = operands[:2], operands[2:]
    for v in views:  # inputs: read-only, zero-copy views of the tensors
        producer = v.owner.operation
        assert producer.name == "bufferization.to_buffer"
        assert "read_only" in producer.attributes
        assert "strided<" in str(v.type)
    for v in outs:  # outputs: allocated by the caller, identity layout
        producer = v.owner.operation
        assert producer.name == "memref.alloc"
        assert "strided" not in str(v.type)
    # ... and handed back as tensors the compiled code may write in place
    backs = [op for op in ops if op.name == "bufferization.to_tensor" and op.operands[0] in outs]
    assert len(backs) == 2
    for back in backs:
        assert "restrict" in back.attributes and "writable" in back.attributes
    # the function returns those tensors
    ret = next(op for op in ops if op.name == "func.return")
    assert [r.owner.operation.name for r in ret.operands] == ["bufferization.to_tensor"] * 2


def test_outline_refuses_dynamic_results_it_cannot_size():
    module = _parse("""
func.func @f(%a: tensor<?xf32>) -> tensor<?xf32> {
  %0 = tosa.custom %a {domain_name = "acme", implementation_attrs = "", operator_name = "dyn"} : (tensor<?xf32>) -> tensor<?xf32>
  return %0 : tensor<?xf32>
}""")
    with pytest.raises(CompileError, match=r"dyn has a result with a `\?` dim and no \"result_shapes\"") as info:
        lowering.outline_custom_ops(module, lambda v: None)
    assert (info.value.category, info.value.ops) == ("dynamic-shape", ("dyn",))
    assert _names(module)["tosa.custom"] == 1  # refused before anything was rewritten


def test_sites_are_found_then_bound_then_rewritten():
    """Binding is between the analysis and the rewrite: a context address
    written on a site becomes its call's leading i64 argument, and only its."""
    module = _parse(TWO_CUSTOMS)
    sites = outline.find_custom_call_sites(module)
    assert [s.operator_name for s in sites] == ["first", "second"]
    assert _names(module)["tosa.custom"] == 2  # the analysis changes nothing
    outline.set_kernel_contexts(module, {1: 0xBEEF})
    rewritten = outline.outline_custom_ops(module)
    assert rewritten == sites
    calls = {ir.FlatSymbolRefAttr(op.attributes["callee"]).value: op for op in _ops(module) if op.name == "func.call"}
    first, second = calls["tosa_custom_kernel_0"], calls["tosa_custom_kernel_1"]
    assert str(first.operands[0].type).startswith("memref<")
    context = second.operands[0].owner.operation
    assert context.name == "arith.constant" and ir.IntegerAttr(context.attributes["value"]).value == 0xBEEF
