"""The lowering: what outline_custom_ops makes of a tosa.custom, and that the
tiled, vectorized pipeline really emits vector code and computes what eager
PyTorch does."""

from __future__ import annotations

import collections

import pytest
import torch
from _tolerance import assert_reduction_close
from torch_mlir import ir, passmanager

from tosa_custom import _ir
from tosa_custom import runtime
from tosa_custom.runtime import lowering, tiling

# --------------------------------------------------------------------------
# outline_custom_ops
# --------------------------------------------------------------------------

TWO_CUSTOMS = """
func.func @f(%a: tensor<2x3xf32>, %b: tensor<3xi32>) -> (tensor<2x3xf32>, tensor<3xi32>) {
  %k = "tosa.const"() <{values = dense<7> : tensor<i64>}> : () -> tensor<i64>
  %0 = tosa.custom %a, %k {domain_name = "acme", implementation_attrs = "{}", operator_name = "first"} : (tensor<2x3xf32>, tensor<i64>) -> tensor<2x3xf32>
  %1:2 = tosa.custom %0, %b {domain_name = "torch_mlir", implementation_attrs = "x", operator_name = "second"} : (tensor<2x3xf32>, tensor<3xi32>) -> (tensor<2x3xf32>, tensor<3xi32>)
  return %1#0, %1#1 : tensor<2x3xf32>, tensor<3xi32>
}"""


def _parse(text: str) -> ir.Module:
    return ir.Module.parse(text, _ir.make_context())


def _ops(module: ir.Module) -> list:
    found = []

    def visit(op):
        found.append(op)
        return ir.WalkResult.ADVANCE

    module.operation.walk(visit)
    return found


def _names(module: ir.Module) -> collections.Counter:
    return collections.Counter(op.name for op in _ops(module))


@pytest.fixture
def outlined():
    module = _parse(TWO_CUSTOMS)
    constants = []

    def read_constant(value):
        owner = value.owner
        if not isinstance(owner, ir.Block) and owner.operation.name == "tosa.const":
            constants.append(value)
            return 7
        return None

    sites = lowering.outline_custom_ops(module, read_constant)
    return module, sites


def test_outline_replaces_every_custom_op(outlined):
    module, sites = outlined
    names = _names(module)
    assert names["tosa.custom"] == 0
    assert names["func.call"] == 2
    module.operation.verify()


def test_outline_call_sites(outlined):
    _, sites = outlined
    first, second = sites
    assert (first.index, first.symbol, first.operator_name, first.domain_name) == (
        0, "tosa_custom_kernel_0", "first", "acme")
    assert first.input_types == ("f32", "i64") and first.input_shapes == ((2, 3), ())
    assert first.output_types == ("f32",) and first.output_shapes == ((2, 3),)
    assert first.const_inputs == (None, 7)
    assert second.symbol == "tosa_custom_kernel_1" and second.implementation_attrs == "x"
    assert second.output_types == ("f32", "i32") and second.output_shapes == ((2, 3), (3,))


def test_outline_extern_declarations(outlined):
    module, _ = outlined
    decls = {ir.StringAttr(op.attributes["sym_name"]).value: op for op in module.body.operations
             if op.operation.name == "func.func" and len(op.regions[0].blocks) == 0}
    assert set(decls) == {"tosa_custom_kernel_0", "tosa_custom_kernel_1"}
    decl = decls["tosa_custom_kernel_1"]
    assert ir.StringAttr(decl.attributes["sym_visibility"]).value == "private"
    assert "llvm.emit_c_interface" in decl.attributes
    ftype = ir.TypeAttr(decl.attributes["function_type"]).value
    # destination-passing: inputs (strided views), then outputs (identity layout); no results
    assert [str(t) for t in ftype.inputs] == [
        "memref<2x3xf32, strided<[?, ?], offset: ?>>",
        "memref<3xi32, strided<[?], offset: ?>>",
        "memref<2x3xf32>",
        "memref<3xi32>",
    ]
    assert list(ftype.results) == []


def test_outline_destination_passing_call(outlined):
    module, _ = outlined
    ops = _ops(module)
    call = next(op for op in ops if op.name == "func.call"
                and ir.FlatSymbolRefAttr(op.attributes["callee"]).value == "tosa_custom_kernel_1")
    operands = list(call.operands)
    assert len(operands) == 4 and len(call.results) == 0
    views, outs = operands[:2], operands[2:]
    for v in views:  # inputs: read-only, zero-copy views of the tensors
        producer = v.owner.operation
        assert producer.name == "bufferization.to_buffer"
        assert "read_only" in producer.attributes
        assert "strided<" in str(v.type)
    for v in outs:  # outputs: allocated by the caller, identity layout
        producer = v.owner.operation
        assert producer.name == "memref.alloc"
        assert "strided" not in str(v.type)
    # ... and handed back as tensors the compiled code may write in place
    backs = [op for op in ops if op.name == "bufferization.to_tensor" and op.operands[0] in outs]
    assert len(backs) == 2
    for back in backs:
        assert "restrict" in back.attributes and "writable" in back.attributes
    # the function returns those tensors
    ret = next(op for op in ops if op.name == "func.return")
    assert [r.owner.operation.name for r in ret.operands] == ["bufferization.to_tensor"] * 2


def test_outline_refuses_dynamic_shapes():
    module = _parse("""
func.func @f(%a: tensor<?xf32>) -> tensor<?xf32> {
  %0 = tosa.custom %a {domain_name = "acme", implementation_attrs = "", operator_name = "dyn"} : (tensor<?xf32>) -> tensor<?xf32>
  return %0 : tensor<?xf32>
}""")
    with pytest.raises(ValueError, match=r"dyn has a dynamic shape tensor<\?xf32>"):
        lowering.outline_custom_ops(module, lambda v: None)


# --------------------------------------------------------------------------
# The tiled, vectorized pipeline
# --------------------------------------------------------------------------


def _matmul(b: int, m: int, k: int, n: int) -> str:
    return f"""
func.func @f(%a: tensor<{b}x{m}x{k}xf32>, %w: tensor<{b}x{k}x{n}xf32>) -> tensor<{b}x{m}x{n}xf32> {{
  %z = "tosa.const"() <{{values = dense<0.0> : tensor<1xf32>}}> : () -> tensor<1xf32>
  %0 = tosa.matmul %a, %w, %z, %z : (tensor<{b}x{m}x{k}xf32>, tensor<{b}x{k}x{n}xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<{b}x{m}x{n}xf32>
  return %0 : tensor<{b}x{m}x{n}xf32>
}}"""


def test_matmul_plan_is_a_register_tile_with_the_fill_fused():
    module = _parse(_matmul(1, 64, 32, 96))
    with module.context:
        passmanager.PassManager.parse(lowering.FRONTEND_PIPELINE).run(module.operation)
    plans = lowering.plan_tiling(module)
    contractions = [(op.name, plan) for op, plan in plans if plan.kind.startswith("contraction")]
    assert len(contractions) == 1
    name, plan = contractions[0]
    assert name == "linalg.batch_matmul"
    # (batch, m, n, k): 8 rows x 32 columns, the reduction one step at a time, columns outermost
    assert plan.kind == "contraction" and plan.tile_sizes == (1, 8, 32, 1)
    assert plan.interchange == (0, 2, 1, 3)
    assert plan.fuse_fill


def test_matmul_tiles_and_vectorizes():
    module = _parse(_matmul(2, 64, 32, 96))
    with module.context:
        passmanager.PassManager.parse(lowering.FRONTEND_PIPELINE).run(module.operation)
        lowering.tile_and_vectorize(module)
    names = _names(module)
    assert names["linalg.batch_matmul"] == 0 and names["linalg.fill"] == 0  # both vectorized
    assert names["vector.contract"] == 1 and names["scf.for"] >= 3


def test_matmul_becomes_vector_fmas_before_llvm():
    module = _parse(_matmul(2, 64, 32, 96))
    lowering.lower_to_vectors(module)
    names = _names(module)
    text = str(module)
    assert not [n for n in names if n.startswith("linalg.")], names
    assert names["vector.fma"] >= 8  # one FMA per accumulator row of the 8 x 32 tile
    assert "vector<32xf32>" in text
    # the accumulators stay in registers across the reduction loop
    assert any("iter_args" in line and "vector<" in line for line in text.splitlines())
    # and in the LLVM dialect, vector FMAs on LLVM vector types
    with module.context:
        passmanager.PassManager.parse(lowering.BACKEND_PIPELINE).run(module.operation)
    llvm = str(module)
    assert "llvm.intr.fmuladd" in llvm and "vector<32xf32>" in llvm  # vector.fma lowers to fmuladd


@pytest.mark.parametrize("b,m,k,n", [(1, 64, 32, 96), (2, 16, 256, 64), (3, 7, 13, 5), (1, 1, 1, 1), (2, 24, 9, 40)])
@pytest.mark.parametrize("vectorize", [True, False], ids=["vectorized", "naive"])
def test_matmul_matches_eager(b, m, k, n, vectorize):
    g = torch.Generator().manual_seed(b * 1000 + m + k + n)
    a, w = torch.randn(b, m, k, generator=g), torch.randn(b, k, n, generator=g)
    program = runtime.load(_matmul(b, m, k, n), vectorize=vectorize)
    assert_reduction_close(program(a, w), torch.bmm(a, w), k)


ATTENTION = """
func.func @f(%q: tensor<8x16x32xf32>, %k: tensor<8x16x32xf32>, %v: tensor<8x16x32xf32>) -> tensor<8x16x32xf32> {
  %z = "tosa.const"() <{values = dense<0.0> : tensor<1xf32>}> : () -> tensor<1xf32>
  %kt = tosa.transpose %k {perms = array<i32: 0, 2, 1>} : (tensor<8x16x32xf32>) -> tensor<8x32x16xf32>
  %s = tosa.matmul %q, %kt, %z, %z : (tensor<8x16x32xf32>, tensor<8x32x16xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<8x16x16xf32>
  %m = tosa.reduce_max %s {axis = 2 : i32} : (tensor<8x16x16xf32>) -> tensor<8x16x1xf32>
  %d = tosa.sub %s, %m : (tensor<8x16x16xf32>, tensor<8x16x1xf32>) -> tensor<8x16x16xf32>
  %e = tosa.exp %d : (tensor<8x16x16xf32>) -> tensor<8x16x16xf32>
  %sum = tosa.reduce_sum %e {axis = 2 : i32} : (tensor<8x16x16xf32>) -> tensor<8x16x1xf32>
  %r = tosa.reciprocal %sum : (tensor<8x16x1xf32>) -> tensor<8x16x1xf32>
  %sh = "tosa.const"() <{values = dense<0> : tensor<1xi8>}> : () -> tensor<1xi8>
  %p = tosa.mul %e, %r, %sh : (tensor<8x16x16xf32>, tensor<8x16x1xf32>, tensor<1xi8>) -> tensor<8x16x16xf32>
  %o = tosa.matmul %p, %v, %z, %z : (tensor<8x16x16xf32>, tensor<8x16x32xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<8x16x32xf32>
  return %o : tensor<8x16x32xf32>
}"""


def test_attention_reductions_and_exp_are_vectorized():
    module = _parse(ATTENTION)
    plans = lowering.lower_to_vectors(module)
    kinds = collections.Counter(plan.kind for plan in plans)
    assert kinds["contraction"] + kinds["contraction-like"] >= 2 and kinds["elementwise"] >= 2
    names = _names(module)
    assert names["math.exp"] == 0  # expanded into polynomial arithmetic on vectors
    assert names["vector.reduction"] > 0  # the max and the sum: horizontal vector reductions
    assert names["vector.fma"] > 0


def test_attention_matches_eager():
    g = torch.Generator().manual_seed(0)
    q, k, v = (torch.randn(8, 16, 32, generator=g) for _ in range(3))
    program = runtime.load(ATTENTION)
    expected = torch.softmax(q @ k.transpose(1, 2), dim=-1) @ v
    assert_reduction_close(program(q, k, v), expected, k=32, depth=2)  # q.k over 32, p.v over 16


def test_generic_contraction_gets_fmas():
    """A contraction that fusion turned into a linalg.generic (mul + add per step) still runs on FMAs."""
    module = _parse(ATTENTION)
    lowering.lower_to_vectors(module)
    names = _names(module)
    assert names["vector.fma"] > 0 and names["vector.contract"] == 0


UNARY = """
func.func @f(%a: tensor<4096xf32>) -> (tensor<4096xf32>, tensor<4096xf32>, tensor<4096xf32>) {
  %0 = tosa.exp %a : (tensor<4096xf32>) -> tensor<4096xf32>
  %1 = tosa.tanh %a : (tensor<4096xf32>) -> tensor<4096xf32>
  %2 = tosa.erf %a : (tensor<4096xf32>) -> tensor<4096xf32>
  return %0, %1, %2 : tensor<4096xf32>, tensor<4096xf32>, tensor<4096xf32>
}"""


def test_polynomial_exp_tanh_erf_match_eager():
    g = torch.Generator().manual_seed(0)
    x = torch.cat([
        torch.linspace(-110.0, 90.0, 2000),
        torch.randn(1000, generator=g) * 4,
        torch.logspace(-8, 1, 500) * torch.tensor([-1.0, 1.0]).repeat(250),
        torch.tensor([0.0, -0.0, float("inf"), float("-inf"), float("nan"), 88.7, -87.3, -103.9, 1e-30]),
    ])
    x = torch.cat([x, torch.zeros(4096 - x.numel())])
    module = _parse(UNARY)
    lowering.lower_to_vectors(module)
    assert not {"math.exp", "math.tanh", "math.erf"} & set(_names(module))  # no libm call per lane
    exp, tanh, erf = runtime.load(UNARY)(x)
    torch.testing.assert_close(exp, torch.exp(x), rtol=4e-7, atol=1e-40, equal_nan=True)
    torch.testing.assert_close(tanh, torch.tanh(x), rtol=1e-6, atol=0, equal_nan=True)
    torch.testing.assert_close(erf, torch.erf(x), rtol=1e-6, atol=3e-7, equal_nan=True)


def test_naive_lowering_calls_libm_for_erf():
    x = torch.linspace(-4, 4, 4096)
    exp, tanh, erf = runtime.load(UNARY, vectorize=False)(x)
    torch.testing.assert_close(erf, torch.erf(x))
    torch.testing.assert_close(tanh, torch.tanh(x))


def test_bool_buffers_are_not_vectorized():
    """vector<N x i1> is bit-packed in LLVM memory, a memref of i1 has a byte per element."""
    text = """
func.func @f(%a: tensor<4x64xf32>, %b: tensor<4x64xf32>) -> (tensor<4x64xi1>, tensor<4x64xf32>) {
  %c = tosa.greater %a, %b : (tensor<4x64xf32>, tensor<4x64xf32>) -> tensor<4x64xi1>
  %s = tosa.select %c, %a, %b : (tensor<4x64xi1>, tensor<4x64xf32>, tensor<4x64xf32>) -> tensor<4x64xf32>
  return %c, %s : tensor<4x64xi1>, tensor<4x64xf32>
}"""
    module = _parse(text)
    with module.context:
        passmanager.PassManager.parse(lowering.FRONTEND_PIPELINE).run(module.operation)
    for op, plan in lowering.plan_tiling(module):
        for v in list(op.operands):
            t = v.type
            if isinstance(t, ir.ShapedType) and str(t.element_type) == "i1":
                assert v is not op.operands[-1], "an op writing i1 was planned"
    a, b = torch.randn(4, 64), torch.randn(4, 64)
    c, s = runtime.load(text)(a, b)
    assert torch.equal(c, a > b) and torch.equal(s, torch.where(a > b, a, b))


def test_failed_transform_falls_back_to_loops(monkeypatch):
    monkeypatch.setattr(tiling, "_tiling_script", lambda plans: "this is not a transform script")
    with pytest.warns(RuntimeWarning, match="lowering with naive loops"):
        program = runtime.load(_matmul(1, 16, 8, 32))
    a, w = torch.randn(1, 16, 8), torch.randn(1, 8, 32)
    assert_reduction_close(program(a, w), torch.bmm(a, w), k=8)


def test_big_matmul_packs_its_columns():
    """B in column panels (K x 32 contiguous), C written in place, the packing copy vectorized too."""
    module = _parse(_matmul(1, 128, 256, 512))
    with module.context, ir.Location.unknown():
        passmanager.PassManager.parse(lowering.FRONTEND_PIPELINE).run(module.operation)
        assert lowering.pack_columns(module) == 1
    names = _names(module)
    assert names["linalg.batch_matmul"] == 0 and names["func.call"] == 1 and names["linalg.transpose"] == 1
    module = _parse(_matmul(1, 128, 256, 512))
    lowering.lower_to_vectors(module)
    names = _names(module)
    assert names["func.call"] == 0 and names["memref.copy"] == 0 and names["linalg.generic"] == 0
    assert not [n for n in names if n.startswith("linalg.")], names
    funcs = [op for op in module.body.operations if op.operation.name == "func.func"]
    assert len(funcs) == 1  # the packing function was inlined


@pytest.mark.parametrize("b,m,k,n", [(1, 128, 256, 512), (2, 64, 128, 96), (1, 72, 40, 1024)])
def test_packed_matmul_matches_eager(b, m, k, n):
    g = torch.Generator().manual_seed(m + k + n)
    a, w = torch.randn(b, m, k, generator=g), torch.randn(b, k, n, generator=g)
    module = _parse(_matmul(b, m, k, n))
    with module.context, ir.Location.unknown():
        passmanager.PassManager.parse(lowering.FRONTEND_PIPELINE).run(module.operation)
        assert lowering.pack_columns(module) == 1
    program = runtime.load(_matmul(b, m, k, n))
    assert_reduction_close(program(a, w), torch.bmm(a, w), k)


class _Convs(torch.nn.Module):
    def __init__(self, stride: int, dilation: int):
        super().__init__()
        self.conv = torch.nn.Conv2d(8, 32, 3, stride=stride, padding=1, dilation=dilation)
        self.depthwise = torch.nn.Conv2d(32, 32, 3, padding=1, groups=32)
        self.pool = torch.nn.MaxPool2d(2)

    def forward(self, x):
        return self.pool(self.depthwise(torch.relu(self.conv(x))))


@pytest.mark.parametrize("stride,dilation", [(1, 1), (2, 1), (1, 2)])
def test_convolutions_are_vectorized_and_match_eager(stride, dilation):
    import tosa_custom

    torch.manual_seed(0)
    model, x = _Convs(stride, dilation).eval(), torch.randn(2, 8, 16, 16)
    module = tosa_custom.compile(model, (x,))
    text = module.operation.get_asm()
    plans = lowering.lower_to_vectors(ir.Module.parse(text, _ir.make_context()))
    windows = [p for p in plans if p.window]
    assert len([p for p in windows if p.kind.startswith("contraction")]) == 2  # the conv and the depthwise conv
    program = runtime.load(text)
    with torch.no_grad():
        expected = model(x)
    assert_reduction_close(program(x), expected, k=8 * 9, depth=2)  # the conv, then the depthwise one


# --------------------------------------------------------------------------
# The call path: what a kernel is handed
# --------------------------------------------------------------------------

RESHAPED = """
func.func @f(%a: tensor<2x6xf32>) -> (tensor<3x4xf32>, tensor<3x4xf32>) {
  %s = tosa.const_shape {values = dense<[3, 4]> : tensor<2xindex>} : () -> !tosa.shape<2>
  %r = tosa.reshape %a, %s : (tensor<2x6xf32>, !tosa.shape<2>) -> tensor<3x4xf32>
  %0 = tosa.custom %r {domain_name = "lowering_test", implementation_attrs = "", operator_name = "record"} : (tensor<3x4xf32>) -> tensor<3x4xf32>
  return %0, %r : tensor<3x4xf32>, tensor<3x4xf32>
}"""

_SEEN: list = []


@runtime.register_kernel("record", domain_name="lowering_test")
def _record(call):
    _SEEN.append((tuple(call.inputs[0].shape), tuple(call.outputs[0].shape), call.inputs[0].clone()))
    torch.mul(call.inputs[0], 2.0, out=call.outputs[0])


def test_kernels_see_the_shapes_of_their_operands():
    """An input passed on reshaped (same memory, another shape) is a view of the op's shape."""
    program = runtime.load(RESHAPED)
    x = torch.arange(12, dtype=torch.float32).reshape(2, 6)
    for _ in range(3):  # cached views and the call's own tensors alike
        _SEEN.clear()
        doubled, reshaped = program(x)
        (in_shape, out_shape, seen), = _SEEN
        assert in_shape == (3, 4) and out_shape == (3, 4)
        torch.testing.assert_close(seen, x.reshape(3, 4))
        torch.testing.assert_close(doubled, 2 * x.reshape(3, 4))
        torch.testing.assert_close(reshaped, x.reshape(3, 4))
    y = torch.randn(2, 6)  # another input: new memory, same answers
    doubled, _ = program(y)
    torch.testing.assert_close(doubled, 2 * y.reshape(3, 4))
