"""The tunnel: the pass that turns selected torch ops into `tosa.custom`
(`conversion`), the passes that carry the numbers it makes across function
boundaries (`tensorize`), auto mode's per-instance choice of what to tunnel
(`auto`), and the lowering that follows the tunnel (`pipelines`). Importing
the package registers its passes."""

from . import auto, conversion  # noqa: F401  (register their passes)
