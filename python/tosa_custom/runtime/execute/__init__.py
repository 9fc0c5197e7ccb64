"""The Program a call runs: loading (kernels bound, module lowered or taken
from the cache), then per call the input checks (`dynamic` for `?` dims),
the memref descriptors (`memref`), the weight arguments (`weights`) and
eager PyTorch's semantics at the boundary (`boundary`); `sources` parses
what a `load()` accepts.

The top of the runtime. The other executors (iree, refmodel, vgf) reuse
its boundary, weights, sources and memref views, not its lowering.
"""

__all__ = ["boundary", "dynamic", "memref", "program", "sources", "weights"]
