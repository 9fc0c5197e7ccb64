"""The compiled code: the CPU it is planned for (`cpu`), the persistent
cache every loader shares (`cache`), the runtime's code kept there as a
shared object (`compiled_code`), and a large program's code compiled by
several processes into one (`parallel`, each running `compile_worker`).

It sits on the kernels (a shared object's imports are the native kernels'
trampolines) and under the lowering, which plans its tiles for the CPU
named here.
"""

__all__ = ["cache", "compiled_code", "compile_worker", "cpu", "parallel"]
