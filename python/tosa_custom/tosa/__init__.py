"""TOSA-side passes and facts: checks of what TorchToTosa would crash on or
compute wrongly (`checks`, `wrong_lowerings`), narrowing of what the target
forbids (`narrow`), and the TOSA target (`target`). Importing the package
registers its passes."""

from . import checks, narrow, target  # noqa: F401  (register their passes)
