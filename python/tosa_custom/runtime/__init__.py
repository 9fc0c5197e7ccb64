"""The reference runtime: TOSA through linalg to CPU code, tosa.custom to kernels."""

from .kernels import KernelCall, register_kernel, registered_kernels, torch_kernel
from .program import KernelError, Program, load

__all__ = ["KernelCall", "KernelError", "Program", "load", "register_kernel", "registered_kernels", "torch_kernel"]
