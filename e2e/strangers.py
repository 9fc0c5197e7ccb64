"""Programs as a stranger writes them: the op families where a third-party
suite of small PyTorch programs found auto mode failing while dummy or stock
mode passed (issue 25). Each case sits in the family of its op; together they
hold auto mode to passing whatever dummy or stock mode passes when a stage
after its per-instance probe fails (whole-program lowering, the target check,
a tosa.scatter the runtime refuses): stft, run-time asserts on `item()`
values, zero-size constants and indices, `_trilinear` with an empty batch,
conv_tbc, native_batch_norm in training, scatter of a scalar and index_put
with repeated indices or a mask, grid_sampler, instance_norm in float16."""

import torch
import torch.nn.functional as F

from tosa_custom.e2e import Fn, case

_NO_STFT = "torch-mlir decomposes stft into complex ops (view_as_complex) that TorchToTosa cannot lower"
_ASSERT = ("torch-mlir turns the check on the item() value into torch.runtime.assert, which TorchToTosa cannot "
           "lower (and aten.Int.Tensor before it)")
# float32 FFT sums of n_fft terms: rounding grows with n_fft (at most 32 here) and the values (|x| < 5).
_STFT_TOL = {"rtol": 1e-4, "atol": 1e-4}
# float16 has a 2**-11 unit roundoff; instance_norm's mean and variance over 256 values and its
# normalized result of magnitude up to ~4 each lose a few units: 8 units of 2**-10 relative and absolute.
_HALF_TOL = 8 * 2.0 ** -10


def _stft(n_fft: int, hop: int, win_length: int | None, **kw):
    def f(x):
        window = torch.hann_window(win_length) if win_length else None
        spectrum = torch.stft(x, n_fft, hop_length=hop, win_length=win_length, window=window, return_complex=True,
                              **kw)
        return torch.view_as_real(spectrum)  # the runtime takes and returns real tensors
    return f


@case(inputs=lambda: (torch.randn(64),), family="misc", xfail={"stock": _NO_STFT}, **_STFT_TOL)
def StftModule_hann_hop4():
    return Fn(_stft(16, 4, 16))


@case(inputs=lambda: (torch.randn(2, 50),), family="misc", xfail={"stock": _NO_STFT}, **_STFT_TOL)
def StftModule_no_window_not_centered():
    return Fn(_stft(8, 2, None, center=False))


@case(inputs=lambda: (torch.randn(100),), family="misc", xfail={"stock": _NO_STFT}, **_STFT_TOL)
def StftModule_short_window_two_sided_normalized():
    return Fn(_stft(16, 5, 12, onesided=False, normalized=True))


@case(inputs=lambda: (torch.randn(3, 200),), family="misc", xfail={"stock": _NO_STFT}, **_STFT_TOL)
def StftModule_reflect_hop_equals_window():
    return Fn(_stft(32, 32, 32, pad_mode="reflect"))


@case(inputs=lambda: (torch.randn(5, 3), torch.tensor(2)), family="misc", xfail={"stock": _ASSERT})
def AssertScalarModule_item_in_range():
    def f(x, i):
        n = i.item()
        torch._check(n >= 0)
        torch._check(n < 5)
        return x[n] * 2
    return Fn(f)


@case(inputs=lambda: (torch.randn(5, 3), torch.tensor(2)), family="misc", xfail={"stock": _ASSERT})
def SymConstrainRangeModule_basic():
    def f(x, i):
        n = i.item()
        torch.ops.aten.sym_constrain_range.default(n, min=0, max=4)
        return x + n
    return Fn(f)


@case(inputs=lambda: (torch.randn(5, 3), torch.tensor(3)), family="misc", xfail={"stock": _ASSERT})
def SymConstrainRangeForSizeModule_basic():
    def f(x, i):
        n = i.item()
        torch.ops.aten.sym_constrain_range_for_size.default(n, min=0, max=4)
        return x * n
    return Fn(f)


# linspace's 0 steps make a zero-size literal (or aten.empty), which TorchToTosa
# cannot lower: an empty tensor (tosa-custom-zero-size-as-empty).
@case(inputs=lambda: (torch.randn(5),), family="misc")
def LinspaceModule_zero_steps():
    return Fn(lambda x: torch.cat([x, torch.linspace(0, 1, 0)]))


# tril_indices(0, 0) folds to a zero-size literal: an empty tensor (tosa-custom-zero-size-as-empty).
@case(inputs=lambda: (torch.randn(5),), family="misc")
def TrilIndicesModule_zero_size():
    return Fn(lambda x: (x + 1, torch.tril_indices(0, 0), torch.triu_indices(3, 3, offset=5)))


@case(inputs=lambda: (torch.randn(0, 3), torch.randn(0, 4), torch.randn(5, 3, 4)), family="matmul",
      xfail={"stock": "torch-mlir's decomposition of _trilinear with a zero-size dim leaves aten.Bool.Tensor, "
                      "which TorchToTosa cannot lower"})
def TrilinearModule_zero_batch():
    """bilinear is _trilinear; a batch of 0 rows gives a (0, 5) result."""
    return Fn(lambda a, b, w: F.bilinear(a, b, w))


@case(inputs=lambda: (torch.randn(7, 2, 4), torch.randn(3, 4, 5), torch.randn(5)), family="convolution",
      xfail={"stock": "torch-mlir's lowering of conv_tbc to the backend contract returns the wrong layout "
                      "(the function's result type no longer matches)"})
def ConvTbcModule_pad1():
    return Fn(lambda x, w, b: torch.conv_tbc(x, w, b, 1))


@case(inputs=lambda: (torch.randn(6, 4, 3), torch.randn(2, 3, 6), torch.randn(6)), family="convolution",
      xfail={"stock": "torch-mlir's lowering of conv_tbc to the backend contract returns the wrong layout "
                      "(the function's result type no longer matches)"})
def ConvTbcModule_no_pad():
    return Fn(lambda x, w, b: torch.conv_tbc(x, w, b, 0))


@case(inputs=lambda: (torch.randn(4, 3, 5), torch.randn(3), torch.randn(3), torch.randn(3), torch.rand(3) + 0.5),
      family="normalization", rtol=1e-4, atol=1e-5)
def NativeBatchNormModule_training_outputs():
    """The normalized result, the batch mean and the inverse std (training=True)."""
    return Fn(lambda x, w, b, mean, var: torch.ops.aten.native_batch_norm(x, w, b, mean.clone(), var.clone(), True,
                                                                          0.1, 1e-5))


@case(inputs=lambda: (torch.randn(4, 3, 5), torch.randn(3), torch.randn(3), torch.randn(3), torch.rand(3) + 0.5),
      family="normalization", rtol=1e-4, atol=1e-5,
      xfail={"vgf": "the empty results are a zero-size tensor.empty, which the ML SDK's model converter cannot "
                    "legalize (a VGF has no zero-size tensors)"})
def NativeBatchNormModule_eval_outputs():
    """training=False: the saved mean and inverse std are empty, a zero-size
    literal after decomposition that TorchToTosa cannot lower (every-sample
    OpInfo native_batch_norm/float32/1): empty tensors."""
    return Fn(lambda x, w, b, mean, var: torch.ops.aten.native_batch_norm(x, w, b, mean, var, False, 0.1, 1e-5))


_REPEATS = ("the indices repeat: torch-mlir's tosa.scatter names one row twice, which TOSA forbids, and the "
            "runtime's scatter kernel refuses it")


@case(inputs=lambda: (torch.randn(3, 5), torch.randint(0, 5, (3, 6))), family="indexing",
      xfail={"stock": _REPEATS})
def ScatterValueModule_repeated_float():
    """One scalar written at repeated indices: the result does not depend on the order."""
    return Fn(lambda x, idx: torch.scatter(x, 1, idx, 2.5))


@case(inputs=lambda: (torch.randint(0, 9, (3, 5)), torch.randint(0, 5, (3, 6))), family="indexing",
      xfail={"stock": _REPEATS})
def ScatterValueModule_repeated_int():
    return Fn(lambda x, idx: torch.scatter(x, 1, idx, 7))


@case(inputs=lambda: (torch.randn(6, 4), torch.tensor([1, 3, 1]), torch.randn(4)), family="indexing",
      xfail={"stock": _REPEATS})
def IndexPutModule_2d_repeated_rows():
    """Row 1 is written twice with the same values."""
    return Fn(lambda x, i, v: torch.index_put(x, (i,), v.expand(3, 4)))


@case(inputs=lambda: (torch.randn(4, 5, 3), torch.tensor([0, 2, 0]), torch.tensor([1, 1, 1]), torch.tensor(1.5)),
      family="indexing", xfail={"stock": _REPEATS})
def IndexPutModule_3d_repeated_float_value():
    return Fn(lambda x, i, j, v: torch.index_put(x, (i, j), v))


@case(inputs=lambda: (torch.randn(4, 5), torch.randn(4, 5) > 0), family="indexing",
      xfail={"stock": "torch-mlir lowers a boolean-mask index_put through nonzero, whose scatter_add, cumprod "
                      "and aten.tensor TorchToTosa cannot lower"})
def IndexPutModule_bool_mask():
    def f(x, mask):
        y = x.clone()
        y[mask] = 0.5
        return y
    return Fn(f)


@case(inputs=lambda: (torch.randn(1, 2, 5, 6), torch.rand(1, 3, 4, 2) * 2 - 1), family="misc", rtol=1e-5,
      atol=1e-5, nonconformant={"stock": "torch-mlir computes grid_sampler's pixel indices with f32 -> i64 "
                                         "tosa.cast, which no TOSA profile has"})
def GridSamplerModule_bilinear_zeros():
    return Fn(lambda x, grid: F.grid_sample(x, grid, mode="bilinear", padding_mode="zeros", align_corners=False))


@case(inputs=lambda: (torch.randn(2, 4, 16, 16).half(),), family="normalization", rtol=_HALF_TOL, atol=_HALF_TOL)
def InstanceNormModule_float16():
    return Fn(lambda x: F.instance_norm(x))


@case(inputs=lambda: (torch.randn(2, 3, 8, 8).half() * 4 + 2, torch.rand(3).half() + 0.5, torch.randn(3).half()),
      family="normalization", rtol=_HALF_TOL, atol=_HALF_TOL)
def InstanceNormModule_float16_affine():
    return Fn(lambda x, w, b: F.instance_norm(x, weight=w, bias=b))
