"""The capture compile() makes once and every attempt imports afresh: the
exported, decomposed program, the listed ops that survived PyTorch's
decompositions, and the weights and state that become arguments."""

from __future__ import annotations

import dataclasses
from typing import Any

from torch_mlir import ir
from torch_mlir.extras.fx_importer import FxImporter

from ..contract import signature as _signature
from ..core import ir as _ir
from ..core.diagnostics import CompileError
from ..weights import export as _weights
from . import asserts as _asserts
from . import capture as _capture
from . import dynamic as _dynamic
from . import imported as _imported
from . import out_arguments as _out_arguments
from . import promotion as _promotion
from .report import CompileReport
from .settings import Settings

__all__ = ["Capture"]


@dataclasses.dataclass(frozen=True)
class Capture:
    """torch.export's program after PyTorch's decompositions; fixed once made."""

    model: Any
    settings: Settings
    program: Any  # the decomposed torch.export.ExportedProgram
    kept: frozenset  # the listed OpOverloads that survived PyTorch's decompositions
    weight_names: Any = None  # placeholders that become named arguments (CONTRACT.md §10); None: all inline
    state_values: dict = dataclasses.field(default_factory=dict)  # initial values of the module's state (§12)

    @staticmethod
    def make(model, example_args, ignore_traced_shapes: bool, settings: Settings, report: CompileReport,
             dynamic_shapes=None) -> "Capture":
        """torch.export (with the user's `dynamic_shapes`, or every dim
        Dim.AUTO with `ignore_traced_shapes`), then PyTorch's decompositions
        minus the listed ops."""
        s = settings
        args, dynamic = _capture.example_args(example_args)
        dynamic, given = _dynamic.resolve_dynamic_shapes(dynamic_shapes, ignore_traced_shapes, dynamic)
        if ignore_traced_shapes:
            dynamic = _capture.all_dims_dynamic(args)
        if not given:
            dynamic = _capture.dynamic_by_parameter(model, args, dynamic)
        exported = _capture.export(model, args, dynamic, s.export_strict, report)
        _promotion.promote_like_eager(exported)  # before any decomposition: each sees eager's dtypes
        _out_arguments.write_out_arguments_like_eager(exported)  # and eager's out= shapes
        before = _capture.graph_ops(exported.graph_module)
        program = _capture.decompose(exported, s.selection, s.selection.auto, report)
        _asserts.asserts_at_boundary(program)  # checks of the input sizes, at the boundary (issue 41)
        _capture.expose_non_persistent_buffers(program)
        weight_names, state_values = None, {}
        everything = s.weights == "arguments"
        if everything or _weights.state_buffers(program):  # state is an argument with inline weights too
            weight_names = _weights.weight_placeholders(program, model, everything)
            state_values = _weights.state_values(program, weight_names, model, everything)
        _imported.lift_list_constants(program, placeholders=weight_names is None)
        kept = _capture.check_survived_pytorch(s.selection, before, _capture.graph_ops(program.graph_module), exported)
        if s.verbose:
            print("==== FX graph after decompositions\n", program.graph_module.code)
        return Capture(model, settings, program, frozenset(kept), weight_names, state_values)

    def import_module(self) -> ir.Module:
        """A fresh torch-mlir import of the decomposed program, each result of
        the entry function marked with what it is (a user output, the new
        value of an input or of a buffer) and the output structure, from the
        graph signature: at import, so the raw module, every later stage and
        the runtime see them."""
        importer = _dynamic.static_where_specialized(FxImporter(context=_ir.make_context(),
                                                                 hooks=_imported.LiteralHooks()))
        name = self.settings.func_name
        try:
            if self.weight_names is None:
                importer.import_frozen_program(self.program, func_name=name, import_symbolic_shape_expressions=True)
            else:
                _weights.import_with_weight_arguments(importer, self.program, self.weight_names, name,
                                                      _weights.tied_weights(self.model, self.weight_names),
                                                      self.state_values, symbolic=True)
        except CompileError:
            raise
        except Exception as e:  # the importer's bare errors (AssertionError, ...), said plainly
            raise _imported.import_error(e) from e
        module = importer.module
        with module.context:
            func = _ir.public_functions(module, name)[0]
            _signature.mark_results(func, self.program)
            _dynamic.mark_boundary(func, self.program)
            _dynamic.mark_baked_numbers(func, self.program)
        return module

