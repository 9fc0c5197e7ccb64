"""Sizes that are a multiple of a dim divided by that multiple, folded.

`tosa-to-tensor` lowers a `tosa.reshape` with a `?` dim by collapsing the
operand and dividing the element count by the static dims: a view of
`[2, ?]` as `[2, ?, 32]` gives `(d * 64) / 64` for `d`. Canonicalization
cannot fold an `arith.divsi` of an `affine.apply`, so every reshape in a
transformer layer makes a new size that is `d` but not the value `d`, and
each elementwise op between two of them keeps tosa-to-linalg's
`scf.if (size == 1)` broadcast copies (`tosa-custom-drop-identity-broadcasts`
needs one value). Beyond the copies, the sizes feed tiled loops' bounds, and
one-shot bufferization proves slices equal by walking those chains of
divisions and selects with a Presburger solver: 210 s for one small Llama
(`test/runtime/test_dynamic_models.py`), 19 s once the sizes are folded.

`tosa-custom-fold-exact-sizes` evaluates index arithmetic (constants,
`affine.apply` of sums and constant multiples, `arith.addi`/`subi`/`muli`,
and divisions by a constant) as an integer linear form over the values it
cannot see into. A division whose every coefficient is a multiple of the
divisor is exact, whatever the signs, so `divsi`, `divui`, `floordivsi` and
`ceildivsi` all equal it; such a division becomes the one value, the
constant, or an `affine.apply` of the form. A max, min or select of two
sizes whose forms agree (each `tensor.dim` followed to the size it reads:
`same_size`) becomes its first operand. Anything else is left alone.
"""

from __future__ import annotations

from torch_mlir import ir

from ...core.ir import collect_ops
from ...core.passes import PassContext, register_pass

__all__ = ["FOLD_EXACT_SIZES", "fold_exact_sizes", "same_size"]

FOLD_EXACT_SIZES = "tosa-custom-fold-exact-sizes"

# A linear form: {atom value: coefficient}, the constant under None.
Form = dict

_DIVISIONS = ("arith.divsi", "arith.divui", "arith.floordivsi", "arith.ceildivsi")
# Ops whose result is one of two operands: either, when both are one size.
_CHOICES = {"arith.maxui": (0, 1), "arith.maxsi": (0, 1), "arith.minui": (0, 1), "arith.minsi": (0, 1),
            "arith.select": (1, 2)}
_MAX_DEPTH = 64  # chains of sizes are a few ops deep; deeper is left as an atom


def _add(a: Form, b: Form, scale: int = 1) -> Form:
    out = dict(a)
    for k, c in b.items():
        out[k] = out.get(k, 0) + scale * c
        if out[k] == 0 and k is not None:
            del out[k]
    return out


def _scaled(a: Form, c: int) -> Form:
    return {} if c == 0 else {k: v * c for k, v in a.items()}


def _constant(form: Form) -> int | None:
    return form.get(None, 0) if all(k is None for k in form) else None


def _exact_quotient(form: Form, c: int) -> Form | None:
    if c == 0 or any(v % c for v in form.values()):
        return None
    return {k: v // c for k, v in form.items()}


class _Evaluator:
    """Linear forms of index values, memoized per value. With `follow_dims`,
    a `tensor.dim` is followed to the size it reads (through empties,
    destination-style ops, reshapes, `scf.if`s whose branches agree, and the
    buffers outlined custom calls write), and
    the dims of block arguments are atoms of their own: forms to compare,
    not to build IR from."""

    def __init__(self, follow_dims: bool = False):
        self.memo: dict[ir.Value, Form] = {}
        self.follow_dims = follow_dims

    def form(self, value: ir.Value, depth: int = 0) -> Form:
        if value in self.memo:
            return self.memo[value]
        form = None
        if depth < _MAX_DEPTH and not isinstance(value.owner, ir.Block):
            form = self._of_op(value.owner, value, depth + 1)
        if form is None:
            form = {value: 1}
        self.memo[value] = form
        return form

    def _of_op(self, op, value: ir.Value, depth: int) -> Form | None:
        name = op.name
        if name == "arith.constant" and isinstance(value.type, ir.IndexType):
            return {None: ir.IntegerAttr(op.attributes["value"]).value}
        if name == "affine.apply":
            amap = ir.AffineMapAttr(op.attributes["map"]).value
            if len(amap.results) != 1:
                return None
            operands = list(op.operands)
            return self._of_expr(amap.results[0], operands, amap.n_dims, depth)
        if name in ("arith.addi", "arith.subi", "arith.muli") + _DIVISIONS and isinstance(value.type, ir.IndexType):
            a, b = (self.form(v, depth) for v in op.operands)
            return self._binary(name, a, b)
        if name in _CHOICES and isinstance(value.type, ir.IndexType):
            a, b = (self.form(op.operands[k], depth) for k in _CHOICES[name])
            return a if a == b else None
        if name == "tensor.dim" and self.follow_dims:
            index = self.form(op.operands[1], depth)
            return self.dim(op.operands[0], index[None], depth) if _constant(index) is not None else None
        return None

    def dim(self, tensor: ir.Value, i: int, depth: int) -> Form | None:
        """The form of dim `i` of `tensor`, where the ops that made it say."""
        t = tensor.type if isinstance(tensor.type, (ir.RankedTensorType, ir.MemRefType)) else None
        if t is None or not 0 <= i < t.rank:
            return None
        if not t.is_dynamic_dim(i):
            return {None: t.shape[i]}
        if depth >= _MAX_DEPTH:
            return None
        owner = tensor.owner
        if isinstance(owner, ir.Block):
            return {(tensor, i): 1}
        name, operands = owner.name, list(owner.operands)
        dynamic = [d for d in range(t.rank) if t.is_dynamic_dim(d)]
        if name in ("tensor.empty", "memref.alloc") and len(operands) == len(dynamic) \
                or name == "tensor.expand_shape" and len(operands) == 1 + len(dynamic):
            return self.form(operands[len(operands) - len(dynamic) + dynamic.index(i)], depth + 1)
        if name.startswith("linalg.") or name == "tensor.insert_slice":
            results = list(owner.results)
            init = operands[len(operands) - len(results) + results.index(tensor)] if name != "tensor.insert_slice" \
                else operands[1]
            return self.dim(init, i, depth + 1)
        if name in ("tensor.cast", "bufferization.to_tensor"):  # an outlined custom op's result buffer
            return self.dim(operands[0], i, depth + 1)
        if name == "scf.if" and len(owner.regions[1].blocks) == 1:
            k = list(owner.results).index(tensor)
            yields = [list(owner.regions[r].blocks[0].operations)[-1].operands[k] for r in (0, 1)]
            forms = [self.dim(y, i, depth + 1) for y in yields]
            return forms[0] if forms[0] is not None and forms[0] == forms[1] else None
        return None

    @staticmethod
    def _binary(name: str, a: Form, b: Form) -> Form | None:
        if name == "arith.addi":
            return _add(a, b)
        if name == "arith.subi":
            return _add(a, b, -1)
        ca, cb = _constant(a), _constant(b)
        if name == "arith.muli":
            return _scaled(b, ca) if ca is not None else _scaled(a, cb) if cb is not None else None
        if cb is None or cb <= 0:
            return None
        return _exact_quotient(a, cb)

    def _of_expr(self, expr, operands, n_dims: int, depth: int) -> Form | None:
        if isinstance(expr, ir.AffineConstantExpr):
            return {None: expr.value}
        if isinstance(expr, ir.AffineDimExpr):
            return self.form(operands[expr.position], depth)
        if isinstance(expr, ir.AffineSymbolExpr):
            return self.form(operands[n_dims + expr.position], depth)
        if not isinstance(expr, ir.AffineBinaryExpr):
            return None
        a = self._of_expr(expr.lhs, operands, n_dims, depth)
        b = self._of_expr(expr.rhs, operands, n_dims, depth)
        if a is None or b is None:
            return None
        if isinstance(expr, ir.AffineAddExpr):
            return _add(a, b)
        if isinstance(expr, ir.AffineMulExpr):
            return self._binary("arith.muli", a, b)
        if isinstance(expr, (ir.AffineFloorDivExpr, ir.AffineCeilDivExpr)):
            return self._binary("arith.floordivsi", a, b)
        return None


def same_size(first: ir.Value, *others: "ir.Value | tuple[ir.Value, int]") -> bool:
    """Sizes equal on every run: the same value, or the same linear form once
    each `tensor.dim` is followed to the size it reads. Each of `others` may
    be (tensor, dim) for that dim of a tensor."""
    if all(o == first for o in others):
        return True
    evaluator = _Evaluator(follow_dims=True)
    form = evaluator.form(first)
    return all((evaluator.dim(*o, 0) if isinstance(o, tuple) else evaluator.form(o)) == form for o in others)


def _materialize(form: Form, at) -> ir.Value:
    """An index value equal to `form`, built before `at` (every atom dominates it)."""
    index = ir.IndexType.get()
    atoms = [k for k in form if k is not None]
    with ir.InsertionPoint(at), at.location:
        if not atoms:
            return ir.Operation.create("arith.constant", results=[index],
                                       attributes={"value": ir.IntegerAttr.get(index, form.get(None, 0))}).result
        if len(atoms) == 1 and form[atoms[0]] == 1 and not form.get(None):
            return atoms[0]
        expr = ir.AffineConstantExpr.get(form.get(None, 0))
        for i, atom in enumerate(atoms):
            expr = ir.AffineAddExpr.get(expr, ir.AffineMulExpr.get(ir.AffineSymbolExpr.get(i),
                                                                  ir.AffineConstantExpr.get(form[atom])))
        amap = ir.AffineMap.get(0, len(atoms), [expr])
        return ir.Operation.create("affine.apply", results=[index], operands=atoms,
                                   attributes={"map": ir.AffineMapAttr.get(amap)}).result


@register_pass(FOLD_EXACT_SIZES,
               "Fold index divisions by a constant that are exact (a reshape's (d * 64) / 64) into the size "
               "they equal, and a max, min or select of two equal sizes into the first, so that equal sizes "
               "are one value")
def fold_exact_sizes(module, ctx: PassContext | None = None) -> int:
    """Returns how many ops were replaced."""
    replaced = 0
    for func in collect_ops(module, lambda op: op.name == "func.func", enter_matches=False):
        values, sizes = _Evaluator(), _Evaluator(follow_dims=True)
        for op in collect_ops(func, lambda op: op.name in _DIVISIONS or op.name in _CHOICES):
            result = op.results[0]
            if not isinstance(result.type, ir.IndexType):
                continue
            if op.name in _CHOICES:
                first, second = (op.operands[k] for k in _CHOICES[op.name])
                if sizes.form(first) != sizes.form(second):
                    continue
                replacement = first
            else:
                form = values.form(result)
                if form == {result: 1}:
                    continue  # not exact, or not linear
                replacement = _materialize(form, op)
            result.replace_all_uses_with(replacement)
            values.memo.pop(result, None)
            sizes.memo.pop(result, None)
            op.erase()
            replaced += 1
    return replaced
