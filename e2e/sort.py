"""Sorting and selection: sort (descending, stable, dims), argsort, topk
(largest/smallest, unsorted dims), argmax/argmin, kthvalue, median."""

import torch

from tosa_custom.e2e import Fn, case, randn_inputs

FAMILY = "sort"


@case(inputs=randn_inputs(3, 6), family=FAMILY)
def SortModule_basic():
    return Fn(lambda x: torch.sort(x))


@case(inputs=randn_inputs(4, 3), family=FAMILY)
def SortModule_descending_dim0():
    return Fn(lambda x: torch.sort(x, dim=0, descending=True))


@case(inputs=lambda: (torch.randint(0, 3, (2, 8)),), family=FAMILY,
      xfail={"stock": "torch-mlir does not know aten.sort.stable (imported as torch.operator): no TOSA lowering"})
def SortModule_stable_int():
    """Many ties: only a stable sort gives eager's indices."""
    return Fn(lambda x: torch.sort(x, dim=-1, stable=True))


@case(inputs=randn_inputs(3, 6), family=FAMILY)
def ArgsortModule_basic():
    return Fn(lambda x: torch.argsort(x, dim=1, descending=True))


@case(inputs=randn_inputs(3, 8), family=FAMILY)
def TopkModule_basic():
    return Fn(lambda x: torch.topk(x, 3))


@case(inputs=randn_inputs(3, 8), family=FAMILY)
def TopkModule_smallest():
    return Fn(lambda x: torch.topk(x, 2, dim=-1, largest=False))


@case(inputs=randn_inputs(6, 3), family=FAMILY)
def TopkModule_dim0():
    return Fn(lambda x: torch.topk(x, 4, dim=0))


@case(inputs=randn_inputs(3, 5), family=FAMILY)
def ArgmaxModule_basic():
    """Whole-tensor argmax: an index into the flattened tensor."""
    return Fn(torch.argmax)


@case(inputs=randn_inputs(3, 5, 2), family=FAMILY)
def ArgmaxModule_dim_keepdim():
    return Fn(lambda x: torch.argmax(x, dim=1, keepdim=True))


@case(inputs=randn_inputs(3, 5), family=FAMILY)
def ArgminModule_negative_dim():
    return Fn(lambda x: x.argmin(dim=-1))


@case(inputs=lambda: (torch.randint(-5, 5, (4, 6), dtype=torch.int32),), family=FAMILY)
def ArgmaxIntModule_ties():
    """int32 with ties: the first maximal index wins."""
    return Fn(lambda x: torch.argmax(x, dim=1))


@case(inputs=randn_inputs(3, 7), family=FAMILY, xfail={"stock": "torch-mlir has no TOSA lowering for aten.kthvalue"})
def KthvalueModule_basic():
    return Fn(lambda x: torch.kthvalue(x, 3, dim=1))


@case(inputs=randn_inputs(3, 7), family=FAMILY,
      xfail={"stock": "torch-mlir does not know aten.median.dim (imported as torch.operator): no TOSA lowering"})
def MedianDimModule_basic():
    return Fn(lambda x: torch.median(x, dim=1))


@case(inputs=randn_inputs(5, 3), family=FAMILY)
def MsortModule_basic():
    return Fn(torch.msort)


@case(inputs=randn_inputs(2, 10), family=FAMILY)
def TopkGreedyDecodeModule_basic():
    """Top-k logits -> softmax -> argmax of the top probabilities (sampling-free decode)."""
    def decode(logits):
        values, indices = torch.topk(logits, 4)
        best = torch.argmax(torch.softmax(values, -1), dim=-1, keepdim=True)
        return torch.gather(indices, 1, best)

    return Fn(decode)
