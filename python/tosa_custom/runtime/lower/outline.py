"""Each tosa.custom becomes, on tensors, a destination-passing call of a
private extern function: `tosa-to-linalg` refuses `tosa.custom`, and a kernel
should never own memory. Inputs become read-only `bufferization.to_buffer`
views (zero-copy, maybe strided), the compiled code allocates the outputs, the
kernel writes them, and `bufferization.to_tensor ... restrict writable` hands
them back.

Binding kernels needs Python (the kernel registry, native libraries), the
rewrite does not, so they are three separate steps:
1. `find_custom_call_sites` (analysis, also the pass
   `tosa-custom-find-custom-calls`) describes every site;
2. the program binds a kernel to each site; a native kernel's context address
   is written on its op as `tosa_custom.kernel_context = <i64>`
   (`set_kernel_contexts`);
3. the pass `tosa-custom-outline-custom-ops` rewrites every site, the address
   (when there is one) as a leading `i64` constant argument: the extern then
   resolves to a C trampoline that calls the kernel with it (native.py).
The rewrite reads only the IR, so a dump replays with `tosa-custom-opt`.

A `?` dim (CONTRACT.md §15) is None in a site's shapes. The compiled code
allocates a result with a `?` dim at the size its `result_shapes` gives
(CONTRACT.md §15.2), computed in `index` arithmetic from the operands' dims
(`tensor.dim`) and values (`tensor.extract`) right before the call; a kernel
sees each call's sizes in its descriptors.
"""

from __future__ import annotations

import dataclasses
import json

from torch_mlir import ir
from torch_mlir.dialects import arith as arith_d
from torch_mlir.dialects import tensor as tensor_d

from ...contract.encoding import ContractError, parse_result_shapes
from ...contract.shapes import ShapeExpr
from ...contract.decode import constant_operand, custom_op_strings, custom_ops
from ...core.diagnostics import CompileError
from ...core.passes import PassContext, register_pass

__all__ = ["CustomCallSite", "KERNEL_CONTEXT_ATTR", "FIND_CUSTOM_CALLS", "OUTLINE_CUSTOM_OPS", "result_shapes",
           "find_custom_call_sites", "set_kernel_contexts", "outline_custom_ops", "read_constant",
           "find_custom_calls", "outline_custom_ops_pass"]

FIND_CUSTOM_CALLS = "tosa-custom-find-custom-calls"
OUTLINE_CUSTOM_OPS = "tosa-custom-outline-custom-ops"
# On a tosa.custom: the address of its native kernel's C structs (an i64).
KERNEL_CONTEXT_ATTR = "tosa_custom.kernel_context"


@dataclasses.dataclass(frozen=True)
class CustomCallSite:
    """One former tosa.custom: its extern symbol and its tensor types."""

    index: int
    symbol: str  # the extern function; the JIT resolves `_mlir_ciface_` + symbol
    operator_name: str
    domain_name: str
    implementation_attrs: str
    input_types: tuple[str, ...]  # element types, e.g. "f32"
    input_shapes: tuple[tuple[int | None, ...], ...]  # None: a `?` dim
    output_types: tuple[str, ...]
    output_shapes: tuple[tuple[int | None, ...], ...]
    location: str
    const_inputs: tuple  # per input: the constant's Python value for tosa.const scalars/lists, else None
    # Results nothing in the program reads (embedding_bag's offset2bag when
    # only the sums are returned): a Python kernel's value for them is not
    # checked or stored, so PyTorch's own disagreement on their size (its CPU
    # kernel returns an empty offset2bag where the meta function says [N])
    # cannot fail a program that never looks at them.
    unused_results: tuple[int, ...] = ()


def read_constant(value: ir.Value):
    """The Python value of a `tosa.const` operand (the scalars and lists the
    const encoding makes), else None."""
    constant = constant_operand(value)
    return None if constant is None else constant[1]


def _site(op, index: int, read=read_constant) -> CustomCallSite:
    """The call site of one tosa.custom; CompileError (with its category) if
    the runtime cannot bind it."""
    try:
        operator_name, domain_name, attrs = custom_op_strings(op)
    except ContractError as e:
        raise CompileError(f"{op.location}: cannot decode a tosa.custom: {e}", category="decode-failed") from None
    in_types = [v.type for v in op.operands]
    out_types = [r.type for r in op.results]
    for t in in_types + out_types:
        if not isinstance(t, ir.RankedTensorType):
            raise CompileError(
                f"{op.location}: {operator_name} has an unranked operand or result {t}; the runtime needs ranked "
                "tensors", category="dynamic-shape", ops=[operator_name])
    result_shapes(op, attrs, operator_name)  # a `?` result the runtime cannot size is refused here
    return CustomCallSite(
        index=index, symbol=f"tosa_custom_kernel_{index}", operator_name=operator_name, domain_name=domain_name,
        implementation_attrs=attrs,
        input_types=tuple(str(t.element_type) for t in in_types),
        input_shapes=tuple(_shape(t) for t in in_types),
        output_types=tuple(str(t.element_type) for t in out_types),
        output_shapes=tuple(_shape(t) for t in out_types),
        location=str(op.location),
        const_inputs=tuple(read(v) for v in op.operands),
        unused_results=tuple(i for i, r in enumerate(op.results) if next(iter(r.uses), None) is None),
    )


def _shape(t: ir.RankedTensorType) -> tuple:
    return tuple(None if t.is_dynamic_dim(i) else n for i, n in enumerate(t.shape))


def result_shapes(op, attrs: str, operator_name: str) -> list[list[int | ShapeExpr]] | None:
    """Each result's dims as ints and expressions (CONTRACT.md §15.2), or
    None when no result has a `?` dim; CompileError if one has and
    `implementation_attrs` does not say how big it is."""
    types = [ir.RankedTensorType(r.type) for r in op.results]
    if all(t.has_static_shape for t in types):
        return None
    where = f"{op.location}: {operator_name} has a result with a `?` dim"
    try:
        table = json.loads(attrs).get("result_shapes") if attrs.lstrip().startswith("{") else None
    except json.JSONDecodeError:
        table = None
    if not isinstance(table, list) or len(table) != len(types):
        raise CompileError(f"{where} and no \"result_shapes\" with one entry per result in its implementation_attrs "
                           "(CONTRACT.md 15.2): the runtime cannot allocate it", category="dynamic-shape",
                           ops=[operator_name])
    try:
        shapes = parse_result_shapes(table, len(op.operands))
    except ContractError as e:
        raise CompileError(f"{where}: {e}", category="dynamic-shape", ops=[operator_name]) from None
    for r, (dims, t) in enumerate(zip(shapes, types)):
        if len(dims) != t.rank:
            raise CompileError(f"{where}: result_shapes[{r}] has {len(dims)} dims, the result {t.rank}",
                               category="dynamic-shape", ops=[operator_name])
    return [list(dims) for dims in shapes]


def find_custom_call_sites(module, read=read_constant) -> list[CustomCallSite]:
    """Every tosa.custom of `module` as a call site, in order (the analysis
    kernels are bound from). Raises CompileError for a site no kernel can take."""
    return [_site(op, i, read) for i, op in enumerate(custom_ops(module))]


def set_kernel_contexts(module, contexts: dict[int, int]) -> None:
    """Write each bound native kernel's context address on its tosa.custom
    (by site index), where `tosa-custom-outline-custom-ops` reads it."""
    i64 = ir.IntegerType.get_signless(64, module.context)
    for index, op in enumerate(custom_ops(module)):
        if index in contexts:
            op.attributes[KERNEL_CONTEXT_ATTR] = ir.IntegerAttr.get(i64, contexts[index])


@register_pass(FIND_CUSTOM_CALLS,
               "Find the tosa.custom call sites the runtime binds kernels to; refuse those it cannot bind "
               "(a `?` result dim without result_shapes, undecodable strings)")
def find_custom_calls(module_op, ctx: PassContext) -> list[CustomCallSite] | None:
    """The pass form of `find_custom_call_sites`: every refused site is an
    error on its op (not only the first), and the pass fails."""
    sites = []
    for index, op in enumerate(custom_ops(module_op)):
        try:
            sites.append(_site(op, index))
        except CompileError as e:
            ctx.error(op, str(e).partition(": ")[2])
    return None if ctx.failed else sites


def _dims(t: ir.RankedTensorType) -> str:
    return "".join("?x" if t.is_dynamic_dim(i) else f"{n}x" for i, n in enumerate(t.shape))


def _strided(t: ir.RankedTensorType) -> ir.Type:
    layout = "strided<[" + ", ".join("?" for _ in t.shape) + "], offset: ?>"
    return ir.Type.parse(f"memref<{_dims(t)}{t.element_type}, {layout}>")


def _identity(t: ir.RankedTensorType) -> ir.Type:
    return ir.Type.parse(f"memref<{_dims(t)}{t.element_type}>")


class _IndexOps:
    """`ShapeExpr.fold` callbacks building the size in `index` arithmetic
    before the call (Python's floor semantics for // and %)."""

    def __init__(self, operands):
        self.operands = operands

    def const(self, v):
        return arith_d.constant(ir.IndexType.get(), v)

    def dim(self, k, i):
        t = ir.RankedTensorType(self.operands[k].type)
        return self.const(t.shape[i]) if not t.is_dynamic_dim(i) else tensor_d.dim(self.operands[k], self.const(i))

    def value(self, k):
        return arith_d.index_cast(ir.IndexType.get(), tensor_d.extract(self.operands[k], []))

    def neg(self, a): return arith_d.subi(self.const(0), a)
    def add(self, a, b): return arith_d.addi(a, b)
    def sub(self, a, b): return arith_d.subi(a, b)
    def mul(self, a, b): return arith_d.muli(a, b)
    def floordiv(self, a, b): return arith_d.floordivsi(a, b)
    def ceildiv(self, a, b): return arith_d.ceildivsi(a, b)
    def mod(self, a, b): return arith_d.subi(a, arith_d.muli(arith_d.floordivsi(a, b), b))
    def min(self, a, b): return arith_d.minsi(a, b)
    def max(self, a, b): return arith_d.maxsi(a, b)


def _alloc(memref_type: ir.Type, dims: list | None, operands) -> ir.Value:
    """An output buffer; its `?` dims sized by their result_shapes expressions."""
    sizes = []
    if dims is not None:
        t = ir.MemRefType(memref_type)
        sizes = [d.fold(_IndexOps(operands)) if isinstance(d, ShapeExpr) else arith_d.constant(ir.IndexType.get(), d)
                 for i, d in enumerate(dims) if t.is_dynamic_dim(i)]
    return ir.Operation.create("memref.alloc", results=[memref_type], operands=sizes,
                               attributes={"operandSegmentSizes": ir.DenseI32ArrayAttr.get([len(sizes), 0])}).result


def _declare(body: ir.Block, symbol: str, inputs: list[ir.Type]) -> None:
    with ir.InsertionPoint.at_block_begin(body):
        ir.Operation.create(
            "func.func",
            attributes={
                "sym_name": ir.StringAttr.get(symbol),
                "function_type": ir.TypeAttr.get(ir.FunctionType.get(inputs, [])),
                "sym_visibility": ir.StringAttr.get("private"),
                "llvm.emit_c_interface": ir.UnitAttr.get(),
            },
            regions=1,
        )


def _rewrite(op, site: CustomCallSite, body: ir.Block) -> None:
    """One tosa.custom -> to_buffer views, allocated outputs, the call, to_tensor."""
    in_memrefs = [_strided(ir.RankedTensorType(v.type)) for v in op.operands]
    out_memrefs = [_identity(ir.RankedTensorType(r.type)) for r in op.results]
    shapes = result_shapes(op, site.implementation_attrs, site.operator_name) or [None] * len(out_memrefs)
    i64 = ir.IntegerType.get_signless(64)
    context = op.attributes[KERNEL_CONTEXT_ATTR] if KERNEL_CONTEXT_ATTR in op.attributes else None
    _declare(body, site.symbol, ([i64] if context is not None else []) + in_memrefs + out_memrefs)
    with ir.InsertionPoint(op), op.location:
        args = []
        if context is not None:
            args.append(ir.Operation.create("arith.constant", results=[i64], attributes={"value": context}).result)
        for v, m in zip(op.operands, in_memrefs):
            args.append(ir.Operation.create("bufferization.to_buffer", results=[m], operands=[v],
                                            attributes={"read_only": ir.UnitAttr.get()}).result)
        outs = [_alloc(m, dims, list(op.operands)) for m, dims in zip(out_memrefs, shapes)]
        ir.Operation.create("func.call", operands=args + outs,
                            attributes={"callee": ir.FlatSymbolRefAttr.get(site.symbol)})
        for r, m in zip(op.results, outs):
            back = ir.Operation.create(
                "bufferization.to_tensor", results=[r.type], operands=[m],
                attributes={"restrict": ir.UnitAttr.get(), "writable": ir.UnitAttr.get()},
            ).result
            r.replace_all_uses_with(back)
    op.erase()


def outline_custom_ops(module, read=read_constant) -> list[CustomCallSite]:
    """Rewrite every tosa.custom of `module` (a Module or module op) into a
    destination-passing extern call; returns the call sites. Raises
    CompileError (from `find_custom_call_sites`) before rewriting anything if
    a site cannot be bound."""
    op = getattr(module, "operation", module)
    sites = find_custom_call_sites(op, read)
    _rewrite_all(op, sites)
    return sites


def _rewrite_all(module_op, sites: list[CustomCallSite]) -> None:
    with module_op.context, ir.Location.unknown():
        body = module_op.regions[0].blocks[0]
        for custom, site in zip(custom_ops(module_op), sites):
            _rewrite(custom, site, body)


@register_pass(OUTLINE_CUSTOM_OPS,
               "Rewrite every tosa.custom into a destination-passing call of a private extern "
               "(tosa_custom_kernel_<i>), its tosa_custom.kernel_context as a leading i64 argument")
def outline_custom_ops_pass(module_op, ctx: PassContext) -> list[CustomCallSite] | None:
    sites = find_custom_calls(module_op, ctx)
    if sites is not None:
        _rewrite_all(module_op, sites)
    return sites
