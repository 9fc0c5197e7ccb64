"""int64 add and sub lowered to i64 TOSA, not through i32.

TorchToTosa lowers every int64 `aten.add`, `aten.sub` and `aten.rsub` (its
alpha multiple included) by casting the operands to i32, computing there and
casting the result back, and folds a constant operand into an i32 constant.
Outside i32 that is a silent wrong answer: 2**40 + 2**35 gave 0, in stock and
auto mode (the every-sample OpInfo run found it through the floor division
unravel_index makes, int64/4). Its other lowerings (cumsum, reductions,
floor division) stay in i64.

So before TorchToTosa this pass lowers those ops itself when the result is
int64: `tosa.add`/`tosa.sub` of the i64 operands (a constant Scalar as an i64
`tosa.const`, alpha as a `tosa.mul` by it or folded into the constant), the
lower-rank operand reshaped to the result's rank. `tosa-validate` takes i64
arithmetic under TOSA 1.0's integer profile, as it takes the i64 the other
lowerings make; ranges derived in the IR (ranges.py) see through i64
`tosa.add` and `tosa.sub`, so bounded positions narrow as before (CONTRACT.md
§13.4b). Left to TorchToTosa: a Scalar known only at run time, and a
lower-rank operand of a dynamic shape.
"""

from __future__ import annotations

import numpy as np
from torch_mlir import ir

from ..core import builders as _b
from ..core import dtypes as _dtypes
from ..core import ir as _ir
from ..core.passes import PassContext, register_pass
from ..core.torch_ir import constant, vtensor_type

__all__ = ["I64_ADD_SUB"]

I64_ADD_SUB = "tosa-custom-i64-add-sub"

_OPS = {  # name: (TOSA op, the Scalar variant, operands swapped)
    "torch.aten.add.Tensor": ("tosa.add", False, False),
    "torch.aten.sub.Tensor": ("tosa.sub", False, False),
    "torch.aten.add.Scalar": ("tosa.add", True, False),
    "torch.aten.sub.Scalar": ("tosa.sub", True, False),
    "torch.aten.rsub.Scalar": ("tosa.sub", True, True),
}


def _wrap64(n: int) -> int:
    """`n` as int64 wraps it (eager computes alpha * other in int64)."""
    return (n + (1 << 63)) % (1 << 64) - (1 << 63)


class _Lowering:
    """The TOSA of one op, on the result's rank."""

    def __init__(self, result: ir.Type):
        self.dims = _dtypes.parse_vtensor(str(result))[0]
        self.i64 = ir.IntegerType.get_signless(64)

    def builtin(self, dims) -> ir.Type:
        return ir.RankedTensorType.get([ir.ShapedType.get_dynamic_size() if d == "?" else int(d) for d in dims],
                                       self.i64)

    def tensor(self, value: ir.Value) -> ir.Value:
        """The i64 builtin tensor of a vtensor operand at the result's rank
        (a lower rank is static: `_lowerable` says so)."""
        dims, element = _dtypes.parse_vtensor(str(value.type))
        if element != "si64":
            value = _b.torch_to_dtype(value, vtensor_type(dims, "si64"))
        tensor = _b.create("torch_c.to_builtin_tensor", self.builtin(dims), [value])
        missing = len(self.dims) - len(dims)
        if missing == 0:
            return tensor
        shape = [1] * missing + [int(d) for d in dims]
        shape_type = ir.Type.parse(f"!tosa.shape<{len(shape)}>")
        index = ir.IndexType.get()
        attr = ir.DenseElementsAttr.get(np.array(shape, dtype=np.int64),
                                        type=ir.RankedTensorType.get([len(shape)], index))
        shape_value = _b.create("tosa.const_shape", shape_type, attributes={"values": attr})
        return _b.create("tosa.reshape", self.builtin(shape), [tensor, shape_value])

    def const(self, number: int) -> ir.Value:
        ty = ir.RankedTensorType.get([1] * len(self.dims), self.i64)
        return _b.tosa_const(ir.DenseElementsAttr.get(np.full([1] * len(self.dims), number, dtype=np.int64),
                                                      type=ty))

    def times(self, value: ir.Value, alpha: int) -> ir.Value:
        shift = _b.tosa_const(ir.DenseElementsAttr.get(np.zeros(1, dtype=np.int8),
                                                       type=ir.RankedTensorType.get([1], ir.IntegerType.get_signless(8))))
        result = ir.RankedTensorType(value.type)
        return _b.create("tosa.mul", result, [value, self.const(alpha), shift])


def _is_vtensor(value: ir.Value) -> bool:
    return str(value.type).startswith("!torch.vtensor")


def _rank(value: ir.Value) -> list[str] | None:
    parsed = _dtypes.parse_vtensor(str(value.type)) if _is_vtensor(value) else None
    return None if parsed is None else parsed[0]


def _lowerable(op: ir.Operation, dims: list[str]) -> bool:
    """Whether `_lower` can take `op` (decided before anything is built)."""
    _, scalar, _ = _OPS[op.name]
    alpha = constant(op.operands[2])
    if not isinstance(alpha, int) or isinstance(alpha, bool):
        return False
    tensors = [op.operands[0]] if scalar else list(op.operands[:2])
    if scalar:
        number = constant(op.operands[1])
        if not isinstance(number, int) or isinstance(number, bool):
            return False
    for value in tensors:
        own = _rank(value)
        if own is None or len(own) != len(dims) and "?" in own:
            return False
    return True


def _lower(op: ir.Operation) -> ir.Value | None:
    """The i64 TOSA of an int64 add/sub/rsub, or None to leave it to TorchToTosa."""
    result = op.results[0].type
    parsed = _dtypes.parse_vtensor(str(result))
    if parsed is None or parsed[1] != "si64" or not _lowerable(op, parsed[0]):
        return None
    tosa_name, scalar, swapped = _OPS[op.name]
    alpha = constant(op.operands[2])
    lowering = _Lowering(result)
    left = lowering.tensor(op.operands[0])
    if scalar:
        number = constant(op.operands[1])
        if swapped:  # rsub: other - alpha * x
            left, right = lowering.const(number), (left if alpha == 1 else lowering.times(left, alpha))
        else:
            right = lowering.const(_wrap64(number * alpha))
    else:
        right = lowering.tensor(op.operands[1])
        if alpha != 1:
            right = lowering.times(right, alpha)
    computed = _b.create(tosa_name, lowering.builtin(lowering.dims), [left, right])
    return _b.create("torch_c.from_builtin_tensor", result, [computed])


@register_pass(I64_ADD_SUB,
               "Lower int64 aten.add/sub/rsub (with alpha) to i64 tosa.add/tosa.sub before TorchToTosa, which "
               "computes them in i32 and so wraps values outside it")
def i64_add_sub(module: ir.Operation, ctx: PassContext) -> None:
    _ir.replace_each(module, lambda op: op.name in _OPS, _lower)
