"""MLIR context set-up shared by the pass, `compile()` and the opt tool.

The torch-mlir wheel registers its passes and the `torch_c` dialect lazily, and
an op created in a dialect that is not loaded silently becomes an unregistered
op that fails much later. Everything that builds IR goes through here.
"""

from __future__ import annotations

from torch_mlir import ir, passmanager
from torch_mlir.dialects import torch as torch_d

__all__: list[str] = []


def make_context() -> ir.Context:
    ctx = ir.Context()
    torch_d.register_dialect(ctx)
    ensure_dialects(ctx)
    return ctx


def ensure_dialects(ctx: ir.Context) -> None:
    """Load torch_c and tosa, which no public binding loads on demand."""
    if ctx.is_dialect_loaded("torch_c") and ctx.is_dialect_loaded("tosa"):
        return
    with ctx, ir.Location.unknown():
        module = ir.Module.parse("module {}")
        # This pass depends on torch_c; running it on an empty module is the
        # only way the bindings offer to load that dialect.
        passmanager.PassManager.parse(
            "builtin.module(torch-func-backend-type-conversion)"
        ).run(module.operation)
    ctx.dialects["tosa"]  # loads tosa
    if not ctx.is_dialect_loaded("torch_c"):  # pragma: no cover - wheel changed
        raise RuntimeError("could not load the torch_c dialect from torch-mlir")
