"""Integer matmuls on operands widened first.

TOSA's integer MATMUL takes i8 operands with zero points and accumulates
in i32; `tosa-to-linalg` makes it `linalg.quantized_batch_matmul`, or,
without zero points, `linalg.batch_matmul` on i8 with an i32 result. The
tiling planner took neither well: the quantized matmuls have no indexing
maps and became scalar loops, and the vectorizer read the narrow operands of
a plain one through broadcasting transfers that were lowered one lane at a
time (a 64 x 256 x 256 linear: 0.5 GMAC/s, f32 21).

Each such op becomes the same contraction on operands widened to the
accumulator's type, the zero point subtracted in the same elementwise pass:
`(a - za) * (b - zb)` summed in i32 is what the specification defines, and
every product and partial sum is the one the original op forms, so the
result is bit for bit the same. The contraction is then a plain i32 one
(`arith.muli` + `arith.addi`), which the planner tiles as it tiles f32: a
register tile of broadcast A elements times B rows, in as many lanes as the
CPU plan has (64 x 256 x 256: 17-25 GMAC/s on AVX2). The widening costs
one pass over each operand (M*K + K*N against M*K*N multiply-adds).

Runs at the head of the tiling passes, before `tosa-custom-generalize`,
while the ops still carry their names. The naive pipeline keeps the ops as
they are.
"""

from __future__ import annotations

from torch_mlir import ir
from torch_mlir.dialects import arith as arith_d
from torch_mlir.dialects import linalg as linalg_d
from torch_mlir.dialects import tensor as tensor_d

from ...core.ir import collect_ops
from ...core.passes import PassContext, register_pass

__all__ = ["WIDEN_INTEGER_CONTRACTIONS", "widen_integer_contractions"]

WIDEN_INTEGER_CONTRACTIONS = "tosa-custom-widen-integer-contractions"

# The named ops with zero points (inputs: x, w, x's zero point, w's) and
# the op each becomes on widened operands. Convolutions stay as they are:
# generalized with the extension and the zero point in their body, they are
# vectorized by the window plans, and widening, a gain on a 3 x 3 one alone
# (32 x 32 x 32 -> 64: 1.0-2.0 -> 0.63-1.0 ms), made MobileNetV2, of 1 x 1
# and depthwise ones on small images, slower (15-21 -> 23-24 ms).
_WITH_ZERO_POINTS = {
    "linalg.quantized_matmul": "linalg.matmul",
    "linalg.quantized_batch_matmul": "linalg.batch_matmul",
}
# Those without (inputs: x, w), taken when their integer inputs are narrower
# than the result.
_PLAIN = frozenset(_WITH_ZERO_POINTS.values())
# The maps of the matmuls (the planner reads them; a named matmul built from
# a quantized one has none yet): loops (batch,) m, n, k.
_MATMUL_MAPS = {
    "linalg.matmul": ("(m, n, k) -> (m, k)", "(m, n, k) -> (k, n)", "(m, n, k) -> (m, n)"),
    "linalg.batch_matmul": ("(b, m, n, k) -> (b, m, k)", "(b, m, n, k) -> (b, k, n)", "(b, m, n, k) -> (b, m, n)"),
}
# Attributes the new op does not take over: its operands, the extension
# (applied by the widening), the maps the old op's scalar operands had.
_NOT_COPIED = ("operandSegmentSizes", "cast", "linalg.memoized_indexing_maps")
# Accumulators the planner vectorizes (an i48 one is packed unlike its memref: loops).
_WIDTHS = (32, 64)


def _integer_width(t: ir.Type) -> int | None:
    return ir.IntegerType(t).width if isinstance(t, ir.IntegerType) else None


def _takes(op) -> bool:
    """An integer contraction whose narrow inputs are widened: a named op
    above, an i32 / i64 result of static rank, inputs of narrower integers."""
    if op.name not in _WITH_ZERO_POINTS and op.name not in _PLAIN:
        return False
    operands = list(op.operands)
    out = operands[-1].type
    if len(op.results) != 1 or not isinstance(out, ir.RankedTensorType):
        return False
    width = _integer_width(out.element_type)
    if width not in _WIDTHS:
        return False
    inputs = [ir.RankedTensorType(v.type) for v in operands[:2] if isinstance(v.type, ir.RankedTensorType)]
    widths = [_integer_width(t.element_type) for t in inputs]
    if len(inputs) != 2 or None in widths or max(widths) > width:
        return False
    return op.name in _WITH_ZERO_POINTS or min(widths) < width


def _unsigned(op) -> bool:
    """A named matmul asked to extend its operands as unsigned (`cast`)."""
    return "cast" in op.attributes and "unsigned" in str(op.attributes["cast"])


def _empty_like(v: ir.Value, element: ir.Type) -> ir.Value:
    t = ir.RankedTensorType(v.type)
    sizes = [tensor_d.dim(v, arith_d.constant(ir.IndexType.get(), i)) if t.is_dynamic_dim(i) else s
             for i, s in enumerate(t.shape)]
    return tensor_d.empty(sizes, element)


def _widened(v: ir.Value, element: ir.Type, zero_point: ir.Value | None, unsigned: bool) -> ir.Value:
    """v's elements extended to `element`, less the zero point (an i32 scalar), elementwise."""
    t = ir.RankedTensorType(v.type)
    identity = ir.AffineMapAttr.get(ir.AffineMap.get_identity(t.rank))
    parallel = ir.Attribute.parse("#linalg.iterator_type<parallel>")
    if zero_point is not None and zero_point.type != element:
        zero_point = arith_d.extsi(element, zero_point)
    generic = linalg_d.GenericOp([ir.RankedTensorType.get(t.shape, element)], [v], [_empty_like(v, element)],
                                 ir.ArrayAttr.get([identity, identity]), ir.ArrayAttr.get([parallel] * t.rank))
    body = generic.regions[0].blocks.append(t.element_type, element)
    with ir.InsertionPoint(body):
        x = body.arguments[0]
        wide = x if t.element_type == element else (arith_d.extui if unsigned else arith_d.extsi)(element, x)
        if zero_point is not None:
            wide = arith_d.subi(wide, zero_point)
        linalg_d.YieldOp([wide])
    return generic.results[0]


def _widen(op) -> None:
    operands = list(op.operands)
    init = operands[-1]
    element = ir.RankedTensorType(init.type).element_type
    zero_points = operands[2:4] if op.name in _WITH_ZERO_POINTS else [None, None]
    unsigned = _unsigned(op)
    with ir.InsertionPoint(op), op.location:
        inputs = [_widened(v, element, z, unsigned) for v, z in zip(operands[:2], zero_points)]
        attributes = {name: op.attributes[name] for name in op.attributes if name not in _NOT_COPIED}
        attributes["operandSegmentSizes"] = ir.DenseI32ArrayAttr.get([2, 1])
        name = _WITH_ZERO_POINTS.get(op.name, op.name)
        if name in _MATMUL_MAPS and "indexing_maps" not in attributes:
            attributes["indexing_maps"] = ir.ArrayAttr.get(
                [ir.Attribute.parse(f"affine_map<{m}>") for m in _MATMUL_MAPS[name]])
        new = ir.Operation.create(name, results=[init.type],
                                  operands=inputs + [init], attributes=attributes, regions=1)
        linalg_d.fill_builtin_region(new)
    op.results[0].replace_all_uses_with(new.results[0])
    op.erase()


@register_pass(WIDEN_INTEGER_CONTRACTIONS,
               "Rewrite integer matmuls (with zero points, or of operands narrower than the accumulator) as the "
               "same matmul on operands widened to the accumulator type, zero points subtracted, which the tiling "
               "planner vectorizes")
def widen_integer_contractions(module, ctx: PassContext | None = None) -> int:
    """Returns how many matmuls were rewritten."""
    found = collect_ops(module, _takes)
    with module.context, ir.Location.unknown():
        for op in found:
            _widen(op)
    return len(found)
