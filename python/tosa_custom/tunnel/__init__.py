"""The tunnel: the pass that turns selected torch ops into `tosa.custom`
(`tunnel_pass`; its options and results in `options`, the conversion itself
in `conversion`), the passes that carry the numbers it makes across function
boundaries (`tensorize`), auto mode's per-instance choice of what to tunnel
(`auto`), the passes that resolve sizes known only at run time
(`sizes`), and the lowering that follows the tunnel (`pipelines`). Importing
the package registers its passes."""

from . import auto, conversion, dynamic_index, dynamic_ops, dynamic_ranks, sizes, tensorize, tunnel_pass  # noqa: F401  (register their passes)
