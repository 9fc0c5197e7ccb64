"""flat_globals.py: constant globals reach LLVM as flat arrays, blobs this
package made included, and the pass reads the module's top level as plain
Operations and its types as text (it must not import the LLVM dialect's
Python module: 0.03-0.05 s of a cold load that nothing else needs)."""

from __future__ import annotations

import subprocess
import sys

import numpy as np
import torch
from torch_mlir import ir

from tosa_custom import compile, runtime
from tosa_custom.core.ir import make_context
from tosa_custom.runtime.lower.flat_globals import flatten_constant_globals
from tosa_custom.weights.blobs import resource_array, resource_attr

_SCRIPT = """
import sys
from torch_mlir import ir
from tosa_custom.core import ir as _ir
from tosa_custom.runtime.lower.flat_globals import flatten_constant_globals
ctx = _ir.make_context()
m = ir.Module.parse('''
llvm.mlir.global private constant @w(dense<1.0> : tensor<2x3x1xf32>) {addr_space = 0 : i32} : !llvm.array<2 x array<3 x array<1 x f32>>>
llvm.func @f() -> !llvm.ptr {
  %0 = llvm.mlir.addressof @w : !llvm.ptr
  llvm.return %0 : !llvm.ptr
}''', ctx)
flattened = flatten_constant_globals(m.operation)
print(flattened, "torch_mlir.dialects._llvm_ops_gen" in sys.modules)
print(m)
"""


def test_flattening_does_not_import_the_llvm_dialect_module():
    out = subprocess.run([sys.executable, "-c", _SCRIPT], capture_output=True, text=True, check=True).stdout
    first, module = out.split("\n", 1)
    assert first == "1 False", out
    assert "tensor<6xf32>) {addr_space = 0 : i32} : !llvm.array<6 x f32>" in module, module


def _resource_global(value) -> ir.Module:
    module = ir.Module.parse("llvm.mlir.global private constant @w(dense<0.0> : tensor<2x3x3xf32>) "
                             "{addr_space = 0 : i32} : !llvm.array<2 x array<3 x array<3 x f32>>>")
    module.body.operations[0].operation.attributes["value"] = value
    return module


def test_a_blob_made_here_is_flattened_onto_the_same_memory():
    with make_context(), ir.Location.unknown():
        ty = ir.RankedTensorType.get([2, 3, 3], ir.F32Type.get())
        array = np.arange(18, dtype=np.float32).reshape(2, 3, 3)
        module = _resource_global(resource_attr(array, "w", ty))
        assert flatten_constant_globals(module.operation) == 1
        op = module.body.operations[0].operation
        assert str(op.attributes["global_type"]) == "!llvm.array<18 x f32>"
        flat = op.attributes["value"]
        assert str(flat.type) == "tensor<18xf32>"
        assert np.shares_memory(resource_array(flat), array)
        assert resource_array(flat).tolist() == list(range(18))


def test_a_parsed_blob_keeps_its_nesting():
    with make_context(), ir.Location.unknown():
        parsed = ir.Module.parse('"tosa.const"() {values = dense_resource<w> : tensor<2x3x3xf32>} : () -> '
                                 'tensor<2x3x3xf32>\n{-#\n dialect_resources: { builtin: { w: "0x04000000'
                                 + np.zeros(18, np.float32).tobytes().hex() + '" } }\n#-}')
        value = parsed.body.operations[0].operation.attributes["values"]
        module = _resource_global(value)
        assert flatten_constant_globals(module.operation) == 0
        assert "array<3 x f32>" in str(module.body.operations[0].operation.attributes["global_type"])


def test_kernel_weights_load_as_flat_globals_and_compute_as_eager():
    """In dummy mode every weight reaches the runtime as a blob (3x3 filters:
    rows of 3 elements); they must reach LLVM flat and still read right."""
    torch.manual_seed(0)
    model = torch.nn.Sequential(torch.nn.Conv2d(3, 8, 3), torch.nn.ReLU(), torch.nn.Conv2d(8, 4, 3)).eval()
    x = torch.randn(1, 3, 10, 10)
    module = compile(model, (x,), backend_legal_ops=["*"])
    program = runtime.load(module)
    torch.testing.assert_close(program(x), model(x), rtol=1e-5, atol=1e-5)
    globals_ = [line for line in str(module).splitlines() if "llvm.mlir.global" in line]
    filters = [line for line in globals_ if "x3x3xf32" in line]
    assert len(filters) == 2 and all("_flat> : tensor<" in line for line in filters), globals_
    assert not any("array<3 x f32>" in line for line in globals_), globals_
