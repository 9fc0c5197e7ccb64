"""What runs behind each tosa.custom: the kernel registry, the native
kernels behind the C ABI, and the built-in Python kernels (numpy, int8
tables, the TOSA ops tosa-to-linalg does not lower).

The bottom of the runtime: it imports no other part of it, so an executor
that binds kernels its own way (IREE's plugin, the reference model's kept
ops) takes them from here without the lowering or the Program.
"""

__all__ = ["native", "numpy_kernels", "quantized_kernels", "registry", "tosa_kernels"]
