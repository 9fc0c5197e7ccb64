"""`load(module)`: a tunneled TOSA program run by TOSA's reference model,
segment by segment, each tosa.custom by our kernels in between.

The calling convention and the result semantics are the reference
runtime's, from the same code, as tosa_custom.iree has them: the entry's
signature and weight arguments (`runtime.execute.weights.WeightSlots`), the input
checks (the runtime's own `Program._check_inputs`), and what each result is
(`runtime.execute.boundary.Boundary`: in-place write-back, buffer state, Python
numbers, the model's structure). The entry is cut at its kept ops
(split.py); each TOSA segment is serialized once at load and run by the
reference model's Python extension (engine.py), and each kept op is a
program of the reference runtime holding that op alone (`runtime.load`):
the kernel is chosen, prepared and called as it is in a whole program
(native first, the user's registered kernels, numpy, the generic torch one;
`kernels=`/`torch_fallback=` as there), with the op's constant operands
cloned in so it decodes the same.

Between pieces, values travel as torch tensors of the types the TOSA
declares (uint8 on int8, complex as real pairs: CONTRACT.md 3.5); the
boundary gives the caller the torch dtypes, as the runtime does.

The reference model is an interpreter of static graphs: a module with a
`?` dim is refused at load (`dynamic-shape`). Each segment runs once at
load on ones (zeros would divide integers by zero, a SIGFPE that kills the
process), so a graph the reference model cannot run (an op or type it
does not implement, such as i64 casts) is refused at load, with what the
reference model said, not at the first call.
"""

from __future__ import annotations

import dataclasses
import threading

import torch
from torch_mlir import ir

from ..core import ir as _ir
from ..core.diagnostics import CompileError
from ..runtime import load as runtime_load
from ..runtime.execute import program as _runtime_program
from ..runtime.execute.boundary import Boundary
from ..runtime.execute.sources import parse_source
from ..runtime.execute.memref import MLIR_TO_TORCH
from ..runtime.execute.weights import WeightSlots
from . import engine, split

__all__ = ["Program", "PieceReport", "load"]


def _stored(t: ir.Type) -> torch.dtype:
    """The torch dtype a value of TOSA type `t` travels as between pieces."""
    element = str(ir.RankedTensorType(t).element_type)
    if element not in MLIR_TO_TORCH:
        raise CompileError(f"a value has element type {element}, which the runtime's kernels and this "
                           "program do not carry", category="non-tensor-interface")
    return MLIR_TO_TORCH[element]


def _as_stored(t: torch.Tensor, dtype: torch.dtype) -> torch.Tensor:
    """An input or weight as it travels: complex as real pairs, uint8 on int8."""
    if t.is_complex():
        t = torch.view_as_real(t)
    return t if t.dtype == dtype else t.view(dtype)


def _as_declared(t: torch.Tensor, dtype: torch.dtype) -> torch.Tensor:
    """A result as the caller gets it: the torch dtype the boundary declares."""
    if dtype.is_complex:
        return torch.view_as_complex(t.contiguous())
    return t if t.dtype == dtype else t.view(dtype)


def _refuse_what_it_cannot_run(graph: split.Graph) -> None:
    """A `?` dim, or an f64 value (no TOSA type: tosa-tools' serializer
    aborts on one), refused before anything is serialized."""
    for t in graph.types:
        if isinstance(t, ir.UnrankedTensorType) or (isinstance(t, ir.RankedTensorType) and not t.has_static_shape):
            raise CompileError(f"the program has a value of type {t}: the TOSA reference model interprets graphs "
                               "of static shapes only; run a program with `?` dims on tosa_custom.runtime",
                               category="dynamic-shape")
        if isinstance(t, ir.RankedTensorType) and str(t.element_type) == "f64":
            raise CompileError(f"the program has a value of type {t}: TOSA has no f64, so neither has its reference "
                               "model (compile with tosa_target=\"auto\" to narrow or find such values)",
                               category="runtime-lowering-failed")


@dataclasses.dataclass(frozen=True)
class PieceReport:
    """One piece of the program as it runs: a segment of TOSA on the reference
    model (`ops` TOSA ops, constants cloned in included), or a kept op on its
    kernel (`kept`, `kernel`); `inputs`/`outputs` are the types crossing it."""

    kind: str  # "segment" or "kept"
    ops: int
    inputs: tuple[str, ...]
    outputs: tuple[str, ...]
    kept: str | None = None  # the tosa.custom's operator name
    kernel: str | None = None

    def __repr__(self) -> str:
        what = f"{self.kept} by {self.kernel}" if self.kind == "kept" else f"reference model, {self.ops} ops"
        return f"<{self.kind}: {what}; {len(self.inputs)} in, {len(self.outputs)} out>"


class _Segment:
    def __init__(self, piece: split.Piece, graph: split.Graph, context: ir.Context, number: int):
        self.piece = piece
        module = split.build(piece, graph, context)
        results = [(tuple(graph.types[n].shape), _stored(graph.types[n])) for n in piece.outputs]
        self.engine = engine.Segment(engine.serialize(module), results, f"segment {number}")

    def run(self, tensors: list[torch.Tensor]) -> list[torch.Tensor]:
        return self.engine.run(tensors)


class _Kept:
    def __init__(self, piece: split.Piece, graph: split.Graph, context: ir.Context, options: dict):
        self.piece = piece
        self.program = runtime_load(split.build(piece, graph, context), **options)

    def run(self, tensors: list[torch.Tensor]) -> list[torch.Tensor]:
        result = self.program(*tensors)
        return list(result) if isinstance(result, tuple) else [result]


class _Unwritten:
    """WeightSlots' descriptor block: a call reads the weights from the
    slots themselves, so nothing is written ahead."""

    def set(self, index: int, tensor: torch.Tensor) -> None:
        pass


class Program:
    """A module run by the TOSA reference model and our kernels: call it with
    tensors, get tensors back (runtime.load's convention)."""

    # The runtime's own input checks (count, shape, dtype, Python numbers for
    # 0-d inputs, contiguous, complex as pairs), which read `entry` and `input_specs`.
    _check_inputs = _runtime_program.Program._check_inputs

    def __init__(self, module: ir.Module, entry: str | None = None, *, check: bool = True, **kernel_options):
        with module.context:
            func = self._read_signature(module, entry)
            self._plan = split.plan(func, self._weights.count)
            graph = self._plan.graph
            _refuse_what_it_cannot_run(graph)
            self._steps = self._prepare(module.context, kernel_options)
            self._dtypes = self._crossing_dtypes(graph)
        self._lock = threading.RLock()
        self._weights.attach(_Unwritten(), len(self.input_specs))
        self._weights.bind_defaults()
        if check:
            for step in self._steps:
                if isinstance(step, _Segment):
                    step.engine.check([torch.ones(graph.types[n].shape, dtype=self._dtypes[n])
                                       for n in step.piece.inputs])

    def _crossing_dtypes(self, graph: split.Graph) -> list[torch.dtype | None]:
        """The stored dtype of each value that crosses a piece's edge (None
        for the others): a value inside a segment may have a type no torch
        dtype holds, such as the i48 accumulator of an i16 convolution."""
        crossing = set(range(graph.arguments)) | set(graph.results)
        for p in self._plan.pieces:
            crossing.update(p.inputs, p.outputs)
        return [_stored(t) if n in crossing and isinstance(t, ir.RankedTensorType) else None
                for n, t in enumerate(graph.types)]

    def _prepare(self, context: ir.Context, kernel_options: dict) -> list:
        """Each piece ready to run: a segment serialized, a kept op loaded."""
        steps, graph = [], self._plan.graph
        for p in self._plan.pieces:
            segments = sum(isinstance(s, _Segment) for s in steps)
            steps.append(_Kept(p, graph, context, kernel_options) if p.kind == "kept" else
                         _Segment(p, graph, context, segments))
        return steps

    def _read_signature(self, module: ir.Module, entry: str | None) -> ir.Operation:
        func = _runtime_program.entry_func(module, entry)
        self.entry = ir.StringAttr(func.attributes["sym_name"]).value
        ftype = _ir.function_type(func)
        self._weights = WeightSlots.prepare(module, func)
        n_inputs = len(ftype.inputs) - self._weights.count
        spec = _runtime_program._spec
        self.input_specs = [spec(t, f"input #{i}", True) for i, t in enumerate(ftype.inputs[:n_inputs])]
        self.output_specs = [spec(t, f"result #{i}", True) for i, t in enumerate(ftype.results)]
        _runtime_program._apply_torch_dtypes(func, self.input_specs, self.output_specs)
        self._boundary = Boundary(func, self._weights.manifest.names)
        return func

    def _kept(self) -> list[_Kept]:
        return sorted((s for s in self._steps if isinstance(s, _Kept)), key=lambda s: s.piece.ops[0])

    @property
    def custom_ops(self) -> list[str]:
        """The module's tosa.custom ops, in module order."""
        return [op for s in self._kept() for op in s.program.custom_ops]

    @property
    def kernels(self) -> list[str]:
        """Which kernel runs each custom op, in module order (runtime.Program.kernels)."""
        return [k for s in self._kept() for k in s.program.kernels]

    @property
    def segments(self) -> list[PieceReport]:
        """The pieces in the order they run: segments of TOSA and kept ops."""
        graph, out = self._plan.graph, []
        for step in self._steps:
            p = step.piece
            types = (tuple(str(graph.types[n]) for n in p.inputs), tuple(str(graph.types[n]) for n in p.outputs))
            if isinstance(step, _Kept):
                out.append(PieceReport("kept", 1, *types, step.program.custom_ops[0], step.program.kernels[0]))
            else:
                out.append(PieceReport("segment", len(p.ops) + len(p.constants), *types))
        return out

    # Weights as arguments (CONTRACT.md §10) and state: the runtime's own
    # methods, which read `_weights`, `_lock` and `_boundary`, as this has them.
    load_weights = _runtime_program.Program.load_weights
    save = _runtime_program.Program.save
    weights_manifest = _runtime_program.Program.weights_manifest
    state_dict = _runtime_program.Program.state_dict
    reset_state = _runtime_program.Program.reset_state
    boundary = _runtime_program.Program.boundary

    def __call__(self, *inputs):
        self._boundary.check(inputs)
        with self._lock:
            tensors = list(self._check_inputs(inputs))  # int64 carried as int32 narrowed there too
            if self._weights.count:
                self._weights.require()
                tensors += self._weights.tensors
            values = {n: _as_stored(t, self._dtypes[n]) for n, t in enumerate(tensors)}
            for step in self._steps:
                values.update(zip(step.piece.outputs, step.run([values[n] for n in step.piece.inputs])))
            results = [_as_declared(t, s.dtype) for t, s in zip(self._results(values), self.output_specs)]
            return self._boundary.finish(inputs, results, self._weights)

    def _results(self, values: dict) -> list[torch.Tensor]:
        """The entry's results: fresh tensors each (an argument returned as
        it is, or a value returned twice, is copied, as the runtime's
        compiled code writes each result into its own buffer)."""
        graph, seen, out = self._plan.graph, set(), []
        for n in graph.results:
            if graph.empty(n):
                t = torch.empty(graph.types[n].shape, dtype=self._dtypes[n])
            else:
                t = values[n].clone() if n < graph.arguments or n in seen else values[n]
            seen.add(n)
            out.append(t)
        return out


def load(module, entry: str | None = None, *, weights=None, native: bool = True, torch_fallback: bool = True,
         kernels: str = "all", check: bool = True) -> Program:
    """A program run by the TOSA reference model, each tosa.custom by our kernels.

    Same calling convention and results as `tosa_custom.runtime.load` (torch
    or numpy inputs, the model's structure, in-place write-back, buffer
    state, `weights=` for a module whose weights are arguments, a saved
    program's directory); the module is consumed. `native`,
    `torch_fallback` and `kernels` choose the kept ops' kernels as
    runtime.load does. `check=False` skips running each segment once at
    load (then a graph the reference model refuses fails the first call).
    Needs TOSA's toolchain (`tosa-custom-tosa-tools install`).
    """
    module, saved_entry, saved_weights = parse_source(module)
    program = Program(module, entry or saved_entry, check=check, native=native, torch_fallback=torch_fallback,
                      kernels=kernels)
    weights = weights if weights is not None else saved_weights
    if weights is not None:
        program.load_weights(weights)
    return program
