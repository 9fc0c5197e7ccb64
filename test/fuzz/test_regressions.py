"""Defects the fuzzers found, one test each (the IR ones for the opt tool are
lit tests in test/opt/: unwritable-output.mlir, bad-pipeline-flag.mlir)."""

from __future__ import annotations

import json

import pytest
from torch_mlir import ir

import tosa_custom
from tosa_custom import CONTRACT_VERSION, ContractError, _ir
from tosa_custom.contract import decode_attrs

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
    overload = tosa_custom.schema.overload_for(op)
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

    from tosa_custom import opt

    err = io.StringIO()
    code = opt.run([], stdin=io.StringIO("func.func @f() {\ud800 return }"), stdout=io.StringIO(), stderr=err)
    assert code == 1
    assert "tosa-custom-opt: error: <stdin> is not UTF-8 text" in err.getvalue()
