"""Sizes known only at run time, resolved on torch IR before TorchToTosa
(CONTRACT.md §15; dynamic-shape issue, item 2).

TorchToTosa lowers a view, reshape or expand only from a size list of
constants, and a `div.Scalar` only by a constant; with a dynamic dim the
list holds `aten.size.int` and integer arithmetic on it. These passes read
what each size is from PyTorch's own shape propagation, which the importer
carries as `torch.bind_symbolic_shape` (so they run before
`tosa-custom-drop-symbolic-shapes`, after the tunnel, whose encoder reads the
same bindings):

- `tosa-custom-resolve-size-lists`: a size-list entry whose result dim is
  static becomes that constant; one left symbolic in a view/reshape becomes
  -1 (TOSA 1.0); an expand entry equal to the input's dim becomes -1 (keep);
  several left in a view/reshape become a `tosa.reshape` whose shape operand
  is built from `tosa.dim`, `tosa.const_shape`, `tosa.concat_shape` and the
  shape arithmetic ops (TOSA 1.1 draft, EXT-DYNAMIC); an expand with `?`
  dims, which TorchToTosa refuses even from constant sizes, becomes a
  `tosa.tile` whose multiples are so built (static 1 dims broadcast). A
  value torch-mlir's decompositions made has no binding: its sizes are read
  through the elementwise op that made it.
- `tosa-custom-sizes-as-tensors`: a size used as a number by an elementwise
  Scalar op (a mean's divisor) is computed at run time as a 0-d i32 tensor,
  `reduce_sum(tile(const [1], <size as tosa.shape>))`, and the op becomes its
  Tensor overload.
- `tosa-custom-drop-symbolic-shapes`: the bindings and symbols, which
  TorchToTosa refuses, are erased.
"""

from __future__ import annotations

from torch_mlir import ir

from ..contract import shapes as _shapes
from ..core import builders as _b
from ..core import dtypes as _dtypes
from ..core import ir as _ir
from ..core.passes import PassContext, register_pass
from ..core.torch_ir import NOT_CONSTANT, constant
from .result_shapes import BIND as _BIND, SYMBOLIC_INT as _SYMBOL, binding_op, bound_dims

__all__ = ["RESOLVE_SIZE_LISTS", "SIZES_AS_TENSORS", "DROP_SYMBOLIC_SHAPES", "SizeExprs", "resolve_size_lists",
           "sizes_as_tensors", "drop_symbolic_shapes"]

RESOLVE_SIZE_LISTS = "tosa-custom-resolve-size-lists"
SIZES_AS_TENSORS = "tosa-custom-sizes-as-tensors"
DROP_SYMBOLIC_SHAPES = "tosa-custom-drop-symbolic-shapes"

# Integer arithmetic on sizes: torch op -> (ShapeExpr operator, TOSA shape op).
_ARITHMETIC = {"torch.aten.mul.int": ("__mul__", "tosa.mul_shape"), "torch.aten.add.int": ("__add__", "tosa.add_shape"),
               "torch.aten.sub.int": ("__sub__", "tosa.sub_shape"),
               "torch.aten.floordiv.int": ("__floordiv__", "tosa.div_floor_shape")}
# Ops whose result dims are their operands' broadcast (SizeExprs._derived).
_ELEMENTWISE = frozenset(f"torch.aten.{n}" for n in (
    "add.Tensor", "sub.Tensor", "mul.Tensor", "div.Tensor", "add.Scalar", "sub.Scalar", "mul.Scalar", "div.Scalar",
    "neg", "exp", "pow.Tensor_Scalar", "pow.Tensor_Tensor", "rsqrt", "sqrt", "tanh", "sigmoid", "silu", "gelu",
    "to.dtype", "where.self", "where.ScalarOther", "where.ScalarSelf", "masked_fill.Scalar", "masked_fill.Tensor",
    "bitwise_and.Tensor", "bitwise_or.Tensor", "logical_and", "logical_or", "logical_not", "eq.Tensor", "ne.Tensor",
    "lt.Tensor", "le.Tensor", "gt.Tensor", "ge.Tensor", "eq.Scalar", "ne.Scalar", "cos", "sin", "clone",
    "contiguous", "relu", "tril", "triu", "minimum", "maximum", "reciprocal", "erf", "abs"))
_VIEWS = ("torch.aten.view", "torch.aten.reshape", "torch.aten._unsafe_view")
_EXPANDS = ("torch.aten.expand", "torch.aten.broadcast_to")
# Scalar ops whose number operand (#1) may be a size, and the Tensor overload taking it as a 0-d tensor.
_SCALAR_OPS = {"torch.aten.div.Scalar": "torch.aten.div.Tensor", "torch.aten.mul.Scalar": "torch.aten.mul.Tensor",
               "torch.aten.add.Scalar": "torch.aten.add.Tensor", "torch.aten.sub.Scalar": "torch.aten.sub.Tensor"}


def _dims(ty: ir.Type) -> list[int | None] | None:
    """A vtensor type's dims (None: `?`), or None for another type."""
    parsed = _dtypes.parse_vtensor(str(ty))
    if parsed is None:
        return None
    return [None if d in ("?", "-1") else int(d) for d in parsed[0]]


def _builtin_type(ty: ir.Type) -> ir.Type:
    """The builtin tensor type of a vtensor type (what torch_c casts to)."""
    dims, element = _dtypes.parse_vtensor(str(ty))
    dtype = _dtypes.by_torch_mlir(element)
    shape = "x".join("?" if d in ("?", "-1") else d for d in dims)
    return ir.Type.parse(f"tensor<{shape + 'x' if dims else ''}{dtype.builtin if dtype else element}>")


class SizeExprs:
    """What each size value is, as a ShapeExpr over torch.export's symbols:
    a tensor's dims from its `torch.bind_symbolic_shape` (or its static type),
    an integer from `aten.size.int`, constants and size arithmetic."""

    def __init__(self, root: ir.Operation):
        self.bound: dict[ir.Value, list[_shapes.ShapeExpr]] = {}
        self.ranges: dict[str, tuple[int, int]] = {  # symbol -> (min, max), as torch.export bounds it
            ir.StringAttr(op.attributes["symbol_name"]).value: (ir.IntegerAttr(op.attributes["min_val"]).value,
                                                                ir.IntegerAttr(op.attributes["max_val"]).value)
            for op in _ir.collect_ops(root, lambda op: op.name == _SYMBOL)}
        for bind in _ir.collect_ops(root, lambda op: op.name == _BIND):
            self._read(bind)

    def _read(self, bind: ir.Operation) -> "list[_shapes.ShapeExpr] | None":
        dims = bound_dims(bind, unnamed_as_placeholder=False)
        if dims is not None:
            self.bound[bind.operands[0]] = dims
        return dims

    def _binding(self, value: ir.Value) -> "list[_shapes.ShapeExpr] | None":
        """The bound dims of `value`, read from its uses each time: a binding
        moves with the uses when a pass replaces the value it bound, and an
        erased value's key may be taken by a new one."""
        bind = binding_op(value)
        return None if bind is None else self._read(bind)

    def dim(self, value: ir.Value, i: int, depth: int = 8) -> _shapes.ShapeExpr | None:
        dims = _dims(value.type)
        if dims is not None and 0 <= i < len(dims) and dims[i] is not None:
            return _shapes.const(dims[i])
        bound = self._binding(value)
        if bound is not None:
            return bound[i] if 0 <= i < len(bound) else None
        return self._derived(value, i, depth - 1) if dims is not None and 0 <= i < len(dims) and depth else None

    def _derived(self, value: ir.Value, i: int, depth: int) -> _shapes.ShapeExpr | None:
        """Dim i of a value no binding covers (an op torch-mlir's decompositions
        made): from its operands' dims when it is elementwise (every operand
        dim aligned with i is static 1 or the same size, so the result's is
        that size) or a concatenation along another dim."""
        op = _ir.defining_op(value)
        if op is None or (op.name not in _ELEMENTWISE and op.name != "torch.aten.cat"):
            return None
        rank = len(_dims(value.type))
        if op.name == "torch.aten.cat":
            items, axis = _ir.defining_op(op.operands[0]), constant(op.operands[1])
            if items is None or items.name != "torch.prim.ListConstruct" or not isinstance(axis, int) \
                    or axis % rank == i:
                return None
            tensors = list(items.operands)
        else:
            tensors = [v for v in op.operands if _dims(v.type) is not None]
        found = set()
        for v in tensors:
            j = i - (rank - len(_dims(v.type)))
            if j < 0 or _dims(v.type)[j] == 1:
                continue
            expr = self.dim(v, j, depth)
            if expr is None:
                return None
            found.add(str(expr))
        return _shapes.parse(found.pop(), symbols=True) if len(found) == 1 else None

    def of_int(self, value: ir.Value) -> _shapes.ShapeExpr | None:
        number = constant(value)
        if number is not NOT_CONSTANT:
            return _shapes.const(number) if isinstance(number, int) and not isinstance(number, bool) else None
        op = _ir.defining_op(value)
        if op is None:
            return None
        if op.name == "torch.aten.size.int":
            axis = constant(op.operands[1])
            rank = len(_dims(op.operands[0].type) or [])
            return self.dim(op.operands[0], axis % rank) if isinstance(axis, int) and rank else None
        if op.name == _SYMBOL:
            return _shapes.symbol(ir.StringAttr(op.attributes["symbol_name"]).value)
        if op.name in _ARITHMETIC:
            a, b = self.of_int(op.operands[0]), self.of_int(op.operands[1])
            return None if a is None or b is None else getattr(a, _ARITHMETIC[op.name][0])(b)
        return None


# ShapeExpr operator -> TOSA shape op (1.1 draft).
_SHAPE_OPS = {"add": "tosa.add_shape", "sub": "tosa.sub_shape", "mul": "tosa.mul_shape",
              "floordiv": "tosa.div_floor_shape", "ceildiv": "tosa.div_ceil_shape", "mod": "tosa.mod_shape",
              "min": "tosa.min_shape", "max": "tosa.max_shape"}


class Shapes:
    """Builds a size as a `!tosa.shape<1>` at run time: each symbol read by
    `tosa.dim` from the first function argument dim bound to exactly it,
    arithmetic by the TOSA shape ops."""

    def __init__(self, root: ir.Operation, sizes: SizeExprs):
        self.sizes, self.sources = sizes, {}
        for func in _ir.public_functions(root):
            for arg in func.regions[0].blocks[0].arguments:
                for axis, expr in enumerate(sizes.bound.get(arg, [])):
                    if expr.symbol is not None:
                        self.sources.setdefault(expr.symbol, (arg, axis))

    def can(self, expr: "_shapes.ShapeExpr | int | None") -> bool:
        if expr is None or isinstance(expr, int):
            return expr is not None
        if expr.kind == "const":
            return True
        if expr.kind == "symbol":
            return expr.value in self.sources
        return expr.kind in _SHAPE_OPS and all(self.can(a) for a in expr.args)

    def build(self, expr: "_shapes.ShapeExpr | int") -> ir.Value:
        """The shape value of `expr` (check `can` first), at the insertion point."""
        if isinstance(expr, int) or expr.kind == "const":
            return _const_shape([expr if isinstance(expr, int) else expr.value])
        if expr.kind == "symbol":
            arg, axis = self.sources[expr.value]
            builtin = _b.create("torch_c.to_builtin_tensor", _builtin_type(arg.type), [arg])
            return _b.create("tosa.dim", _shape_type(1), [builtin],
                             {"axis": ir.IntegerAttr.get(ir.IntegerType.get_signless(32), axis)})
        return _b.create(_SHAPE_OPS[expr.kind], _shape_type(1), [self.build(a) for a in expr.args])

    def build_all(self, exprs: list) -> ir.Value:
        """A `!tosa.shape<n>` of several sizes (ints or ShapeExprs)."""
        if all(isinstance(e, int) for e in exprs):
            return _const_shape(exprs)
        shape = None
        for k, e in enumerate(exprs, start=1):
            part = self.build(e)
            shape = part if shape is None else _b.create("tosa.concat_shape", _shape_type(k), [shape, part])
        return shape


_shape_type, _const_shape = _b.tosa_shape_type, _b.tosa_const_shape


def _int_list(values: list[int]) -> ir.Value:
    return _b.create("torch.prim.ListConstruct", ir.Type.parse("!torch.list<int>"),
                     [_b.torch_constant(v) for v in values])


# --------------------------------------------------------------------------
# tosa-custom-resolve-size-lists
# --------------------------------------------------------------------------


def _entries(op: ir.Operation, sizes: SizeExprs) -> list["int | ir.Value"] | None:
    """The size list of a view or expand `op`, each entry an int where it is
    known at compile time (a constant, a static result dim, -1 for an expand
    entry equal to its input's dim), else its value; None when the list is
    not a ListConstruct or already constant."""
    items = _ir.defining_op(op.operands[1])
    if items is None or items.name != "torch.prim.ListConstruct":
        return None
    values = list(items.operands)
    known = [constant(v) for v in values]
    if all(k is not NOT_CONSTANT for k in known):
        return None
    out_dims, in_dims = _dims(op.results[0].type), _dims(op.operands[0].type)
    if out_dims is None or in_dims is None or len(out_dims) != len(values):
        return None
    entries: list[int | ir.Value] = []
    for j, (value, k) in enumerate(zip(values, known)):
        if k is not NOT_CONSTANT:
            entries.append(k)
        elif out_dims[j] is not None:
            entries.append(out_dims[j])
        elif op.name in _EXPANDS and _same_as_input(op, j, len(values), sizes, value):
            entries.append(-1)
        else:
            entries.append(value)
    return entries


def _same_as_input(op: ir.Operation, j: int, rank: int, sizes: SizeExprs, value: ir.Value) -> bool:
    """Whether expand entry j is the size of the input's aligned dim (so -1, keep it)."""
    source = op.operands[0]
    i = j - (rank - len(_dims(source.type)))
    mine, theirs = sizes.of_int(value), sizes.dim(source, i) if i >= 0 else None
    return mine is not None and theirs is not None and str(mine) == str(theirs)


def _to_builtin(value: ir.Value) -> ir.Value:
    return _b.create("torch_c.to_builtin_tensor", _builtin_type(value.type), [value])


def _replace_by_builtin(op: ir.Operation, builtin: ir.Value) -> None:
    """Replace `op`'s one result by the builtin tensor `builtin`, cast back."""
    op.results[0].replace_all_uses_with(_b.create("torch_c.from_builtin_tensor", op.results[0].type, [builtin]))
    op.erase()


def _result_sizes(op: ir.Operation, entries: list, shapes: Shapes) -> list | None:
    """Each result dim of `op` as an int or a ShapeExpr `shapes` can build:
    an entry's own size arithmetic, else the result's bound dim."""
    found = []
    for j, entry in enumerate(entries):
        expr = entry if isinstance(entry, int) else shapes.sizes.of_int(entry)
        if not shapes.can(expr) or expr == -1:  # -1: the dim the view infers
            expr = shapes.sizes.dim(op.results[0], j)
        if not shapes.can(expr):
            return None
        found.append(expr)
    return found


def _reshape_by_shape_ops(op: ir.Operation, entries: list, shapes: Shapes) -> bool:
    """Replace view `op` by a `tosa.reshape` whose shape is computed at run
    time; False (nothing changed) when a size cannot be computed."""
    exprs = _result_sizes(op, entries, shapes)
    if exprs is None:
        return False
    shape = shapes.build_all(exprs)
    _replace_by_builtin(op, _b.create("tosa.reshape", _builtin_type(op.results[0].type),
                                      [_to_builtin(op.operands[0]), shape]))
    return True


def _ranked_as(op: ir.Operation, rank: int, shapes: Shapes) -> "tuple[ir.Value, list] | None":
    """The expand's input as a builtin tensor of `rank` dims, leading 1s
    added as PyTorch aligns it (a tosa.reshape, its `?` sizes by TOSA shape
    ops), and its dims; None when a size cannot be computed."""
    source = op.operands[0]
    in_dims = _dims(source.type)
    if len(in_dims) == rank:
        return _to_builtin(source), in_dims
    sizes = [1] * (rank - len(in_dims)) + [d if d is not None else shapes.sizes.dim(source, i)
                                           for i, d in enumerate(in_dims)]
    if len(in_dims) > rank or not all(shapes.can(s) for s in sizes):
        return None
    dims = [1] * (rank - len(in_dims)) + in_dims
    ty = ir.RankedTensorType.get([ir.ShapedType.get_dynamic_size() if d is None else d for d in dims],
                                 ir.RankedTensorType(_builtin_type(source.type)).element_type)
    return _b.create("tosa.reshape", ty, [_to_builtin(source), shapes.build_all(sizes)]), dims


def _expand_by_tile(op: ir.Operation, entries: list, shapes: Shapes) -> bool:
    """Replace an expand whose run-time entries broadcast static 1 dims (of
    the input, or the leading 1s PyTorch aligns a lower-rank input with: a
    causal mask's `ones(T, T)` is a 0-d True expanded) by a `tosa.tile`, its
    multiples those sizes (TOSA shape ops); False (nothing changed) otherwise."""
    in_dims = _dims(op.operands[0].type)
    if len(in_dims) > len(entries):
        return False
    in_dims = [1] * (len(entries) - len(in_dims)) + in_dims
    multiples = []
    for j, (entry, d) in enumerate(zip(entries, in_dims)):
        if isinstance(entry, int):
            if entry != -1 and entry != d and d != 1:
                return False
            multiples.append(entry if d == 1 and entry > 1 else 1)
            continue
        expr = shapes.sizes.of_int(entry)
        expr = expr if shapes.can(expr) else shapes.sizes.dim(op.results[0], j)
        if d != 1 or not shapes.can(expr):
            return False
        multiples.append(expr)
    ranked = _ranked_as(op, len(entries), shapes)
    if ranked is None:
        return False
    _replace_by_builtin(op, _b.create("tosa.tile", _builtin_type(op.results[0].type),
                                      [ranked[0], shapes.build_all(multiples)]))
    return True


def _dynamic_view(op: ir.Operation) -> bool:
    return any(None in (_dims(v.type) or []) for v in (op.operands[0], op.results[0]))


def _identity(op: ir.Operation, entries: list[int]) -> bool:
    """Whether an expand keeps its input as it is (same type, each entry -1 or the input's static dim)."""
    dims = _dims(op.operands[0].type)
    return op.operands[0].type == op.results[0].type and len(dims) == len(entries) and all(
        e == -1 or e == d for e, d in zip(entries, dims))


@register_pass(RESOLVE_SIZE_LISTS,
               "Resolve the size lists of views, reshapes and expands that read sizes at run time (aten.size.int and "
               "integer arithmetic on it): entries known statically become constants, one unknown view entry -1, "
               "an expand entry equal to its input's dim -1 (an expand that then keeps its input is removed), several unknown view entries a tosa.reshape whose shape "
               "is computed by TOSA shape ops, an expand of static 1 dims to run-time sizes a tosa.tile whose multiples are so computed (tosa.dim, tosa.const_shape, tosa.concat_shape, tosa.mul_shape, ...)")
def resolve_size_lists(module: ir.Operation, ctx: PassContext) -> dict:
    sizes = SizeExprs(module)
    shapes = Shapes(module, sizes)
    done = {"identity": 0, "constant": 0, "minus-one": 0, "shape-ops": 0, "tile": 0, "left": 0}
    for op in _ir.collect_ops(module, lambda o: o.name in _VIEWS + _EXPANDS):
        entries = _entries(op, sizes)
        if entries is None:
            continue
        unknown = [e for e in entries if not isinstance(e, int)]
        if len(unknown) == 1 and op.name in _VIEWS and -1 not in entries:
            entries = [-1 if not isinstance(e, int) else e for e in entries]
            unknown = []
        if not unknown and op.name in _EXPANDS and _identity(op, entries):  # TorchToTosa refuses it on `?`
            op.results[0].replace_all_uses_with(op.operands[0])
            op.erase()
            done["identity"] += 1
            continue
        with ir.InsertionPoint(op), op.location:
            if not unknown and op.name in _VIEWS and _dynamic_view(op):  # TorchToTosa refuses views on `?`
                _replace_by_builtin(op, _b.create("tosa.reshape", _builtin_type(op.results[0].type),
                                                  [_to_builtin(op.operands[0]), _const_shape(entries)]))
                done["minus-one"] += 1
            elif not unknown and op.name in _EXPANDS and _dynamic_view(op) and _expand_by_tile(op, entries, shapes):
                done["tile"] += 1  # TorchToTosa refuses expands on `?`, even from constant sizes
            elif not unknown:
                op.operands[1] = _int_list(entries)
                done["minus-one" if -1 in entries else "constant"] += 1
            elif op.name in _VIEWS and _reshape_by_shape_ops(op, entries, shapes):
                done["shape-ops"] += 1
            elif op.name in _EXPANDS and _expand_by_tile(op, entries, shapes):
                done["tile"] += 1
            else:
                done["left"] += 1
    _erase_dead(module)
    return done


# --------------------------------------------------------------------------
# tosa-custom-sizes-as-tensors
# --------------------------------------------------------------------------


def _size_tensor(expr: _shapes.ShapeExpr, shapes: Shapes) -> ir.Value:
    """A 0-d si32 vtensor holding the size `expr`, computed at run time:
    reduce_sum(tile(const [1], size)) (TOSA has no op from a shape to a tensor)."""
    i32 = ir.IntegerType.get_signless(32)
    one = _b.tosa_const(ir.DenseElementsAttr.get_splat(ir.RankedTensorType.get([1], i32), ir.IntegerAttr.get(i32, 1)))
    tiled = _b.create("tosa.tile", ir.RankedTensorType.get([ir.ShapedType.get_dynamic_size()], i32),
                      [one, shapes.build(expr)])
    total = _b.create("tosa.reduce_sum", ir.RankedTensorType.get([1], i32), [tiled],
                      {"axis": ir.IntegerAttr.get(i32, 0)})
    scalar = _b.create("tosa.reshape", ir.RankedTensorType.get([], i32), [total, _const_shape([])])
    return _b.create("torch_c.from_builtin_tensor", ir.Type.parse("!torch.vtensor<[],si32>"), [scalar])


@register_pass(SIZES_AS_TENSORS,
               "Compute at run time a size that an elementwise Scalar op uses as a number (a mean's divisor "
               "x.shape[1]): a 0-d tensor reduce_sum(tile(const [1], size)) with the size as TOSA shape ops, "
               "and the op's Tensor overload")
def sizes_as_tensors(module: ir.Operation, ctx: PassContext) -> dict:
    sizes = SizeExprs(module)
    shapes = Shapes(module, sizes)
    done = 0
    for op in _ir.collect_ops(module, lambda o: o.name in _SCALAR_OPS):
        if constant(op.operands[1]) is not NOT_CONSTANT:
            continue
        expr = sizes.of_int(op.operands[1])
        if expr is None or expr.kind == "const" or not shapes.can(expr):
            continue
        with ir.InsertionPoint(op), op.location:
            tensor = _size_tensor(expr, shapes)
            operands = [op.operands[0], tensor, *list(op.operands)[2:]]
            new = _b.create(_SCALAR_OPS[op.name], op.results[0].type, operands)
        op.results[0].replace_all_uses_with(new)
        op.erase()
        done += 1
    _erase_dead(module)
    return {"sizes": done}


# --------------------------------------------------------------------------
# tosa-custom-drop-symbolic-shapes
# --------------------------------------------------------------------------

# Ops that only compute sizes: erased once nothing reads them.
_PURE = ("torch.prim.ListConstruct", "torch.aten.size.int", _SYMBOL, "torch.constant.int", *_ARITHMETIC,
         "torch.aten.empty.memory_format")  # an empty tensor read only for its sizes (sdpa's causal mask)


def _erase_dead(module: ir.Operation) -> None:
    """Erase size computations nothing reads any more (users first); a
    binding of the sizes of a value nothing else reads goes with it."""
    changed = True
    while changed:
        changed = False
        for op in reversed(_ir.collect_ops(module, lambda o: o.name in _PURE)):
            uses = [u for r in op.results for u in r.uses]
            if all(u.owner.name == _BIND and u.operand_number == 0 for u in uses):  # not a binding's symbol
                for use in uses:
                    use.owner.erase()
                op.erase()
                changed = True


@register_pass(DROP_SYMBOLIC_SHAPES,
               "Erase torch.bind_symbolic_shape and torch.symbolic_int (PyTorch's size symbols, which the importer "
               "carries for the tunnel's result_shapes and the size passes, and TorchToTosa refuses)")
def drop_symbolic_shapes(module: ir.Operation, ctx: PassContext) -> None:
    for op in _ir.collect_ops(module, lambda o: o.name == _BIND):
        op.erase()
    _erase_dead(module)
