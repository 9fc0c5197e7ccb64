"""Half-type arithmetic rounded after every op, as eager PyTorch rounds it.

Eager computes a float16 or bfloat16 op in float32 and rounds its result to
the half type; the next op starts from that rounded value. Two steps of the
lowering skipped the rounding between ops, so a chain such as
`-1.5 * a + 2 * b - 0.5 * c` (torch.gradient's second-order edges,
every-sample OpInfo gradient/float16/5 and bfloat16/7) came out an ulp off
eager in a sixth to a third of its elements, in stock and auto mode:

- `tosa-custom-fuse-multiply-add` made `a * b + c` one FMA, one rounding.
  It now leaves half-type vectors alone (their contractions accumulate in
  float32, where it still fuses).
- `arith-emulate-unsupported-floats` (and `math-extend-to-supported-types`,
  for bfloat16 math ops) computes each bfloat16 op in float32 between an
  `extf` and a `truncf` marked `fastmath<contract>`, and with that flag
  `extf(truncf(x))` folds to `x` in the next greedy pass: the product (or
  `exp`) went on unrounded. `tosa-custom-round-emulated-floats`, right
  after both emulations, drops the flag, so every rounding stays.
"""

from __future__ import annotations

from torch_mlir import ir

from ...core.ir import collect_ops
from ...core.passes import PassContext, register_pass

__all__ = ["ROUND_EMULATED_FLOATS", "round_emulated_floats"]

ROUND_EMULATED_FLOATS = "tosa-custom-round-emulated-floats"

_CASTS = ("arith.extf", "arith.truncf")


@register_pass(ROUND_EMULATED_FLOATS,
               "Drop fastmath flags from arith.extf and arith.truncf (arith-emulate-unsupported-floats marks them "
               "contract, which lets extf(truncf(x)) fold to x: a bfloat16 op's result went on to the next op "
               "unrounded, where eager PyTorch rounds it)")
def round_emulated_floats(module: ir.Operation, ctx: PassContext) -> None:
    for op in collect_ops(module, lambda o: o.name in _CASTS and "fastmath" in o.attributes):
        del op.attributes["fastmath"]
