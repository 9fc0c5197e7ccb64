"""The built-in example: a small transformer block, three ops kept as tosa.custom.

`tosa-custom-example` compiles it and prints the TOSA, so a newcomer sees at a
glance what the pass does: layer_norm, softmax and gelu arrive as single
`tosa.custom` ops, and everything else is ordinary TOSA. It then runs the
module on the CPU through the reference runtime and compares with PyTorch.
"""

from __future__ import annotations

import argparse
import collections

import torch
from torch_mlir import ir

from . import runtime
from .compiler import compile

__all__ = ["TransformerBlock", "main"]

KEPT_OPS = ["aten.layer_norm", "aten.softmax.int", "aten.gelu"]


class TransformerBlock(torch.nn.Module):
    """Pre-norm self-attention followed by a GELU MLP (GPT-2 style)."""

    def __init__(self, dim: int = 32, heads: int = 4):
        super().__init__()
        self.heads = heads
        self.norm1 = torch.nn.LayerNorm(dim)
        self.qkv = torch.nn.Linear(dim, 3 * dim)
        self.proj = torch.nn.Linear(dim, dim)
        self.norm2 = torch.nn.LayerNorm(dim)
        self.fc1 = torch.nn.Linear(dim, 4 * dim)
        self.fc2 = torch.nn.Linear(4 * dim, dim)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        b, t, d = x.shape
        h = self.heads
        q, k, v = self.qkv(self.norm1(x)).split(d, dim=-1)
        q, k, v = (y.reshape(b, t, h, d // h).transpose(1, 2) for y in (q, k, v))
        att = torch.softmax(q @ k.transpose(-2, -1) / (d // h) ** 0.5, dim=-1)
        y = (att @ v).transpose(1, 2).reshape(b, t, d)
        x = x + self.proj(y)
        return x + self.fc2(torch.nn.functional.gelu(self.fc1(self.norm2(x)), approximate="tanh"))


def example_inputs() -> tuple[torch.Tensor]:
    return (torch.randn(2, 8, 32),)


def _tosa_ops(module) -> tuple[collections.Counter, set[str]]:
    """TOSA op counts, and the operator names of the tosa.custom ops."""
    counts: collections.Counter = collections.Counter()
    customs: set[str] = set()

    def visit(op):
        if op.name.startswith("tosa."):
            counts[op.name] += 1
        if op.name == "tosa.custom":
            customs.add(ir.StringAttr(op.attributes["operator_name"]).value)
        return ir.WalkResult.ADVANCE

    module.operation.walk(visit)
    return counts, customs


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--encoding", choices=["json", "const"], default="json")
    args = parser.parse_args(argv)
    torch.manual_seed(0)
    model, inputs = TransformerBlock().eval(), example_inputs()
    module = compile(model, inputs, output_type="tosa", backend_legal_ops=KEPT_OPS, encoding=args.encoding)
    for op in module.body.operations:  # the function, not the weight blobs
        print(op.get_asm(large_elements_limit=16))
    kept, customs = _tosa_ops(module)
    stock, _ = _tosa_ops(compile(model, inputs, output_type="tosa"))
    print(f"// kept as tosa.custom ({kept['tosa.custom']} ops): {', '.join(sorted(customs))}")
    print(f"// TOSA ops: {sum(kept.values())} with these ops kept, "
          f"{sum(stock.values())} when torch-mlir decomposes them")
    program = runtime.load(module)  # lowers the module in place: print it first
    with torch.no_grad():
        expected = model(*inputs)
    got = program(*inputs)
    print(f"// run on the CPU (custom ops by the reference kernels): largest difference "
          f"from eager PyTorch {(got - expected).abs().max().item():.3g}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
