"""Defects the fuzzers found, one test each (the IR ones for the opt tool are
lit tests in test/tools/opt/: unwritable-output.mlir, bad-pipeline-flag.mlir)."""

from __future__ import annotations

import json

import pytest
from torch_mlir import ir

import tosa_custom
from tosa_custom import CONTRACT_VERSION, ContractError
from tosa_custom.core import ir as _ir
from tosa_custom.contract.encoding import decode_attrs

GELU = {"args": {"self": {"operand": 0}, "approximate": "none"}, "version": CONTRACT_VERSION}


@pytest.mark.parametrize("raw", ["\\FF", "\\C3", "\\ED\\A0\\80"])
@pytest.mark.parametrize("attribute", ["implementation_attrs", "operator_name", "domain_name"])
def test_attribute_that_is_not_utf8_is_a_contract_error(raw, attribute):
    """decode() raised a bare RuntimeError from the bindings (fuzz: decode)."""
    values = {"operator_name": '"torch.aten.gelu"', "domain_name": '"torch_mlir"',
              "implementation_attrs": '"{}"'}
    values[attribute] = '"' + raw + values[attribute][1:]
    attrs = ", ".join(f"{k} = {v}" for k, v in sorted(values.items()))
    text = (f"func.func @f(%a: tensor<2xf32>) -> tensor<2xf32> {{\n"
            f"  %0 = tosa.custom %a {{{attrs}}} : (tensor<2xf32>) -> tensor<2xf32>\n"
            f"  return %0 : tensor<2xf32>\n}}\n")
    with _ir.make_context(), ir.Location.unknown():
        (custom,) = tosa_custom.custom_ops(ir.Module.parse(text))
        with pytest.raises(ContractError, match=f"'{attribute}' attribute of tosa.custom is not UTF-8"):
            tosa_custom.decode(custom)


@pytest.mark.parametrize("value", [{"memory_format": []}, {"memory_format": {}}, {"dtype": [1]},
                                   {"memory_format": {"a": 1}}, {"dtype": 6}])
def test_named_kind_with_an_unhashable_name_is_a_contract_error(value):
    """`{"memory_format": []}` raised TypeError: unhashable type (fuzz: decode)."""
    key = next(iter(value))
    op, arg = {"memory_format": ("torch.aten.clone", "memory_format"), "dtype": ("torch.aten.softmax.int", "dtype"),
}[key]
    overload = tosa_custom.core.schema.overload_for(op)
    args = {a.name: None for a in overload._schema.arguments}
    n = 0
    for a in overload._schema.arguments:
        if str(a.type) == "Tensor":
            args[a.name] = {"operand": n}
            n += 1
        elif str(a.type) == "int":
            args[a.name] = 0
        elif str(a.type) == "SymInt[]":
            args[a.name] = [2]
    args[arg] = value
    with pytest.raises(ContractError, match=f'expected {{"{key}": one of'):
        decode_attrs(op, json.dumps({"args": args, "version": CONTRACT_VERSION}), n)


@pytest.mark.parametrize("operator_name,domain_name", [("torch.aten.gelu", "torch_mlir"),
                                                        ("torch.aten.op_from_the_future", "torch_mlir"),
                                                        ("torch.aten.gelu", "torch_mlir_v2")])
def test_newer_version_is_named_before_anything_else(operator_name, domain_name):
    """An op or domain this decoder does not know was reported instead of the
    newer contract version that explains it (fuzz: decode oracle)."""
    newer = CONTRACT_VERSION + 1
    text = json.dumps({**GELU, "version": newer, "new_key": 1})
    with pytest.raises(ContractError) as info:
        decode_attrs(operator_name, text, 1, domain_name=domain_name)
    assert f"version {newer}" in str(info.value) and f"version {CONTRACT_VERSION}" in str(info.value)


def test_opt_input_that_is_not_utf8_is_a_usage_error():
    """Input holding lone surrogates (stdin read with surrogateescape) raised a
    TypeError from Module.parse (fuzz: opt)."""
    import io

    from tosa_custom.tools import opt

    err = io.StringIO()
    code = opt.run([], stdin=io.StringIO("func.func @f() {\ud800 return }"), stdout=io.StringIO(), stderr=err)
    assert code == 1
    assert "tosa-custom-opt: error: <stdin> is not UTF-8 text" in err.getvalue()


_UPSAMPLE_0D = """
func.func @f(%arg0: !torch.vtensor<[],f32>) -> !torch.vtensor<[2,3],f32> {
  %int2 = torch.constant.int 2
  %0 = torch.prim.ListConstruct %int2 : (!torch.int) -> !torch.list<int>
  %1 = torch.derefine %0 : !torch.list<int> to !torch.optional<list<int>>
  %none = torch.constant.none
  %2 = torch.aten.upsample_nearest2d.vec %arg0, %1, %none : !torch.vtensor<[],f32>, !torch.optional<list<int>>, !torch.none -> !torch.vtensor<[2,3],f32>
  return %2 : !torch.vtensor<[2,3],f32>
}"""


def test_upsample_of_a_0d_tensor_is_tunneled_by_auto_and_refused_by_the_lowering():
    """TorchToTosa segfaults on it; auto mode's probe ran it (fuzz: pass, auto).
    Auto tunnels it without probing; the lowering refuses it on its location."""
    from tosa_custom.core.passes import build_pass_manager
    from tosa_custom.tunnel.pipelines import after_tunnel

    with _ir.make_context(), ir.Location.unknown():
        module = ir.Module.parse(_UPSAMPLE_0D)
        build_pass_manager(["convert-torch-backend-legal-to-tosa-custom{ops=auto}", *after_tunnel()]).run(
            module.operation)
        assert 'operator_name = "torch.aten.upsample_nearest2d.vec", tosa_custom.tunneled = "no-tosa-lowering"' \
            in str(module)
        module = ir.Module.parse(_UPSAMPLE_0D)
        with pytest.raises(ir.MLIRError, match="lowering of upsample_nearest2d crashes the process"):
            build_pass_manager(after_tunnel()).run(module.operation)
