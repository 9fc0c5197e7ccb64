"""Dynamic shapes on the real-model list (tosa_custom.e2e.architectures):
every architecture, with transformers' default attention (sdpa) and with its
eager attention, compiled once with a dynamic batch and sequence length and
run at three sizes, the range's ends among them, each against eager. The
sdpa cases' sequence range starts at 1, the eager cases' at 2."""

from tosa_custom.e2e import case
from tosa_custom.e2e.architectures import (ARCHITECTURES, ATTENTIONS, MAX_POSITIONS, SELECTIVE_OPS, architecture,
                                          token_inputs)
from torch.export import Dim

FAMILY = "dynamic_model"  # whole models: the full audit runs them, CI's quick slice does not
MAX_BATCH = 4
FIRST_LENGTH = {"sdpa": 1, "eager": 2}
# Two layers of reductions over at most 64 terms (hidden 32, MLP 64) in float32, as e2e/models.py holds them.
_TOL = {"rtol": 1e-4, "atol": 1e-4}
# Expected failures: (architecture, attention) -> {mode: reason}; selective mode inherits stock's.
XFAIL: dict = {}


def _camel(name: str) -> str:
    return "".join(part[:1].upper() + part[1:] for part in name.split("_"))


def _register(name: str, attention: str) -> None:
    low = FIRST_LENGTH[attention]

    def spec():
        dims = {0: Dim("batch", min=1, max=MAX_BATCH), 1: Dim("seq", min=low, max=MAX_POSITIONS)}
        return {"input_ids": dims, "attention_mask": dims}

    def factory():
        return architecture(name, attention)[0]

    case(inputs=lambda: token_inputs(2, 8), family=FAMILY, dynamic_shapes=spec,
         sizes=lambda: [token_inputs(1, low), token_inputs(MAX_BATCH, MAX_POSITIONS)],
         selective_ops=SELECTIVE_OPS[name], xfail=XFAIL.get((name, attention)),
         name=f"Dynamic{_camel(name)}Module_{attention}_batch_and_sequence", **_TOL)(factory)


for _name in ARCHITECTURES:
    for _attention in ATTENTIONS:
        _register(_name, _attention)
