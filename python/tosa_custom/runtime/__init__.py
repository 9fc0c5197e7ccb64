"""The reference runtime: TOSA through linalg to CPU code, tosa.custom to kernels.

Its subpackages are the stages a module passes through, each importing only
the ones before it: `kernels` (what runs behind a tosa.custom), `compiled`
(the CPU the code is planned for, and the code kept on disk), `lower` (the
passes from TOSA to LLVM-ready IR) and `execute` (the Program a call runs:
its boundary, sizes, weights and memref descriptors). The other executors
(iree, refmodel, vgf) take the shared parts from the same places.
"""

from .kernels.registry import KernelCall, register_kernel, registered_kernels, torch_kernel

# The built-in kernels register themselves when imported: here, before a user
# can look a kernel up or register one of theirs (kernels/registry.py).
from .kernels import numpy_kernels, quantized_kernels, tosa_kernels  # noqa: F401  isort: skip
from .kernels.native import KernelLibrary, KernelLibraryError, compile_kernel_library, include_dir, load_kernel_library
from .execute.program import KernelError, Program, load
from .execute.weights import WeightError

__all__ = ["KernelCall", "KernelError", "Program", "load", "register_kernel", "registered_kernels", "torch_kernel",
           "WeightError", "KernelLibrary", "KernelLibraryError", "load_kernel_library", "compile_kernel_library",
           "include_dir"]
