"""The reference runtime: TOSA through linalg to CPU code, tosa.custom to kernels."""

from .kernels import KernelCall, register_kernel, registered_kernels, torch_kernel

# The built-in kernels register themselves when imported: here, before a user
# can look a kernel up or register one of theirs (kernels.py).
from . import numpy_kernels, quantized_kernels, tosa_kernels  # noqa: F401  isort: skip
from .native import KernelLibrary, KernelLibraryError, compile_kernel_library, include_dir, load_kernel_library
from .program import KernelError, Program, load
from .weights import WeightError

__all__ = ["KernelCall", "KernelError", "Program", "load", "register_kernel", "registered_kernels", "torch_kernel",
           "WeightError", "KernelLibrary", "KernelLibraryError", "load_kernel_library", "compile_kernel_library",
           "include_dir"]
