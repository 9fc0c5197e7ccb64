"""The OpInfo suite's expected failures: one reviewed table, a reason each.

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

from ..wrong_lowerings import WRONG_LOWERINGS, WrongLowering

__all__ = ["XFAIL", "derived", "wrong_lowering_reason", "expected_failures", "selectors"]


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


# mode -> selector -> reason: drafted from the full float32+int64 runs (first sample per op and dtype)
# by opinfo_triage.reason, then reviewed.
XFAIL: dict[str, dict[str, str]] = {
    "stock": {
        "__rpow__/int64":
            "lowering-failed: TorchToTosa has no lowering for aten.pow.Tensor_Tensor",
        "_batch_norm_with_update":
            "lowering-failed: torch-mlir has no torch-dialect op for aten._batch_norm_with_update_functional (imported as torch.operator, illegal at the backend contract)",
        "_segment_reduce.lengths":
            "lowering-failed: torch-mlir has no torch-dialect op for aten.segment_reduce (imported as torch.operator, illegal at the backend contract)",
        "_segment_reduce.offsets":
            "lowering-failed: torch-mlir has no torch-dialect op for aten.segment_reduce (imported as torch.operator, illegal at the backend contract)",
        "_unsafe_masked_index_put_accumulate":
            "lowering-failed: TorchToTosa has no lowering for aten.index_put.hacked_twin",
        "_upsample_bilinear2d_aa":
            "lowering-failed: torch-mlir has no torch-dialect op for aten._upsample_bilinear2d_aa (imported as torch.operator, illegal at the backend contract)",
        "acos":
            "lowering-failed: TorchToTosa has no lowering for aten.acos",
        "acosh":
            "lowering-failed: TorchToTosa has no lowering for aten.acosh",
        "addbmm/int64":
            "lowering-failed: TorchToTosa has no lowering for aten.addbmm",
        "addmv":
            "lowering-failed: torch-mlir has no torch-dialect op for aten.addmv (imported as torch.operator, illegal at the backend contract)",
        "allclose":
            "export-failed: torch.export cannot capture it (DataDependentOutputException): aten.allclose.default",
        "angle":
            "lowering-failed: torch-mlir has no torch-dialect op for aten.angle (imported as torch.operator, illegal at the backend contract)",
        "argmax/float32":
            "lowering-failed: the lowering to TOSA produces invalid IR: 'arith.extsi' op operand #0 must be signless-fixed-width-integer-like, but got 'tensor<f32>'",
        "argmax/int64":
            "lowering-failed: the lowering to TOSA produces invalid IR: 'arith.extsi' op operand type 'tensor<i64>' and result type 'tensor<i64>' are cast incompatible",
        "argmin":
            "lowering-failed: TorchToTosa has no lowering for aten.argmin",
        "argsort":
            "lowering-failed: TorchToTosa has no lowering for aten.sort",
        "argwhere":
            "lowering-failed: TorchToTosa has no lowering for aten.scatter_add",
        "as_strided_copy":
            "lowering-failed: TorchToTosa has no lowering for aten.as_strided_copy",
        "as_strided_scatter":
            "lowering-failed: TorchToTosa has no lowering for aten.as_strided_scatter",
        "asin":
            "lowering-failed: TorchToTosa has no lowering for aten.asin",
        "asinh":
            "lowering-failed: TorchToTosa has no lowering for aten.asinh",
        "atan2":
            "lowering-failed: TorchToTosa has no lowering for aten.atan2",
        "atanh":
            "lowering-failed: TorchToTosa has no lowering for aten.atanh",
        "bincount":
            "lowering-failed: TorchToTosa has no lowering for aten.bincount",
        "block_diag":
            "lowering-failed: TorchToTosa has no lowering for aten.empty_strided",
        "byte":
            "lowering-failed: our uint8 sign check refuses torch.aten.to.dtype on uint8 values (TorchToTosa would compute it as signed int8)",
        "cdist":
            "lowering-failed: torch-mlir has no torch-dialect op for aten._cdist_forward (imported as torch.operator, illegal at the backend contract)",
        "cdouble":
            "compile-failed: torch-mlir's FX importer could not import the exported program (KeyError: torch.complex128).",
        "cfloat":
            "lowering-failed: the lowering to TOSA produces invalid IR: 'tosa.cast' op result #0 must be tosa-conformant tensor of number values, but got 'tensor<complex<f32>>'",
        "chalf":
            "lowering-failed: the lowering to TOSA produces invalid IR: 'tosa.cast' op result #0 must be tosa-conformant tensor of number values, but got 'tensor<complex<f16>>'",
        "cholesky":
            "lowering-failed: torch-mlir has no torch-dialect op for aten.cholesky (imported as torch.operator, illegal at the backend contract)",
        "cholesky_inverse":
            "lowering-failed: torch-mlir has no torch-dialect op for aten.cholesky_inverse (imported as torch.operator, illegal at the backend contract)",
        "cholesky_solve":
            "lowering-failed: torch-mlir has no torch-dialect op for aten.cholesky_solve (imported as torch.operator, illegal at the backend contract)",
        "combinations":
            "lowering-failed: TorchToTosa has no lowering for aten.masked_select",
        "complex":
            "lowering-failed: TorchToTosa has no lowering for aten.complex",
        "copysign/float32":
            "lowering-failed: TorchToTosa has no lowering for aten.view.dtype",
        "corrcoef":
            "export-failed: torch.export cannot capture it (DataDependentOutputException): aten.equal.default",
        "cosh":
            "lowering-failed: TorchToTosa has no lowering for aten.cosh",
        "cov":
            "export-failed: torch.export cannot capture it (DataDependentOutputException): aten.equal.default",
        "cummax":
            "lowering-failed: torch-mlir has no torch-dialect op for aten.cummax (imported as torch.operator, illegal at the backend contract)",
        "cummin":
            "lowering-failed: torch-mlir has no torch-dialect op for aten.cummin (imported as torch.operator, illegal at the backend contract)",
        "cumprod":
            "lowering-failed: TorchToTosa has no lowering for aten.cumprod",
        "diagonal_scatter":
            "lowering-failed: TorchToTosa has no lowering for aten.diagonal_scatter",
        "digamma":
            "lowering-failed: torch-mlir has no torch-dialect op for aten.digamma (imported as torch.operator, illegal at the backend contract)",
        "dist":
            "lowering-failed: torch-mlir has no torch-dialect op for aten.dist (imported as torch.operator, illegal at the backend contract)",
        "equal":
            "export-failed: torch.export cannot capture it (DataDependentOutputException): aten.equal.default",
        "erfc":
            "lowering-failed: torch-mlir has no torch-dialect op for aten.erfc (imported as torch.operator, illegal at the backend contract)",
        "erfinv":
            "lowering-failed: TorchToTosa has no lowering for aten.erfinv",
        "fft.fft":
            "lowering-failed: TorchToTosa has no lowering for aten.fft_fft",
        "fft.fft2":
            "lowering-failed: torch-mlir has no torch-dialect op for aten.fft_fft2 (imported as torch.operator, illegal at the backend contract)",
        "fft.fftn":
            "lowering-failed: torch-mlir has no torch-dialect op for aten.fft_fftn (imported as torch.operator, illegal at the backend contract)",
        "fft.fftshift":
            "lowering-failed: torch-mlir has no torch-dialect op for aten.fft_fftshift (imported as torch.operator, illegal at the backend contract)",
        "fft.hfft":
            "lowering-failed: torch-mlir has no torch-dialect op for aten.fft_hfft (imported as torch.operator, illegal at the backend contract)",
        "fft.hfft2":
            "lowering-failed: torch-mlir has no torch-dialect op for aten.fft_hfft2 (imported as torch.operator, illegal at the backend contract)",
        "fft.hfftn":
            "lowering-failed: torch-mlir has no torch-dialect op for aten.fft_hfftn (imported as torch.operator, illegal at the backend contract)",
        "fft.ifft":
            "lowering-failed: TorchToTosa has no lowering for aten.fft_ifft",
        "fft.ifft2":
            "lowering-failed: torch-mlir has no torch-dialect op for aten.fft_ifft2 (imported as torch.operator, illegal at the backend contract)",
        "fft.ifftn":
            "lowering-failed: torch-mlir has no torch-dialect op for aten.fft_ifftn (imported as torch.operator, illegal at the backend contract)",
        "fft.ifftshift":
            "lowering-failed: torch-mlir has no torch-dialect op for aten.fft_ifftshift (imported as torch.operator, illegal at the backend contract)",
        "fft.ihfft":
            "lowering-failed: torch-mlir has no torch-dialect op for aten.fft_ihfft (imported as torch.operator, illegal at the backend contract)",
        "fft.ihfft2":
            "lowering-failed: torch-mlir has no torch-dialect op for aten.fft_ihfft2 (imported as torch.operator, illegal at the backend contract)",
        "fft.ihfftn":
            "lowering-failed: torch-mlir has no torch-dialect op for aten.fft_ihfftn (imported as torch.operator, illegal at the backend contract)",
        "fft.irfft":
            "lowering-failed: torch-mlir has no torch-dialect op for aten.fft_irfft (imported as torch.operator, illegal at the backend contract)",
        "fft.irfft2":
            "lowering-failed: torch-mlir has no torch-dialect op for aten.fft_irfft2 (imported as torch.operator, illegal at the backend contract)",
        "fft.irfftn":
            "lowering-failed: torch-mlir has no torch-dialect op for aten.fft_irfftn (imported as torch.operator, illegal at the backend contract)",
        "fft.rfft":
            "lowering-failed: TorchToTosa has no lowering for aten.fft_rfft",
        "fft.rfft2":
            "lowering-failed: torch-mlir has no torch-dialect op for aten.fft_rfft2 (imported as torch.operator, illegal at the backend contract)",
        "fft.rfftn":
            "lowering-failed: torch-mlir has no torch-dialect op for aten.fft_rfftn (imported as torch.operator, illegal at the backend contract)",
        "frexp":
            "lowering-failed: torch-mlir has no torch-dialect op for aten.frexp.Tensor (imported as torch.operator, illegal at the backend contract)",
        "gcd":
            "lowering-failed: torch-mlir has no torch-dialect op for aten.gcd (imported as torch.operator, illegal at the backend contract)",
        "geqrf":
            "lowering-failed: torch-mlir has no torch-dialect op for aten.geqrf (imported as torch.operator, illegal at the backend contract)",
        "grid_sampler_3d":
            "lowering-failed: torch-mlir has no torch-dialect op for aten.grid_sampler_3d (imported as torch.operator, illegal at the backend contract)",
        "hash_tensor":
            "compile-failed: torch-mlir's FX importer could not import the exported program (KeyError: torch.uint64).",
        "histc":
            "lowering-failed: torch-mlir has no torch-dialect op for aten.histc (imported as torch.operator, illegal at the backend contract)",
        "histogram":
            "lowering-failed: torch-mlir has no torch-dialect op for aten.histogram.bin_ct (imported as torch.operator, illegal at the backend contract)",
        "histogramdd":
            "lowering-failed: torch-mlir has no torch-dialect op for aten._histogramdd_bin_edges (imported as torch.operator, illegal at the backend contract)",
        "hypot":
            "lowering-failed: torch-mlir has no torch-dialect op for aten.hypot (imported as torch.operator, illegal at the backend contract)",
        "i0":
            "lowering-failed: torch-mlir has no torch-dialect op for aten.i0 (imported as torch.operator, illegal at the backend contract)",
        "igamma":
            "lowering-failed: torch-mlir has no torch-dialect op for aten.igamma (imported as torch.operator, illegal at the backend contract)",
        "igammac":
            "lowering-failed: torch-mlir has no torch-dialect op for aten.igammac (imported as torch.operator, illegal at the backend contract)",
        "index_add":
            "lowering-failed: TorchToTosa has no lowering for aten.index_put.hacked_twin",
        "index_reduce.amax":
            "lowering-failed: torch-mlir has no torch-dialect op for aten.index_reduce (imported as torch.operator, illegal at the backend contract)",
        "index_reduce.amin":
            "lowering-failed: torch-mlir has no torch-dialect op for aten.index_reduce (imported as torch.operator, illegal at the backend contract)",
        "index_reduce.mean":
            "lowering-failed: torch-mlir has no torch-dialect op for aten.index_reduce (imported as torch.operator, illegal at the backend contract)",
        "index_reduce.prod":
            "lowering-failed: torch-mlir has no torch-dialect op for aten.index_reduce (imported as torch.operator, illegal at the backend contract)",
        "isclose/int64":
            "lowering-failed: TorchToTosa has no lowering for aten.isclose",
        "isfinite":
            "lowering-failed: TorchToTosa has no lowering for aten.isfinite",
        "isin":
            "lowering-failed: TorchToTosa has no lowering for aten.any.dims",
        "jiterator_2inputs_2outputs":
            "eager-failed: AssertionError: Jiterator is only supported on CUDA and ROCm GPUs, none are available.",
        "jiterator_4inputs_with_extra_args":
            "eager-failed: AssertionError: Jiterator is only supported on CUDA and ROCm GPUs, none are available.",
        "jiterator_binary":
            "eager-failed: AssertionError: Jiterator is only supported on CUDA and ROCm GPUs, none are available.",
        "jiterator_binary_return_by_ref":
            "eager-failed: AssertionError: Jiterator is only supported on CUDA and ROCm GPUs, none are available.",
        "jiterator_unary":
            "eager-failed: AssertionError: Jiterator is only supported on CUDA and ROCm GPUs, none are available.",
        "kthvalue":
            "lowering-failed: TorchToTosa has no lowering for aten.kthvalue",
        "lcm":
            "lowering-failed: torch-mlir has no torch-dialect op for aten.lcm (imported as torch.operator, illegal at the backend contract)",
        "lgamma":
            "lowering-failed: torch-mlir has no torch-dialect op for aten.lgamma (imported as torch.operator, illegal at the backend contract)",
    },
    "selective": {
    },
    "dummy": {
        "_batch_norm_with_update":
            "lowering-failed: the lowering to TOSA produces invalid IR: failed to legalize unresolved target materialization from ('tensor<0xui8>') to ('tensor<0xi8>') that remained live after conversion (no matching callback)",
        "allclose":
            "export-failed: torch.export cannot capture it (DataDependentOutputException): aten.allclose.default",
        "argwhere":
            "dynamic-shape: result #0 has type tensor<?x1xi64>: the runtime needs ranked tensors of static shape",
        "bincount":
            "dynamic-shape: result #0 has type tensor<?xi64>: the runtime needs ranked tensors of static shape",
        "cdouble":
            "compile-failed: torch-mlir's FX importer could not import the exported program (KeyError: torch.complex128).",
        "cfloat":
            "kernel-error (ours): the aten._to_copy kernel: KernelError: result #0 is [] complex128, expected [] complex64",
        "chalf":
            "lowering-failed: torch-mlir has no torch-dialect op for aten.chalf (imported as torch.operator, illegal at the backend contract)",
        "combinations/float32":
            "dynamic-shape: result #0 has type tensor<?x1xf32>: the runtime needs ranked tensors of static shape",
        "combinations/int64":
            "dynamic-shape: result #0 has type tensor<?x1xi64>: the runtime needs ranked tensors of static shape",
        "corrcoef":
            "export-failed: torch.export cannot capture it (DataDependentOutputException): aten.equal.default",
        "cov":
            "export-failed: torch.export cannot capture it (DataDependentOutputException): aten.equal.default",
        "equal":
            "export-failed: torch.export cannot capture it (DataDependentOutputException): aten.equal.default",
        "hash_tensor":
            "compile-failed: torch-mlir's FX importer could not import the exported program (KeyError: torch.uint64).",
        "histogramdd":
            "kernel-error (ours): the aten.histogramdd kernel: KernelError: returned 2 results, the op has 6",
        "jiterator_2inputs_2outputs":
            "eager-failed: AssertionError: Jiterator is only supported on CUDA and ROCm GPUs, none are available.",
        "jiterator_4inputs_with_extra_args":
            "eager-failed: AssertionError: Jiterator is only supported on CUDA and ROCm GPUs, none are available.",
        "jiterator_binary":
            "eager-failed: AssertionError: Jiterator is only supported on CUDA and ROCm GPUs, none are available.",
        "jiterator_binary_return_by_ref":
            "eager-failed: AssertionError: Jiterator is only supported on CUDA and ROCm GPUs, none are available.",
        "jiterator_unary":
            "eager-failed: AssertionError: Jiterator is only supported on CUDA and ROCm GPUs, none are available.",
        "linalg.lstsq":
            "export-failed: torch.export cannot capture it (DynamicOutputShapeException): aten.linalg_lstsq.default",
        "linalg.lstsq.grad_oriented":
            "export-failed: torch.export cannot capture it (DynamicOutputShapeException): aten.linalg_lstsq.default",
        "masked_select/float32":
            "dynamic-shape: result #0 has type tensor<?xf32>: the runtime needs ranked tensors of static shape",
        "masked_select/int64":
            "dynamic-shape: result #0 has type tensor<?xi64>: the runtime needs ranked tensors of static shape",
        "nn.functional.ctc_loss":
            "export-failed: torch.export cannot capture it (DynamicOutputShapeException): aten._ctc_loss.default",
        "nn.functional.gaussian_nll_loss":
            "export-failed: torch.export cannot capture it (GuardOnDataDependentSymNode): Could not guard on data-dependent expression Eq(u0, 1) (unhinted: Eq(u0, 1)). (Size-like symbols: none)",
        "nn.functional.one_hot":
            "export-failed: torch.export cannot capture it (GuardOnDataDependentSymNode): Could not extract specialized integer from data-dependent expression u0 (unhinted: u0). (Size-like symbols: none)",
        "nonzero":
            "lowering-failed: aten.nonzero not tunneled [zero-size-tensor: result #0 of torch.aten.nonzero has zero-size type !torch.vtensor<[?,0],si64> with dynamic dims] and TorchToTosa has no lowering for it",
        "tensor_split/float32":
            "dynamic-shape: result #0 has type tensor<?x5x5xf32>: the runtime needs ranked tensors of static shape",
        "tensor_split/int64":
            "dynamic-shape: result #0 has type tensor<?x5x5xi64>: the runtime needs ranked tensors of static shape",
        "to_sparse":
            "lowering-failed: torch-mlir has no torch-dialect op for aten.to_sparse (imported as torch.operator, illegal at the backend contract)",
        "unique/float32":
            "dynamic-shape: result #0 has type tensor<?xf32>: the runtime needs ranked tensors of static shape",
        "unique/int64":
            "dynamic-shape: result #0 has type tensor<?xi64>: the runtime needs ranked tensors of static shape",
        "unique_consecutive/float32":
            "dynamic-shape: result #0 has type tensor<?xf32>: the runtime needs ranked tensors of static shape",
        "unique_consecutive/int64":
            "dynamic-shape: result #0 has type tensor<?xi64>: the runtime needs ranked tensors of static shape",
    },
    # Auto mode passes every sample stock or dummy passes except these (the full float32+int64 auto run).
    "auto": {
        "stft/float32":
            "lowering-failed: a complex value between two tunneled ops (view_as_complex) has no TOSA type; dummy "
            "tunnels stft at import, before torch-mlir decomposes it",
        "linspace.tensor_overload":
            "lowering-failed: after auto tunnels empty.memory_format, the torch.vtensor.literal that fills it is "
            "left for TorchToTosa, which does not lower it",
        "roll":
            "lowering-failed: the zero-size slice torch-mlir decomposes this roll into has dynamic dims, so the "
            "contract cannot carry it and no site is tunneled to redo roll as PyTorch wrote it",
        "linalg.cholesky":
            "compile-failed: PyTorch's decomposition adds an effectful check (with_effects), which torch-mlir's FX "
            "importer cannot import; dummy keeps the op whole",
        "linalg.ldl_factor": "compile-failed: with_effects from PyTorch's decomposition, as linalg.cholesky",
        "linalg.lu_factor": "compile-failed: with_effects from PyTorch's decomposition, as linalg.cholesky",
        "linalg.inv": "compile-failed: with_effects from PyTorch's decomposition, as linalg.cholesky",
        "linalg.solve": "compile-failed: with_effects from PyTorch's decomposition, as linalg.cholesky",
        "linalg.tensorinv": "compile-failed: with_effects from PyTorch's decomposition, as linalg.cholesky",
        "linalg.tensorsolve": "compile-failed: with_effects from PyTorch's decomposition, as linalg.cholesky",
    },
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
