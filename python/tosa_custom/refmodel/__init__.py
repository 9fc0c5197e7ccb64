"""Tunneled programs on TOSA's reference model: every segment free of kept
ops run by the specification's own interpreter (tosa-tools), each
tosa.custom by our kernels between them.

    program = tosa_custom.refmodel.load(module)
    y = program(x)
    print(program.segments)   # the pieces, in the order they run

The pieces, bottom up: cutting the entry at its kept ops (split.py), one
segment as a flatbuffer on the reference model (engine.py), the program
(program.py).
"""

from .engine import ReferenceModelError
from .program import PieceReport, Program, load

__all__ = ["PieceReport", "Program", "ReferenceModelError", "load"]
