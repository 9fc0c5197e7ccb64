"""compile()'s arguments, checked once, before anything is exported: a bad
value fails at once, naming the argument, instead of after a long export."""

from __future__ import annotations

import dataclasses

from ..core.schema import OpSelection
from ..quant.qdq import QDQ_OPS
from ..tosa import target as _target
from ..tunnel.options import PASS_ARGUMENT, parse_encoding
from ..weights import export as _weights
from .report import OutputType

__all__ = ["Settings", "settings"]


@dataclasses.dataclass(frozen=True)
class Settings:
    """compile()'s arguments, checked once."""

    output: OutputType
    selection: OpSelection
    encoding: str
    strict: bool
    export_strict: "bool | str"
    func_name: str
    weights: str
    library: str | None
    verbose: bool
    tosa_target: "_target.TosaTarget | str | None"  # None: not checked; "auto": fitted to the module
    quantized: bool = False  # a PT2E-quantized model: lowered to integer TOSA (quant/)
    internal_ops: tuple = ()  # ops compile() keeps whole for that lowering, beside the user's (not reported as listed)
    tables: tuple = ()  # of those, the elementwise functions the lowering tabulates (the user's own are kept ops)

    @property
    def integer_ops(self) -> tuple:
        """The ops the tunnel carries only for the quantized lowering, which
        makes them integer TOSA: PT2E's quantize/dequantize ops and the
        functions it tabulates (compile()'s report counts them apart)."""
        return (*QDQ_OPS, *self.tables) if self.quantized else ()

    @property
    def tunnel(self) -> bool:
        return bool(self.selection.listed()) and self.output is OutputType.TOSA

    @property
    def target(self) -> "_target.TosaTarget | str | None":
        """The target checked: none with encoding="const" and listed ops, whose
        i64/f64 operands are outside TOSA by design (CONTRACT.md 4.6)."""
        if self.tosa_target == "auto" and self.encoding == "const" and self.selection:
            return None
        return self.tosa_target

    def ops_option(self, strict: bool, auto: bool = True) -> str:
        selection = self.selection if auto else self.selection.listed()
        text = f"{PASS_ARGUMENT}{{" + (f"ops={','.join(selection.specs)} " if selection else "") + f"encoding={self.encoding}"
        if strict:
            text += " strict=true"
        if selection.auto and self.target != "auto":
            text += " tosa-target=" + ("none" if self.target is None else f'"{self.target}"')
        if selection.auto and self.quantized:
            text += f" quantized={','.join(self.tables)}" if self.tables else " quantized"
        return text + "}"


def settings(output_type, use_tracing: bool, ignore_traced_shapes: bool, backend_legal_ops, extra_library,
              verbose: bool, encoding: str, strict: bool, export_strict, func_name: str, weights: str,
              tosa_target) -> Settings:
    if weights not in _weights.WEIGHT_MODES:
        raise ValueError(f"weights must be one of {', '.join(map(repr, _weights.WEIGHT_MODES))}, not {weights!r}")
    if export_strict not in (True, False, "auto"):
        raise ValueError(f"export_strict must be True, False or 'auto', not {export_strict!r}")
    parse_encoding(encoding)  # the pass's own parser of its option
    output = OutputType.get(output_type)
    selection = OpSelection(backend_legal_ops or [])
    if selection and output is OutputType.LINALG_ON_TENSORS:
        raise ValueError(
            "backend_legal_ops become tosa.custom ops, which only output_type='tosa' carries; "
            "use output_type='torch' to see them kept in torch IR"
        )
    if ignore_traced_shapes and not use_tracing:
        raise ValueError("ignore_traced_shapes=True requires use_tracing=True (as in torch_mlir.compile)")
    library_paths = []
    for item in extra_library or ():
        if callable(item):
            raise TypeError(
                "extra_library entries must be paths to MLIR shape-library files: with torch.export, "
                "PyTorch's meta kernels give shapes and dtypes, so Python shape functions are not needed"
            )
        library_paths.append(str(item))
    if len(library_paths) > 1:
        raise ValueError("torch-mlir takes one extra_library file; concatenate the functions into one")
    return Settings(output, selection, encoding, strict, export_strict, func_name, weights,
                     library_paths[0] if library_paths else None, verbose, _target.parse_target(tosa_target))
