"""`tosa-custom-iree-dispatch-native`: each tosa.custom bound to a kernel
(a plugin site: native, or a Python kernel called back) becomes an IREE
dispatch that calls the kernel on slices of its parallel dims, on IREE's
worker threads.

IREE rejects `tosa.custom` ("failed to legalize operation"), and its own way
to call external code is a `flow.dispatch.workgroups` whose body calls
`iree_codegen.ukernel.generic "<symbol>"`, the symbol resolved at run time by
an executable plugin (lib/iree_plugin.c). The rewrite reads only the IR:
binding (sites.py) writes on each op its site id (`tosa_custom.iree_site`,
the symbol is `tosa_custom_site_<id>`) and the split its kernel's `prepare`
declared (`tosa_custom.iree_split`, CONTRACT.md 11.6); an op without them is
left alone, for IREE's TOSA input to refuse. Everything else stays TOSA.

Why this exact form (measured with IREE 3.13): an isolated
`flow.dispatch.workgroups` (a `flow.dispatch.region` fuses neighbours into
the region and IREE's CPU codegen then crashes); slices with dynamic sizes
(static size-1 slices fail IREE's bounds check); and the generic op form,
since these dialects are not in torch-mlir's MLIR (the pass allows
unregistered dialects on the context, and IREE parses the generic form).

The kernel's last scalar is the invocation's id, for the plugin to keep a
failure per call (lib/iree_plugin.c): with `invocation=true` the pass adds
an i64 argument to each public function holding a site, last, which the
caller sets to a fresh id per call (tosa_custom.iree.load does); otherwise,
or in a private function, it is 0 (the process's failure, for a saved
program run by iree-run-module).

Workgroups: parallel dim p (outermost first) maps to workgroup dimension
z, y, x (innermost is x); the number of workgroups is at most `workgroups`,
given to the outer dims first, and each keeps at least `grain` output
elements, so a small op runs as one piece rather than paying per-workgroup
overhead. Each workgroup slices every operand along the dims its split
names, by `offset = id * tile`, `size = min(tile, extent - offset)`.
tosa_custom.iree sets `workgroups` from the program's thread count
(`workgroups_for`): one piece on the caller's thread alone, a few per
worker otherwise, so that IREE hands them out one at a time.
"""

from __future__ import annotations

import math
import os

from torch_mlir import ir

from ..contract.decode import custom_ops
from ..core.passes import Option, PassContext, PassFailure, parse_count, parse_flag, register_pass

__all__ = ["DISPATCH_NATIVE", "SITE_ATTR", "SPLIT_ATTR", "SYMBOL_PREFIX", "dispatch_native", "plan_workgroups",
           "workgroups_for"]

DISPATCH_NATIVE = "tosa-custom-iree-dispatch-native"
# On a tosa.custom: its site id in the plugin (i64), and its kernel's split:
# per operand (inputs, then outputs) the dim sliced along each parallel dim, -1 whole.
SITE_ATTR = "tosa_custom.iree_site"
SPLIT_ATTR = "tosa_custom.iree_split"
SYMBOL_PREFIX = "tosa_custom_site_"
_DYNAMIC = -9223372036854775808  # ShapedType::kDynamic in static offsets and sizes
_TENSOR = "!iree_tensor_ext.dispatch.tensor"
_MAX_WORKGROUPS = 64  # the pass's default `workgroups`


# IREE's task system hands out a dispatch's workgroups one at a time while it
# has fewer than 8 per worker, else in runs of 8 per reservation (IREE 3.13,
# iree/task/tuning.h), which one worker can take while another is still
# waking: so at most this many per worker, each taking the next as it finishes.
WORKGROUPS_PER_WORKER = 4


def workgroups_for(threads: int | None) -> int:
    """The `workgroups` option for a program run by `threads` workers (None:
    IREE's default, one per core): one piece when the caller runs it alone
    (local-sync: pieces would only add calls), else a few per worker."""
    workers = threads if threads is not None else (os.cpu_count() or 1)
    return 1 if workers == 1 else min(_MAX_WORKGROUPS, WORKGROUPS_PER_WORKER * workers)


def plan_workgroups(extents: list[int], elements: int, workgroups: int, grain: int) -> list[int]:
    """The tile size of each parallel dim (outermost first): at most
    `workgroups` pieces, each of at least `grain` of the op's `elements`,
    the outer dims split first."""
    budget = max(1, min(workgroups, elements // max(grain, 1)))
    tiles = []
    for extent in extents:
        tile = max(1, math.ceil(extent / max(1, min(extent, budget))))
        tiles.append(tile)
        budget = max(1, budget // max(1, math.ceil(extent / tile)))
    return tiles


def _create(name: str, operands=(), results=(), attributes=None, regions: int = 0) -> ir.Operation:
    return ir.Operation.create(name, results=list(results), operands=list(operands), attributes=attributes or {},
                               regions=regions)


def _index(value: int) -> ir.Value:
    return _create("arith.constant", results=[ir.IndexType.get()],
                   attributes={"value": ir.IntegerAttr.get(ir.IndexType.get(), value)}).result


def _binary(name: str, a: ir.Value, b: ir.Value) -> ir.Value:
    return _create(name, [a, b], [ir.IndexType.get()]).result


class _Site:
    """One tosa.custom to rewrite: its types, split and tiles."""

    def __init__(self, op, options):
        self.op = op
        self.site = ir.IntegerAttr(op.attributes[SITE_ATTR]).value
        self.types = [v.type for v in op.operands] + [r.type for r in op.results]
        for t in self.types:
            if not isinstance(t, ir.RankedTensorType) or not t.has_static_shape:
                raise PassFailure(f"{t}: the IREE dispatch of a native kernel needs static shapes", op)
        self.n_in = len(op.operands)
        split = ir.ArrayAttr(op.attributes[SPLIT_ATTR]) if SPLIT_ATTR in op.attributes else []
        self.dims = [list(ir.DenseI64ArrayAttr(a)) for a in split] or [[] for _ in self.types]
        if len(self.dims) != len(self.types) or len({len(d) for d in self.dims}) > 1:
            raise PassFailure(f"{SPLIT_ATTR} must give every operand (inputs, then outputs) the same number of "
                              "parallel dims", op)
        self.parallel = len(self.dims[0])
        out = self.types[self.n_in]
        self.extents = [out.shape[d] for d in self.dims[self.n_in]]
        elements = math.prod(out.shape)
        self.tiles = plan_workgroups(self.extents, elements, options.workgroups, options.grain)
        self.counts = [math.ceil(e / t) if e else 1 for e, t in zip(self.extents, self.tiles)]

    def slice_type(self, k: int) -> ir.RankedTensorType:
        t = self.types[k]
        shape = [ir.ShapedType.get_dynamic_size() if d in self.dims[k] else s for d, s in enumerate(t.shape)]
        return ir.RankedTensorType.get(shape, t.element_type)


def _offsets_sizes(s: _Site, k: int, offsets: list, sizes: list):
    """Dynamic offsets/sizes and the static arrays for operand k's slice."""
    dyn_off, dyn_size, st_off, st_size = [], [], [], []
    for d, extent in enumerate(s.types[k].shape):
        p = s.dims[k].index(d) if d in s.dims[k] else None
        if p is None:
            st_off.append(0)
            st_size.append(extent)
        else:
            dyn_off.append(offsets[p])
            dyn_size.append(sizes[p])
            st_off.append(_DYNAMIC)
            st_size.append(_DYNAMIC)
    return dyn_off, dyn_size, st_off, st_size


def _slice_attrs(st_off, st_size, segments) -> dict:
    return {"operandSegmentSizes": ir.DenseI32ArrayAttr.get(segments),
            "static_offsets": ir.DenseI64ArrayAttr.get(st_off), "static_sizes": ir.DenseI64ArrayAttr.get(st_size),
            "static_strides": ir.DenseI64ArrayAttr.get([1] * len(st_off))}


def _body(s: _Site, block: ir.Block) -> None:
    """Slice, call the kernel, store: one workgroup's work. The block's
    arguments: the inputs, the parallel extents, the invocation id, the outputs."""
    args = list(block.arguments)
    bindings = args[:s.n_in] + args[s.n_in + s.parallel + 1:]
    extents, invocation = args[s.n_in:s.n_in + s.parallel], args[s.n_in + s.parallel]
    with ir.InsertionPoint(block):
        offsets, sizes = [], []
        for p in range(s.parallel):
            dim = ir.IntegerAttr.get(ir.IndexType.get(), s.parallel - 1 - p)
            wid = _create("flow.dispatch.workgroup.id", results=[ir.IndexType.get()], attributes={"dimension": dim})
            offsets.append(_binary("arith.muli", wid.result, _index(s.tiles[p])))
            sizes.append(_binary("arith.minsi", _index(s.tiles[p]), _binary("arith.subi", extents[p], offsets[-1])))
        ins, outs, scalars = [], [], []
        for k, t in enumerate(s.types):
            dyn_off, dyn_size, st_off, st_size = _offsets_sizes(s, k, offsets, sizes)
            for d, extent in enumerate(t.shape):
                p = s.dims[k].index(d) if d in s.dims[k] else None
                scalars.append(_index(extent) if p is None else sizes[p])
            if k < s.n_in:
                ins.append(_create("iree_tensor_ext.dispatch.tensor.load", [bindings[k], *dyn_off, *dyn_size],
                                   [s.slice_type(k)],
                                   _slice_attrs(st_off, st_size, [1, 0, len(dyn_off), len(dyn_size), 0])).result)
            else:
                outs.append(_create("tensor.empty", dyn_size, [s.slice_type(k)]).result)
        scalars.append(invocation)
        call = _create("iree_codegen.ukernel.generic", ins + outs + scalars, [v.type for v in outs], {
            "operandSegmentSizes": ir.DenseI32ArrayAttr.get([len(ins), len(outs), len(scalars)]),
            "u_kernel_fn_name": ir.StringAttr.get(f"{SYMBOL_PREFIX}{s.site}")})
        for j, result in enumerate(call.results):
            k = s.n_in + j
            dyn_off, dyn_size, st_off, st_size = _offsets_sizes(s, k, offsets, sizes)
            _create("iree_tensor_ext.dispatch.tensor.store", [result, bindings[k], *dyn_off, *dyn_size], [],
                    _slice_attrs(st_off, st_size, [1, 1, 0, len(dyn_off), len(dyn_size), 0]))
        _create("flow.return")


def _rewrite(s: _Site, invocation: ir.Value | None) -> None:
    op = s.op
    with ir.InsertionPoint(op), op.location:
        extents = [_index(e) for e in s.extents]
        operands = list(op.operands) + extents + [invocation if invocation is not None else _index(0)]
        results = [r.type for r in op.results]
        dispatch = _create("flow.dispatch.workgroups", operands, results, {
            "operandSegmentSizes": ir.DenseI32ArrayAttr.get([0, len(operands), 0, 0]),
            "tied_operands": ir.ArrayAttr.get([ir.IntegerAttr.get(ir.IndexType.get(), -1) for _ in results]),
        }, regions=2)
        types = [ir.Type.parse(f"{_TENSOR}<readonly:{t}>") for t in s.types[:s.n_in]]
        types += [ir.IndexType.get()] * (len(extents) + 1)
        types += [ir.Type.parse(f"{_TENSOR}<writeonly:{t}>") for t in results]
        _body(s, dispatch.regions[0].blocks.append(*types))
        count = dispatch.regions[1].blocks.append()
        with ir.InsertionPoint(count):
            xyz = (s.counts[::-1] + [1, 1, 1])[:3]
            _create("flow.return", [_index(c) for c in xyz])
    for old, new in zip(op.results, dispatch.results):
        old.replace_all_uses_with(new)
    op.erase()


def _function(op) -> ir.Operation:
    parent = op.operation.parent
    while parent is not None and parent.name != "func.func":
        parent = parent.parent
    return parent


def _invocation_argument(func: ir.Operation) -> ir.Value | None:
    """Append the invocation id (i64) to a public `func`'s arguments; its
    value as an index, at the top of the body. None for a private function:
    its callers' signatures would change too."""
    if "sym_visibility" in func.attributes and ir.StringAttr(func.attributes["sym_visibility"]).value != "public":
        return None
    i64 = ir.IntegerType.get_signless(64)
    ftype = ir.FunctionType(ir.TypeAttr(func.attributes["function_type"]).value)
    func.attributes["function_type"] = ir.TypeAttr.get(ir.FunctionType.get([*ftype.inputs, i64], ftype.results))
    if "arg_attrs" in func.attributes:
        attrs = list(ir.ArrayAttr(func.attributes["arg_attrs"]))
        func.attributes["arg_attrs"] = ir.ArrayAttr.get(attrs + [ir.DictAttr.get({})])
    entry = func.regions[0].blocks[0]
    argument = entry.add_argument(i64, func.location)
    with ir.InsertionPoint.at_block_begin(entry), func.location:
        return _create("arith.index_cast", [argument], [ir.IndexType.get()]).result


_OPTIONS = (
    Option("workgroups", "most workgroups per op", _MAX_WORKGROUPS, parse_count),
    Option("grain", "fewest output elements per workgroup", 16384, parse_count),
    Option("invocation", "add an i64 argument (last) to each public function with a site: the invocation id "
           "passed to every kernel, for the plugin to keep a failure per call (else 0)", False, parse_flag),
)


@register_pass(DISPATCH_NATIVE,
               "Rewrite each tosa.custom bound to a native kernel (tosa_custom.iree_site) into an IREE "
               "flow.dispatch.workgroups calling it by iree_codegen.ukernel.generic on slices of its parallel "
               "dims (tosa_custom.iree_split); other ops are left to IREE's TOSA input", _OPTIONS)
def dispatch_native(module_op, ctx: PassContext) -> int:
    """Returns the number of ops rewritten."""
    # flow, iree_codegen and iree_tensor_ext are IREE's, not in this MLIR:
    # their ops exist here in generic form only.
    module_op.context.allow_unregistered_dialects = True
    sites = []
    for op in custom_ops(module_op):
        if SITE_ATTR in op.attributes:
            try:
                sites.append(_Site(op, ctx.options))
            except PassFailure as e:
                ctx.error(op, str(e))
    if not ctx.failed:
        ids: list[tuple] = []  # (function, its invocation id or None)
        for s in sites:
            func = _function(s.op)
            known = [value for f, value in ids if f == func]
            if not known:
                known = [_invocation_argument(func) if ctx.options.invocation and func is not None else None]
                ids.append((func, known[0]))
            _rewrite(s, known[0])
    return len(sites)
