"""TOSA-side passes and facts: checks of what TorchToTosa would crash on or
compute wrongly (`checks`, `wrong_lowerings`), products by zero kept
NaN-exact through its folds (`zero_products`), floor and trunc division
exact at integer quotients (`exact_division`), true division as eager
computes it (`true_division`), a half-type tensor times a number in
float32 as eager does (`half_products`), int64 add and sub lowered in i64
(`i64_add_sub`), integer sums in int64 (`integer_sums`), a narrow integer
tensor compared with a number in its type (`scalar_comparisons`), uint8 literals as constants of their bits
(`uint8_literals`), zero-size literals and factories as empty
tensors (`zero_size`), a pooling's empty stride spelt out before
torch-mlir misreads it (`pool_strides`), `any` over no dims before it
folds it wrongly (`logical_reductions`), narrowing of what the target
forbids (`narrow`), and the TOSA target (`target`). Importing the package
registers its passes."""

from . import checks, exact_division, half_products, i64_add_sub, integer_sums, logical_reductions, narrow, pool_strides, scalar_comparisons, target, true_division, uint8_literals, zero_products, zero_size  # noqa: F401  (register their passes)
