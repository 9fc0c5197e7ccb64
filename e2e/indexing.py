"""Indexing: gather/scatter (and their reductions), index_select, advanced
indexing, index_put (with accumulate), masked_fill, select/slice scatters,
in-place writes into a clone (functionalized by export)."""

import torch

from tosa_custom.e2e import Fn, case

FAMILY = "indexing"


@case(inputs=lambda: (torch.randn(3, 5), torch.randint(0, 5, (3, 4))), family=FAMILY)
def GatherModule_basic():
    return Fn(lambda x, idx: torch.gather(x, 1, idx))


@case(inputs=lambda: (torch.randn(4, 3, 2), torch.randint(0, 4, (2, 3, 2))), family=FAMILY)
def GatherModule_dim0():
    return Fn(lambda x, idx: torch.gather(x, 0, idx))


@case(inputs=lambda: (torch.randn(2, 3, 5), torch.randint(0, 5, (2, 3, 1))), family=FAMILY)
def GatherModule_negative_dim():
    return Fn(lambda x, idx: x.gather(-1, idx))


@case(inputs=lambda: (torch.randn(3, 5), torch.randint(0, 5, (3, 2))), family=FAMILY)
def TakeAlongDimModule_basic():
    return Fn(lambda x, idx: torch.take_along_dim(x, idx, dim=1))


@case(inputs=lambda: (torch.randn(3, 5), torch.tensor([[0, 4], [2, 1], [3, 3]]), torch.randn(3, 2)), family=FAMILY,
      xfail={"stock": "indices [3, 3] in row 2 write one element twice: torch-mlir's tosa.scatter then names one "
                      "row twice, which TOSA forbids, and the runtime's scatter kernel refuses it"})
def ScatterSrcModule_basic():
    """Row 2 repeats an index (eager PyTorch on the CPU keeps the last write).
    Auto mode tunnels the scatter: its indices are run-time values that may repeat."""
    return Fn(lambda x, idx, src: torch.scatter(x, 1, idx, src))


@case(inputs=lambda: (torch.randn(4, 3), torch.tensor([[0, 1, 2], [3, 0, 1]])), family=FAMILY)
def ScatterValueModule_dim0():
    return Fn(lambda x, idx: torch.scatter(x, 0, idx, -1.5))


@case(inputs=lambda: (torch.zeros(3, 5), torch.randint(0, 5, (3, 6)), torch.randn(3, 6)), family=FAMILY,
      xfail={"stock": "torch-mlir has no TOSA lowering for aten.scatter_add"})
def ScatterAddModule_duplicates():
    """Duplicate indices accumulate."""
    return Fn(lambda x, idx, src: torch.scatter_add(x, 1, idx, src))


@case(inputs=lambda: (torch.randn(3, 5), torch.randint(0, 5, (3, 6)), torch.randn(3, 6)), family=FAMILY,
      xfail={"stock": "torch-mlir has no TOSA lowering for aten.scatter_reduce.two"})
def ScatterReduceModule_amax():
    return Fn(lambda x, idx, src: torch.scatter_reduce(x, 1, idx, src, reduce="amax"))


@case(inputs=lambda: (torch.randn(3, 5), torch.randint(0, 5, (3, 6)), torch.randn(3, 6)), family=FAMILY,
      xfail={"stock": "torch-mlir has no TOSA lowering for aten.scatter_reduce.two"})
def ScatterReduceModule_mean_exclude_self():
    return Fn(lambda x, idx, src: torch.scatter_reduce(x, 1, idx, src, reduce="mean", include_self=False))


@case(inputs=lambda: (torch.randn(5, 4), torch.tensor([4, 0, 2, 2])), family=FAMILY)
def IndexSelectModule_dim0():
    return Fn(lambda x, idx: torch.index_select(x, 0, idx))


@case(inputs=lambda: (torch.randn(2, 5, 3), torch.tensor([1, 3], dtype=torch.int32)), family=FAMILY)
def IndexSelectModule_int32_index_dim1():
    return Fn(lambda x, idx: x.index_select(1, idx))


@case(inputs=lambda: (torch.randn(5, 4), torch.tensor([[0, 1], [4, 4]])), family=FAMILY)
def IndexTensorModule_2d_index():
    """x[idx] with a 2-d index tensor: the result is (2, 2, 4)."""
    return Fn(lambda x, idx: x[idx])


@case(inputs=lambda: (torch.randn(5, 6), torch.tensor([0, 2, 4]), torch.tensor([1, 1, 5])), family=FAMILY)
def IndexTensorModule_multiple_indices():
    """x[i, j]: element pairs."""
    return Fn(lambda x, i, j: x[i, j])


@case(inputs=lambda: (torch.randn(3, 6, 2), torch.tensor([5, 0, -1])), family=FAMILY)
def IndexTensorModule_middle_dim_negative_index():
    """x[:, idx] with a negative index."""
    return Fn(lambda x, idx: x[:, idx])


@case(inputs=lambda: (torch.randn(4, 5), torch.tensor([1, 3]), torch.randn(2, 5)), family=FAMILY)
def IndexPutModule_rows():
    return Fn(lambda x, idx, v: torch.index_put(x, (idx,), v))


@case(inputs=lambda: (torch.zeros(4, 5), torch.tensor([1, 1, 3]), torch.tensor([0, 0, 4]), torch.randn(3)),
      family=FAMILY, xfail={"stock": "torch-mlir has no TOSA lowering for aten.index_put with accumulate=True"})
def IndexPutModule_accumulate():
    """Accumulate with a repeated (row, col) pair."""
    return Fn(lambda x, i, j, v: torch.index_put(x, (i, j), v, accumulate=True))


@case(inputs=lambda: (torch.randn(4, 5),), family=FAMILY)
def IndexPutSetitemModule_slice():
    """y[1:3] = 0 on a clone: functionalized to slice_scatter."""
    def write(x):
        y = x.clone()
        y[1:3] = 0.0
        return y

    return Fn(write)


@case(inputs=lambda: (torch.randn(4, 5), torch.tensor([0, 2])), family=FAMILY)
def IndexPutSetitemModule_tensor_index():
    def write(x, idx):
        y = x * 1.0
        y[idx] = y[idx] * 10
        return y

    return Fn(write)


@case(inputs=lambda: (torch.randn(3, 4), torch.randn(3, 4) > 0), family=FAMILY)
def MaskedFillScalarModule_basic():
    return Fn(lambda x, m: x.masked_fill(m, -1e4))


@case(inputs=lambda: (torch.randn(3, 4), torch.rand(1, 4) > 0.5, torch.tensor(7.0)), family=FAMILY)
def MaskedFillTensorModule_broadcast_mask():
    return Fn(lambda x, m, v: torch.masked_fill(x, m, v))


@case(inputs=lambda: (torch.randint(0, 10, (3, 4)), torch.randn(3, 4) > 0), family=FAMILY)
def MaskedFillIntModule_basic():
    return Fn(lambda x, m: x.masked_fill(m, -1))


@case(inputs=lambda: (torch.randn(5, 3), torch.tensor([0, 4, 0]), torch.randn(3, 3)), family=FAMILY,
      xfail={"stock": "index_add decomposes to aten.index_put (accumulate), which torch-mlir cannot lower to TOSA"})
def IndexAddModule_duplicates():
    return Fn(lambda x, idx, src: torch.index_add(x, 0, idx, src, alpha=2.0))


@case(inputs=lambda: (torch.randn(3, 5), torch.tensor([4, 1]), torch.randn(3, 2)), family=FAMILY)
def IndexCopyModule_dim1():
    """index_put on dim 1, which compile() moves to dim 0 for TorchToTosa."""
    return Fn(lambda x, idx, src: torch.index_copy(x, 1, idx, src))


@case(inputs=lambda: (torch.randn(4, 5, 6),), family=FAMILY)
def SelectIntModule_basic():
    return Fn(lambda x: x[1, :, -2])


@case(inputs=lambda: (torch.randn(4, 5), torch.randn(5)), family=FAMILY)
def SelectScatterModule_basic():
    return Fn(lambda x, row: torch.select_scatter(x, row, 0, 2))


@case(inputs=lambda: (torch.randn(6, 5), torch.randn(3, 5)), family=FAMILY)
def SliceScatterModule_step():
    return Fn(lambda x, src: torch.slice_scatter(x, src, dim=0, start=0, end=6, step=2))


@case(inputs=lambda: (torch.randn(4, 5),), family=FAMILY)
def DiagonalModule_offset():
    return Fn(lambda x: torch.diagonal(x, offset=1))


@case(inputs=lambda: (torch.randn(5, 5),), family=FAMILY)
def TrilModule_negative_diagonal():
    return Fn(lambda x: torch.tril(x, diagonal=-1))


@case(inputs=lambda: (torch.randn(2, 4, 5),), family=FAMILY)
def TriuModule_batched():
    return Fn(lambda x: torch.triu(x, diagonal=1))


@case(inputs=lambda: (torch.randn(3, 4), torch.randn(3, 4) > 0), family=FAMILY,
      xfail={"stock": "data-dependent output shape: torch-mlir cannot lower the dynamic aten.size.int/nonzero to TOSA",
             "dummy": "dynamic-shape: aten.index.Tensor converts, but its result (tensor<?xf32>) has a "
                      "data-dependent "
                      "length and the runtime runs static shapes only"})
def IndexBoolMaskModule_basic():
    """x[mask]: the result's length depends on the data."""
    return Fn(lambda x, m: x[m])


@case(inputs=lambda: (torch.randn(6),), family=FAMILY)
def IndexPutSetitemModule_ellipsis_none():
    """x[..., None] and a step slice."""
    return Fn(lambda x: x[::2][..., None] * x[1::2][None, ...])
