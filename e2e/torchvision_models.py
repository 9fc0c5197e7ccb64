"""torchvision's classification and segmentation architectures
(tosa_custom.e2e.vision: one per family, the smallest variant, random
weights, the smallest input each takes), compiled whole as a user would and
compared with eager. A segmentation model's result is its dict of outputs.
Without torchvision the case fails as case-error, saying why it could not be had."""

from tosa_custom.e2e import case
from tosa_custom.e2e.vision import ARCHITECTURES, build, image

FAMILY = "torchvision"  # whole models: the full audit runs them, CI's quick slice does not
# float32 through 20 to 100 layers: eager is up to 8e-5 (relative to the largest logit) off its own
# float64 result (Inception v3, FCN); a compiled program summing in another order is as far.
_TOL = {"rtol": 1e-4, "atol": 1e-4}
# Expected failures: architecture -> {mode: reason}.
XFAIL: dict = {}


def _camel(name: str) -> str:
    return "".join(part[:1].upper() + part[1:] for part in name.split("_"))


def _register(name: str) -> None:
    case(inputs=lambda: (image(name),), family=FAMILY, xfail=XFAIL.get(name),
         name=f"Torchvision{_camel(name)}Module_basic", **_TOL)(lambda: build(name))


for _name in ARCHITECTURES:
    _register(_name)
