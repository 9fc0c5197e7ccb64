"""flat_globals.py reads the module's top level as plain Operations and its
types as text: the pass must not import the LLVM dialect's Python module
(0.03-0.05 s of a cold load that nothing else on the path needs)."""

from __future__ import annotations

import subprocess
import sys

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
