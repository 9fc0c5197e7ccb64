"""Programs with `?` dims (CONTRACT.md §15): one load, calls at any size.

Hand-written TOSA with the boundary attributes compile() writes, run at 1,
odd and large sizes against eager PyTorch; the refusals of sizes outside the
boundary; results of dynamic size (allocated by the compiled code, handed out
without a copy, freed with the tensor); custom ops whose results are sized
by `result_shapes`; save and load.
"""

from __future__ import annotations

import gc

import pytest
import torch
from _tolerance import reduction_tolerance

import tosa_custom
from tosa_custom import runtime
from tosa_custom.runtime.execute import memref

# Every program here is tiled and vectorized: the naive fallback's warning fails the test.
pytestmark = pytest.mark.filterwarnings("error:tosa_custom.runtime. tiling/vectorization failed:RuntimeWarning")

SIZES = (1, 7, 1000)

ELEMENTWISE = """
func.func @main(%a: tensor<?x4xf32> {tosa_custom.shape = ["s0", 4]}, %b: tensor<?x4xf32> {tosa_custom.shape = ["s0", 4]})
    -> (tensor<?x4xf32>, tensor<?x4xf32>) attributes {tosa_custom.symbols = {s0 = array<i64: 1, 4096>}} {
  %0 = tosa.add %a, %b : (tensor<?x4xf32>, tensor<?x4xf32>) -> tensor<?x4xf32>
  %1 = tosa.exp %0 : (tensor<?x4xf32>) -> tensor<?x4xf32>
  return %1, %a : tensor<?x4xf32>, tensor<?x4xf32>
}"""


@pytest.fixture(scope="module")
def elementwise():
    return runtime.load(ELEMENTWISE)


@pytest.mark.parametrize("n", SIZES)
def test_elementwise_at_every_size(elementwise, n):
    a, b = torch.randn(n, 4), torch.randn(n, 4)
    result, same = elementwise(a, b)
    torch.testing.assert_close(result, torch.exp(a + b))
    # An input returned as is comes back as a copy the caller owns (the
    # deallocation's clone), not the caller's tensor.
    assert torch.equal(same, a) and same.data_ptr() != a.data_ptr()


@pytest.mark.parametrize("bad, message", [
    ((torch.zeros(3, 4), torch.zeros(2, 4)), r"input #1 dim 0 is 2; it must equal input #0 dim 0 \(s0\) = 3"),
    ((torch.zeros(0, 4), torch.zeros(0, 4)), r"input #0 dim 0 is 0, outside the range of s0 \[1, 4096\]"),
    ((torch.zeros(5000, 4), torch.zeros(5000, 4)), r"input #0 dim 0 is 5000, outside the range of s0 \[1, 4096\]"),
    ((torch.zeros(3, 5), torch.zeros(3, 4)), r"input #0 dim 1 is 5; expected 4 \(input #0 is \[s0, 4\]\)"),
    ((torch.zeros(3), torch.zeros(3, 4)), r"input #0 has rank 1 \(\[3\]\); expected rank 2: \[s0, 4\]"),
    ((torch.zeros(3, 4, dtype=torch.float64), torch.zeros(3, 4)),
     r"input #0 is \[3, 4\] float64; expected \[\?, 4\] float32"),
])
def test_sizes_outside_the_boundary_are_refused(elementwise, bad, message):
    with pytest.raises(ValueError, match=message):
        elementwise(*bad)


def test_an_expression_over_symbols():
    """An input dim of 2*s0: checked against the symbol another input binds."""
    program = runtime.load("""
func.func @main(%a: tensor<?xf32> {tosa_custom.shape = ["s0"]}, %b: tensor<?xf32> {tosa_custom.shape = ["2*s0"]})
    -> tensor<?xf32> attributes {tosa_custom.symbols = {s0 = array<i64: 2, 9223372036854775807>}} {
  %0 = tosa.exp %b : (tensor<?xf32>) -> tensor<?xf32>
  return %0 : tensor<?xf32>
}""")
    b = torch.randn(6)
    torch.testing.assert_close(program(torch.zeros(3), b), b.exp())
    with pytest.raises(ValueError, match=r"input #1 dim 0 is 5; it must equal 2\*s0 \(s0 from input #0 dim 0\) = 6"):
        program(torch.zeros(3), torch.zeros(5))
    with pytest.raises(ValueError, match=r"outside the range of s0 \[2, inf\]"):
        program(torch.zeros(1), torch.zeros(2))


def test_without_attributes_any_size_runs():
    """A module from elsewhere: `?` with no boundary attributes, sizes >= 0, zero included."""
    program = runtime.load("""
func.func @main(%a: tensor<?x?xf32>) -> tensor<?x?xf32> {
  %0 = tosa.tanh %a : (tensor<?x?xf32>) -> tensor<?x?xf32>
  return %0 : tensor<?x?xf32>
}""")
    for shape in [(1, 1), (0, 5), (3, 0), (33, 17)]:
        a = torch.randn(shape)
        torch.testing.assert_close(program(a), a.tanh())


def test_dynamic_broadcasts_still_broadcast():
    """`?` dims of different symbols may be 1 against n: TOSA's broadcast
    holds at run time (only broadcasts the boundary rules out are dropped)."""
    program = runtime.load("""
func.func @main(%a: tensor<?x4xf32> {tosa_custom.shape = ["s0", 4]}, %b: tensor<?x4xf32> {tosa_custom.shape = ["s1", 4]})
    -> tensor<?x4xf32> {
  %0 = tosa.add %a, %b : (tensor<?x4xf32>, tensor<?x4xf32>) -> tensor<?x4xf32>
  return %0 : tensor<?x4xf32>
}""")
    for m, n in [(1, 5), (5, 1), (3, 3), (1, 1)]:
        a, b = torch.randn(m, 4), torch.randn(n, 4)
        torch.testing.assert_close(program(a, b), a + b)


def test_dynamic_inputs_static_result():
    """A reduction over the dynamic dim: the static result keeps the out-param path."""
    program = runtime.load("""
func.func @main(%a: tensor<?x8xf32>) -> tensor<1x8xf32> {
  %0 = tosa.reduce_sum %a {axis = 0 : i32} : (tensor<?x8xf32>) -> tensor<1x8xf32>
  return %0 : tensor<1x8xf32>
}""")
    for n in SIZES:
        a = torch.randn(n, 8)
        torch.testing.assert_close(program(a), a.sum(0, keepdim=True), **reduction_tolerance(n))


_ROW_OPS = """
func.func @main(%x: tensor<?x?xf32> {tosa_custom.shape = ["s0", "s1"]}) -> (tensor<?x?xf32>, tensor<?x1xf32>, tensor<?x1xf32>)
    attributes {tosa_custom.symbols = {s0 = array<i64: 1, 4096>, s1 = array<i64: 1, 4096>}} {
  %sh = "tosa.const"() <{values = dense<0> : tensor<1xi8>}> : () -> tensor<1xi8>
  %m = tosa.reduce_max %x {axis = 1 : i32} : (tensor<?x?xf32>) -> tensor<?x1xf32>
  %d = tosa.sub %x, %m : (tensor<?x?xf32>, tensor<?x1xf32>) -> tensor<?x?xf32>
  %e = tosa.exp %d : (tensor<?x?xf32>) -> tensor<?x?xf32>
  %n = tosa.reduce_sum %e {axis = 1 : i32} : (tensor<?x?xf32>) -> tensor<?x1xf32>
  %i = tosa.reciprocal %n : (tensor<?x1xf32>) -> tensor<?x1xf32>
  %y = tosa.mul %e, %i, %sh : (tensor<?x?xf32>, tensor<?x1xf32>, tensor<1xi8>) -> tensor<?x?xf32>
  %mn = tosa.reduce_min %x {axis = 1 : i32} : (tensor<?x?xf32>) -> tensor<?x1xf32>
  return %y, %m, %mn : tensor<?x?xf32>, tensor<?x1xf32>, tensor<?x1xf32>
}"""


def _row_lengths(cpu) -> list[int]:
    """Rows whose `?` remainder is empty, one element, a vector but one, one
    vector, one more, and several masked vectors, for the plan's lanes."""
    from tosa_custom.runtime.lower.tiling import tile_config
    lanes, cap = tile_config(cpu).lanes, tile_config(cpu).elementwise
    return sorted({1, lanes - 1, lanes, lanes + 1, cap - 1, cap, cap + 1, cap + lanes + 1, 2 * cap + 3})


@pytest.mark.parametrize("cpu", [None, "avx2"])  # the host's plan, and AVX2's (8 lanes) on any x86-64 host here
def test_reductions_along_a_dynamic_row_at_the_remainder_edges(cpu):
    """softmax, max and min along a `?` row: the remainder beyond whole tiles
    runs as masked vectors; masked-off lanes must not reach a sum, a max or a
    min (values all negative, so a 0 in a max or a sum would show)."""
    program = runtime.load(_ROW_OPS, cpu=cpu)
    for n in _row_lengths(cpu):
        x = -torch.rand(3, n) - 0.5
        y, m, mn = program(x)
        torch.testing.assert_close(y, torch.softmax(x, dim=1), **reduction_tolerance(n))
        assert torch.equal(m, x.amax(1, keepdim=True)) and torch.equal(mn, x.amin(1, keepdim=True)), n


@pytest.mark.parametrize("m", [1, 7, 100])
def test_matmul_with_dynamic_rows(m):
    program = runtime.load("""
func.func @main(%a: tensor<1x?x64xf32>, %w: tensor<1x64x48xf32>) -> tensor<1x?x48xf32> {
  %z = "tosa.const"() <{values = dense<0.0> : tensor<1xf32>}> : () -> tensor<1xf32>
  %0 = tosa.matmul %a, %w, %z, %z : (tensor<1x?x64xf32>, tensor<1x64x48xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<1x?x48xf32>
  return %0 : tensor<1x?x48xf32>
}""")
    a, w = torch.randn(1, m, 64), torch.randn(1, 64, 48)
    torch.testing.assert_close(program(a, w), a @ w, **reduction_tolerance(64))


def test_reshape_by_shape_ops():
    """Two `?` entries in a reshape's size list (TOSA 1.1 shape ops)."""
    program = runtime.load("""
func.func @main(%a: tensor<?x?x8xf32>) -> tensor<?x?x2x4xf32> {
  %d0 = tosa.dim %a {axis = 0 : i32} : (tensor<?x?x8xf32>) -> !tosa.shape<1>
  %d1 = tosa.dim %a {axis = 1 : i32} : (tensor<?x?x8xf32>) -> !tosa.shape<1>
  %c = tosa.const_shape {values = dense<[2, 4]> : tensor<2xindex>} : () -> !tosa.shape<2>
  %s = tosa.concat_shape %d0, %d1, %c : (!tosa.shape<1>, !tosa.shape<1>, !tosa.shape<2>) -> !tosa.shape<4>
  %r = tosa.reshape %a, %s : (tensor<?x?x8xf32>, !tosa.shape<4>) -> tensor<?x?x2x4xf32>
  %e = tosa.exp %r : (tensor<?x?x2x4xf32>) -> tensor<?x?x2x4xf32>
  return %e : tensor<?x?x2x4xf32>
}""")
    for n, m in [(1, 1), (3, 5), (17, 64)]:
        a = torch.randn(n, m, 8)
        torch.testing.assert_close(program(a), a.exp().reshape(n, m, 2, 4))


def test_results_own_their_buffers(elementwise, monkeypatch):
    """A returned buffer is freed once, when the last tensor viewing it dies."""
    freed = []
    free = memref._free
    monkeypatch.setattr(memref, "_free", lambda p: (freed.append(p), free(p)))
    result, same = elementwise(torch.randn(5, 4), torch.randn(5, 4))
    row = result[1]
    del result
    gc.collect()
    assert len(freed) == 0  # a view of it is alive
    expected = row.clone()
    del row, same
    gc.collect()
    assert len(freed) == 2 and len(set(freed)) == 2
    assert torch.isfinite(expected).all()


def test_results_computed_into_buffers_the_call_offers(monkeypatch):
    """From the second call at the same sizes, each result is computed into a
    buffer the call allocated (torch's own: nothing for the runtime to free);
    at new sizes, the compiled code allocates once more (freed with the
    tensors); a result whose size changes at the same input sizes (an offer
    that does not fit) is allocated by the compiled code, and right."""
    freed = []
    free = memref._free
    monkeypatch.setattr(memref, "_free", lambda p: (freed.append(p), free(p)))
    program = runtime.load(ELEMENTWISE)
    # Buffers the compiled code allocated (the result and the input's copy), per call.
    for n, allocated in [(9, 2), (9, 0), (9, 0), (2, 2), (2, 0), (9, 2)]:
        a, b = torch.randn(n, 4), torch.randn(n, 4)
        gc.collect()
        freed.clear()
        result, same = program(a, b)
        torch.testing.assert_close(result, torch.exp(a + b))
        assert torch.equal(same, a) and same.data_ptr() != a.data_ptr()
        result.add_(1)  # a tensor of its own, writable
        del result, same
        gc.collect()
        assert len(freed) == allocated, (n, freed)


def test_a_result_viewing_another_in_an_offered_buffer():
    """Two results of one buffer (a result and its reshape): once the first
    is computed into the buffer the call offered, the second is a view of
    that tensor, alive after the first is gone."""
    program = runtime.load("""
func.func @main(%a: tensor<?x4xf32> {tosa_custom.shape = ["s0", 4]}) -> (tensor<?x4xf32>, tensor<?x2x2xf32>)
    attributes {tosa_custom.symbols = {s0 = array<i64: 1, 64>}} {
  %0 = tosa.exp %a : (tensor<?x4xf32>) -> tensor<?x4xf32>
  %s = tosa.const_shape {values = dense<[-1, 2, 2]> : tensor<3xindex>} : () -> !tosa.shape<3>
  %1 = tosa.reshape %0, %s : (tensor<?x4xf32>, !tosa.shape<3>) -> tensor<?x2x2xf32>
  return %0, %1 : tensor<?x4xf32>, tensor<?x2x2xf32>
}""")
    for n in (3, 3, 3, 5):
        a = torch.randn(n, 4)
        x, y = program(a)
        torch.testing.assert_close(x, a.exp())
        assert y.untyped_storage().data_ptr() == x.untyped_storage().data_ptr()
        del x
        gc.collect()
        torch.testing.assert_close(y, a.exp().reshape(n, 2, 2))


_SIZED = """
func.func @main(%a: tensor<?x4xf32> {tosa_custom.shape = ["s0", 4]}, %n: tensor<i64>)
    -> (tensor<?x4xf32>, tensor<?xf32>) attributes {tosa_custom.symbols = {s0 = array<i64: 1, 100>}} {
  %0:2 = tosa.custom %a, %n {domain_name = "acme_dynamic", operator_name = "twice_and_range",
    implementation_attrs = "{\\22result_shapes\\22: [[\\222*dim(0,0)\\22, 4], [\\22value(1)\\22]]}"}
    : (tensor<?x4xf32>, tensor<i64>) -> (tensor<?x4xf32>, tensor<?xf32>)
  %1 = tosa.exp %0#0 : (tensor<?x4xf32>) -> tensor<?x4xf32>
  return %1, %0#1 : tensor<?x4xf32>, tensor<?xf32>
}"""


def test_custom_op_results_sized_by_result_shapes():
    """The compiled code allocates a custom op's `?` results from its
    result_shapes (an operand's dim, an operand's value); the Python kernel
    sees each call's shapes."""
    seen = []

    @runtime.register_kernel("twice_and_range", "acme_dynamic", override=True)
    def twice_and_range(call):
        a, n = call.inputs
        seen.append((tuple(a.shape), tuple(o.shape for o in call.outputs)))
        return torch.cat([a, a]), torch.arange(int(n), dtype=torch.float32)

    program = runtime.load(_SIZED)
    for rows, count in [(1, 0), (3, 5), (3, 5), (3, 2), (3, 7), (64, 9)]:
        a = torch.randn(rows, 4)
        doubled, counted = program(a, torch.tensor(count))
        torch.testing.assert_close(doubled, torch.cat([a, a]).exp())
        torch.testing.assert_close(counted, torch.arange(count, dtype=torch.float32))
        assert seen[-1] == ((rows, 4), ((2 * rows, 4), (count,)))


class _Scale(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.w = torch.nn.Parameter(torch.randn(4))

    def forward(self, x):
        return torch.tanh(x) * self.w + 1.0


def _dynamic_batch(module) -> str:
    """compile()'s module for a [3, 4] input, its batch dim made `?` with the
    boundary attributes compile(dynamic_shapes=...) writes."""
    text = str(module).replace("tensor<3x4xf32>", "tensor<?x4xf32>")
    text = text.replace("{tosa_custom.input = 0 : i64}", '{tosa_custom.input = 0 : i64, tosa_custom.shape = ["s0", 4]}')
    return text.replace("attributes {tosa_custom.output_tree",
                        "attributes {tosa_custom.symbols = {s0 = array<i64: 1, 64>}, tosa_custom.output_tree")


def test_save_and_load_keep_a_dynamic_program_working(tmp_path):
    """Program.save writes the module with its boundary attributes: the loaded
    program runs at every size and still refuses one outside the range."""
    torch.manual_seed(0)
    model = _Scale().eval()
    text = _dynamic_batch(tosa_custom.compile(model, (torch.randn(3, 4),), weights="arguments"))
    assert "tensor<?x4xf32>" in text and "tosa_custom.symbols" in text
    runtime.load(text, weights=model).save(tmp_path / "saved")
    loaded = runtime.load(tmp_path / "saved")
    with torch.no_grad():
        for n in (1, 5, 64):
            x = torch.randn(n, 4)
            torch.testing.assert_close(loaded(x), model(x))
    with pytest.raises(ValueError, match=r"input #0 dim 0 is 65, outside the range of s0 \[1, 64\]"):
        loaded(torch.randn(65, 4))


class _Mutates(torch.nn.Module):
    def forward(self, x):
        x.add_(1.0)
        return torch.tanh(x), x.sum().item()


def test_result_semantics_of_a_dynamic_program():
    """CONTRACT.md §12 with results the compiled code allocates: the input
    the model writes is written in place, the outputs come in the model's
    structure, the scalar as a Python float."""
    module = tosa_custom.compile(_Mutates().eval(), (torch.randn(3, 4),), backend_legal_ops="auto",
                                 tosa_target=None)  # the sum's f64 scalar is outside TOSA 1.0
    text = str(module).replace("tensor<3x4xf32>", "tensor<?x4xf32>")
    text = text.replace("%arg0: tensor<?x4xf32>)", '%arg0: tensor<?x4xf32> {tosa_custom.shape = ["s0", 4]})')
    assert "tensor<3x4xf32>" not in text and "tosa_custom.shape" in text
    program = runtime.load(text)
    for n in (1, 6, 33):
        x = torch.randn(n, 4)
        expected_x = x + 1.0
        out, total = program(x)
        torch.testing.assert_close(x, expected_x)  # written in place
        torch.testing.assert_close(out, torch.tanh(expected_x))
        assert type(total) is float
        assert abs(total - expected_x.sum().item()) <= 1e-5 * (1 + expected_x.abs().sum().item())


class _MLP(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.a, self.b = torch.nn.Linear(16, 32), torch.nn.Linear(32, 8)

    def forward(self, x):
        return self.b(torch.relu(self.a(x)))


def test_compiled_mlp_with_ignore_traced_shapes():
    """compile()'s own dynamic program (every input dim exported as Dim.AUTO):
    one load, run at sizes across its range; below it, refused by name."""
    torch.manual_seed(0)
    model = _MLP().eval()
    module = tosa_custom.compile(model, (torch.randn(4, 16),), use_tracing=True, ignore_traced_shapes=True,
                                 backend_legal_ops="auto")
    program = runtime.load(module)
    with torch.no_grad():
        for n in (2, 3, 64, 1000):
            x = torch.randn(n, 16)
            torch.testing.assert_close(program(x), model(x), **reduction_tolerance(32, depth=2))
    # torch.export's range starts at 2 (it specializes sizes 0 and 1)
    with pytest.raises(ValueError, match=r"input #0 dim 0 is 1, outside the range of s\d+ \[2, inf\]"):
        program(torch.randn(1, 16))


def test_example_block_with_a_dynamic_sequence_length():
    """compile(dynamic_shapes=...) of the example block with layer_norm,
    softmax and gelu kept (native kernels at each call's sizes): one load, run
    from 1 token to the range's end (slices and reshapes by TOSA shape ops)."""
    from tosa_custom.tools.example import KEPT_OPS, TransformerBlock

    torch.manual_seed(0)
    model = TransformerBlock().eval()
    seq = torch.export.Dim("seq", min=1, max=256)
    module = tosa_custom.compile(model, (torch.randn(2, 8, 32),), backend_legal_ops=KEPT_OPS,
                                 dynamic_shapes=({1: seq},))
    program = runtime.load(module)
    assert len(program.custom_ops) == 4
    with torch.no_grad():
        for t in (1, 5, 64, 256):
            x = torch.randn(2, t, 32)
            torch.testing.assert_close(program(x), model(x), **reduction_tolerance(4 * 32))
    with pytest.raises(ValueError, match=r"input #0 dim 1 is 257, outside the range of s\d+ \[1, 256\]"):
        program(torch.randn(2, 257, 32))
