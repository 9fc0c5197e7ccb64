"""TOSA conformance checked apart from compile(): MLIR's own validator, run
strictly (profiles, extensions and specification version) on a fresh parse
of the module's bytecode against the target the module declares. It shares
no code with compile()'s check (tosa/target.py), so a bug there cannot hide
a non-conformant output here."""

from __future__ import annotations

import io

from torch_mlir import ir, passmanager

TARGET_ATTR = "tosa_custom.tosa_target"


def declared_target(module) -> str | None:
    attrs = module.operation.attributes
    return ir.StringAttr(attrs[TARGET_ATTR]).value if TARGET_ATTR in attrs else None


def strict_errors(module, target: str | None = None) -> list[str]:
    """The strict validator's errors for `module` under `target` (default:
    the one it declares); [] when it conforms."""
    target = target or declared_target(module)
    buffer = io.BytesIO()
    module.operation.write_bytecode(buffer)
    with ir.Context() as ctx:
        import torch_mlir.dialects.torch  # noqa: F401 (registers torch's dialects and passes)

        ctx.allow_unregistered_dialects = True
        fresh = ir.Module.parse(buffer.getvalue())
        try:
            passmanager.PassManager.parse(
                f"builtin.module(tosa-attach-target{{{target}}},tosa-validate{{strict-op-spec-alignment=true}})"
            ).run(fresh.operation)
        except ir.MLIRError as e:
            return [f"{d.location}: {d.message}" for d in e.error_diagnostics]
    return []
