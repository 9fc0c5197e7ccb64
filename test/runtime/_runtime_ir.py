"""IR helpers the runtime tests share: parse, walk, count ops, a matmul module."""

from __future__ import annotations

import collections

from torch_mlir import ir

from tosa_custom.core import ir as _ir


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


def _matmul(b: int, m: int, k: int, n: int) -> str:
    return f"""
func.func @f(%a: tensor<{b}x{m}x{k}xf32>, %w: tensor<{b}x{k}x{n}xf32>) -> tensor<{b}x{m}x{n}xf32> {{
  %z = "tosa.const"() <{{values = dense<0.0> : tensor<1xf32>}}> : () -> tensor<1xf32>
  %0 = tosa.matmul %a, %w, %z, %z : (tensor<{b}x{m}x{k}xf32>, tensor<{b}x{k}x{n}xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<{b}x{m}x{n}xf32>
  return %0 : tensor<{b}x{m}x{n}xf32>
}}"""
