"""The OpInfo suite's expected failures: one reviewed table, a reason each.

`XFAIL` gathers them per mode: stock's own entries are in their own module
(`opinfo_xfail_stock`, most of the table), the other modes' are here, as are
the samples that fail the same in every mode (`BEFORE_LOWERING`).

As for the e2e suite's `xfail=`, per mode; a case listed here that passes is
reported as xpass and fails the run, so the table cannot silently go stale.

Keys (selectors), the most specific match wins:
  "<op>"                   every sample of the op, every dtype
  "<op>/<dtype>"           every sample at that dtype
  "<op>/<dtype>/<index>"   one sample
where <op> is OpInfo's name plus ".<variant>" when it has one (`opinfo.op_id`).

Each reason is the failure's cause: its category, then the stage and the op
or rule the error names (drafted from a full run by `opinfo_triage.reason`,
then reviewed). "(ours)" marks failures in this project's runtime, not in
torch-mlir or PyTorch.

Stock mode's numeric mismatches are not written here: they are the ops
TorchToTosa lowers wrongly, a package-level fact with its own home,
`tosa_custom.wrong_lowerings` (auto mode reads it to tunnel them), and each
entry's sample becomes a stock-mode expected failure here (`derived()`).
Selective mode inherits stock's expectations (registry.Case.inherited_failure).
"""

from __future__ import annotations

from ..tosa.wrong_lowerings import WRONG_LOWERINGS, WrongLowering
from .opinfo_xfail_stock import STOCK

__all__ = ["XFAIL", "BEFORE_LOWERING", "derived", "wrong_lowering_reason", "expected_failures", "selectors"]


def wrong_lowering_reason(w: WrongLowering) -> str:
    """The stock-mode expectation of a wrong lowering's sample."""
    dtypes = f" on {', '.join(w.dtypes)}" if w.dtypes else ""
    dtypes += f" with {w.condition}" if w.condition else ""
    return (f"wrong-lowering: stock mode lowers {w.op}{dtypes} wrongly ({w.detail}); it differs from eager "
            f"by up to {w.max_diff:.3g} (tosa_custom.wrong_lowerings)")


def derived() -> dict[str, dict[str, str]]:
    """mode -> selector -> reason for the expectations that live elsewhere:
    each wrong lowering's OpInfo sample, in stock mode (an `e2e:` sample's
    expectation is declared beside that case)."""
    return {"stock": {w.sample: wrong_lowering_reason(w) for w in WRONG_LOWERINGS if not w.sample.startswith("e2e:")}}


# Samples eager PyTorch itself cannot run on a CPU-only machine: every mode.
_EAGER_FAILS = {
    f"jiterator_{name}": "eager-failed: AssertionError: Jiterator is only supported on CUDA and ROCm GPUs, "
                         "none are available."
    for name in ("2inputs_2outputs", "4inputs_with_extra_args", "binary", "binary_return_by_ref", "unary")
}

# Samples that fail before any op is lowered (eager PyTorch, torch.export, the
# FX importer): the same reason in stock and dummy mode, and so in the modes
# that inherit theirs (registry.Case.inherited_failure).
BEFORE_LOWERING = {
    **_EAGER_FAILS,
    "allclose":
        "export-failed: torch.export cannot capture it (DataDependentOutputException): aten.allclose.default",
    "cdouble":
        "compile-failed: torch-mlir's FX importer could not import the exported program (KeyError: torch.complex128).",
    "corrcoef":
        "export-failed: torch.export cannot capture it (DataDependentOutputException): aten.equal.default",
    "cov":
        "export-failed: torch.export cannot capture it (DataDependentOutputException): aten.equal.default",
    "equal":
        "export-failed: torch.export cannot capture it (DataDependentOutputException): aten.equal.default",
    "hash_tensor":
        "compile-failed: torch-mlir's FX importer could not import the exported program (KeyError: torch.uint64).",
    "linalg.lstsq":
        "export-failed: torch.export cannot capture it (DynamicOutputShapeException): aten.linalg_lstsq.default",
    "linalg.lstsq.grad_oriented":
        "export-failed: torch.export cannot capture it (DynamicOutputShapeException): aten.linalg_lstsq.default",
    "nn.functional.ctc_loss":
        "export-failed: torch.export cannot capture it (DynamicOutputShapeException): aten._ctc_loss.default",
    "nn.functional.gaussian_nll_loss":
        "export-failed: torch.export cannot capture it (GuardOnDataDependentSymNode): Could not guard on data-dependent expression Eq(u0, 1) (unhinted: Eq(u0, 1)). (Size-like symbols: none)",
    "nn.functional.one_hot":
        "export-failed: torch.export cannot capture it (GuardOnDataDependentSymNode): Could not extract specialized integer from data-dependent expression u0 (unhinted: u0). (Size-like symbols: none)",
}

# mode -> selector -> reason: drafted from the full float32+int64 runs (first sample per op and dtype)
# by opinfo_triage.reason, then reviewed.
XFAIL: dict[str, dict[str, str]] = {
    "stock": {**BEFORE_LOWERING, **STOCK},
    "selective": {
    },
    "dummy": {
        **BEFORE_LOWERING,
        "argwhere":
            "lowering-failed: torch-mlir has no torch-dialect op for aten.argwhere (imported as torch.operator, illegal at the backend contract); tunneling it is refused: its result's size depends on the data, which no tosa.custom result_shapes can state (CONTRACT.md 15.2)",
        "bincount":
            "dynamic-result-shape: aten.bincount: its result's size depends on the data, which no tosa.custom result_shapes can state (CONTRACT.md 15.2)",
        "cfloat":
            "kernel-error (ours): the aten._to_copy kernel: KernelError: result #0 is [] complex128, expected [] complex64",
        "chalf":
            "lowering-failed: torch-mlir has no torch-dialect op for aten.chalf (imported as torch.operator, illegal at the backend contract)",
        "combinations/float32":
            "lowering-failed: torch-mlir has no torch-dialect op for aten.combinations (imported as torch.operator, illegal at the backend contract); tunneling it is refused: its result's size depends on the data, which no tosa.custom result_shapes can state (CONTRACT.md 15.2)",
        "combinations/int64":
            "lowering-failed: torch-mlir has no torch-dialect op for aten.combinations (imported as torch.operator, illegal at the backend contract); tunneling it is refused: its result's size depends on the data, which no tosa.custom result_shapes can state (CONTRACT.md 15.2)",
        "histogramdd":
            "kernel-error (ours): the aten.histogramdd kernel: KernelError: returned 2 results, the op has 6",
        "masked_select/float32":
            "dynamic-result-shape: aten.masked_select: its result's size depends on the data, which no tosa.custom result_shapes can state (CONTRACT.md 15.2)",
        "masked_select/int64":
            "dynamic-result-shape: aten.masked_select: its result's size depends on the data, which no tosa.custom result_shapes can state (CONTRACT.md 15.2)",
        "nonzero":
            "lowering-failed: aten.nonzero not tunneled [zero-size-tensor: result #0 of torch.aten.nonzero has zero-size type !torch.vtensor<[?,0],si64> with dynamic dims] and TorchToTosa has no lowering for it",
        "tensor_split/float32":
            "dynamic-result-shape: aten.slice.Tensor (tensor_split's pieces, to run-time ends read from its indices): its result's size depends on the data, which no tosa.custom result_shapes can state (CONTRACT.md 15.2)",
        "tensor_split/int64":
            "dynamic-result-shape: aten.slice.Tensor (tensor_split's pieces, to run-time ends read from its indices): its result's size depends on the data, which no tosa.custom result_shapes can state (CONTRACT.md 15.2)",
        "to_sparse":
            "lowering-failed: torch-mlir has no torch-dialect op for aten.to_sparse (imported as torch.operator, illegal at the backend contract)",
        "unique/float32":
            "lowering-failed: torch-mlir has no torch-dialect op for aten._unique2 (imported as torch.operator, illegal at the backend contract); tunneling it is refused: its result's size depends on the data, which no tosa.custom result_shapes can state (CONTRACT.md 15.2)",
        "unique/int64":
            "lowering-failed: torch-mlir has no torch-dialect op for aten._unique2 (imported as torch.operator, illegal at the backend contract); tunneling it is refused: its result's size depends on the data, which no tosa.custom result_shapes can state (CONTRACT.md 15.2)",
        "unique_consecutive/float32":
            "dynamic-result-shape: aten.unique_consecutive: its result's size depends on the data, which no tosa.custom result_shapes can state (CONTRACT.md 15.2)",
        "unique_consecutive/int64":
            "dynamic-result-shape: aten.unique_consecutive: its result's size depends on the data, which no tosa.custom result_shapes can state (CONTRACT.md 15.2)",
    },
    # Auto mode passes every sample stock or dummy passes, with no exception (float32 and int64, every
    # sample of linspace and roll checked after the feedback from later stages landed; the 15 int64
    # linspace.tensor_overload samples since the frontend's own linspace decomposition converts the ends).
    "auto": {},
}


def selectors(op: str, dtype: str, index: int) -> list[str]:
    """The keys that can name this sample, most specific first."""
    return [f"{op}/{dtype}/{index}", f"{op}/{dtype}", op]


def expected_failures(op: str, dtype: str, index: int) -> dict[str, str]:
    """mode -> reason for the sample's case, from XFAIL and the derived entries."""
    keys = selectors(op, dtype, index)
    extra = derived()
    found = {}
    for mode in set(XFAIL) | set(extra):
        table = {**XFAIL.get(mode, {}), **extra.get(mode, {})}
        reason = next((table[k] for k in keys if k in table), None)
        if reason is not None:
            found[mode] = reason
    return found
