"""Tunneled programs on IREE: each tosa.custom run by its native kernel
(CONTRACT.md §11), or else by its Python kernel called back in this
process, inside IREE's multi-threaded CPU runtime, everything else compiled
from TOSA by IREE itself.

    program = tosa_custom.iree.load(module, threads=2)
    y = program(x)

The pieces, bottom up: the dispatch pass (`tosa-custom-iree-dispatch-native`,
dispatch.py), binding and the sites file (sites.py), Python kernels as
plugin sites (callbacks.py), the plugin seen from
Python (plugin.py; the plugin itself is lib/iree_plugin.c), the program
(program.py), its vmfb kept on disk (cached.py), and the saved artifact
(artifact.py).
"""

from .dispatch import DISPATCH_NATIVE, dispatch_native
from .artifact import SavedProgram, save
from .program import Program, load

__all__ = ["DISPATCH_NATIVE", "Program", "SavedProgram", "dispatch_native", "load", "save"]
