"""The built-in example: a small transformer block, three ops kept as tosa.custom.

`tosa-custom-example` compiles it and prints a short summary, so a newcomer
sees at a glance what the pass does: layer_norm, softmax and gelu arrive as
single `tosa.custom` ops (how many, against torch-mlir's stock lowering),
which kernels ran them on the CPU, and the difference from PyTorch.
`--print-ir` prints the TOSA module too.
"""

from __future__ import annotations

import argparse
import collections

import torch
from torch_mlir import ir

from .. import runtime
from ..frontend.compiler import compile

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


def _tosa_ops(module) -> tuple[collections.Counter, list[str]]:
    """TOSA op counts, and the operator name of each tosa.custom op, in order."""
    counts: collections.Counter = collections.Counter()
    customs: list[str] = []

    def visit(op):
        if op.name.startswith("tosa."):
            counts[op.name] += 1
        if op.name == "tosa.custom":
            customs.append(ir.StringAttr(op.attributes["operator_name"]).value)
        return ir.WalkResult.ADVANCE

    module.operation.walk(visit)
    return counts, customs


def _kept_line(customs: list[str]) -> str:
    """`4 ops: torch.aten.layer_norm x2, ...`: the count agrees with the names."""
    per_name = collections.Counter(customs)
    names = ", ".join(f"{n} x{c}" if c > 1 else n for n, c in sorted(per_name.items()))
    return f"{len(customs)} ops: {names}"


def _kernel_lines(program) -> list[str]:
    """One line per kept op: which kernel ran it (native or Python)."""
    return [f"//   {op}: {kernel}" for op, kernel in zip(program.custom_ops, program.kernels)]


def main(argv=None) -> int:
    from .. import __version__

    parser = argparse.ArgumentParser(prog="tosa-custom-example", description=__doc__.splitlines()[0])
    parser.add_argument("--version", action="version", version=f"%(prog)s (tosa-custom {__version__})")
    parser.add_argument("--encoding", choices=["json", "const"], default="json")
    parser.add_argument("--print-ir", action="store_true", help="print the TOSA module too")
    args = parser.parse_args(argv)
    torch.manual_seed(0)
    model, inputs = TransformerBlock().eval(), example_inputs()
    module = compile(model, inputs, output_type="tosa", backend_legal_ops=KEPT_OPS, encoding=args.encoding)
    kept, customs = _tosa_ops(module)
    stock, _ = _tosa_ops(compile(model, inputs, output_type="tosa"))
    if args.print_ir:
        for op in module.body.operations:  # the function, not the weight blobs
            print(op.get_asm(large_elements_limit=16))
    print(f"// compiled with backend_legal_ops={KEPT_OPS}")
    print(f"// kept as tosa.custom: {_kept_line(customs)}")
    print(f"// TOSA ops: {sum(kept.values())} with these kept, {sum(stock.values())} in torch-mlir's stock lowering")
    program = runtime.load(module)  # lowers the module in place: printed above
    with torch.no_grad():
        expected = model(*inputs)
    got = program(*inputs)
    print("// kernels that ran them:")
    print("\n".join(_kernel_lines(program)))
    print(f"// largest difference from eager PyTorch: {(got - expected).abs().max().item():.3g}"
          + ("" if args.print_ir else "  (--print-ir shows the TOSA)"))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
