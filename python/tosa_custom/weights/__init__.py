"""Weights as named arguments of the entry function (CONTRACT.md §10).

- `manifest`: the argument markers (`tosa_custom.input`, `tosa_custom.weight`)
  and the JSON manifest;
- `export`: `compile(..., weights="arguments")`, from torch.export's graph
  signature;
- `passes`: `tosa-custom-lift-weights` / `tosa-custom-bind-weights` for IR
  from anywhere else;
- `blobs`: the values a module holds (resource blobs, the kept
  `tosa_custom.weight_values`) and their conversion to and from tensors;
- `checkpoint`: weights on disk (`read_checkpoint`) and the saved program's layout.

The runtime side (binding, checking and saving the weights of a program) is
`tosa_custom.runtime.execute.weights`; it reads through `blobs` and `checkpoint`.
"""

from .export import WEIGHT_MODES
from .manifest import (
    INPUT_ATTR,
    MANIFEST_FORMAT,
    MANIFEST_VERSION,
    TIED_ATTR,
    VALUES_ATTR,
    WEIGHT_ATTR,
    ArgumentSpec,
    Manifest,
    ManifestError,
    read_manifest,
)
from .passes import BIND_ARGUMENT, LIFT_ARGUMENT, bind_weights, lift_weights

__all__ = [
    "BIND_ARGUMENT",
    "INPUT_ATTR",
    "LIFT_ARGUMENT",
    "MANIFEST_FORMAT",
    "MANIFEST_VERSION",
    "TIED_ATTR",
    "VALUES_ATTR",
    "WEIGHT_ATTR",
    "WEIGHT_MODES",
    "ArgumentSpec",
    "Manifest",
    "ManifestError",
    "bind_weights",
    "lift_weights",
    "read_manifest",
]
