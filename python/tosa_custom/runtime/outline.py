"""Each tosa.custom becomes, on tensors, a destination-passing call of a
private extern function: `tosa-to-linalg` refuses `tosa.custom`, and a kernel
should never own memory. Inputs become read-only `bufferization.to_buffer`
views (zero-copy, maybe strided), the compiled code allocates the outputs, the
kernel writes them, and `bufferization.to_tensor ... restrict writable` hands
them back.

A site bound to a native kernel (`bind` returns the address of its C structs)
gets that address as a leading `i64` constant argument: the extern then
resolves to a C trampoline that calls the kernel with it (native.py).
"""

from __future__ import annotations

import dataclasses

from torch_mlir import ir

from ..decode import custom_op_strings, custom_ops

__all__ = ["CustomCallSite", "outline_custom_ops"]


@dataclasses.dataclass(frozen=True)
class CustomCallSite:
    """One former tosa.custom: its extern symbol and its tensor types."""

    index: int
    symbol: str  # the extern function; the JIT resolves `_mlir_ciface_` + symbol
    operator_name: str
    domain_name: str
    implementation_attrs: str
    input_types: tuple[str, ...]  # element types, e.g. "f32"
    input_shapes: tuple[tuple[int, ...], ...]
    output_types: tuple[str, ...]
    output_shapes: tuple[tuple[int, ...], ...]
    location: str
    const_inputs: tuple  # per input: the constant's Python value for tosa.const scalars/lists, else None


def _strided(shape: list[int], element: ir.Type) -> ir.Type:
    layout = "strided<[" + ", ".join("?" for _ in shape) + "], offset: ?>"
    dims = "".join(f"{d}x" for d in shape)
    return ir.Type.parse(f"memref<{dims}{element}, {layout}>")


def _identity(shape: list[int], element: ir.Type) -> ir.Type:
    return ir.Type.parse("memref<" + "".join(f"{d}x" for d in shape) + f"{element}>")


def outline_custom_ops(module: ir.Module, read_constant, bind=None) -> list[CustomCallSite]:
    """Rewrite every tosa.custom into a destination-passing extern call.

    `read_constant(value)` returns the Python value of a `tosa.const` operand
    (scalars and lists the const encoding made), else None. `bind(site)`, if
    given, is called for each site before its call is made; an integer it
    returns (a native kernel's context address) becomes the call's first
    argument, an `i64` constant.
    """
    sites: list[CustomCallSite] = []
    with module.context, ir.Location.unknown():
        body = module.body
        for index, op in enumerate(custom_ops(module)):
            operator_name, domain_name, attrs = custom_op_strings(op)
            symbol = f"tosa_custom_kernel_{index}"
            in_types = [v.type for v in op.operands]
            out_types = [r.type for r in op.results]
            for t in in_types + out_types:
                if not t.has_static_shape:
                    raise ValueError(
                        f"{op.location}: {operator_name} has a dynamic shape {t}; the runtime needs static shapes"
                    )
            in_memrefs = [_strided(t.shape, t.element_type) for t in in_types]
            out_memrefs = [_identity(t.shape, t.element_type) for t in out_types]
            loc = op.location
            site = CustomCallSite(
                index=index, symbol=symbol, operator_name=operator_name, domain_name=domain_name,
                implementation_attrs=attrs,
                input_types=tuple(str(t.element_type) for t in in_types),
                input_shapes=tuple(tuple(t.shape) for t in in_types),
                output_types=tuple(str(t.element_type) for t in out_types),
                output_shapes=tuple(tuple(t.shape) for t in out_types),
                location=str(loc),
                const_inputs=tuple(read_constant(v) for v in op.operands),
            )
            context = bind(site) if bind is not None else None
            i64 = ir.IntegerType.get_signless(64)
            leading = [i64] if context is not None else []
            with ir.InsertionPoint.at_block_begin(body):
                fn_type = ir.FunctionType.get(leading + in_memrefs + out_memrefs, [])
                decl = ir.Operation.create(
                    "func.func",
                    attributes={
                        "sym_name": ir.StringAttr.get(symbol),
                        "function_type": ir.TypeAttr.get(fn_type),
                        "sym_visibility": ir.StringAttr.get("private"),
                        "llvm.emit_c_interface": ir.UnitAttr.get(),
                    },
                    regions=1,
                )
                del decl
            with ir.InsertionPoint(op), loc:
                args = []
                if context is not None:
                    args.append(ir.Operation.create(
                        "arith.constant", results=[i64], attributes={"value": ir.IntegerAttr.get(i64, context)},
                    ).result)
                views = [
                    ir.Operation.create(
                        "bufferization.to_buffer", results=[m], operands=[v],
                        attributes={"read_only": ir.UnitAttr.get()},
                    ).result
                    for v, m in zip(op.operands, in_memrefs)
                ]
                outs = [ir.Operation.create("memref.alloc", results=[m],
                                            attributes={"operandSegmentSizes": ir.DenseI32ArrayAttr.get([0, 0])}).result
                        for m in out_memrefs]
                ir.Operation.create(
                    "func.call", operands=args + views + outs,
                    attributes={"callee": ir.FlatSymbolRefAttr.get(symbol)},
                )
                for r, m in zip(op.results, outs):
                    back = ir.Operation.create(
                        "bufferization.to_tensor", results=[r.type], operands=[m],
                        attributes={"restrict": ir.UnitAttr.get(), "writable": ir.UnitAttr.get()},
                    ).result
                    r.replace_all_uses_with(back)
            sites.append(site)
            op.erase()
    return sites
