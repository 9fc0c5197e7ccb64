"""The bottom layer: what every other layer builds on and nothing here builds
on them. The registry shape, diagnostics and errors, the dtype and scalar-kind
tables, IR helpers and builders, the pass registry and pipeline runner, op
selection by ATen schema, MLIR file I/O. Imports nothing of tosa_custom's
outside this package."""
