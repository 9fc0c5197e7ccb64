"""Round trips through the contract: Python call -> torch IR -> pass -> tosa.custom -> decode().

The calls are drawn by hypothesis from each schema argument's real type (never
per-op values), for both encodings; the decoder's refusals are checked on
hand-written attributes and IR; and decoded calls are run against eager PyTorch.
"""

from __future__ import annotations

import json
import math
import os

import numpy as np
import pytest
import torch
from hypothesis import HealthCheck, given, settings, strategies as st
from torch_mlir import ir

import tosa_custom
from tosa_custom import CONTRACT_VERSION, ContractError, DecodedCall, Operand, decode
from tosa_custom.core import ir as _ir
from tosa_custom.core import schema as _schema
from tosa_custom.contract.encoding import arg_kinds, arg_type, canonical_json, decode_attrs
from tosa_custom.core.diagnostics import DiagnosticLog
from tosa_custom.tunnel.conversion import convert_module
from tosa_custom.tunnel.options import PassOptions

from _emit import ENUM_NUMBER, FuncArg, Literal, Runtime, T, emit, is_registered, mlir_f64, mlir_string

aten = torch.ops.aten
ENCODINGS = ("json", "const")
# Examples per property test; ROUNDTRIP_EXAMPLES=1000 for a longer hunt.
EXAMPLES = int(os.environ.get("ROUNDTRIP_EXAMPLES", "0")) or None

# Real ops whose schemas, together, use every argument kind the IR can spell
# (test_ops_cover_every_kind checks that).
OPS = [
    aten.layer_norm.default,            # Tensor, int[], Tensor?, float, bool
    aten.native_layer_norm.default,     # several results
    aten.native_layer_norm_backward.default,  # bool[]
    aten.cat.default,                   # Tensor[]
    aten.index.Tensor,                  # Tensor?[]
    aten.add.Scalar,                    # Scalar
    aten.clamp.default,                 # Scalar?
    aten.gelu.default,                  # str (kwarg-only)
    aten.div.Tensor_mode,               # str?
    aten.sum.dim_IntList,               # int[]?, dtype?
    aten.empty.memory_format,           # dtype?, layout?, device?, bool?, memory_format?; no tensor
    aten._to_copy.default,
    aten.full.default,
    aten.arange.start_step,
    aten.upsample_nearest2d.vec,        # float[]?
    aten.topk.default,
    aten.var.correction,
    aten.std_mean.correction,           # not in the torch dialect: torch.operator
    aten.mm.dtype,                      # dtype (non-optional), torch.operator
    aten._softmax_backward_data.default,  # dtype (non-optional)
    aten.to.device,                     # Device (non-optional)
    aten.slice.Tensor,                  # int?
    aten.scaled_dot_product_attention.default,  # float?
    aten.bernoulli.p,                   # Generator? (None only)
    aten.clone.default,
    aten.softmax.int,
]


def op_id(o) -> str:
    return f"{o._schema.name.split('::')[1]}.{o._schema.overload_name or 'default'}"


@pytest.fixture(scope="module")
def ctx():
    return _ir.make_context()


# --------------------------------------------------------------------------
# Running the pass and checking what decode() gives back.
# --------------------------------------------------------------------------


custom_ops = tosa_custom.custom_ops


def convert(ctx, text: str, identifier: str, encoding: str):
    """Parse `text`, run the pass selecting `identifier`; (module, the one tosa.custom)."""
    with ctx, ir.Location.unknown():
        module = ir.Module.parse(text)
        result = convert_module(module.operation, PassOptions([identifier], encoding=encoding, strict=True))
        assert result.converted == {identifier: 1}, (result, text)
        assert module.operation.verify()
        customs = custom_ops(module)
        assert len(customs) == 1, str(module)
        return module, customs[0]


def reparse(ctx, module: ir.Module):
    """Print and parse again: the attributes must survive MLIR's own escaping."""
    with ctx, ir.Location.unknown():
        again = ir.Module.parse(str(module))
        (custom,) = custom_ops(again)
        return again, custom


def attrs_of(custom) -> str:
    return ir.StringAttr(custom.attributes["implementation_attrs"]).value


def _owner(value: ir.Value):
    owner = value.owner
    return None if isinstance(owner, ir.Block) else owner.operation


def _block_arg_number(value: ir.Value) -> int:
    assert isinstance(value.owner, ir.Block), f"{value} is not a function argument"
    return ir.BlockArgument(value).arg_number


def same_float(a: float, b: float) -> bool:
    if math.isnan(a):
        return math.isnan(b)
    return a == b and math.copysign(1.0, a) == math.copysign(1.0, b)


def decoded_dtype(custom, index: int):
    attrs = json.loads(ir.StringAttr(custom.attributes["implementation_attrs"]).value)
    return attrs.get("operand_dtypes", {}).get(str(index))


def assert_same(expected, got, custom, *, slot_kind: str, read: bool, where: str):
    """`got` (decoded) is `expected` (from the emitter); Operands trace back to
    the function argument that `expected` names, through the ops §3.2/§4.5 say;
    a literal tensor arrives as a `tosa.const` holding its elements (§3.2)."""
    if isinstance(expected, Literal):
        assert isinstance(got, Operand) and got.kind == "tensor", f"{where}: expected an Operand, got {got!r}"
        value = custom.operands[got.index]
        assert str(value.type) == expected.builtin_type, where
        producer = _owner(value)
        assert producer is not None and producer.name == "tosa.const", where
        values, want = producer.attributes["values"], ir.Attribute.parse(expected.dense)
        assert str(ir.DenseElementsAttr(values).type) == expected.builtin_type, where
        if expected.dtype == "ui8":  # the same bits, as int8 (CONTRACT.md 3.5)
            assert decoded_dtype(custom, got.index) == "uint8", where
            bits = np.broadcast_to(np.array(ir.DenseElementsAttr(values)), expected.shape).view(np.uint8)
            assert bits.reshape(-1).tolist() == list(expected.values), where
            return
        assert str(values).rsplit(" : ", 1)[0] == str(want).rsplit(" : ", 1)[0], where  # same elements
        return
    if isinstance(expected, FuncArg):
        assert isinstance(got, Operand), f"{where}: expected an Operand, got {got!r}"
        value = custom.operands[got.index]
        marker = expected.marker
        if isinstance(marker, T):
            assert got.kind == "tensor", where
            assert str(value.type) == marker.builtin_type, where
            producer = _owner(value)
            assert producer is not None and producer.name == "torch_c.to_builtin_tensor", where
            source = producer.operands[0]
            if marker.dtype == "ui8":  # through the uint8 -> int8 carrier (CONTRACT.md 3.5)
                carrier = _owner(source)
                assert carrier.name == "torch.aten.to.dtype" and "tosa_custom.carrier" in carrier.attributes, where
                assert decoded_dtype(custom, got.index) == "uint8", where
                source = carrier.operands[0]
        else:
            # decode() reads the element type of a Scalar's operand; decode_attrs
            # without a reader can only say "number".
            want = marker.kind if (read or slot_kind != "number") else "number"
            assert got.kind == want, f"{where}: kind {got.kind!r}, expected {want!r}"
            element = {"int": "i64", "float": "f64", "bool": "i1"}[marker.kind]
            assert str(value.type) == f"tensor<{element}>", where
            producer = _owner(value)
            assert producer is not None and producer.name == "tensor.from_elements", where
            cast = _owner(producer.operands[0])
            assert cast is not None and cast.name == f"torch_c.to_{element}", where
            source = cast.operands[0]
        assert _block_arg_number(source) == expected.number, where
        return
    if expected is None:
        assert got is None, f"{where}: expected None, got {got!r}"
    elif isinstance(expected, list):
        assert type(got) is list, f"{where}: expected a list, got {got!r}"
        assert len(got) == len(expected), f"{where}: {got!r} != {expected!r}"
        for i, (e, g) in enumerate(zip(expected, got)):
            assert_same(e, g, custom, slot_kind=slot_kind, read=read, where=f"{where}[{i}]")
    elif isinstance(expected, float):
        assert type(got) is float and same_float(expected, got), f"{where}: {got!r} != {expected!r}"
    elif isinstance(expected, (bool, int, str)):
        assert type(got) is type(expected) and got == expected, f"{where}: {got!r} != {expected!r}"
    else:  # torch.device, dtype, layout, memory_format
        assert type(got) is type(expected) and got == expected, f"{where}: {got!r} != {expected!r}"


def assert_decodes_to(call: DecodedCall, em, custom, *, read: bool = True):
    schema = em.overload._schema
    assert call.overload is em.overload
    positional = [a.name for a in schema.arguments if not a.kwarg_only]
    keyword = [a.name for a in schema.arguments if a.kwarg_only]
    assert len(call.args) == len(positional), call
    assert sorted(call.kwargs) == sorted(keyword), call
    used = []

    def collect(v):
        if isinstance(v, Operand):
            used.append(v.index)
        elif isinstance(v, list):
            for x in v:
                collect(x)

    for a in schema.arguments:
        got = call.arguments[a.name]
        collect(got)
        assert_same(em.expected[a.name], got, custom, slot_kind=arg_type(a.real_type).kind.name,
                    read=read, where=f"{em.identifier} argument '{a.name}'")
    assert len(used) == len(set(used)), f"an operand is used twice: {call}"


def round_trip(ctx, em, encoding: str):
    """Convert `em`, decode it three ways (decode(), decode_attrs without a
    reader for the json encoding, and decode() after print+parse) and check each."""
    module, custom = convert(ctx, em.text, em.identifier, encoding)
    with ctx:
        call = decode(custom)
        assert_decodes_to(call, em, custom)
        names = [ir.StringAttr(custom.attributes[k]).value
                 for k in ("operator_name", "domain_name", "implementation_attrs")]
        assert names[:2] == [em.identifier, tosa_custom.DOMAIN]
        if encoding == "json":
            raw = decode_attrs(names[0], names[2], len(custom.operands), domain_name=names[1])
            assert_decodes_to(raw, em, custom, read=False)
        module2, custom2 = reparse(ctx, module)
        assert attrs_of(custom2) == names[2]
        assert_decodes_to(decode(custom2), em, custom2)
    return module, custom, call


# --------------------------------------------------------------------------
# Strategies: one per schema argument type.
# --------------------------------------------------------------------------

INT64_MIN, INT64_MAX = -(2**63), 2**63 - 1
TENSOR_DTYPES = ["f32", "f16", "bf16", "f64", "si64", "si32", "si16", "si8", "ui8", "i1"]
SPECIAL_FLOATS = [-0.0, 0.0, 1e-300, 1e308, math.inf, -math.inf, math.nan, 5e-324, 1e-05, 2.0, -1.5]
SPECIAL_STRINGS = ["", "tanh", "none", '"', "\\", "\n", 'a"b\\c\nd', "\\22", "\x00", "\t\r\x7f",
                   "é😀", "\u2028\ufeff", '{"operand":0}', "null"]
DEVICES = ["cpu", "cuda", "cuda:0", "cuda:1", "meta", "mps", "xpu:3", torch.device("cpu"),
           torch.device("cuda", 2)]

# Literal element types whose tosa.const the pass gets right (see
# test_signed_integer_literal_gives_valid_tosa_const for the others).
LITERAL_DTYPES = ["f32", "f16", "bf16", "f64", "i1", "ui8"]


def literal_values(dtype: str, n: int):
    if dtype == "i1":
        elem = st.booleans()
    elif dtype == "ui8":
        elem = st.integers(0, 255)
    elif dtype.startswith("si"):
        bits = int(dtype[2:])
        elem = st.integers(-(2 ** (bits - 1)), 2 ** (bits - 1) - 1)
    else:
        elem = st.integers(-64, 64).map(lambda k: k / 4)  # exact in every float type
    return st.lists(elem, min_size=n, max_size=n).map(tuple)


@st.composite
def literals(draw, dtypes=LITERAL_DTYPES):
    shape = tuple(draw(st.lists(st.integers(1, 3), max_size=3)))
    dtype = draw(st.sampled_from(dtypes))
    values = draw(literal_values(dtype, math.prod(shape)))
    return Literal(shape, dtype, values)


tensors = st.one_of(
    st.builds(
        T,
        shape=st.lists(st.one_of(st.integers(1, 5), st.none()), max_size=3).map(tuple),
        dtype=st.sampled_from(TENSOR_DTYPES),
    ),
    literals(),
)
int64s = st.one_of(st.integers(INT64_MIN, INT64_MAX), st.sampled_from([INT64_MIN, INT64_MAX, 0, 1, -1]))
floats = st.one_of(st.floats(), st.sampled_from(SPECIAL_FLOATS))
strings = st.one_of(
    st.text(st.characters(exclude_categories=["Cs"]), max_size=12),
    st.sampled_from(SPECIAL_STRINGS),
)


def base_strategy(kind: str, *, bool_scalars: bool):
    """Values of one base kind. `bool_scalars`: a bool may stand for a Scalar
    (the dialect's named ops refuse `!torch.bool` there; torch.operator takes it)."""
    if kind == "Tensor":
        return tensors
    if kind == "int":
        return st.one_of(int64s, st.just(Runtime("int")))
    if kind == "float":
        return st.one_of(floats, st.just(Runtime("float")))
    if kind == "bool":
        return st.one_of(st.booleans(), st.just(Runtime("bool")))
    if kind == "number":
        options = [int64s, floats, st.sampled_from([Runtime("int"), Runtime("float")])]
        if bool_scalars:
            options += [st.booleans(), st.just(Runtime("bool"))]
        return st.one_of(*options)
    if kind == "str":
        return strings
    if kind == "dtype":
        return st.sampled_from(list(_schema.DTYPES.values()))
    if kind == "layout":
        return st.sampled_from(list(_schema.LAYOUTS.values()))
    if kind == "memory_format":
        return st.sampled_from(list(_schema.MEMORY_FORMATS.values()))
    if kind == "device":
        return st.sampled_from(DEVICES)
    if kind == "Generator":
        return st.nothing()  # only None can be carried
    raise AssertionError(f"no strategy for kind {kind}")


def arg_strategy(real_type, *, bool_scalars: bool):
    t = arg_type(real_type)
    assert t is not None, real_type
    base = base_strategy(t.kind.name, bool_scalars=bool_scalars)
    if t.is_list:
        elem = st.one_of(st.none(), base) if t.elem_optional else base
        max_size = 10 if t.kind.name == "bool" else 4  # i1 constants are bit-packed
        value = st.lists(elem, max_size=max_size)
    else:
        value = base
    return st.one_of(st.none(), value) if t.optional else value


@st.composite
def calls(draw, overload):
    """(emitted IR, emission style) for one drawn call of `overload`."""
    form = draw(st.sampled_from(["auto", "operator"]))
    bool_scalars = form == "operator" or not is_registered(overload)
    values = [draw(arg_strategy(a.real_type, bool_scalars=bool_scalars), label=a.name)
              for a in overload._schema.arguments]
    style = dict(form=form, derefine=draw(st.booleans()), scalar_as_number=draw(st.booleans()))
    return values, style, bool_scalars


# --------------------------------------------------------------------------
# 1. The emitter.
# --------------------------------------------------------------------------


def _simple_values(overload):
    """A valid call of `overload` with the simplest value of each kind."""
    simple = {"Tensor": T(), "int": 1, "float": 1.0, "bool": False, "number": 2, "str": "none",
              "dtype": torch.float32, "layout": torch.strided, "memory_format": torch.contiguous_format,
              "device": "cpu"}
    values = []
    for a in overload._schema.arguments:
        t = arg_type(a.real_type)
        if t.kind.name == "Generator":
            values.append(None)
        elif t.is_list:
            values.append([simple[t.kind.name]] * 2)
        else:
            values.append(simple[t.kind.name])
    return values


@pytest.mark.parametrize("overload", OPS, ids=op_id)
@pytest.mark.parametrize("form", ["auto", "operator"])
def test_emitter_output_parses_and_verifies(ctx, overload, form):
    em = emit(overload, _simple_values(overload), form=form, derefine=True)
    with ctx, ir.Location.unknown():
        module = ir.Module.parse(em.text)
        assert module.operation.verify()
        (func,) = module.body.operations
        ops = [op.operation.name for op in func.regions[0].blocks[0].operations]
    want = em.identifier if em.form == "custom" else "torch.operator"
    assert want in ops
    assert em.form == ("custom" if form == "auto" and is_registered(overload) else "operator")


def test_emitter_spells_every_kind(ctx):
    em = emit(aten.empty.memory_format, [[2, Runtime("int")], torch.bfloat16, torch.strided, "cpu", None,
                                         torch.channels_last])
    assert 'torch.constant.device "cpu"' in em.text
    assert f"torch.constant.int {ENUM_NUMBER[torch.bfloat16]}" in em.text
    assert "torch.constant.none" in em.text
    assert "!torch.list<int>" in em.text
    assert em.func_args == [Runtime("int")]
    assert em.expected["size"] == [2, FuncArg(0, Runtime("int"))]
    with ctx, ir.Location.unknown():
        ir.Module.parse(em.text)
    with pytest.raises(ValueError, match="None for a non-optional"):
        emit(aten.gelu.default, [T(), None])
    with pytest.raises(ValueError, match="takes 2 arguments"):
        emit(aten.gelu.default, [T()])


@settings(max_examples=EXAMPLES or 60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(s=strings, f=floats)
def test_emitter_literals_round_trip_through_mlir(ctx, s, f):
    """`torch.constant.str`/`.float` attributes read back exactly what was emitted."""
    text = (f"func.func @f() -> (!torch.str, !torch.float) {{\n"
            f"  %s = torch.constant.str {mlir_string(s)}\n"
            f"  %f = torch.constant.float {mlir_f64(f)}\n"
            f"  return %s, %f : !torch.str, !torch.float\n}}\n")
    with ctx, ir.Location.unknown():
        module = ir.Module.parse(text)
        ops = list(module.body.operations[0].regions[0].blocks[0].operations)
        assert ir.StringAttr(ops[0].attributes["value"]).value == s
        assert same_float(ir.FloatAttr(ops[1].attributes["value"]).value, f)


# --------------------------------------------------------------------------
# 2. decode(encode(call)) == call, every kind, both encodings.
# --------------------------------------------------------------------------


def test_ops_cover_every_kind():
    """The OPS list exercises every kind the IR can spell, optional and list forms included."""
    seen = set()
    for o in OPS:
        assert all(r.type == torch.TensorType.get() for r in o._schema.returns), o
        for a in o._schema.arguments:
            t = arg_type(a.real_type)
            assert t is not None, (o, a)
            seen.add(str(t))
    needed = {"Tensor", "Tensor?", "Tensor[]", "Tensor?[]", "int", "int?", "int[]", "int[]?",
              "float", "float?", "float[]?", "bool", "bool?", "bool[]", "number", "number?",
              "str", "str?", "dtype", "dtype?", "layout?", "device", "device?", "memory_format?",
              "Generator?"}
    assert needed <= seen, sorted(needed - seen)
    assert {is_registered(o) for o in OPS} == {True, False}


@pytest.mark.parametrize("encoding", ENCODINGS)
@pytest.mark.parametrize("overload", OPS, ids=op_id)
@settings(max_examples=EXAMPLES or 12, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(data=st.data())
def test_decode_inverts_the_pass(ctx, overload, encoding, data):
    values, style, _ = data.draw(calls(overload))
    em = emit(overload, values, **style)
    round_trip(ctx, em, encoding)


# Hand-picked extremes, so each is checked on every run, not only when drawn.
EXTREME_CALLS = [
    (aten.topk.default, [T((2, 8)), INT64_MAX, INT64_MIN, True, False]),
    (aten.topk.default, [T((2, 8)), Runtime("int"), -1, Runtime("bool"), True]),
    (aten.layer_norm.default, [T(), [], None, T((3,)), -0.0, True]),
    (aten.layer_norm.default, [T(), [3], T((3,)), None, 5e-324, False]),
    (aten.bernoulli.p, [T(), math.nan, None]),
    (aten.bernoulli.p, [T(), math.inf, None]),
    (aten.bernoulli.p, [T(), -math.inf, None]),
    (aten.bernoulli.p, [T(), 1e308, None]),
    (aten.bernoulli.p, [T(), 1e-300, None]),
    (aten.bernoulli.p, [T(), Runtime("float"), None]),
    (aten.add.Scalar, [T(), 3, 2.0]),
    (aten.add.Scalar, [T(), -0.0, INT64_MIN]),
    (aten.add.Scalar, [T(), math.nan, math.inf]),
    (aten.add.Scalar, [T(), Runtime("int"), Runtime("float")]),
    (aten.std_mean.correction, [T(), [0, 1], True, False]),  # bool Scalars (torch.operator)
    (aten.std_mean.correction, [T(), None, Runtime("bool"), Runtime("bool")]),
    (aten.clamp.default, [T(), None, None]),
    (aten.clamp.default, [T(), -1, 1.5]),
    (aten.gelu.default, [T(), 'tanh"\\\n\x00é😀 \u2028']),
    (aten.div.Tensor_mode, [T(), T(), None]),
    (aten.div.Tensor_mode, [T(), T((1,), "si64"), "floor"]),
    (aten.cat.default, [[], 0]),
    (aten.cat.default, [[T(), T((None, 3), "bf16"), T((), "i1")], Runtime("int")]),
    (aten.index.Tensor, [T((4, 5)), [None, T((3,), "si64"), None]]),
    (aten.index.Tensor, [T((4, 5)), [None, None]]),
    (aten.index.Tensor, [T((4, 5)), []]),
    (aten.sum.dim_IntList, [T(), None, False, None]),
    (aten.sum.dim_IntList, [T(), [], True, torch.float64]),
    (aten.sum.dim_IntList, [T(), [5, 5, 5], True, torch.complex128]),  # a splat constant
    (aten.native_layer_norm_backward.default,
     [T(), T(), [2, Runtime("int")], T(), T(), None, T((3,)), [True, False, True]]),
    (aten.native_layer_norm_backward.default,
     [T(), T(), [3], T(), T(), T((3,)), None, [True] * 9 + [False]]),
    (aten.upsample_nearest2d.vec, [T((1, 1, 2, 2)), None, [2.0, -0.0, math.nan, math.inf]]),
    (aten.upsample_nearest2d.vec, [T((1, 1, 2, 2)), [4, 4], None]),
    (aten.upsample_nearest2d.vec, [T((1, 1, 2, 2)), [], []]),
    (aten.upsample_nearest2d.vec, [T((1, 1, 2, 2)), None, [1.5, Runtime("float")]]),
    (aten.empty.memory_format, [[2, 3], torch.bfloat16, torch.strided, "cpu", False, torch.contiguous_format]),
    (aten.empty.memory_format, [[2], None, None, None, None, None]),
    (aten.full.default, [[2, 3], True, torch.bool, torch.sparse_csr, "meta", True], {"form": "operator"}),
    (aten.add.Scalar, [T(), False, Runtime("bool")], {"form": "operator"}),
    (aten.arange.start_step, [0, 10.5, Runtime("int"), torch.int64, None, torch.device("cuda", 1), None]),
    (aten.to.device, [T(), "cuda:1", torch.float8_e4m3fnuz, Runtime("bool"), True, torch.channels_last_3d]),
    (aten._to_copy.default, [T(), torch.uint64, torch.sparse_bsr, "mps", None, False, torch.preserve_format]),
    (aten.slice.Tensor, [T(), 1, None, INT64_MAX, 1]),
    (aten.slice.Tensor, [T(), 0, Runtime("int"), None, Runtime("int")]),
    (aten.scaled_dot_product_attention.default, [T(), T(), T(), None, 0.0, False, None, True]),
    (aten.scaled_dot_product_attention.default, [T(), T(), T(), T(), 0.1, True, 0.125, False]),
    (aten.layer_norm.default, [T((2, 3)), [3], Literal((3,), "f32", (0.5, -1.0, 2.0)),
                               Literal((3,), "bf16", (0.0, 0.0, 0.0)), 1e-05, False]),
    (aten.index.Tensor, [T((4, 5)), [None, Literal((2,), "i1", (True, False)), Literal((1,), "ui8", (7,))]]),
    (aten.cat.default, [[Literal((), "f64", (1.5,)), T(())], 0]),
]


@pytest.mark.parametrize("encoding", ENCODINGS)
@pytest.mark.parametrize("derefine", [False, True])
@pytest.mark.parametrize("case", EXTREME_CALLS, ids=[f"{op_id(c[0])}-{i}" for i, c in enumerate(EXTREME_CALLS)])
def test_decode_inverts_the_pass_extremes(ctx, case, encoding, derefine):
    overload, values, *style = case
    round_trip(ctx, emit(overload, values, derefine=derefine, **(style[0] if style else {})), encoding)


@pytest.mark.parametrize("encoding", ENCODINGS)
def test_one_value_used_twice_becomes_two_operands(ctx, encoding):
    """§3.1: every operand is referenced once, even when the IR passes one SSA
    value (a tensor, a constant) to two arguments."""
    text = """func.func @f(%x: !torch.vtensor<[2,8],f32>) -> (!torch.vtensor<[2,3],f32>, !torch.vtensor<[2,3],si64>) {
  %int3 = torch.constant.int 3
  %true = torch.constant.bool true
  %values, %indices = torch.aten.topk %x, %int3, %int3, %true, %true : !torch.vtensor<[2,8],f32>, !torch.int, !torch.int, !torch.bool, !torch.bool -> !torch.vtensor<[2,3],f32>, !torch.vtensor<[2,3],si64>
  return %values, %indices : !torch.vtensor<[2,3],f32>, !torch.vtensor<[2,3],si64>
}
"""
    module, custom = convert(ctx, text, "torch.aten.topk", encoding)
    with ctx:
        assert decode(custom).args[1:] == (3, 3, True, True)
    text = """func.func @f(%x: !torch.vtensor<[2,3],f32>) -> !torch.vtensor<[4,3],f32> {
  %int0 = torch.constant.int 0
  %list = torch.prim.ListConstruct %x, %x : (!torch.vtensor<[2,3],f32>, !torch.vtensor<[2,3],f32>) -> !torch.list<vtensor>
  %0 = torch.aten.cat %list, %int0 : !torch.list<vtensor>, !torch.int -> !torch.vtensor<[4,3],f32>
  return %0 : !torch.vtensor<[4,3],f32>
}
"""
    module, custom = convert(ctx, text, "torch.aten.cat", encoding)
    with ctx:
        call = decode(custom)
    a, b = call.args[0]
    assert a.index != b.index
    assert _block_arg_number(_owner(custom.operands[a.index]).operands[0]) == 0
    assert _block_arg_number(_owner(custom.operands[b.index]).operands[0]) == 0


@pytest.mark.parametrize("dtype", ["si64", "si32", "si16", "si8"])
@pytest.mark.parametrize("encoding", ENCODINGS)
def test_signed_integer_literal_gives_valid_tosa_const(ctx, dtype, encoding):
    em = emit(aten.index.Tensor, [T((4, 5)), [None, Literal((3,), dtype, (3, 0, 1))]])
    module, custom, call = round_trip(ctx, em, encoding)  # verifies, reparses, checks the elements
    assert call.args[1][1] == Operand(1)
    assert str(custom.operands[1].type) == "tensor<3x" + dtype[1:] + ">"


@pytest.mark.parametrize("device", ["foo", "CPU", "cuda:01", "cuda:-1", ""])
def test_every_op_the_pass_writes_decodes_invalid_device(ctx, device):
    text = f"""func.func @f(%a: !torch.vtensor<[2],f32>) -> !torch.vtensor<[2],f32> {{
  %d = torch.constant.device {mlir_string(device)}
  %i = torch.constant.int 6
  %b = torch.constant.bool false
  %n = torch.constant.none
  %0 = torch.aten.to.device %a, %d, %i, %b, %b, %n : !torch.vtensor<[2],f32>, !torch.Device, !torch.int, !torch.bool, !torch.bool, !torch.none -> !torch.vtensor<[2],f32>
  return %0 : !torch.vtensor<[2],f32>
}}
"""
    with ctx, ir.Location.unknown():
        module = ir.Module.parse(text)
        log = DiagnosticLog()  # the skip warning is expected; checked below
        result = convert_module(module.operation, PassOptions(["aten.to.device"]), log)
        assert len(log.of("warning")) == len(result.skipped)
        for custom in custom_ops(module):
            decode(custom)  # whatever the pass writes must decode
        if device in ("foo", "CPU", "cuda:01", ""):  # torch.device refuses these
            assert [s.category for s in result.skipped] == ["unsupported-argument-type"]
            assert "invalid device" in result.skipped[0].message
        assert result.converted or result.skipped


@pytest.mark.parametrize("encoding", ENCODINGS)
def test_every_dtype_layout_and_memory_format_round_trips(ctx, encoding):
    """Every c10 dtype/layout/memory format number the table has comes back by name."""
    for dtype in _schema.DTYPES.values():
        em = emit(aten._to_copy.default, [T(), dtype, None, None, None, False, None])
        module, custom, call = round_trip(ctx, em, encoding)
        assert call.kwargs["dtype"] is dtype
        assert json.loads(attrs_of(custom))["args"]["dtype"] == {"dtype": str(dtype).split(".")[-1]}
    for layout in _schema.LAYOUTS.values():
        em = emit(aten._to_copy.default, [T(), None, layout, None, None, False, None])
        assert round_trip(ctx, em, encoding)[2].kwargs["layout"] is layout
    for fmt in _schema.MEMORY_FORMATS.values():
        em = emit(aten._to_copy.default, [T(), None, None, None, None, False, fmt])
        assert round_trip(ctx, em, encoding)[2].kwargs["memory_format"] is fmt


def test_const_encoding_carries_numbers_as_operands(ctx):
    """§4.1: in the const encoding no number or non-empty number list stays in the JSON."""
    em = emit(aten.native_layer_norm_backward.default,
              [T(), T(), [2, 3], T(), T(), None, None, [True, False, True]])
    module, custom, _ = round_trip(ctx, em, "const")
    args = json.loads(attrs_of(custom))["args"]
    assert args["normalized_shape"] == {"operand": 2}
    assert args["output_mask"] == {"operand": 5}
    types = [str(v.type) for v in custom.operands]
    assert types[2] == "tensor<2xi64>" and types[5] == "tensor<3xi1>"

    em = emit(aten.add.Scalar, [T(), 2.5, True], form="operator")
    module, custom, _ = round_trip(ctx, em, "const")
    assert [str(v.type) for v in custom.operands] == ["tensor<2x3xf32>", "tensor<f64>", "tensor<i1>"]
    em = emit(aten.cat.default, [[T()], 0])
    module, custom, _ = round_trip(ctx, em, "const")
    assert json.loads(attrs_of(custom))["args"] == {"dim": {"operand": 1}, "tensors": [{"operand": 0}]}


complexes = st.builds(complex, floats, floats)


def _same_value(a, b) -> bool:
    if isinstance(a, complex):
        return type(b) is complex and same_float(a.real, b.real) and same_float(a.imag, b.imag)
    if isinstance(a, float):
        return type(b) is float and same_float(a, b)
    if isinstance(a, list):
        return type(b) is list and len(a) == len(b) and all(map(_same_value, a, b))
    return type(a) is type(b) and a == b


@settings(max_examples=EXAMPLES or 60, deadline=None)
@given(data=st.data())
def test_json_forms_round_trip_every_kind_including_complex(data):
    """Each kind's JSON form, through canonical text and decode_attrs, gives the
    value back: complex too, which no torch constant spells (add.complex,
    sum.complex and a complex Scalar have no tensor result, so only the decoder
    meets them)."""
    a, b = data.draw(complexes), data.draw(complexes)
    xs = data.draw(st.lists(complexes, max_size=4))
    number = data.draw(st.one_of(int64s, floats, st.booleans(), complexes))
    kinds = arg_kinds()
    args = {"a": kinds["complex"].to_json(a), "b": kinds["complex"].to_json(b)}
    text = canonical_json({"args": args, "version": CONTRACT_VERSION})
    call = decode_attrs("torch.aten.add.complex", text, 0)
    assert _same_value(call.args[0], a) and _same_value(call.args[1], b)
    text = canonical_json({"args": {"self": [kinds["complex"].to_json(x) for x in xs]},
                           "version": CONTRACT_VERSION})
    assert _same_value(decode_attrs("torch.aten.sum.complex", text, 0).args[0], xs)
    text = canonical_json({"args": {"self": {"operand": 0}, "other": kinds["number"].to_json(number),
                                    "alpha": 1}, "version": CONTRACT_VERSION})
    assert _same_value(decode_attrs("torch.aten.add.Scalar", text, 1).args[1], number)
    for name, strategy in [("int", int64s), ("float", floats), ("bool", st.booleans()), ("str", strings),
                           ("dtype", st.sampled_from(list(_schema.DTYPES.values()))),
                           ("layout", st.sampled_from(list(_schema.LAYOUTS.values()))),
                           ("memory_format", st.sampled_from(list(_schema.MEMORY_FORMATS.values()))),
                           ("device", st.sampled_from(DEVICES).map(torch.device))]:
        v = data.draw(strategy, label=name)
        j = json.loads(canonical_json(kinds[name].to_json(v)), parse_constant=_no_nan_tokens)
        assert _same_value(kinds[name].from_json(j), v), (name, v, j)


# --------------------------------------------------------------------------
# 3. Canonical JSON.
# --------------------------------------------------------------------------


def _no_nan_tokens(token):
    raise AssertionError(f"implementation_attrs contains the non-JSON token {token}")


def assert_canonical(text: str, overload):
    obj = json.loads(text, parse_constant=_no_nan_tokens)
    assert text == json.dumps(obj, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    assert text == canonical_json(obj)
    # Version 2 only for ops that need it (a uint8 operand, CONTRACT.md 3.5, 9.3).
    needs_v2 = "operand_dtypes" in obj
    assert set(obj) == {"args", "version"} | ({"operand_dtypes"} if needs_v2 else set())
    assert obj["version"] == (2 if needs_v2 else 1) and type(obj["version"]) is int
    assert list(obj["args"]) == sorted(a.name for a in overload._schema.arguments)


@pytest.mark.parametrize("encoding", ENCODINGS)
@settings(max_examples=EXAMPLES or 60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(data=st.data())
def test_same_call_gives_byte_identical_canonical_attrs(ctx, encoding, data):
    overload = data.draw(st.sampled_from(OPS), label="op")
    values, style, bool_scalars = data.draw(calls(overload))
    other = dict(
        form=data.draw(st.sampled_from(["operator"] if bool_scalars and is_registered(overload)
                                       else ["auto", "operator"])),
        derefine=not style["derefine"],
        scalar_as_number=not style["scalar_as_number"],
    )
    texts, names, types = [], [], []
    for st_ in (style, other):
        em = emit(overload, values, **st_)
        module, custom = convert(ctx, em.text, em.identifier, encoding)
        texts.append(attrs_of(custom))
        names.append(ir.StringAttr(custom.attributes["operator_name"]).value)
        types.append([str(v.type) for v in custom.operands])
    assert texts[0] == texts[1]
    assert types[0] == types[1]
    assert names[0] == names[1] == em.identifier
    assert_canonical(texts[0], overload)


def test_canonical_attrs_for_a_known_call(ctx):
    em = emit(aten.layer_norm.default, [T((2, 8)), [8], T((8,)), None, 1e-05, False])
    module, custom = convert(ctx, em.text, em.identifier, "json")
    assert attrs_of(custom) == (
        '{"args":{"bias":null,"cudnn_enable":false,"eps":1e-05,"input":{"operand":0},'
        '"normalized_shape":[8],"weight":{"operand":1}},"version":1}'
    )
    em = emit(aten.gelu.default, [T(), "é😀\"\n"])
    module, custom = convert(ctx, em.text, em.identifier, "json")
    text = attrs_of(custom)
    assert '"approximate":"é😀\\"\\n"' in text  # non-ASCII as itself, JSON escapes otherwise
    assert_canonical(text, aten.gelu.default)
    em = emit(aten.bernoulli.p, [T(), math.nan, None])
    module, custom = convert(ctx, em.text, em.identifier, "json")
    assert json.loads(attrs_of(custom))["args"]["p"] == {"float": "nan"}


# --------------------------------------------------------------------------
# 4. The decoder refuses what the contract does not allow.
# --------------------------------------------------------------------------

GELU = "torch.aten.gelu"
LAYER_NORM = "torch.aten.layer_norm"


def attrs(args, version=CONTRACT_VERSION, **extra) -> str:
    return json.dumps({"args": args, "version": version, **extra})


GOOD_GELU = {"self": {"operand": 0}, "approximate": "tanh"}
GOOD_LAYER_NORM = {"input": {"operand": 0}, "normalized_shape": [8], "weight": {"operand": 1},
                   "bias": None, "eps": 1e-05, "cudnn_enable": False}


def refuses(*substrings, operator_name=GELU, text=None, num_operands=1, **kw):
    with pytest.raises(ContractError) as info:
        decode_attrs(operator_name, text, num_operands, **kw)
    message = str(info.value)
    for s in substrings:
        assert s in message, f"{s!r} not in {message!r}"
    return message


def test_good_attrs_decode():
    call = decode_attrs(GELU, attrs(GOOD_GELU), 1)
    assert call.overload is aten.gelu.default
    assert call.args == (Operand(0),) and call.kwargs == {"approximate": "tanh"}
    call = decode_attrs(LAYER_NORM, attrs(GOOD_LAYER_NORM), 2)
    assert call.args == (Operand(0), [8], Operand(1), None, 1e-05, False)


def test_newer_version_names_both_versions():
    newer = CONTRACT_VERSION + 1
    message = refuses(text=attrs(GOOD_GELU, version=newer))
    assert f"version {newer}" in message
    assert f"version {CONTRACT_VERSION}" in message
    refuses(f"version {CONTRACT_VERSION + 41}", text=attrs(GOOD_GELU, version=CONTRACT_VERSION + 41))


@pytest.mark.parametrize("version", [None, "1", 1.0, True, [1], {"v": 1}])
def test_version_must_be_an_integer(version):
    refuses("version", text=attrs(GOOD_GELU, version=version))


def test_missing_or_invalid_version():
    refuses("version", text=json.dumps({"args": GOOD_GELU}))
    refuses("invalid contract version 0", text=attrs(GOOD_GELU, version=0))
    refuses("invalid contract version -1", text=attrs(GOOD_GELU, version=-1))


def test_top_level_keys():
    refuses("unknown keys", "'extra'", text=attrs(GOOD_GELU, extra=1))
    refuses("'args'", text=json.dumps({"version": CONTRACT_VERSION}))
    refuses("'args'", text=json.dumps({"version": CONTRACT_VERSION, "args": [1]}))
    refuses("'args'", text=json.dumps({"version": CONTRACT_VERSION, "args": None}))


@pytest.mark.parametrize("text", ["[]", "1", '"x"', "null", "true", "[{}]"])
def test_top_level_must_be_an_object(text):
    refuses("must be a JSON object", text=text)


@pytest.mark.parametrize("text", ["", "{", "not json", "{'version': 1}", '{"a":1,}', "\ufeff{}",
                                  '{"args":{}, "version":1} trailing'])
def test_invalid_json(text):
    refuses("not valid JSON", text=text)


@pytest.mark.parametrize("opener,closer", [("[", "]"), ('{"a":', "}")])
def test_deep_nesting_is_a_clean_error(opener, closer):
    deep = opener * 100_000 + "1" + closer * 100_000
    refuses("not valid JSON", text=deep)
    inside = '{"version":1,"args":{"self":{"operand":0},"approximate":' + deep + "}}"
    refuses("not valid JSON", text=inside)


def test_nesting_just_inside_the_parser_limit_is_a_clean_error():
    """Values nested almost as deep as json.loads allows parse; the error
    message for them must not overflow the stack either."""
    import sys

    for depth in range(sys.getrecursionlimit() - 60, sys.getrecursionlimit() + 5, 3):
        nested = "[" * depth + "]" * depth
        text = '{"version":1,"args":{"self":{"operand":0},"approximate":' + nested + "}}"
        try:
            decode_attrs(GELU, text, 1)
        except ContractError:
            pass  # RecursionError or any other exception fails the test


def test_missing_and_extra_arguments():
    refuses("missing ['approximate']", text=attrs({"self": {"operand": 0}}))
    refuses("unexpected ['foo']", text=attrs({**GOOD_GELU, "foo": 1}))
    message = refuses("missing ['approximate']", "unexpected ['Approximate']",
                      text=attrs({"self": {"operand": 0}, "Approximate": "tanh"}))
    assert GELU in message
    refuses("missing", text=attrs({}))


# (operator, arguments, num_operands, substrings the message must contain)
WRONG_TYPES = [
    # int
    ("torch.aten.topk", {"k": "3"}, "argument 'k' (int)", "an integer"),
    ("torch.aten.topk", {"k": 3.0}, "argument 'k' (int)", "an integer"),
    ("torch.aten.topk", {"k": True}, "argument 'k' (int)", "an integer"),
    ("torch.aten.topk", {"k": None}, "argument 'k' (int)", "null"),
    ("torch.aten.topk", {"k": [3]}, "argument 'k' (int)", "an integer"),
    # bool
    ("torch.aten.topk", {"largest": 1}, "argument 'largest' (bool)", "true or false"),
    ("torch.aten.topk", {"largest": "true"}, "argument 'largest' (bool)", "true or false"),
    # float
    ("torch.aten.layer_norm", {"eps": 1}, "argument 'eps' (float)", "a float"),
    ("torch.aten.layer_norm", {"eps": "1e-5"}, "argument 'eps' (float)", "a float"),
    ("torch.aten.layer_norm", {"eps": True}, "argument 'eps' (float)", "a float"),
    ("torch.aten.layer_norm", {"eps": {"float": "NaN"}}, "argument 'eps' (float)", '"float"'),
    ("torch.aten.layer_norm", {"eps": {"float": "nan", "x": 1}}, "argument 'eps' (float)", '"float"'),
    ("torch.aten.layer_norm", {"eps": {"float": 1.0}}, "argument 'eps' (float)", '"float"'),
    # int[]
    ("torch.aten.layer_norm", {"normalized_shape": 8}, "argument 'normalized_shape' (int[])", "a list"),
    ("torch.aten.layer_norm", {"normalized_shape": [8.0]}, "argument 'normalized_shape'", "an integer"),
    ("torch.aten.layer_norm", {"normalized_shape": ["8"]}, "argument 'normalized_shape'", "an integer"),
    ("torch.aten.layer_norm", {"normalized_shape": None}, "argument 'normalized_shape'", "null"),
    ("torch.aten.layer_norm", {"normalized_shape": [None]}, "argument 'normalized_shape'", "null"),
    # Tensor, Tensor?
    ("torch.aten.layer_norm", {"input": 0}, "argument 'input' (Tensor)", '{"operand": index}'),
    ("torch.aten.layer_norm", {"input": {"operand": "0"}}, "argument 'input'", '{"operand": index}'),
    ("torch.aten.layer_norm", {"input": {"operand": True}}, "argument 'input'", '{"operand": index}'),
    ("torch.aten.layer_norm", {"input": {"operand": 0, "x": 1}}, "argument 'input'", '{"operand": index}'),
    ("torch.aten.layer_norm", {"input": None}, "argument 'input' (Tensor)", "null"),
    ("torch.aten.layer_norm", {"weight": [{"operand": 1}]}, "argument 'weight' (Tensor?)", '{"operand": index}'),
    # str
    ("torch.aten.gelu", {"approximate": 1}, "argument 'approximate' (str)", "a string"),
    ("torch.aten.gelu", {"approximate": None}, "argument 'approximate' (str)", "null"),
    ("torch.aten.gelu", {"approximate": ["tanh"]}, "argument 'approximate' (str)", "a string"),
    # Scalar
    ("torch.aten.add.Scalar", {"other": "1"}, "argument 'other' (number)", "a float"),
    ("torch.aten.add.Scalar", {"other": [1]}, "argument 'other' (number)", "a float"),
    ("torch.aten.add.Scalar", {"other": None}, "argument 'other' (number)", "null"),
    ("torch.aten.add.Scalar", {"other": {"complex": [1, 2]}}, "argument 'other' (number)", "a float"),
    ("torch.aten.add.Scalar", {"other": {"complex": [1.0]}}, "argument 'other' (number)", '{"complex": [re, im]}'),
    # Tensor[], Tensor?[]
    ("torch.aten.cat", {"tensors": [0]}, "argument 'tensors' (Tensor[])", '{"operand": index}'),
    ("torch.aten.cat", {"tensors": [None]}, "argument 'tensors' (Tensor[])", "null"),
    ("torch.aten.cat", {"tensors": {"operand": 0}}, "argument 'tensors' (Tensor[])", "1-d constant list"),
    ("torch.aten.index.Tensor", {"indices": [1]}, "argument 'indices' (Tensor?[])", '{"operand": index}'),
    ("torch.aten.index.Tensor", {"indices": None}, "argument 'indices' (Tensor?[])", "null"),
    # dtype, layout, device, memory_format, Generator
    ("torch.aten.sum.dim_IntList", {"dtype": {"dtype": "float99"}}, "argument 'dtype' (dtype?)", "float99"),
    ("torch.aten.sum.dim_IntList", {"dtype": "float32"}, "argument 'dtype' (dtype?)", '{"dtype": one of'),
    ("torch.aten.sum.dim_IntList", {"dtype": 6}, "argument 'dtype' (dtype?)", '{"dtype": one of'),
    ("torch.aten.sum.dim_IntList", {"dtype": {"layout": "strided"}}, "argument 'dtype'", '{"dtype": one of'),
    ("torch.aten.sum.dim_IntList", {"dtype": {"dtype": "float32", "x": 1}}, "argument 'dtype'", '{"dtype": one of'),
    ("torch.aten.empty.memory_format", {"layout": {"layout": "bogus"}}, "argument 'layout' (layout?)", "bogus"),
    ("torch.aten.empty.memory_format", {"memory_format": {"memory_format": "NHWC"}},
     "argument 'memory_format' (memory_format?)", "NHWC"),
    ("torch.aten.empty.memory_format", {"device": {"device": 3}}, "argument 'device' (device?)", '{"device": "cpu"}'),
    ("torch.aten.empty.memory_format", {"device": "cpu"}, "argument 'device' (device?)", '{"device": "cpu"}'),
    ("torch.aten.empty.memory_format", {"device": {"device": "nodevice:x"}}, "argument 'device'", "invalid device"),
    ("torch.aten.empty.memory_format", {"pin_memory": "false"}, "argument 'pin_memory' (bool?)", "true or false"),
    ("torch.aten.bernoulli.p", {"generator": {"seed": 1}}, "argument 'generator' (Generator?)", "can only be null"),
]

VALID = {
    "torch.aten.topk": ({"self": {"operand": 0}, "k": 3, "dim": -1, "largest": True, "sorted": True}, 1),
    "torch.aten.layer_norm": (GOOD_LAYER_NORM, 2),
    "torch.aten.gelu": (GOOD_GELU, 1),
    "torch.aten.add.Scalar": ({"self": {"operand": 0}, "other": 1.5, "alpha": 1}, 1),
    "torch.aten.cat": ({"tensors": [{"operand": 0}], "dim": 0}, 1),
    "torch.aten.index.Tensor": ({"self": {"operand": 0}, "indices": [None, {"operand": 1}]}, 2),
    "torch.aten.sum.dim_IntList": ({"self": {"operand": 0}, "dim": [1], "keepdim": False,
                                    "dtype": {"dtype": "float64"}}, 1),
    "torch.aten.empty.memory_format": ({"size": [2], "dtype": None, "layout": {"layout": "strided"},
                                        "device": {"device": "cpu"}, "pin_memory": False,
                                        "memory_format": None}, 0),
    "torch.aten.bernoulli.p": ({"self": {"operand": 0}, "p": 0.5, "generator": None}, 1),
}


@pytest.mark.parametrize("name", sorted(VALID))
def test_valid_base_calls_decode(name):
    args, n = VALID[name]
    decode_attrs(name, attrs(args), n)


@pytest.mark.parametrize("name,bad,where,what", WRONG_TYPES,
                         ids=[f"{n}-{list(b)[0]}-{i}" for i, (n, b, _, _) in enumerate(WRONG_TYPES)])
def test_wrong_json_type_per_kind(name, bad, where, what):
    args, n = VALID[name]
    message = refuses(where, what, operator_name=name, text=attrs({**args, **bad}), num_operands=n)
    assert name in message


def test_operand_indices():
    refuses("operand index 1 out of range", "1 operands", text=attrs(GOOD_GELU | {"self": {"operand": 1}}))
    refuses("operand index -1 out of range", text=attrs(GOOD_GELU | {"self": {"operand": -1}}))
    refuses("out of range", "0 operands", text=attrs(GOOD_GELU), num_operands=0)
    refuses("operand 0 is referenced twice", operator_name="torch.aten.add.Tensor",
            text=attrs({"self": {"operand": 0}, "other": {"operand": 0}, "alpha": 1}))
    refuses("operands [1]", "not referenced", text=attrs(GOOD_GELU), num_operands=2)
    refuses("operands [1, 2]", "not referenced", text=attrs(GOOD_GELU), num_operands=3)
    # a run-time scalar and a tensor list element count as references too
    decode_attrs("torch.aten.add.Scalar", attrs({"self": {"operand": 0}, "other": {"operand": 1},
                                                 "alpha": 1}), 2)
    refuses("referenced twice", operator_name="torch.aten.cat",
            text=attrs({"tensors": [{"operand": 0}, {"operand": 0}], "dim": 0}))


@pytest.mark.parametrize("name", ["torch.aten.no_such_op", "aten.gelu", "gelu", "", "torch.aten.gelu.nope",
                                  "torch.nosuchns.gelu", "torch.aten.gelu.default.x", "torch.aten"])
def test_unknown_operator_name(name):
    refuses("operator_name", "names no PyTorch op overload", operator_name=name, text=attrs(GOOD_GELU))


def test_wrong_domain_name():
    refuses("domain_name is 'tosa'", "'torch_mlir'", text=attrs(GOOD_GELU), domain_name="tosa")
    refuses("domain_name is ''", text=attrs(GOOD_GELU), domain_name="")


@pytest.mark.parametrize("token", ["NaN", "Infinity", "-Infinity"])
def test_non_json_number_tokens_are_refused(token):
    text = '{"args":{"bias":null,"cudnn_enable":false,"eps":%s,"input":{"operand":0},' \
           '"normalized_shape":[8],"weight":null},"version":1}' % token
    refuses("not valid JSON", operator_name=LAYER_NORM, text=text)


@pytest.mark.parametrize("value", [2**63, -(2**63) - 1, 10**30])
def test_int_outside_int64_is_refused(value):
    refuses("argument 'k'", operator_name="torch.aten.topk",
            text=attrs({**VALID["torch.aten.topk"][0], "k": value}))


# decode() on hand-written tosa.custom IR ----------------------------------


def custom_ir(operator_name, attrs_text, operands=(), *, domain="torch_mlir",
              const_operands=(), result="tensor<2x3xf32>"):
    """A func with one tosa.custom; `operands` are function-argument types,
    `const_operands` (dense attr text, type) tosa.const values appended after them."""
    lines, names, types = [], [], []
    for i, ty in enumerate(operands):
        names.append(f"%a{i}")
        types.append(ty)
    for j, (value, ty) in enumerate(const_operands):
        lines.append(f'  %c{j} = "tosa.const"() <{{values = {value} : {ty}}}> : () -> {ty}')
        names.append(f"%c{j}")
        types.append(ty)
    args = ", ".join(f"%a{i}: {ty}" for i, ty in enumerate(operands))
    lines.append(f"  %0 = tosa.custom {', '.join(names)} {{domain_name = {mlir_string(domain)}, "
                 f"implementation_attrs = {mlir_string(attrs_text)}, "
                 f"operator_name = {mlir_string(operator_name)}}} : ({', '.join(types)}) -> {result}")
    lines.append(f"  return %0 : {result}")
    return f"func.func @f({args}) -> {result} {{\n" + "\n".join(lines) + "\n}\n"


def decode_ir(ctx, text):
    with ctx, ir.Location.unknown():
        module = ir.Module.parse(text)
        (custom,) = custom_ops(module)
        return decode(custom)


def decode_ir_refuses(ctx, text, *substrings):
    with pytest.raises(ContractError) as info:
        decode_ir(ctx, text)
    for s in substrings:
        assert s in str(info.value), f"{s!r} not in {str(info.value)!r}"


def test_decode_hand_written_ir(ctx):
    call = decode_ir(ctx, custom_ir(GELU, attrs(GOOD_GELU), ["tensor<2x3xf32>"]))
    assert call.args == (Operand(0),) and call.kwargs == {"approximate": "tanh"}
    topk = {"self": {"operand": 0}, "k": {"operand": 1}, "dim": {"operand": 2}, "largest": {"operand": 3},
            "sorted": True}
    call = decode_ir(ctx, custom_ir("torch.aten.topk", attrs(topk), ["tensor<2x8xf32>", "tensor<i64>"],
                                    const_operands=[("dense<-1>", "tensor<i64>"), ("dense<false>", "tensor<i1>")]))
    assert call.args == (Operand(0), Operand(1, "int"), -1, False, True)
    # a Scalar from a run-time f64 operand, and from an i1 constant
    add = {"self": {"operand": 0}, "other": {"operand": 1}, "alpha": {"operand": 2}}
    call = decode_ir(ctx, custom_ir("torch.aten.add.Scalar", attrs(add), ["tensor<2x3xf32>", "tensor<f64>"],
                                    const_operands=[("dense<true>", "tensor<i1>")]))
    assert call.args == (Operand(0), Operand(1, "float"), True)
    # a splat 1-d constant list
    ln = {**GOOD_LAYER_NORM, "normalized_shape": {"operand": 2}}
    call = decode_ir(ctx, custom_ir(LAYER_NORM, attrs(ln), ["tensor<2x3xf32>", "tensor<3xf32>"],
                                    const_operands=[("dense<3>", "tensor<2xi64>")]))
    assert call.args[1] == [3, 3]


def test_decode_refuses_in_ir(ctx):
    newer = CONTRACT_VERSION + 1
    decode_ir_refuses(ctx, custom_ir(GELU, attrs(GOOD_GELU, version=newer), ["tensor<2x3xf32>"]),
                      f"version {newer}", f"version {CONTRACT_VERSION}")
    decode_ir_refuses(ctx, custom_ir(GELU, attrs(GOOD_GELU), ["tensor<2x3xf32>"], domain="other"),
                      "domain_name is 'other'")
    decode_ir_refuses(ctx, custom_ir("torch.aten.nope", attrs(GOOD_GELU), ["tensor<2x3xf32>"]),
                      "torch.aten.nope")
    decode_ir_refuses(ctx, custom_ir(GELU, "{", ["tensor<2x3xf32>"]), "not valid JSON")
    decode_ir_refuses(ctx, custom_ir(GELU, attrs(GOOD_GELU), ["tensor<2x3xf32>", "tensor<2x3xf32>"]),
                      "operands [1]")
    decode_ir_refuses(ctx, custom_ir(GELU, "[" * 100_000 + "]" * 100_000, ["tensor<2x3xf32>"]),
                      "not valid JSON")
    topk = {"self": {"operand": 0}, "k": {"operand": 1}, "dim": -1, "largest": True, "sorted": True}
    # a constant of an element type that carries no int; an f64 for an int; a list for a scalar
    decode_ir_refuses(ctx, custom_ir("torch.aten.topk", attrs(topk), ["tensor<2x8xf32>"],
                                     const_operands=[("dense<3.0>", "tensor<f32>")]),
                      "argument 'k'", "element type f32")
    decode_ir_refuses(ctx, custom_ir("torch.aten.topk", attrs(topk), ["tensor<2x8xf32>"],
                                     const_operands=[("dense<3.0>", "tensor<f64>")]),
                      "argument 'k'", "does not carry a int")
    decode_ir_refuses(ctx, custom_ir("torch.aten.topk", attrs(topk), ["tensor<2x8xf32>"],
                                     const_operands=[("dense<[3, 4]>", "tensor<2xi64>")]),
                      "argument 'k'", "holds a list")
    ln = {**GOOD_LAYER_NORM, "normalized_shape": {"operand": 2}}
    decode_ir_refuses(ctx, custom_ir(LAYER_NORM, attrs(ln), ["tensor<2x3xf32>", "tensor<3xf32>"],
                                     const_operands=[("dense<3>", "tensor<i64>")]),
                      "argument 'normalized_shape'", "1-d constant list")


def test_decode_refuses_other_ops(ctx):
    with ctx, ir.Location.unknown():
        module = ir.Module.parse("func.func @f(%a: tensor<2xf32>) -> tensor<2xf32> {\n"
                                 "  %0 = tosa.abs %a : (tensor<2xf32>) -> tensor<2xf32>\n"
                                 "  return %0 : tensor<2xf32>\n}\n")
        op = module.body.operations[0].regions[0].blocks[0].operations[0]
        with pytest.raises(ContractError, match="expected a tosa.custom op, got tosa.abs"):
            decode(op)


# --------------------------------------------------------------------------
# 5. Decoded calls run: bind() against eager PyTorch.
# --------------------------------------------------------------------------

TORCH_DTYPE = {"f32": torch.float32, "f64": torch.float64, "si64": torch.int64, "i1": torch.bool,
               "f16": torch.float16, "bf16": torch.bfloat16, "si32": torch.int32}


def run_decoded(ctx, em, encoding, inputs: list):
    """Convert `em`, decode, bind: `inputs[k]` is the real value of function
    argument k (a tensor, or a Python scalar passed as a 0-d tensor)."""
    module, custom, call = round_trip(ctx, em, encoding)
    operands = [None] * len(custom.operands)
    for i, value in enumerate(custom.operands):
        producer = _owner(value)
        if producer.name == "torch_c.to_builtin_tensor":
            operands[i] = inputs[_block_arg_number(producer.operands[0])]
        elif producer.name == "tensor.from_elements":
            scalar = inputs[_block_arg_number(_owner(producer.operands[0]).operands[0])]
            operands[i] = torch.tensor(scalar)  # a run-time scalar travels as a 0-d tensor
        else:
            assert producer.name == "tosa.const"
            # a literal tensor: its elements are the operand (§3.2); a const-encoded
            # number is read by decode() and never bound, so this value is unused
            dense = ir.DenseElementsAttr(producer.attributes["values"])
            array = np.array(dense)
            shape = tuple(ir.ShapedType(dense.type).shape)
            array = np.full(shape, array.reshape(-1)[0]) if dense.is_splat else array.reshape(shape)
            operands[i] = torch.from_numpy(array.copy())
    args, kwargs = call.bind(operands)
    assert not any(isinstance(a, Operand) for a in list(args) + list(kwargs.values()))
    return call(*operands)


def assert_results_equal(got, want):
    if isinstance(want, (tuple, list)):
        assert len(got) == len(want)
        for g, w in zip(got, want):
            assert_results_equal(g, w)
    else:
        torch.testing.assert_close(got, want, equal_nan=True, rtol=0, atol=0)
        assert got.dtype == want.dtype


def _bind_cases():
    g = torch.Generator().manual_seed(0)
    x28 = torch.randn(2, 8, generator=g)
    w8, b8 = torch.randn(8, generator=g), torch.randn(8, generator=g)
    x45 = torch.randn(4, 5, generator=g)
    idx = torch.tensor([3, 0, 1])
    a, b = torch.randn(2, 3, generator=g), torch.randn(2, 4, generator=g)
    num, den = torch.randn(3, 4, generator=g) * 10, torch.randn(3, 4, generator=g)
    return [
        ("layer_norm", aten.layer_norm.default,
         [T((2, 8)), [8], T((8,)), T((8,)), 1e-05, True], [x28, w8, b8],
         lambda: aten.layer_norm.default(x28, [8], w8, b8, 1e-05, True)),
        ("layer_norm_no_bias", aten.layer_norm.default,
         [T((2, 8)), [8], T((8,)), None, 1e-3, False], [x28, w8],
         lambda: aten.layer_norm.default(x28, [8], w8, None, 1e-3, False)),
        ("native_layer_norm", aten.native_layer_norm.default,
         [T((2, 8)), [8], None, T((8,)), 1e-05], [x28, b8],
         lambda: aten.native_layer_norm.default(x28, [8], None, b8, 1e-05)),
        ("softmax", aten.softmax.int, [T((2, 8)), 1, None], [x28],
         lambda: aten.softmax.int(x28, 1)),
        ("softmax_dtype", aten.softmax.int, [T((2, 8)), -1, torch.float64], [x28],
         lambda: aten.softmax.int(x28, -1, torch.float64)),
        ("gelu_tanh", aten.gelu.default, [T((2, 8)), "tanh"], [x28],
         lambda: aten.gelu.default(x28, approximate="tanh")),
        ("add_literal", aten.add.Tensor, [T((2, 3)), Literal((3,), "f32", (0.5, -2.0, 4.25)), 3], [a],
         lambda: aten.add.Tensor(a, torch.tensor([0.5, -2.0, 4.25]), alpha=3)),
        ("layer_norm_literal_splat", aten.layer_norm.default,
         [T((2, 8)), [8], Literal((8,), "f32", (2.0,) * 8), None, 1e-05, True], [x28],
         lambda: aten.layer_norm.default(x28, [8], torch.full((8,), 2.0), None, 1e-05, True)),
        ("cat", aten.cat.default, [[T((2, 3)), T((2, 4))], 1], [a, b],
         lambda: aten.cat.default([a, b], 1)),
        ("index_none", aten.index.Tensor, [T((4, 5)), [None, T((3,), "si64")]], [x45, idx],
         lambda: aten.index.Tensor(x45, [None, idx])),
        ("topk", aten.topk.default, [T((2, 8)), 3, -1, True, True], [x28],
         lambda: aten.topk.default(x28, 3, -1, True, True)),
        ("topk_runtime_k", aten.topk.default, [T((2, 8)), Runtime("int"), 1, False, True], [x28, 2],
         lambda: aten.topk.default(x28, 2, 1, False, True)),
        ("add_scalar_runtime_int", aten.add.Scalar, [T((2, 8)), Runtime("int"), 2], [x28, 3],
         lambda: aten.add.Scalar(x28, 3, 2)),
        ("add_scalar_runtime_float", aten.add.Scalar, [T((2, 8)), Runtime("float"), Runtime("float")],
         [x28, 0.25, -1.5], lambda: aten.add.Scalar(x28, 0.25, -1.5)),
        ("div_floor", aten.div.Tensor_mode, [T((3, 4)), T((3, 4)), "floor"], [num, den],
         lambda: aten.div.Tensor_mode(num, den, rounding_mode="floor")),
        ("var_correction", aten.var.correction, [T((2, 8)), [1], 0, True], [x28],
         lambda: aten.var.correction(x28, [1], correction=0, keepdim=True)),
        ("std_mean", aten.std_mean.correction, [T((2, 8)), None, 1.5, False], [x28],
         lambda: aten.std_mean.correction(x28, None, correction=1.5, keepdim=False)),
        ("sum_dtype", aten.sum.dim_IntList, [T((2, 8)), [0], False, torch.float64], [x28],
         lambda: aten.sum.dim_IntList(x28, [0], False, dtype=torch.float64)),
        ("full", aten.full.default, [[2, 3], 1.5, torch.float64, torch.strided, "cpu", False], [],
         lambda: aten.full.default([2, 3], 1.5, dtype=torch.float64, layout=torch.strided,
                                   device="cpu", pin_memory=False)),
        ("arange_runtime_step", aten.arange.start_step, [0, 10, Runtime("int"), torch.int64, None, None, None],
         [3], lambda: aten.arange.start_step(0, 10, 3, dtype=torch.int64)),
        ("clamp", aten.clamp.default, [T((2, 8)), -0.5, None], [x28],
         lambda: aten.clamp.default(x28, -0.5, None)),
        ("slice_runtime", aten.slice.Tensor, [T((2, 8)), 1, Runtime("int"), None, 2], [x28, 1],
         lambda: aten.slice.Tensor(x28, 1, 1, None, 2)),
        ("to_copy", aten._to_copy.default, [T((2, 8)), torch.float16, None, None, None, False, None], [x28],
         lambda: aten._to_copy.default(x28, dtype=torch.float16)),
        ("upsample", aten.upsample_nearest2d.vec, [T((1, 1, 2, 4)), None, [2.0, 1.5]],
         [x28.reshape(1, 1, 2, 8)[..., :4].contiguous()],
         lambda: aten.upsample_nearest2d.vec(x28.reshape(1, 1, 2, 8)[..., :4].contiguous(), None, [2.0, 1.5])),
    ]


BIND_CASES = _bind_cases()


@pytest.mark.parametrize("encoding", ENCODINGS)
@pytest.mark.parametrize("case", BIND_CASES, ids=[c[0] for c in BIND_CASES])
def test_decoded_call_matches_eager(ctx, case, encoding):
    _, overload, values, inputs, eager = case
    em = emit(overload, values)
    got = run_decoded(ctx, em, encoding, inputs)
    assert_results_equal(got, eager())


def test_bind_converts_runtime_scalars_by_kind():
    call = DecodedCall(aten.add.Scalar, (Operand(0), Operand(1, "int"), Operand(2, "float")), {})
    args, _ = call.bind([torch.ones(2), torch.tensor(3), torch.tensor(2.5, dtype=torch.float64)])
    assert type(args[1]) is int and args[1] == 3
    assert type(args[2]) is float and args[2] == 2.5
    call = DecodedCall(aten.add.Scalar, (Operand(0), Operand(1, "bool"), Operand(2, "number")), {})
    args, _ = call.bind([torch.ones(2), torch.tensor(True), 7])
    assert args[1] is True and args[2] == 7


def test_duplicate_keys_are_refused():
    text = '{"args":{"self":{"operand":0},"approximate":"none"},"version":1,"version":1}'
    with pytest.raises(ContractError, match=r"repeats the key.*version"):
        decode_attrs("torch.aten.gelu", text, 1)


def test_overflowing_float_literal_is_refused():
    text = '{"args":{"self":{"operand":0},"other":1e400,"alpha":1},"version":1}'
    with pytest.raises(ContractError, match=r"finite number"):
        decode_attrs("torch.aten.add.Scalar", text, 1)


@pytest.mark.parametrize("bad", [None, "tosa.custom", 3])
def test_decode_refuses_what_is_not_an_op(bad):
    """It used to fail with AttributeError: 'str' object has no attribute 'operation'."""
    with pytest.raises(TypeError, match=rf"decode\(\) takes a tosa.custom op \(e.g. from "
                                        rf"tosa_custom.custom_ops\(module\)\), not a {type(bad).__name__}"):
        tosa_custom.decode(bad)
