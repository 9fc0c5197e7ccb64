"""transformers BERT (dynamic batch and sequence), GPT-2 and Llama (dynamic
sequence) compile once to TOSA with `?` dims in stock, selective and auto
mode, validated by compile() for the 1.1 draft target it declares. Auto mode
leaves no carrier behind and tunnels no view (sizes read at run time are
resolved before TorchToTosa); stock mode tunnels nothing.

Runs are compile-only: the runtime's support for `?` is another branch's work.
Run time: 9 compiles, about 2 minutes of wall time on the shared machine (-n 1).
"""

from __future__ import annotations

import re
import warnings

import pytest
from _architectures import architecture
from torch.export import Dim

import tosa_custom
from torch_mlir import ir
from tosa_custom.core.ir import public_functions

# The 1.1 draft with EXT-DYNAMIC and EXT-SHAPE (a reshape of ? dims states its sizes with shape ops,
# tosa-custom-explicit-reshape-sizes); beside them what the program strictly needs (positions of unknown
# extent stay i64: EXT-INT64, and pro_int for integer ops). Strictly valid for it: test/conftest.py.
DYNAMIC = re.compile(r"profiles=(pro_int,)?pro_fp extensions=dynamic,(int64,)?shape level=8k "
                     r"specification_version=1\.1\.draft")
# Ops that only move sizes around: auto mode must not need to tunnel them on a dynamic program.
_SIZE_OPS = ("torch.aten.Int.Tensor", "torch.aten.view", "torch.aten._unsafe_view", "torch.aten.reshape",
             "torch.aten.size.int", "torch.aten.expand", "torch.aten.broadcast_to")


def _dynamic_shapes(name: str):
    seq = Dim("seq", min=2, max=32)
    if name == "bert":
        batch = Dim("batch", min=1, max=8)
        return ({0: batch, 1: seq}, {0: batch, 1: seq}), "tensor<?x?xi64>", "tensor<?x?x32xf32>"
    return ({1: seq}, {1: seq}), "tensor<2x?xi64>", "tensor<2x?x32xf32>"


@pytest.mark.slow
@pytest.mark.parametrize("mode", ["stock", "selective", "auto"])
@pytest.mark.parametrize("name", ["bert", "gpt2", "llama"])
def test_compiles_with_question_marks_in_every_mode(name, mode):
    model, args, selective = architecture(name)
    dynamic_shapes, arg_type, result_type = _dynamic_shapes(name)
    legal = {"stock": None, "selective": selective, "auto": "auto"}[mode]
    report = tosa_custom.CompileReport()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        module = tosa_custom.compile(model, args, dynamic_shapes=dynamic_shapes, backend_legal_ops=legal,
                                     report=report)
    assert DYNAMIC.fullmatch(report.tosa_target), report.tosa_target  # compile() validated the module for it
    func = public_functions(module)[0]
    # An int64 input whose every use fits int32 (the mask, its positions bounded on `?` dims by
    # tosa/ranges.py) is narrowed as in the static program: i32, with the range the boundary checks.
    ftype = ir.FunctionType(ir.TypeAttr(func.attributes["function_type"]).value)
    assert str(ftype.results[0]) == result_type
    for i, t in enumerate(ftype.inputs):
        assert str(t) in (arg_type, arg_type.replace("i64", "i32")), (i, str(t))
        if "i32" in str(t):
            attrs = ir.DictAttr(ir.ArrayAttr(func.attributes["arg_attrs"])[i])
            assert "tosa_custom.range" in attrs and str(attrs["tosa_custom.dtype"]) == '"int64"', str(attrs)
    ranges = {a.name: list(a.attr) for a in func.attributes["tosa_custom.symbols"]}
    assert sorted(ranges.values()) == sorted([[2, 32]] + ([[1, 8]] if name == "bert" else []))
    text = module.operation.get_asm(large_elements_limit=4)
    assert re.search(r"= torch(\.|_c\.)", text) is None  # only TOSA left
    tunneled = re.findall(r'operator_name = "([^"]+)"', text)
    assert not any(op.startswith(_SIZE_OPS) for op in tunneled), tunneled
    if mode == "stock":
        assert tunneled == []
    elif mode == "selective":  # LlamaRMSNorm computes its norm itself: no aten.rms_norm to keep
        assert {op.removeprefix("torch.") for op in tunneled} == set(selective) - {"aten.rms_norm"}
