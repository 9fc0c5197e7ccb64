"""Stock mode's expected OpInfo failures: selector -> reason, for
`opinfo_expectations.XFAIL` (its docstring says how to read them).

Drafted from the full float32+int64 stock run (first sample per op and dtype)
by `opinfo_triage.reason`, then reviewed. Samples that fail before any op is
lowered, the same in every mode, are `opinfo_expectations.BEFORE_LOWERING`.
"""

from __future__ import annotations

__all__ = ["STOCK"]

STOCK: dict[str, str] = {
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
    "byte":
        "lowering-failed: our uint8 sign check refuses torch.aten.to.dtype on uint8 values (TorchToTosa would compute it as signed int8)",
    "cdist":
        "lowering-failed: torch-mlir has no torch-dialect op for aten._cdist_forward (imported as torch.operator, illegal at the backend contract)",
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
    "cosh":
        "lowering-failed: TorchToTosa has no lowering for aten.cosh",
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
    "kthvalue":
        "lowering-failed: TorchToTosa has no lowering for aten.kthvalue",
    "lcm":
        "lowering-failed: torch-mlir has no torch-dialect op for aten.lcm (imported as torch.operator, illegal at the backend contract)",
    "lgamma":
        "lowering-failed: torch-mlir has no torch-dialect op for aten.lgamma (imported as torch.operator, illegal at the backend contract)",
    "linalg.cholesky":
        "compile-failed: torch-mlir's FX importer could not import the exported program (NotImplementedError: Higher-order operation 'with_effects' not implemented in the FxImporter ...",
    "linalg.cholesky_ex":
        "lowering-failed: torch-mlir has no torch-dialect op for aten.linalg_cholesky_ex (imported as torch.operator, illegal at the backend contract)",
    "linalg.cond":
        "lowering-failed: torch-mlir has no torch-dialect op for aten._linalg_svd (imported as torch.operator, illegal at the backend contract)",
    "linalg.det":
        "lowering-failed: TorchToTosa has no lowering for aten.linalg_det",
    "linalg.eig":
        "lowering-failed: torch-mlir has no torch-dialect op for aten.linalg_eig (imported as torch.operator, illegal at the backend contract)",
    "linalg.eigh":
        "lowering-failed: torch-mlir has no torch-dialect op for aten._linalg_eigh (imported as torch.operator, illegal at the backend contract)",
    "linalg.eigvals":
        "lowering-failed: torch-mlir has no torch-dialect op for aten.linalg_eig (imported as torch.operator, illegal at the backend contract)",
    "linalg.eigvalsh":
        "lowering-failed: torch-mlir has no torch-dialect op for aten._linalg_eigh (imported as torch.operator, illegal at the backend contract)",
    "linalg.householder_product":
        "lowering-failed: torch-mlir has no torch-dialect op for aten.linalg_householder_product (imported as torch.operator, illegal at the backend contract)",
    "linalg.inv":
        "compile-failed: torch-mlir's FX importer could not import the exported program (NotImplementedError: Higher-order operation 'with_effects' not implemented in the FxImporter ...",
    "linalg.inv_ex":
        "lowering-failed: torch-mlir has no torch-dialect op for aten.linalg_inv_ex (imported as torch.operator, illegal at the backend contract)",
    "linalg.ldl_factor":
        "compile-failed: torch-mlir's FX importer could not import the exported program (NotImplementedError: Higher-order operation 'with_effects' not implemented in the FxImporter ...",
    "linalg.ldl_factor_ex":
        "lowering-failed: torch-mlir has no torch-dialect op for aten.linalg_ldl_factor_ex (imported as torch.operator, illegal at the backend contract)",
    "linalg.ldl_solve":
        "lowering-failed: torch-mlir has no torch-dialect op for aten.linalg_ldl_solve (imported as torch.operator, illegal at the backend contract)",
    "linalg.lu":
        "lowering-failed: torch-mlir has no torch-dialect op for aten.linalg_lu (imported as torch.operator, illegal at the backend contract)",
    "linalg.lu_factor":
        "compile-failed: torch-mlir's FX importer could not import the exported program (NotImplementedError: Higher-order operation 'with_effects' not implemented in the FxImporter ...",
    "linalg.lu_factor_ex":
        "lowering-failed: torch-mlir has no torch-dialect op for aten.linalg_lu_factor_ex (imported as torch.operator, illegal at the backend contract)",
    "linalg.lu_solve":
        "lowering-failed: torch-mlir has no torch-dialect op for aten.linalg_lu_solve (imported as torch.operator, illegal at the backend contract)",
    "linalg.matrix_rank":
        "lowering-failed: torch-mlir has no torch-dialect op for aten._linalg_svd (imported as torch.operator, illegal at the backend contract)",
    "linalg.matrix_rank.hermitian":
        "lowering-failed: torch-mlir has no torch-dialect op for aten._linalg_eigh (imported as torch.operator, illegal at the backend contract)",
    "linalg.norm":
        "lowering-failed: TorchToTosa has no lowering for aten.linalg_norm",
    "linalg.norm.subgradients_at_zero":
        "lowering-failed: TorchToTosa has no lowering for aten.linalg_norm",
    "linalg.pinv":
        "lowering-failed: torch-mlir has no torch-dialect op for aten.linalg_pinv.atol_rtol_tensor (imported as torch.operator, illegal at the backend contract)",
    "linalg.pinv.hermitian":
        "lowering-failed: torch-mlir has no torch-dialect op for aten.linalg_pinv.atol_rtol_tensor (imported as torch.operator, illegal at the backend contract)",
    "linalg.pinv.singular":
        "lowering-failed: torch-mlir has no torch-dialect op for aten.linalg_pinv.atol_rtol_tensor (imported as torch.operator, illegal at the backend contract)",
    "linalg.qr":
        "lowering-failed: TorchToTosa has no lowering for aten.linalg_qr",
    "linalg.slogdet":
        "lowering-failed: TorchToTosa has no lowering for aten.linalg_det",
    "linalg.solve":
        "compile-failed: torch-mlir's FX importer could not import the exported program (NotImplementedError: Higher-order operation 'with_effects' not implemented in the FxImporter ...",
    "linalg.solve_ex":
        "lowering-failed: torch-mlir has no torch-dialect op for aten._linalg_solve_ex (imported as torch.operator, illegal at the backend contract)",
    "linalg.solve_triangular":
        "lowering-failed: torch-mlir has no torch-dialect op for aten.linalg_solve_triangular (imported as torch.operator, illegal at the backend contract)",
    "linalg.svd":
        "lowering-failed: torch-mlir has no torch-dialect op for aten._linalg_svd (imported as torch.operator, illegal at the backend contract)",
    "linalg.svdvals":
        "lowering-failed: torch-mlir has no torch-dialect op for aten._linalg_svd (imported as torch.operator, illegal at the backend contract)",
    "linalg.tensorinv":
        "compile-failed: torch-mlir's FX importer could not import the exported program (NotImplementedError: Higher-order operation 'with_effects' not implemented in the FxImporter ...",
    "linalg.tensorsolve":
        "compile-failed: torch-mlir's FX importer could not import the exported program (NotImplementedError: Higher-order operation 'with_effects' not implemented in the FxImporter ...",
    "linalg.vander":
        "lowering-failed: TorchToTosa has no lowering for aten.cumprod",
    "linalg.vecdot":
        "lowering-failed: TorchToTosa has no lowering for aten.mul.Tensor",
    "logdet":
        "lowering-failed: TorchToTosa has no lowering for aten.linalg_det",
    "logsumexp":
        "lowering-failed: TorchToTosa has no lowering for aten.amax",
    "lu":
        "lowering-failed: torch-mlir has no torch-dialect op for aten.linalg_lu_factor_ex (imported as torch.operator, illegal at the backend contract)",
    "lu_solve":
        "lowering-failed: torch-mlir has no torch-dialect op for aten.linalg_lu_solve (imported as torch.operator, illegal at the backend contract)",
    "lu_unpack":
        "lowering-failed: torch-mlir has no torch-dialect op for aten.lu_unpack (imported as torch.operator, illegal at the backend contract)",
    "masked.argmax/float32":
        "lowering-failed: the lowering to TOSA produces invalid IR: 'arith.extsi' op operand #0 must be signless-fixed-width-integer-like, but got 'tensor<f32>'",
    "masked.argmax/int64":
        "lowering-failed: the lowering to TOSA produces invalid IR: 'arith.extsi' op operand type 'tensor<i64>' and result type 'tensor<i64>' are cast incompatible",
    "masked.argmin":
        "lowering-failed: TorchToTosa has no lowering for aten.argmin",
    "masked.cumprod":
        "lowering-failed: TorchToTosa has no lowering for aten.cumprod",
    "masked.median":
        "lowering-failed: torch-mlir has no torch-dialect op for aten.nanmedian.dim (imported as torch.operator, illegal at the backend contract)",
    "masked_select":
        "lowering-failed: TorchToTosa has no lowering for aten.masked_select",
    "matrix_exp":
        "lowering-failed: torch-mlir has no torch-dialect op for aten.linalg_matrix_exp (imported as torch.operator, illegal at the backend contract)",
    "max_pool2d_with_indices_backward":
        "lowering-failed: TorchToTosa has no lowering for aten.max_pool2d_with_indices",
    "median":
        "lowering-failed: torch-mlir has no torch-dialect op for aten.median (imported as torch.operator, illegal at the backend contract)",
    "mode":
        "lowering-failed: torch-mlir has no torch-dialect op for aten.mode (imported as torch.operator, illegal at the backend contract)",
    "msort":
        "lowering-failed: TorchToTosa has no lowering for aten.sort",
    "mvlgamma.mvlgamma_p_1":
        "lowering-failed: torch-mlir has no torch-dialect op for aten.lgamma (imported as torch.operator, illegal at the backend contract)",
    "mvlgamma.mvlgamma_p_3":
        "lowering-failed: torch-mlir has no torch-dialect op for aten.lgamma (imported as torch.operator, illegal at the backend contract)",
    "mvlgamma.mvlgamma_p_5":
        "lowering-failed: torch-mlir has no torch-dialect op for aten.lgamma (imported as torch.operator, illegal at the backend contract)",
    "nanmedian":
        "lowering-failed: torch-mlir has no torch-dialect op for aten.nanmedian (imported as torch.operator, illegal at the backend contract)",
    "narrow_copy":
        "lowering-failed: torch-mlir has no torch-dialect op for aten.narrow_copy (imported as torch.operator, illegal at the backend contract)",
    "nextafter":
        "lowering-failed: torch-mlir has no torch-dialect op for aten.nextafter (imported as torch.operator, illegal at the backend contract)",
    "nn.functional.adaptive_max_pool1d":
        "lowering-failed: TorchToTosa has no lowering for aten.max_pool2d_with_indices",
    "nn.functional.adaptive_max_pool2d":
        "lowering-failed: TorchToTosa has no lowering for aten.max_pool2d_with_indices",
    "nn.functional.adaptive_max_pool3d":
        "lowering-failed: TorchToTosa has no lowering for aten.adaptive_max_pool3d",
    "nn.functional.avg_pool1d/int64":
        "runtime-lowering-failed (ours): the runtime's TOSA-to-LLVM lowering: 'arith.trunci' op operand type 'i32' and result type 'i64' are cast incompatible",
    "nn.functional.avg_pool2d":
        "lowering-failed: TorchToTosa has no lowering for aten.avg_pool2d",
    "nn.functional.avg_pool3d":
        "lowering-failed: TorchToTosa has no lowering for aten.avg_pool3d",
    "nn.functional.conv1d/int64":
        "lowering-failed: TorchToTosa emits tosa.conv2d with an i64 accumulator (acc_type), which TOSA does not allow",
    "nn.functional.conv2d/int64":
        "lowering-failed: TorchToTosa emits tosa.conv2d with an i64 accumulator (acc_type), which TOSA does not allow",
    "nn.functional.conv3d/int64":
        "lowering-failed: TorchToTosa emits tosa.conv3d with an i64 accumulator (acc_type), which TOSA does not allow",
    "nn.functional.conv_transpose1d/int64":
        "lowering-failed: TorchToTosa emits tosa.transpose_conv2d with an i64 accumulator (acc_type), which TOSA does not allow",
    "nn.functional.conv_transpose2d/int64":
        "lowering-failed: TorchToTosa emits tosa.transpose_conv2d with an i64 accumulator (acc_type), which TOSA does not allow",
    "nn.functional.conv_transpose3d/int64":
        "lowering-failed: TorchToTosa emits tosa.conv3d with an i64 accumulator (acc_type), which TOSA does not allow",
    "nn.functional.embedding_bag":
        "lowering-failed: TorchToTosa has no lowering for aten.embedding_bag.padding_idx",
    "nn.functional.fractional_max_pool2d":
        "lowering-failed: torch-mlir has no torch-dialect op for aten.fractional_max_pool2d (imported as torch.operator, illegal at the backend contract)",
    "nn.functional.fractional_max_pool3d":
        "lowering-failed: torch-mlir has no torch-dialect op for aten.fractional_max_pool3d (imported as torch.operator, illegal at the backend contract)",
    "nn.functional.linear_cross_entropy.chunked":
        "lowering-failed: torch-mlir has no torch-dialect op for torch_nn._linear_cross_entropy_batch_chunked (imported as torch.operator, illegal at the backend contract)",
    "nn.functional.linear_cross_entropy.chunked_none":
        "lowering-failed: torch-mlir has no torch-dialect op for torch_nn._linear_cross_entropy_batch_chunked_no_reduction (imported as torch.operator, illegal at the backend contract)",
    "nn.functional.local_response_norm/int64":
        "runtime-lowering-failed (ours): the runtime's TOSA-to-LLVM lowering: 'arith.trunci' op operand type 'i32' and result type 'i64' are cast incompatible",
    "nn.functional.max_pool1d":
        "lowering-failed: TorchToTosa has no lowering for aten.max_pool2d_with_indices",
    "nn.functional.max_pool2d":
        "lowering-failed: TorchToTosa has no lowering for aten.max_pool2d_with_indices",
    "nn.functional.max_pool3d":
        "lowering-failed: TorchToTosa has no lowering for aten.max_pool3d_with_indices",
    "nn.functional.pdist":
        "lowering-failed: torch-mlir has no torch-dialect op for aten._pdist_forward (imported as torch.operator, illegal at the backend contract)",
    "nn.functional.relu/int64":
        "lowering-failed: TorchToTosa has no lowering for aten.relu",
    "nonzero":
        "lowering-failed: torch-mlir's decomposition of aten.nonzero crashes the process on the 0-d sample: refused before it runs (tosa-custom-check-known-crashes)",
    "norm.nuc":
        "lowering-failed: torch-mlir has no torch-dialect op for aten._linalg_svd (imported as torch.operator, illegal at the backend contract)",
    "ormqr":
        "lowering-failed: torch-mlir has no torch-dialect op for aten.ormqr (imported as torch.operator, illegal at the backend contract)",
    "permute_copy":
        "lowering-failed: TorchToTosa has no lowering for aten.permute_copy",
    "pinverse":
        "lowering-failed: torch-mlir has no torch-dialect op for aten.linalg_pinv.atol_rtol_tensor (imported as torch.operator, illegal at the backend contract)",
    "polar":
        "lowering-failed: TorchToTosa has no lowering for aten.polar",
    "polygamma.polygamma_n_0":
        "lowering-failed: torch-mlir has no torch-dialect op for aten.polygamma (imported as torch.operator, illegal at the backend contract)",
    "polygamma.polygamma_n_1":
        "lowering-failed: torch-mlir has no torch-dialect op for aten.polygamma (imported as torch.operator, illegal at the backend contract)",
    "polygamma.polygamma_n_2":
        "lowering-failed: torch-mlir has no torch-dialect op for aten.polygamma (imported as torch.operator, illegal at the backend contract)",
    "polygamma.polygamma_n_3":
        "lowering-failed: torch-mlir has no torch-dialect op for aten.polygamma (imported as torch.operator, illegal at the backend contract)",
    "polygamma.polygamma_n_4":
        "lowering-failed: torch-mlir has no torch-dialect op for aten.polygamma (imported as torch.operator, illegal at the backend contract)",
    "pow/int64":
        "lowering-failed: TorchToTosa has no lowering for aten.pow.Tensor_Tensor",
    "put":
        "lowering-failed: torch-mlir has no torch-dialect op for aten.put (imported as torch.operator, illegal at the backend contract)",
    "qr":
        "lowering-failed: TorchToTosa has no lowering for aten.linalg_qr",
    "resize_as_":
        "lowering-failed: TorchToTosa has no lowering for aten.resize",
    "scatter_add":
        "lowering-failed: TorchToTosa has no lowering for aten.scatter_add",
    "scatter_reduce.amax":
        "lowering-failed: TorchToTosa has no lowering for aten.scatter_reduce.two",
    "scatter_reduce.amin":
        "lowering-failed: TorchToTosa has no lowering for aten.scatter_reduce.two",
    "scatter_reduce.mean":
        "lowering-failed: TorchToTosa has no lowering for aten.scatter_reduce.two",
    "scatter_reduce.prod":
        "lowering-failed: TorchToTosa has no lowering for aten.scatter_reduce.two",
    "scatter_reduce.sum":
        "lowering-failed: TorchToTosa has no lowering for aten.scatter_reduce.two",
    "searchsorted":
        "lowering-failed: torch-mlir has no torch-dialect op for aten.searchsorted.Tensor (imported as torch.operator, illegal at the backend contract)",
    "signbit/float32":
        "lowering-failed: TorchToTosa has no lowering for aten.view.dtype",
    "sinh":
        "lowering-failed: TorchToTosa has no lowering for aten.sinh",
    "sort":
        "lowering-failed: TorchToTosa has no lowering for aten.sort",
    "special.airy_ai":
        "lowering-failed: torch-mlir has no torch-dialect op for aten.special_airy_ai (imported as torch.operator, illegal at the backend contract)",
    "special.bessel_j0":
        "lowering-failed: torch-mlir has no torch-dialect op for aten.special_bessel_j0 (imported as torch.operator, illegal at the backend contract)",
    "special.bessel_j1":
        "lowering-failed: torch-mlir has no torch-dialect op for aten.special_bessel_j1 (imported as torch.operator, illegal at the backend contract)",
    "special.bessel_y0":
        "lowering-failed: torch-mlir has no torch-dialect op for aten.special_bessel_y0 (imported as torch.operator, illegal at the backend contract)",
    "special.bessel_y1":
        "lowering-failed: torch-mlir has no torch-dialect op for aten.special_bessel_y1 (imported as torch.operator, illegal at the backend contract)",
    "special.chebyshev_polynomial_t":
        "lowering-failed: torch-mlir has no torch-dialect op for aten.special_chebyshev_polynomial_t (imported as torch.operator, illegal at the backend contract)",
    "special.chebyshev_polynomial_u":
        "lowering-failed: torch-mlir has no torch-dialect op for aten.special_chebyshev_polynomial_u (imported as torch.operator, illegal at the backend contract)",
    "special.chebyshev_polynomial_v":
        "lowering-failed: torch-mlir has no torch-dialect op for aten.special_chebyshev_polynomial_v (imported as torch.operator, illegal at the backend contract)",
    "special.chebyshev_polynomial_w":
        "lowering-failed: torch-mlir has no torch-dialect op for aten.special_chebyshev_polynomial_w (imported as torch.operator, illegal at the backend contract)",
    "special.erfcx":
        "lowering-failed: torch-mlir has no torch-dialect op for aten.special_erfcx (imported as torch.operator, illegal at the backend contract)",
    "special.hermite_polynomial_h":
        "lowering-failed: torch-mlir has no torch-dialect op for aten.special_hermite_polynomial_h (imported as torch.operator, illegal at the backend contract)",
    "special.hermite_polynomial_he":
        "lowering-failed: torch-mlir has no torch-dialect op for aten.special_hermite_polynomial_he (imported as torch.operator, illegal at the backend contract)",
    "special.i0e":
        "lowering-failed: torch-mlir has no torch-dialect op for aten.special_i0e (imported as torch.operator, illegal at the backend contract)",
    "special.i1":
        "lowering-failed: torch-mlir has no torch-dialect op for aten.special_i1 (imported as torch.operator, illegal at the backend contract)",
    "special.i1e":
        "lowering-failed: torch-mlir has no torch-dialect op for aten.special_i1e (imported as torch.operator, illegal at the backend contract)",
    "special.laguerre_polynomial_l":
        "lowering-failed: torch-mlir has no torch-dialect op for aten.special_laguerre_polynomial_l (imported as torch.operator, illegal at the backend contract)",
    "special.legendre_polynomial_p":
        "lowering-failed: torch-mlir has no torch-dialect op for aten.special_legendre_polynomial_p (imported as torch.operator, illegal at the backend contract)",
    "special.log_ndtr":
        "lowering-failed: torch-mlir has no torch-dialect op for aten.special_erfcx (imported as torch.operator, illegal at the backend contract)",
    "special.modified_bessel_i0":
        "lowering-failed: torch-mlir has no torch-dialect op for aten.special_modified_bessel_i0 (imported as torch.operator, illegal at the backend contract)",
    "special.modified_bessel_i1":
        "lowering-failed: torch-mlir has no torch-dialect op for aten.special_modified_bessel_i1 (imported as torch.operator, illegal at the backend contract)",
    "special.modified_bessel_k0":
        "lowering-failed: torch-mlir has no torch-dialect op for aten.special_modified_bessel_k0 (imported as torch.operator, illegal at the backend contract)",
    "special.modified_bessel_k1":
        "lowering-failed: torch-mlir has no torch-dialect op for aten.special_modified_bessel_k1 (imported as torch.operator, illegal at the backend contract)",
    "special.ndtri":
        "lowering-failed: torch-mlir has no torch-dialect op for aten.special_ndtri (imported as torch.operator, illegal at the backend contract)",
    "special.polygamma.special_polygamma_n_0":
        "lowering-failed: torch-mlir has no torch-dialect op for aten.polygamma (imported as torch.operator, illegal at the backend contract)",
    "special.scaled_modified_bessel_k0":
        "lowering-failed: torch-mlir has no torch-dialect op for aten.special_scaled_modified_bessel_k0 (imported as torch.operator, illegal at the backend contract)",
    "special.scaled_modified_bessel_k1":
        "lowering-failed: torch-mlir has no torch-dialect op for aten.special_scaled_modified_bessel_k1 (imported as torch.operator, illegal at the backend contract)",
    "special.shifted_chebyshev_polynomial_t":
        "lowering-failed: torch-mlir has no torch-dialect op for aten.special_shifted_chebyshev_polynomial_t (imported as torch.operator, illegal at the backend contract)",
    "special.shifted_chebyshev_polynomial_u":
        "lowering-failed: torch-mlir has no torch-dialect op for aten.special_shifted_chebyshev_polynomial_u (imported as torch.operator, illegal at the backend contract)",
    "special.shifted_chebyshev_polynomial_v":
        "lowering-failed: torch-mlir has no torch-dialect op for aten.special_shifted_chebyshev_polynomial_v (imported as torch.operator, illegal at the backend contract)",
    "special.shifted_chebyshev_polynomial_w":
        "lowering-failed: torch-mlir has no torch-dialect op for aten.special_shifted_chebyshev_polynomial_w (imported as torch.operator, illegal at the backend contract)",
    "special.spherical_bessel_j0":
        "lowering-failed: torch-mlir has no torch-dialect op for aten.special_spherical_bessel_j0 (imported as torch.operator, illegal at the backend contract)",
    "special.zeta":
        "lowering-failed: torch-mlir has no torch-dialect op for aten.special_zeta (imported as torch.operator, illegal at the backend contract)",
    "square/int64":
        "lowering-failed: TorchToTosa has no lowering for aten.pow.Tensor_Scalar",
    "stft":
        "lowering-failed: TorchToTosa has no lowering for aten.empty.memory_format",
    "svd":
        "lowering-failed: torch-mlir has no torch-dialect op for aten._linalg_svd (imported as torch.operator, illegal at the backend contract)",
    "tensor_split":
        "lowering-failed: torch-mlir has no torch-dialect op for aten.sym_storage_offset (imported as torch.operator, illegal at the backend contract)",
    "to_sparse":
        "lowering-failed: torch-mlir has no torch-dialect op for aten._to_sparse (imported as torch.operator, illegal at the backend contract)",
    "topk/int64":
        "lowering-failed: TorchToTosa has no lowering for aten.sort",
    "triangular_solve":
        "lowering-failed: torch-mlir has no torch-dialect op for aten.triangular_solve (imported as torch.operator, illegal at the backend contract)",
    "unbind_copy":
        "lowering-failed: TorchToTosa has no lowering for aten.unbind_copy.int",
    "unique":
        "lowering-failed: torch-mlir has no torch-dialect op for aten._unique2 (imported as torch.operator, illegal at the backend contract)",
    "unique_consecutive":
        "lowering-failed: TorchToTosa has no lowering for aten.unique_consecutive",
    "view_as_complex":
        "lowering-failed: TorchToTosa has no lowering for aten.view_as_complex",
    "view_copy":
        "lowering-failed: TorchToTosa has no lowering for aten.view_copy",
}
