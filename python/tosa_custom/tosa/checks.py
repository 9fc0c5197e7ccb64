"""Passes around torch-mlir's TOSA lowering that refuse, record or tidy.

torch-mlir's TorchToTosa types uint8 as int8 and bool as a 1-bit integer, and
leaves some tensor constants in `arith`; a program built from its output must
not be silently wrong, so the ops whose answer depends on that are refused
(on their locations) before the lowering, the boundary dtypes it loses are
recorded on the signature, and the final check allows nothing but TOSA and the
builtin ops CONTRACT.md 4.5 names.
"""

from __future__ import annotations

from torch_mlir import ir

from ..core import attrs as _attrs
from ..core import builders as _b
from ..core import dtypes as _dtypes
from ..core import ir as _ir
from ..core import torch_ir as _torch_ir
from ..core.passes import Option, PassContext, parse_names, register_pass

__all__ = [
    "sign_semantics_problem", "known_crash", "KNOWN_CRASHES", "CHECK_SIGN_SEMANTICS", "CHECK_KNOWN_CRASHES", "MARK_BOUNDARY_DTYPES", "TENSOR_CONSTANTS_AS_TOSA", "VERIFY_TOSA", "TOSA_EXTRAS",
]

CHECK_SIGN_SEMANTICS = "tosa-custom-check-sign-semantics"
CHECK_KNOWN_CRASHES = "tosa-custom-check-known-crashes"
MARK_BOUNDARY_DTYPES = "tosa-custom-mark-boundary-dtypes"
TENSOR_CONSTANTS_AS_TOSA = "tosa-custom-tensor-constants-as-tosa"
VERIFY_TOSA = "tosa-custom-verify-tosa"

# Builtin ops the pass itself makes outside tosa.custom (CONTRACT.md 4.5, 3.4):
# a run-time scalar operand's 0-d tensor, and a zero-size value.
TOSA_EXTRAS = ("tensor.from_elements", "tensor.empty", "tensor.extract")


# Ops whose result bits do not depend on reading uint8 as signed or unsigned:
# wrapping arithmetic, bitwise logic, equality, selection and data movement.
_SIGN_BLIND = {
    "add.Tensor", "add.Scalar", "sub.Tensor", "sub.Scalar", "mul.Tensor", "mul.Scalar", "neg",
    "bitwise_and.Tensor", "bitwise_or.Tensor", "bitwise_xor.Tensor", "bitwise_not", "logical_not",
    "eq.Tensor", "eq.Scalar", "ne.Tensor", "ne.Scalar", "where.self", "clone", "copy", "contiguous",
    "detach", "alias", "lift_fresh_copy", "view", "reshape", "_reshape_alias", "_unsafe_view", "permute",
    "transpose.int", "t", "expand", "broadcast_to", "squeeze", "squeeze.dim", "squeeze.dims", "unsqueeze",
    "flatten.using_ints", "unflatten.int", "cat", "stack", "slice.Tensor", "select.int", "index_select",
    "gather", "index.Tensor", "repeat", "tile", "flip", "roll", "zeros_like", "ones_like", "empty_like",
    "full_like", "fill.Scalar", "masked_fill.Scalar", "constant_pad_nd", "embedding",
}


# On bool tensors TorchToTosa emits i1 tosa.add / maximum / greater, which
# compute xor and signed order: wrong answers, so these are refused. (i1
# tosa.mul is logical and, PyTorch's bool mul: it stays.)
_BOOL_ARITHMETIC = {
    "add.Tensor", "sub.Tensor", "maximum", "minimum", "gt.Tensor", "lt.Tensor", "ge.Tensor",
    "le.Tensor", "clamp", "clamp.Tensor", "clamp_max", "clamp_max.Tensor", "clamp_min", "clamp_min.Tensor", "max",
    "min", "amax", "amin", "max.dim", "min.dim",
}


# Ops that only move uint8 values (lists, literals, casts between torch and
# builtin types) and the index operands sign-blind ops may take besides.
_UINT8_NEUTRAL = {
    "torch.prim.ListConstruct", "torch.prim.ListUnpack", "torch.prim.TupleConstruct", "torch.prim.TupleIndex",
    "torch.vtensor.literal", "torch.derefine", "torch.tensor_static_info_cast",
}
_INDEX_OPERANDS = {"index_select": 2, "gather": 2, "embedding": 1}


def _tensor_types(op) -> list[tuple[int, str]]:
    return [(i, str(v.type)) for i, v in enumerate(list(op.operands) + list(op.results))
            if str(v.type).startswith("!torch.vtensor")]


def _uint8_safe(op, name: str, short: str | None) -> bool:
    """No uint8 tensor, or an op whose answer is the same on int8 bits: a
    sign-blind op whose every tensor is uint8 (or bool), apart from index
    operands. Mixed dtypes promote, and reading the bits as signed is then wrong
    (uint8 200 + int8 1 is 201 in int16, -55 after torch-mlir)."""
    tensors = _tensor_types(op)
    if not any(t.endswith(",ui8>") for _, t in tensors) or name in _UINT8_NEUTRAL:
        return True
    if name == "torch.aten.to.dtype":  # uint8 <-> int8 wraps (the same bits); to or from bool, only zero counts
        return all(str(v.type).endswith((",ui8>", ",si8>", ",i1>")) for v in [op.operands[0], op.results[0]])
    if short not in _SIGN_BLIND:
        return False
    exempt = _INDEX_OPERANDS.get(short)
    return all(t.endswith((",ui8>", ",i1>")) for i, t in tensors if i != exempt)


def _bool_arithmetic(op, short: str | None) -> bool:
    return short in _BOOL_ARITHMETIC and all(
        str(v.type).endswith(",i1>") for v in op.operands if str(v.type).startswith("!torch.vtensor"))


_UINT8_MESSAGE = (
    "uint8 values reach ops whose result depends on their sign, which torch-mlir's TOSA lowering computes as "
    "signed int8 (a silently wrong answer for values above 127): {name}. Keep it as tosa.custom "
    "(list it in backend_legal_ops, or use backend_legal_ops=\"auto\"), or convert to a wider dtype in the model."
)
_BOOL_MESSAGE = (
    "bool tensors reach arithmetic or ordering ops that torch-mlir's TOSA lowering computes on i1 "
    "(True + True becomes False, True > False becomes false): {name}. Keep it as tosa.custom "
    "(list it in backend_legal_ops, or use backend_legal_ops=\"auto\"), or use logical ops (| & ^) in the model."
)


def sign_semantics_problem(op) -> str | None:
    """Why TorchToTosa would compute `op` wrongly (uint8 read as int8, bool
    arithmetic on i1), or None: the refusal below and auto mode, which tunnels
    such an op instead (CONTRACT.md 7.1 `wrong-lowering`), ask the same question."""
    name = op.name
    if not name.startswith("torch.") or _attrs.CARRIER in op.attributes:
        return None
    short = name[len("torch.aten."):] if name.startswith("torch.aten.") else None
    if _bool_arithmetic(op, short):
        return _BOOL_MESSAGE.format(name=name)
    if not _uint8_safe(op, name, short):
        return _UINT8_MESSAGE.format(name=name)
    return None


@register_pass(CHECK_SIGN_SEMANTICS,
               "Refuse torch ops that TorchToTosa would compute with the wrong sign (uint8 as int8) or on i1 (bool "
               "arithmetic): a silently wrong answer otherwise")
def check_sign_semantics(module: ir.Operation, ctx: PassContext) -> None:
    for op in _ir.collect_ops(module, lambda op: op.name.startswith("torch.")):
        problem = sign_semantics_problem(op)
        if problem:
            ctx.error(op, problem)


# Upstream crashes (a signal, not a diagnostic) on valid torch IR, found by
# the OpInfo suite, the fuzzers and a third-party suite: stage -> op -> (when,
# what happens). "contract": torch-mlir's lowering to the backend contract, or
# the TOSA lowering of what its decomposition makes of the op (unless the op is
# kept: it then does not decompose it); "tosa": TorchToTosa. `when(op)` is
# falsy, or true or a string that says which of the op's sizes crash it
# (`{detail}` in the message; `{op}` is the op's name without "torch.aten.").
def _zero_d_input(op) -> bool:
    return str(op.operands[0].type).startswith("!torch.vtensor<[],")


def _zero_stride(op) -> str | None:
    """TorchToTosa's pooling lowerings divide each spatial size by its stride
    (an integer division: SIGFPE on 0). A stride list of another length than
    the pool's rank is refused by the lowering before it divides."""
    rank = int(op.name.partition("_pool")[2][0])  # torch.aten.max_pool2d -> 2
    strides = _torch_ir.constant_list(op.operands[2])
    return f"stride {strides}" if strides and len(strides) == rank and 0 in strides else None


def _output_larger_than_input(op) -> str | None:
    """torch-mlir decomposes adaptive max pooling into a max pool of stride
    input size // output size: 0 where the output is the larger (a static
    input size; a dynamic one makes a run-time stride TorchToTosa refuses)."""
    shape, out = _dtypes.parse_vtensor(str(op.operands[0].type)), _torch_ir.constant_list(op.operands[1])
    if shape is None or not out or len(shape[0]) < len(out):
        return None
    spatial = shape[0][-len(out):]
    larger = any(i.isdigit() and isinstance(o, int) and o > int(i) for i, o in zip(spatial, out))
    return f"{'x'.join(spatial)} -> {'x'.join(map(str, out))}" if larger else None


_SMALLVECTOR_MAX = 2**32 - 1  # LLVM's SmallVector counts in 32 bits: a larger size aborts the process


def _arange_crash(op) -> str | None:
    """TorchToTosa's arange.start_step computes its values at compile time:
    floor(|end - start| / |step|) + 1 of them, divided in integers when all
    three are ints (SIGFPE on step 0; a float 0 gives an infinite count that
    ran out of memory), counted in a SmallVector (an abort beyond 2**32 - 1).
    PyTorch refuses a step of 0 itself."""
    values = [_torch_ir.constant(v) for v in op.operands[:3]]
    if any(isinstance(v, bool) or not isinstance(v, (int, float)) for v in values):
        return None
    start, end, step = values
    if step == 0:  # a float 0 makes an infinite count, cast to an integer: no crash only by luck
        return ("an integer step of 0 (a division by zero, SIGFPE)" if all(isinstance(v, int) for v in values)
                else "a step of 0 (an infinite count: out of memory)")
    count = abs(end - start) // abs(step) + 1  # it counts a span against a step of the other sign too
    if count > _SMALLVECTOR_MAX:
        return (f"{count:.0f} values from start {start}, end {end}, step {step}, beyond the 2**32 - 1 an LLVM "
                "SmallVector holds (LLVM ERROR: SmallVector unable to grow, an abort)")
    return None


_UPSAMPLE_0D = (_zero_d_input, "TorchToTosa's lowering of upsample_nearest2d crashes the process (a segmentation "
                "fault) on a 0-d input; PyTorch needs a 4-d one")
_POOL_ZERO_STRIDE = (_zero_stride, "TorchToTosa's lowering of {op} divides the input size by the stride and crashes "
                     "the process (SIGFPE, a division by zero) on {detail}; PyTorch needs strides above 0 "
                     "(torch-mlir's decomposition of adaptive_max_pool1d/2d makes a 0 where the output size exceeds "
                     "the input size: keep that op as tosa.custom)")
_ADAPTIVE_MAX_LARGER = (_output_larger_than_input, "torch-mlir decomposes {op} with an output size larger than its "
                        "input ({detail}) into a max pool of stride 0 (input size // output size), on which "
                        "TorchToTosa divides by zero and crashes the process (SIGFPE): keep the op as tosa.custom "
                        "(backend_legal_ops=[\"aten.{op}\"], or \"auto\")")
_ARANGE = (_arange_crash, "TorchToTosa's lowering of arange.start_step builds its values at compile time and "
           "crashes the process on {detail}: PyTorch refuses a step of 0, and a tensor that long could not be "
           "allocated either")
def _empty_index_list(op) -> str | None:
    """No index at all, or only `None`s on a 0-d tensor (rank 1 or more with
    `None`s decomposes)."""
    producer = _ir.defining_op(op.operands[1])
    if producer is None or producer.name != "torch.prim.ListConstruct":
        return None
    if len(producer.operands) == 0:
        return "an empty list of indices"
    nones = all(str(v.type) == "!torch.none" for v in producer.operands)
    return "a 0-d tensor indexed by None only" if nones and _zero_d_input(op) else None


_INDEX_EMPTY = (_empty_index_list, "torch-mlir's decomposition of {op} crashes the process (a segmentation fault) "
                "on {detail} (found by the OpInfo suite: resize_ of a 0-d tensor, which indexes with none): keep "
                "the op as tosa.custom (backend_legal_ops=[\"aten.index.Tensor\"], or \"auto\")")
_SOFTMAX_0D = (_zero_d_input, "torch-mlir's decomposition of {op} never returns on a 0-d input (its pass loops; "
               "found by the OpInfo suite, masked softmax of a 0-d sample): keep the op as tosa.custom "
               "(backend_legal_ops=[\"aten.{op}\"], or \"auto\"), or give it an input of rank 1 or more")
KNOWN_CRASHES = {
    "contract": {
        "torch.aten.index.Tensor": _INDEX_EMPTY,
        "torch.aten.index.Tensor_hacked_twin": _INDEX_EMPTY,
        **{f"torch.aten.{softmax}": _SOFTMAX_0D for softmax in ("softmax.int", "_softmax", "log_softmax.int",
                                                                "_log_softmax")},
        "torch.aten.nonzero": (_zero_d_input, "torch-mlir's decomposition of aten.nonzero crashes the process (a "
                               "segmentation fault) on a 0-d input, whose [N, 0] result no tosa.custom can carry "
                               "either (zero-size): give nonzero an input of rank 1 or more"),
        "torch.aten.adaptive_max_pool1d": _ADAPTIVE_MAX_LARGER,
        "torch.aten.adaptive_max_pool2d": _ADAPTIVE_MAX_LARGER,
    },
    "tosa": {
        "torch.aten.upsample_nearest2d": _UPSAMPLE_0D,
        "torch.aten.upsample_nearest2d.vec": _UPSAMPLE_0D,
        "torch.aten.arange.start_step": _ARANGE,
        **{f"torch.aten.{pool}": _POOL_ZERO_STRIDE
           for pool in ("max_pool1d", "max_pool2d", "max_pool3d", "avg_pool1d", "avg_pool2d")},
    },
}


def known_crash(op, stage: str) -> str | None:
    """Why `stage` would crash the process on this op, or None."""
    when, what = KNOWN_CRASHES[stage].get(op.name, (None, None))
    detail = when(op) if when is not None else None
    if not detail:
        return None
    return what.format(op=op.name[len("torch.aten."):], detail=detail if isinstance(detail, str) else "")


def _stage(text: str) -> str:
    if text not in KNOWN_CRASHES:
        raise ValueError(f"unknown stage '{text}': expected one of {', '.join(KNOWN_CRASHES)}")
    return text


@register_pass(CHECK_KNOWN_CRASHES,
               "Refuse, on their locations, the ops a later stage would crash the process on (KNOWN_CRASHES; "
               "at stage=contract, ops kept by backend-legal-ops are not decomposed, so not refused)",
               options=(Option("stage", "the stage that follows", "tosa", _stage, metavar="contract|tosa"),
                        Option("backend-legal-ops", "the ops torch-mlir keeps (its pipeline's option)", (),
                               parse_names, metavar="aten.a,aten.b")))
def check_known_crashes(module: ir.Operation, ctx: PassContext) -> list[str]:
    """Returns the refused ops' names, for the error's `ops`."""
    stage, kept = ctx.options.stage, ctx.options.backend_legal_ops
    refused = []
    for op in _ir.collect_ops(module, lambda op: op.name in KNOWN_CRASHES[stage]):
        problem = None if op.name[len("torch."):] in kept else known_crash(op, stage)
        if problem:
            ctx.error(op, problem)
            refused.append(op.name)
    return refused


@register_pass(MARK_BOUNDARY_DTYPES,
               "Mark uint8 arguments and results of public functions tosa_custom.dtype = \"uint8\" (TOSA types "
               "them as i8)")
def mark_boundary_dtypes(module: ir.Operation, ctx: PassContext) -> None:
    uint8 = {_attrs.DTYPE: "uint8"}
    for func in _ir.public_functions(module):
        ftype = _ir.function_type(func)
        for key, types in (("arg_attrs", ftype.inputs), ("res_attrs", ftype.results)):
            marks = {i: uint8 for i, t in enumerate(types) if str(t).endswith(",ui8>")}
            _ir.add_signature_attrs(func, key, len(types), marks)


@register_pass(TENSOR_CONSTANTS_AS_TOSA,
               "Rewrite tensor arith.constant ops (left by torch-mlir's canonicalizations) as tosa.const")
def tensor_constants_as_tosa(module: ir.Operation, ctx: PassContext) -> None:
    _ir.replace_each(module, lambda op: op.name == "arith.constant" and isinstance(op.results[0].type,
                                                                                   ir.RankedTensorType),
                     _as_tosa_const)


def _as_tosa_const(op: ir.Operation) -> ir.Value:
    """The constant as `tosa.const`, its elements of the result's signless
    type (a uint8 literal's `ui8` elements are the i8 result's bits)."""
    values, result = op.attributes["value"], op.results[0].type
    if isinstance(values, ir.DenseIntElementsAttr) and values.type.element_type != result.element_type:
        values = _b.signless_elements(values, result)
    return _b.tosa_const(values, result)


@register_pass(VERIFY_TOSA,
               "Fail on any op outside TOSA, func and the builtin ops CONTRACT.md 4.5 allows")
def verify_tosa(module: ir.Operation, ctx: PassContext) -> None:
    foreign = _ir.collect_ops(module, lambda op: op.name.split(".")[0] not in ("tosa", "func", "builtin")
                              and op.name not in TOSA_EXTRAS)
    for op in foreign:
        ctx.error(op, f"'{op.name}' is not TOSA: ops outside TOSA remain (CONTRACT.md 4.5 allows only "
                      + ", ".join(TOSA_EXTRAS) + " besides TOSA and func)")
