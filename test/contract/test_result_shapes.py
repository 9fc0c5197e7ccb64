"""`result_shapes` (CONTRACT.md §15.2, contract version 3): what the pass
derives from PyTorch's shape propagation, checked at several sizes against
eager PyTorch, and what decode() refuses."""

from __future__ import annotations

import json

import pytest
import torch
from _tolerance import reduction_tolerance
from torch_mlir import ir
from torch_mlir.extras.fx_importer import FxImporter
from torch_mlir.passmanager import PassManager

import tosa_custom
from tosa_custom import ContractError, decode
from tosa_custom.contract import shapes
from tosa_custom.core import ir as _ir
from tosa_custom.tunnel.conversion import convert_module
from tosa_custom.tunnel.options import PassOptions
from tosa_custom.tunnel.result_shapes import BIND

F = torch.nn.functional
Dim = torch.export.Dim


@pytest.fixture(scope="module")
def ctx():
    return _ir.make_context()


# --- Derived from torch.export's shapes, run at several sizes ---------------


class Block(torch.nn.Module):
    """softmax, a cat along a dynamic dim (a sum), a flatten (a product), an
    elementwise op on the flattened value, a pad (s+3), a repeat (2*s), a
    slice (s-1), a layer_norm. (A stepped slice, a floor division, is not
    here: torch-mlir's importer cannot translate sympy's FloorDiv.)"""

    def forward(self, x, y):
        a = torch.softmax(x, -1)
        b = torch.cat([a, y], 1)
        c = F.gelu(b.reshape(-1, 16))
        d = F.pad(x, (0, 0, 1, 2))
        e = x.repeat(1, 2, 1)
        f = F.layer_norm(x[:, 1:], (16,))
        return c, d, e, f


OPS = ["aten.softmax.int", "aten.cat", "aten.view", "aten.gelu", "aten.constant_pad_nd", "aten.repeat",
       "aten.slice.Tensor", "aten.layer_norm"]


def _import(ctx, model, args, dynamic_shapes, ops=None):
    ep = torch.export.export(model, args, dynamic_shapes=dynamic_shapes)
    ep = ep.run_decompositions({})
    importer = FxImporter(context=ctx)
    importer.import_frozen_program(ep, import_symbolic_shape_expressions=True)
    module = importer.module
    with ctx:
        legal = ",".join(ops or OPS)
        PassManager.parse(f"builtin.module(torch-lower-to-backend-contract{{backend-legal-ops={legal}}})").run(
            module.operation)
    return module



def _bound_shape(value: ir.Value, env: dict[str, int]) -> tuple[int, ...]:
    """The shape torch.bind_symbolic_shape gives `value`, at these symbol values."""
    for use in value.uses:
        op = use.owner
        if op.name == BIND and op.operands[0] == value:
            names = [ir.StringAttr(v.owner.attributes["symbol_name"]).value for v in list(op.operands)[1:]]
            affine = ir.AffineMapAttr(op.attributes["shape_expressions"]).value
            exprs = [shapes.from_affine(e, [shapes.symbol(n) for n in names]) for e in affine.results]
            return shapes.evaluate(exprs, env)
    raise AssertionError(f"{value} is not bound")


def test_result_shapes_match_eager_at_every_size(ctx):
    x, y = torch.randn(2, 6, 16), torch.randn(2, 3, 16)
    b, t, u = Dim("b", min=1, max=32), Dim("t", min=3, max=64), Dim("u", min=1, max=64)
    module = _import(ctx, Block(), (x, y), ({0: b, 1: t}, {0: b, 1: u}))
    with ctx:
        result = convert_module(module.operation, PassOptions(",".join(OPS), encoding="json"))
        assert not result.skipped, result.skipped
        customs = tosa_custom.custom_ops(module)
        assert {c.attributes["operator_name"].value for c in customs} >= {
            "torch.aten.softmax.int", "torch.aten.cat", "torch.aten.view", "torch.aten.gelu",
            "torch.aten.constant_pad_nd", "torch.aten.repeat", "torch.aten.layer_norm"}
        func = module.body.operations[0]
        args = list(func.regions[0].blocks[0].arguments)
        returned = list(func.regions[0].blocks[0].operations[-1].operands)
        # The symbols each argument dim binds (the boundary reads them the same way).
        arg_symbols = []
        for a in args:
            use = next(u.owner for u in a.uses if u.owner.name == BIND)
            names = [ir.StringAttr(v.owner.attributes["symbol_name"]).value for v in list(use.operands)[1:]]
            affine = ir.AffineMapAttr(use.attributes["shape_expressions"]).value
            arg_symbols.append({i: names[e.position] for i, e in enumerate(affine.results)
                                if isinstance(e, ir.AffineSymbolExpr)})
        for sizes in [(1, 3, 1), (2, 6, 3), (3, 7, 5), (32, 64, 64)]:
            xs, ys = torch.randn(sizes[0], sizes[1], 16), torch.randn(sizes[0], sizes[2], 16)
            env = {}
            for tensor, symbols in zip((xs, ys), arg_symbols):
                env.update({name: tensor.shape[i] for i, name in symbols.items()})
            eager = Block()(xs, ys)
            checked = 0
            for custom in customs:
                decoded = decode(custom)
                operands = [v.owner.operands[0] for v in custom.operands]  # torch_c.to_builtin_tensor's input
                operand_shapes = [_bound_shape(v, env) for v in operands]
                got = [shapes.evaluate(dims, dim=lambda k, i: operand_shapes[k][i]) for dims in decoded.result_shapes]
                carried = [next(u.owner for u in r.uses).result for r in custom.results]  # from_builtin_tensor
                assert got == [_bound_shape(v, env) for v in carried]
                for v, shape in zip(carried, got):
                    if v in returned:
                        assert shape == tuple(eager[returned.index(v)].shape), (custom, sizes)
                        checked += 1
            assert checked == 4


# --- decode() refusals --------------------------------------------------------


def _custom(operands: list[str], results: list[str], result_shapes, version=3, extra_args=None) -> str:
    attrs = {"args": {"self": {"operand": 0}, "approximate": "none", **(extra_args or {})}, "version": version}
    if result_shapes is not None:
        attrs["result_shapes"] = result_shapes
    text = json.dumps(attrs, sort_keys=True, separators=(",", ":")).replace('"', "\\22")
    args = ", ".join(f"%a{i}: {t}" for i, t in enumerate(operands))
    names = ", ".join(f"%a{i}" for i in range(len(operands)))
    return f"""
func.func @f({args}) -> ({", ".join(results)}) {{
  %0:{len(results)} = tosa.custom {names} {{domain_name = "torch_mlir", implementation_attrs = "{text}", operator_name = "torch.aten.gelu"}} : ({", ".join(operands)}) -> ({", ".join(results)})
  return %0#0 : {results[0]}
}}""".replace("%0:1 ", "%0 ").replace("%0#0", "%0")


def _decode(ctx, text):
    with ctx:
        module = ir.Module.parse(text)  # kept alive while its op is decoded
        return decode(tosa_custom.custom_ops(module)[0])


def test_decode_reads_result_shapes(ctx):
    call = _decode(ctx, _custom(["tensor<?x?x8xf32>"], ["tensor<?x?x8xf32>"], [["dim(0,0)", "dim(0, 1)*2-1", 8]]))
    assert [str(d) if not isinstance(d, int) else d for d in call.result_shapes[0]] == ["dim(0,0)", "dim(0,1)*2-1", 8]
    assert shapes.evaluate(call.result_shapes[0], dim=lambda k, i: (5, 7, 8)[i]) == (5, 13, 8)
    assert _decode(ctx, _custom(["tensor<2x8xf32>"], ["tensor<2x8xf32>"], None, version=1)).result_shapes is None


@pytest.mark.parametrize("operands, results, result_shapes, version, message", [
    (["tensor<?xf32>"], ["tensor<?xf32>"], [["dim(0,0)"]], 2, "'result_shapes' needs contract version 3"),
    (["tensor<?xf32>"], ["tensor<?xf32>"], ["dim(0,0)"], 3, "must be a list (one per result) of lists"),
    (["tensor<?xf32>"], ["tensor<?xf32>"], [["dim(0,0)"], ["dim(0,0)"]], 3, "2 entries, the op 1 results"),
    (["tensor<?xf32>"], ["tensor<?xf32>"], [["dim(0,0)", 1]], 3, "result 0 has 2 dims, its type is tensor<?xf32>"),
    (["tensor<?x4xf32>"], ["tensor<?x4xf32>"], [["dim(0,0)", 5]], 3, "result 0 dim 1 is 5, its type says 4"),
    (["tensor<?xf32>"], ["tensor<?xf32>"], [[-1]], 3, "result 0 dim 0 is -1: a size is >= 0"),
    (["tensor<?xf32>"], ["tensor<?xf32>"], [[1.5]], 3, "must be an integer or an expression text"),
    (["tensor<?xf32>"], ["tensor<?xf32>"], [["s0"]], 3, "s0 is not allowed here"),
    (["tensor<?xf32>"], ["tensor<?xf32>"], [["dim(0,0"]], 3, "expected )"),
    (["tensor<?xf32>"], ["tensor<?xf32>"], [["dim(1,0)"]], 3, "reads operand(s) [1], but the op has 1 operands"),
    (["tensor<?xf32>"], ["tensor<?xf32>"], [["dim(0,1)+1"]], 3, "reads dim(0,1), but operand 0 has type tensor<?xf32>"),
    (["tensor<?xf32>"], ["tensor<?xf32>"], [["value(0)"]], 3, "reads value(0), but operand 0 is tensor<?xf32>, "
                                                                "not a 0-d integer tensor"),
])
def test_decode_refuses_malformed_result_shapes(ctx, operands, results, result_shapes, version, message):
    with pytest.raises(ContractError) as info:
        _decode(ctx, _custom(operands, results, result_shapes, version))
    assert message in str(info.value)


# --- A consumer: results allocated from result_shapes, Python kernels ---------


class Heads(torch.nn.Module):
    """Each op on the inputs themselves, every activation dim dynamic."""

    def forward(self, x, ids, table, q, k, v):
        return (F.layer_norm(x, (16,)), F.rms_norm(x, (16,)), torch.softmax(x, 1), torch.log_softmax(x, -1),
                F.gelu(x), F.silu(x), F.embedding(ids, table), F.scaled_dot_product_attention(q, k, v))


HEAD_OPS = ["aten.layer_norm", "aten.rms_norm", "aten.softmax.int", "aten.log_softmax.int", "aten.gelu", "aten.silu",
            "aten.embedding", "aten.scaled_dot_product_attention"]


def test_python_kernels_fill_results_sized_by_result_shapes(ctx):
    """What a consumer does with a dynamic tosa.custom: evaluate result_shapes
    on the actual operands, allocate, call the kernel. The built-in Python
    kernels (numpy ones and the generic torch one) take their sizes from the
    tensors they are given, at every size, never from the IR's types."""
    from tosa_custom.runtime.kernels.registry import KernelCall, find_kernel, torch_kernel

    b, t, s = Dim("b", min=1, max=16), Dim("t", min=2, max=64), Dim("s", min=2, max=64)
    example = _heads_inputs(2, 5, 7)
    module = _import(ctx, Heads(), example, ({0: b, 1: t}, {0: b, 1: t}, None, {0: b, 2: t}, {0: b, 2: s},
                                             {0: b, 2: s}), HEAD_OPS)
    with ctx:
        result = convert_module(module.operation, PassOptions(",".join(HEAD_OPS)))
        assert not result.skipped, result.skipped
        customs = tosa_custom.custom_ops(module)
        assert len(customs) == len(HEAD_OPS)
        func = module.body.operations[0]
        args = list(func.regions[0].blocks[0].arguments)
        returned = list(func.regions[0].blocks[0].operations[-1].operands)
        calls = []
        for custom in customs:
            decoded = decode(custom)
            assert decoded.result_shapes is not None
            operands = [args.index(v.owner.operands[0]) for v in custom.operands]
            position = returned.index(next(u.owner for u in custom.results[0].uses).result)
            kernel = find_kernel(custom.attributes["operator_name"].value, tosa_custom.DOMAIN, decoded)
            calls.append((decoded, operands, position, kernel))
        assert sum(kernel is not torch_kernel for _, _, _, kernel in calls) >= 6  # numpy kernels, not only torch
    for sizes in [(1, 2, 2), (2, 5, 7), (3, 17, 9), (16, 64, 64)]:
        inputs = _heads_inputs(*sizes)
        eager = Heads()(*inputs)
        for decoded, operands, position, kernel in calls:
            values = [inputs[i] for i in operands]
            shape = shapes.evaluate(decoded.result_shapes[0], dim=lambda k, i: values[k].shape[i])
            assert shape == tuple(eager[position].shape)
            out = torch.full(shape, float("nan"))
            got = kernel(KernelCall(decoded, values, [out]))
            got = out if got is None else got
            torch.testing.assert_close(got, eager[position], **reduction_tolerance(64))


def _heads_inputs(b, t, s):
    g = torch.Generator().manual_seed(b * 100 + t)
    return (torch.randn(b, t, 16, generator=g), torch.randint(0, 10, (b, t), generator=g),
            torch.randn(10, 8, generator=g), torch.randn(b, 2, t, 8, generator=g), torch.randn(b, 2, s, 8, generator=g),
            torch.randn(b, 2, s, 8, generator=g))
