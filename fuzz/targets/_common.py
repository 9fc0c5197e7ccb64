"""Pieces the targets share: valid calls drawn from the contract tests'
strategies, and their JSON encoding."""

from __future__ import annotations

import functools

from hypothesis import strategies as st

from ..draw import import_test_helpers

import_test_helpers()

import torch  # noqa: E402

from _emit import Literal, Runtime, T  # noqa: E402  (test/contract)
import test_roundtrip as _rt  # noqa: E402  (test/contract: the argument strategies)
from tosa_custom import CONTRACT_VERSION  # noqa: E402
from tosa_custom.core import schema as _schema  # noqa: E402
from tosa_custom.contract.encoding import Operand, arg_type, canonical_json  # noqa: E402

__all__ = ["context", "OPS", "valid_json_call", "encode_call", "rt"]

rt = _rt


@functools.lru_cache(maxsize=None)
def context():
    """One MLIR context per worker process: making one loads every dialect."""
    from tosa_custom.core import ir as _ir

    return _ir.make_context()

aten = torch.ops.aten
# The contract tests' ops (every argument kind) and two the IR cannot spell (complex).
OPS = list(_rt.OPS) + [aten.add.complex, aten.sum.complex]


def _to_json(value, t, operands: list):
    if value is None:
        return None
    if isinstance(value, (T, Literal, Runtime)):
        operands.append(value)
        return {"operand": len(operands) - 1}
    if t.is_list and isinstance(value, list):
        return [_to_json(v, dataclass_elem(t), operands) for v in value]
    return t.kind.to_json(value)


@functools.lru_cache(maxsize=None)
def _elem(t):
    import dataclasses

    return dataclasses.replace(t, is_list=False, optional=t.elem_optional)


def dataclass_elem(t):
    return _elem(t)


@st.composite
def valid_json_call(draw, ops=None):
    """(operator_name, implementation_attrs text, operand count) of a valid json-encoded call."""
    overload = draw(st.sampled_from(ops or OPS))
    bool_scalars = True
    operands: list = []
    args = {}
    for a in overload._schema.arguments:
        t = arg_type(a.real_type)
        if t.is_list and t.kind.name == "complex":
            value = draw(st.lists(_rt.complexes, max_size=3))
        elif t.kind.name == "complex":
            value = draw(_rt.complexes)
        else:
            value = draw(_rt.arg_strategy(a.real_type, bool_scalars=bool_scalars), label=a.name)
        args[a.name] = _to_json(value, t, operands)
    name = _schema.overload_name(overload)
    return name, canonical_json({"args": args, "version": CONTRACT_VERSION}), len(operands)


def encode_call(call) -> dict:
    """The `args` object a DecodedCall stands for (the decoder's inverse, for oracles)."""
    out = {}
    for a in call.overload._schema.arguments:
        t = arg_type(a.real_type)
        value = call.arguments[a.name]
        out[a.name] = _encode_value(value, t, top=True)
    return out


def _encode_value(value, t, top: bool):
    if isinstance(value, Operand):
        return {"operand": value.index}
    if value is None:
        return None
    if t.is_list and top:
        return [_encode_value(v, t, top=False) for v in value]
    return t.kind.to_json(value)
