"""The lowering from torch IR (listed ops tunneled) to checked TOSA, as pass
elements: compile() runs it after the tunnel, and auto mode runs it on
trial copies to learn what must be tunneled (auto.py). One list, so what auto
mode tries is what compile() does."""

from __future__ import annotations

from torch_mlir import passmanager

from ..tosa import checks as _checks
from ..tosa import custom_operands as _custom_operands
from ..tosa import exact_division as _exact_division
from ..tosa import half_products as _half_products
from ..tosa import i64_add_sub as _i64_add_sub
from ..tosa import integer_powers as _integer_powers
from ..tosa import integers_in_float as _integers_in_float
from ..tosa import integer_sums as _integer_sums
from ..tosa import true_division as _true_division
from ..tosa import uint8_literals as _uint8_literals
from ..tosa import narrow as _narrow
from ..tosa import narrow_i64 as _narrow_i64
from ..tosa import reshape_sizes as _reshape_sizes
from ..tosa import scalar_comparisons as _scalar_comparisons
from ..tosa import zero_products as _zero_products
from ..tosa import zero_size as _zero_size
from ..core.passes import split_pipeline
from ..quant.boundary import QUANTIZED_BOUNDARY
from ..quant.lowering import LOWER_QUANTIZED
from ..quant.kept import KEPT_QUANTIZED
from .dynamic_index import INDEX_BY_ARANGES
from .dynamic_ops import LOWER_DYNAMIC_OPS
from .resize import LOWER_BILINEAR_UPSAMPLE
from .dynamic_ranks import ALIGN_DYNAMIC_RANKS
from .sizes import DROP_SYMBOLIC_SHAPES, RESOLVE_SIZE_LISTS, SIZES_AS_TENSORS
from .tensorize import TENSORIZE_BUILTIN_SCALAR_BOUNDARY, TENSORIZE_SCALAR_BOUNDARY

__all__ = ["after_tunnel", "tosa_lowering"]

_VERIFY_PASS = "torch-verify-tosa-backend-contract"


def tosa_lowering() -> list[str]:
    """torch-mlir's TOSA backend pipeline, minus its contract check, which
    refuses the builtin ops CONTRACT.md 4.5 allows; `tosa-custom-verify-tosa`
    checks the rest. Call inside an `ir.Context`."""
    expanded = str(passmanager.PassManager.parse("builtin.module(torch-backend-to-tosa-backend-pipeline)"))
    return [e for e in split_pipeline(expanded) if e.split("{")[0] != _VERIFY_PASS]


def after_tunnel(target=None, quantized: bool = False, tables: tuple = ()) -> list[str]:
    """Everything after the tunnel: resolve sizes known only at run time
    (sizes.py; the tunnel's encoder read their bindings), return the numbers and complex values a
    tosa.custom made as tensors (auto mode tunnels some only here), make
    zero-size values empty tensors (nothing there to compute wrongly), compare
    a narrow integer tensor with a number in its type, refuse
    what TorchToTosa would compute wrongly or crash on (bilinear upsampling
    as one tosa.resize: resize.py), keep products by zero
    from its folds, make rounding division exact at integer quotients, and
    true division and half-type products by a number eager's, lower (int64
    add and sub and uint8 literals ourselves: TorchToTosa computes the first
    in i32 and mistypes the last; integer sums in int64, whose dtype we spell out), tidy, narrow what the target forbids, check that
    only TOSA remains. `target` is compile()'s (a TosaTarget, "auto" or
    None): a float program's small integers are computed in f32 unless it
    has pro_int or there is none. A `quantized` model's dequantize -> op ->
    quantize groups become integer TOSA last (quant/), a kept op one custom op on
    the integers; `tables`: the ATen ops compile() kept only for the lowering's TABLEs. Call inside an `ir.Context`."""
    return [INDEX_BY_ARANGES, RESOLVE_SIZE_LISTS, SIZES_AS_TENSORS, LOWER_DYNAMIC_OPS, LOWER_BILINEAR_UPSAMPLE,
            ALIGN_DYNAMIC_RANKS,
            DROP_SYMBOLIC_SHAPES,
             f"{TENSORIZE_SCALAR_BOUNDARY}{{arguments=false}}", _zero_size.ZERO_SIZE_AS_EMPTY,
            _scalar_comparisons.SCALAR_COMPARISONS,
            _checks.CHECK_SIGN_SEMANTICS, f"{_checks.CHECK_KNOWN_CRASHES}{{stage=tosa}}",
            _zero_products.KEEP_NAN_IN_ZERO_PRODUCTS, _exact_division.EXACT_ROUNDING_DIVISION,
            _true_division.TRUE_DIVISION, _half_products.HALF_PRODUCTS, _i64_add_sub.I64_ADD_SUB, _integer_sums.INTEGER_SUMS,
            _uint8_literals.UINT8_LITERALS,
            *tosa_lowering(),
            _checks.TENSOR_CONSTANTS_AS_TOSA, _integer_powers.INTEGER_POWERS, _reshape_sizes.EXPLICIT_RESHAPE_SIZES,
            TENSORIZE_BUILTIN_SCALAR_BOUNDARY, _narrow.NARROW_I64_CASTS, _narrow.NARROW_F64,
            _narrow.NARROW_I64_GATHER, _narrow_i64.NARROW_I64_VALUES, _custom_operands.INT64_OPERANDS_AS_INT32,
            _integers_in_float_element(None if quantized else target),  # a quantized model is integer TOSA
            _narrow.WIDEN_INT_ARITHMETIC, *(_quantized(tables) if quantized else []),
            _checks.VERIFY_TOSA]


def _quantized(tables: tuple) -> list[str]:
    kept = f"{KEPT_QUANTIZED}{{tables={','.join(tables)}}}" if tables else KEPT_QUANTIZED
    return [QUANTIZED_BOUNDARY, kept, LOWER_QUANTIZED]


def _integers_in_float_element(target) -> str:
    """`tosa-custom-integers-in-float` for the target: it aims at pro_fp
    alone unless the target has pro_int too, or there is no target to meet."""
    profiles = ("pro_int", "pro_fp") if target is None else getattr(target, "profiles", ("pro_fp",))
    return f"{_integers_in_float.INTEGERS_IN_FLOAT}{{profiles={','.join(profiles)}}}"
