"""Commands: `tosa-custom-opt` (every pass of every layer, as mlir-opt
registers all passes) and `tosa-custom-example`. The top layer: nothing
imports it."""
