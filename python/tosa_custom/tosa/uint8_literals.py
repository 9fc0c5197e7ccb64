"""uint8 literals as TOSA constants of their bits.

TorchToTosa lowers a uint8 `torch.vtensor.literal` (and a cast of one, which
it folds) to a `tosa.const` whose elements stay `ui8` while its type is `i8`,
which the verifier rejects: block_diag of uint8 tensors, whose zero blocks
PyTorch folds into literals, failed to compile in stock and auto mode
(every-sample OpInfo block_diag/uint8/1,2). uint8 is carried as i8 with the
same bits (CONTRACT.md 3.5), so the literal becomes that constant before
TorchToTosa, as the tunnel's operands already do, behind a `tosa.identity`:
torch-mlir folds `torch_c.from_builtin_tensor` of a constant back into a
literal, of type si8, which mismatches the ui8 result the same way.
"""

from __future__ import annotations

from torch_mlir import ir

from ..core import builders as _b
from ..core import dtypes as _dtypes
from ..core import ir as _ir
from ..core.passes import PassContext, register_pass

__all__ = ["UINT8_LITERALS"]

UINT8_LITERALS = "tosa-custom-uint8-literals"


def _is_uint8_literal(op: ir.Operation) -> bool:
    if op.name != "torch.vtensor.literal":
        return False
    parsed = _dtypes.parse_vtensor(str(op.results[0].type))
    return parsed is not None and parsed[1] == "ui8" and isinstance(op.attributes["value"], ir.DenseIntElementsAttr)


def _as_bits(op: ir.Operation) -> ir.Value:
    value = op.attributes["value"]
    builtin = ir.RankedTensorType.get(value.type.shape, ir.IntegerType.get_signless(8))
    const = _b.tosa_const(_b.signless_elements(value, builtin), builtin)
    unfoldable = _b.create("tosa.identity", builtin, [const])
    return _b.create("torch_c.from_builtin_tensor", op.results[0].type, [unfoldable])


@register_pass(UINT8_LITERALS,
               "Make uint8 vtensor literals tosa.const of their int8 bits before TorchToTosa, which makes a "
               "tosa.const of ui8 elements typed i8 (the verifier rejects it)")
def uint8_literals(module: ir.Operation, ctx: PassContext) -> None:
    _ir.replace_each(module, _is_uint8_literal, _as_bits)
