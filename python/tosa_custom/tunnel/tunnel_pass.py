"""The `convert-torch-backend-legal-to-tosa-custom` pass: auto mode's choice
of instances (`auto.select`, with `ops=auto`), then the conversion of every
selected op (`conversion.convert_module`). Registered here, above both, so
that neither imports the other inside a function."""

from __future__ import annotations

from torch_mlir import ir

from ..core import schema as _schema
from ..core.passes import Option, PassContext, parse_flag, parse_names, register_pass
from ..tosa import target as _target
from . import auto as _auto
from .conversion import ConversionFailed, convert_module
from .options import PASS_ARGUMENT, ConversionResult, PassOptions, parse_encoding

__all__ = ["convert_torch_backend_legal_to_tosa_custom"]


def _parse_target(text: str):
    return None if text == "none" else _target.parse_target(text)


@register_pass(
    PASS_ARGUMENT,
    "Convert selected torch ops at the backend contract to tosa.custom",
    options=(
        Option("ops", "the ops to convert (CONTRACT.md 2)", "", _schema.OpSelection, metavar="a,b"),
        Option("encoding", "how non-tensor arguments travel", "json", parse_encoding, metavar="json|const"),
        Option("strict", "an op that cannot be converted is an error", False, parse_flag, implicit="true",
               metavar="true|false"),
        Option("tosa-target", "with ops=auto: the TOSA target whose violations are tunneled too (auto: fitted to "
               "the output; none: no check; or tosa-attach-target's options, quoted)", "auto", _parse_target,
               metavar="auto|none|'profiles=...'"),
        Option("quantized", "with ops=auto: a PT2E-quantized model, whose trial lowerings end with the integer "
               "lowering (quant/); the value lists the ATen ops kept only for its TABLEs", None, parse_names,
               implicit="", metavar="a,b"),
    ),
)
def convert_torch_backend_legal_to_tosa_custom(module: ir.Operation, ctx: PassContext) -> ConversionResult | None:
    options = PassOptions.of(ctx.options)
    selection = None
    if options.ops.auto:
        selection = _auto.select(module, options.ops, options.encoding, ctx.options.tosa_target,
                                 ctx.options.quantized)
    try:
        result = convert_module(module, options, ctx.log)
    except ConversionFailed:  # the errors are on the ops already
        ctx.failed = True
        return None
    if selection is not None:
        result.lowered, result.lowered_log, result.lowered_target = selection.lowered, selection.log, selection.target
    return result
