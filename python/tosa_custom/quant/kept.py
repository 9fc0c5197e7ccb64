"""`tosa-custom-quantized-kept-ops`: in a quantized model, a kept op takes
and returns integers (CONTRACT.md §18).

PT2E leaves `dequantize -> op -> quantize` around each op it quantized. An
op the user keeps (selective mode), that auto mode tunnels because integer
TOSA cannot take it, or that dummy mode keeps, arrives as a `tosa.custom`
between PT2E's ops, on float values. This pass makes the group one custom
op on the integers: each operand a dequantize made becomes the dequantize's
integer operand, each result only quantized becomes the quantize's integer
result, and `implementation_attrs` records both under `"quantization"`
(contract version 5), so the op means quantize(op(dequantize(operands))),
exactly what PT2E eager computes. An operand that is float in the model (a
layer_norm weight the quantizer left alone) stays a float operand.

Chains of kept ops (dummy mode keeps every op): a result read by an op that
keeps its input's quantization (relu, clamps, data movement; on integers
they are exact: quantize is monotone and they only select or move values)
takes the quantization that op's result gets, as if PT2E had quantized it
there; a data-movement op whose result no quantize reads keeps its input's.
A result read in float (by TOSA ops) as well gets a PT2E dequantize for those
readers, which the integer lowering then reads. A result no quantization
can be given (a kept op's float output read by float ops) stays float: the
integer lowering then names the op that reads it.

Runs after `tosa-custom-quantized-boundary` and before
`tosa-custom-lower-quantized`, which leaves these custom ops as they are.
The elementwise functions compile() keeps only to tabulate (`tables=`) are
the lowering's TABLEs, not kept ops.
"""

from __future__ import annotations

import dataclasses

import numpy as np
import torch
from torch_mlir import ir

from ..contract.decode import custom_op_strings
from ..contract.encoding import canonical_json, carry_operand, with_quantization
from ..contract.quantized import OpQuantization
from ..core.ir import public_functions
from ..core.passes import Option, PassContext, PassFailure, parse_names, register_pass
from ..weights.blobs import ResourceBlobs
from . import build as _build
from . import qdq as _qdq
from .scales import QParams
from .values import from_qparams

__all__ = ["KEPT_QUANTIZED", "KEEP_QUANTIZATION", "rewrite_function", "rewrite_in_lowering"]

KEPT_QUANTIZED = "tosa-custom-quantized-kept-ops"

# Ops whose result, on integers, keeps the quantization of their (one) quantized operand.
_MOVES = {"reshape", "view", "_unsafe_view", "transpose", "permute", "t", "squeeze", "unsqueeze", "flatten",
          "slice", "select", "chunk", "split", "split_with_sizes", "unbind", "expand", "clone", "contiguous",
          "alias", "detach", "narrow", "unflatten", "movedim", "cat", "max_pool2d", "pad", "constant_pad_nd",
          "upsample_nearest2d", "squeeze_copy", "unsqueeze_copy", "view_copy", "permute_copy"}
KEEP_QUANTIZATION = _MOVES | {"relu", "relu6", "hardtanh", "clamp", "max", "min"}


def _aten_name(op: ir.Operation) -> str:
    """`torch.aten.softmax.int` -> `softmax`."""
    parts = custom_op_strings(op)[0].split(".")
    return parts[2] if len(parts) > 2 else parts[-1]


def _producer(value: ir.Value) -> str:
    """The name of the op that makes `value` (its operator name when it is a
    kept op), or "an argument"."""
    owner = value.owner
    if isinstance(owner, ir.Block):
        return "an argument"
    op = owner.operation if hasattr(owner, "operation") else owner
    return custom_op_strings(op)[0] if op.name == "tosa.custom" else op.name


def _owner(use) -> ir.Operation:
    return use.owner.operation if hasattr(use.owner, "operation") else use.owner


@dataclasses.dataclass
class _Kept:
    """One function's rewrite: the integers (and parameters) each float value stands for."""

    blobs: ResourceBlobs
    tables: tuple[str, ...]
    shadow: dict = dataclasses.field(default_factory=dict)  # float value -> (integer value, QParams)
    replaced: list = dataclasses.field(default_factory=list)

    def is_kept(self, op: ir.Operation) -> bool:
        if op.name != "tosa.custom" or _qdq.kind(op) is not None:
            return False
        name = custom_op_strings(op)[0]
        return not any(name == f"torch.{t}" or name.startswith(f"torch.{t}.") for t in self.tables)

    def wanted(self, value: ir.Value, depth: int = 0) -> QParams | None:
        """The quantization `value` gets: its quantizes' (all of one), or that
        of the kept op keeping quantization that reads it alone."""
        users = [_owner(u) for u in value.uses]
        if not users or depth > 16:
            return None
        if all(_qdq.kind(u) == "quantize" for u in users):
            params = [_qdq.read_qparams(u, self.blobs) for u in users]
            return params[0] if all(p.same_as(params[0]) and not p.per_channel for p in params) else None
        if len(users) == 1 and self.is_kept(users[0]) and _aten_name(users[0]) in KEEP_QUANTIZATION \
                and len(users[0].results) == 1:
            return self.wanted(users[0].results[0], depth + 1)
        return None

    def rewrite(self, op: ir.Operation, lowering=None) -> None:
        """`op` on the integers. `lowering` (a rules.Lowering, when the integer
        lowering meets a kept op this pass left, whose operand reaches it
        through TOSA data movement): its operands as the lowering sees them,
        and its results handed to the lowering as dequantizes of the new ones."""
        operands = {i: found for i, v in enumerate(op.operands) if (found := self._integers(v, lowering, op))}
        results = {j: q for j, r in enumerate(op.results) if (q := self.wanted(r)) is not None}
        if not results and operands and _aten_name(op) in _MOVES:
            kinds = [q for _, q in operands.values()]
            if all(q.same_as(kinds[0]) and not q.per_channel for q in kinds):
                results = {j: kinds[0] for j in range(len(op.results))}
        if not operands and not results:
            return
        quantization = OpQuantization({i: q for i, (_, q) in operands.items()}, results)
        text = with_quantization(custom_op_strings(op)[2], quantization)
        for i, v in enumerate(op.operands):
            bits = None if i in operands else self.float_bits(v)
            if bits is not None:
                operands[i] = (bits, None)
                text = carry_operand(text, i, "float32")
        types = [_build.int_type(r, q.element) if (q := results.get(j)) else r.type for j, r in enumerate(op.results)]
        attrs = {(a := op.attributes[k]).name: a.attr for k in range(len(op.attributes))}
        attrs["implementation_attrs"] = ir.StringAttr.get(text)
        new = ir.Operation.create("tosa.custom", results=types, attributes=attrs, loc=op.location,
                                  operands=[operands[i][0] if i in operands else v for i, v in enumerate(op.operands)])
        for j, (old, now) in enumerate(zip(op.results, new.results)):
            if j not in results:
                old.replace_all_uses_with(now)
            elif lowering is None:
                self._hand_over(old, now, results[j])
            else:
                dq = _dequantize(now, results[j], old.type)
                lowering.shadow[dq] = from_qparams(now, results[j])
                old.replace_all_uses_with(dq)
        self.replaced.append(op)

    def _integers(self, value: ir.Value, lowering, where) -> tuple | None:
        """The integers `value` stands for and their parameters, or None."""
        if value in self.shadow or lowering is None:
            return self.shadow.get(value)
        x = lowering.q(value)
        if x is None:
            return None
        if x.element not in ("i8", "i16"):
            source = _producer(value)
            raise PassFailure(
                f"kept aten.{_aten_name(where)} reads an {x.element} sum or accumulator ({source}) no quantize "
                "narrowed: the quantizer left its input unquantized, as when it quantizes a convolution or linear "
                f"and the {_aten_name(where)} after it as one group; keep the op before it too, or not this one",
                where)
        dtype = torch.int8 if x.element == "i8" else torch.int16
        lowest, highest = (-128, 127) if x.element == "i8" else (-32768, 32767)
        return x.value, QParams(np.asarray(x.scale), x.zero_point, max(x.low, lowest), min(x.high, highest), dtype,
                                x.axis if x.per_channel else None)

    def float_bits(self, value: ir.Value) -> ir.Value | None:
        """A float32 constant as an int32 one of the same bits (CONTRACT.md §18: pro_int has no float)."""
        array = _qdq.constant_array(value, self.blobs)
        if array is None or array.dtype != np.float32:
            return None
        return _build.const(np.ascontiguousarray(array).view(np.int32), "i32", array.shape)

    def _hand_over(self, old: ir.Value, now: ir.Value, q: QParams) -> None:
        """Readers of `old`: quantizes read `now`; kept ops read it as `now`
        when they are rewritten; others read a dequantize of `now`."""
        self.shadow[old] = (now, q)
        float_users = []
        for user in {id(u): u for u in map(_owner, old.uses)}.values():
            if _qdq.kind(user) == "quantize":
                user.results[0].replace_all_uses_with(now)
                user.erase()
            elif not self.is_kept(user):
                float_users.append(user)
        if float_users:
            dq = _dequantize(now, q, old.type)  # right after the new op (the insertion point is the old one)
            for user in float_users:
                for k, v in enumerate(user.operands):
                    if v == old:
                        user.operands[k] = dq

    def erase_replaced(self) -> None:
        for op in reversed(self.replaced):
            if not any(True for r in op.results for _ in r.uses):
                op.erase()


def _dequantize(value: ir.Value, q: QParams, float_type: ir.Type) -> ir.Value:
    """PT2E's `dequantize_per_tensor` of `value`, as compile() keeps it (a tosa.custom)."""
    args = {"input": {"operand": 0}, "scale": float(q.scale), "zero_point": q.zero_point, "quant_min": q.quant_min,
            "quant_max": q.quant_max, "dtype": {"dtype": str(q.dtype).replace("torch.", "")}, "out_dtype": None}
    attrs = {"domain_name": ir.StringAttr.get("torch_mlir"),
             "operator_name": ir.StringAttr.get("torch.quantized_decomposed.dequantize_per_tensor"),
             "implementation_attrs": ir.StringAttr.get(canonical_json({"args": args, "version": 1}))}
    return ir.Operation.create("tosa.custom", results=[float_type], operands=[value], attributes=attrs).result


def rewrite_in_lowering(lowering, op: ir.Operation, tables: tuple[str, ...] = ()) -> None:
    """`op`, a kept op the integer lowering meets on quantized operands (read
    through TOSA data movement this pass does not follow), on the integers;
    the lowering then reads its results as dequantizes of the new ones."""
    kept = _Kept(lowering.blobs, tables)
    kept.rewrite(op, lowering)
    op.erase()


def rewrite_function(func, blobs: ResourceBlobs, tables: tuple[str, ...]) -> None:
    kept = _Kept(blobs, tables)
    block = func.regions[0].blocks[0]
    for op in [o.operation for o in block.operations]:
        if _qdq.kind(op) == "dequantize":
            q = _qdq.read_qparams(op, blobs)
            kept.shadow[op.results[0]] = (op.operands[0], q)
        elif kept.is_kept(op):
            with ir.InsertionPoint(op), op.location:
                kept.rewrite(op)
    kept.erase_replaced()


@register_pass(KEPT_QUANTIZED,
               "In a quantized model, make each kept tosa.custom between PT2E's dequantize and quantize ops take "
               "and return the integers, its operands' and results' quantization under 'quantization' in "
               "implementation_attrs (contract version 5): it means quantize(op(dequantize(operands)))",
               options=(Option("tables", "ATen ops (aten.gelu, ...) kept only for the integer lowering's TABLEs, "
                               "not rewritten", (), parse_names, metavar="a,b"),))
def kept_quantized(module: ir.Operation, ctx: PassContext) -> None:
    blobs = ResourceBlobs(module)
    tables = tuple(ctx.options.tables)
    for func in public_functions(module):
        with func.location:
            rewrite_function(func, blobs, tables)
