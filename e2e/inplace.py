"""In-place and stateful models, and the shape of what a model returns.

In-place ops on an input (the runner compares the caller's tensors after each
call with eager's), `out=` overloads, buffers updated over several calls (a
counter, a KV cache, BatchNorm's running statistics: the runner compares the
program's state with the eager model's buffers after the last call), and
results as a dict, a nested tuple, a namedtuple, a `ModelOutput` and Python
numbers (the runner compares structure and Python types exactly).
"""

import collections

import torch
from torch import nn
from torch.nn import functional as F

from tosa_custom.e2e import Fn, case

FAMILY = "inplace"


def _xy(*shape):
    return lambda: (torch.randn(*shape), torch.randn(*shape))


# --- In-place ops on an input ----------------------------------------------------


@case(inputs=_xy(3, 4), family=FAMILY, selective_ops=["aten.add.Tensor"])
def AddInPlaceModule_input():
    return Fn(lambda x, y: x.add_(y, alpha=2) * 3)


@case(inputs=_xy(3, 4), family=FAMILY, selective_ops=["aten.mul.Scalar"])
def CopyInPlaceModule_input():
    return Fn(lambda x, y: x.copy_(y * 2).sum(0))


@case(inputs=_xy(3, 4), family=FAMILY, selective_ops=["aten.mul.Scalar"])
def FillInPlaceModule_input():
    return Fn(lambda x, y: (x.fill_(2.5), y * 2)[1])


@case(inputs=_xy(3, 4), family=FAMILY, selective_ops=["aten.add.Scalar"])
def ZeroInPlaceModule_input():
    return Fn(lambda x, y: (x.zero_(), y + 1)[1])


@case(inputs=lambda: (torch.randn(5, 3), torch.tensor([4, 0, 2]), torch.randn(3, 3)), family=FAMILY,
      selective_ops=["aten.index_put"])
def IndexPutInPlaceModule_input():
    return Fn(lambda x, i, v: x.index_put_((i,), v).sum(1))


@case(inputs=lambda: (torch.randn(3, 5), torch.randn(3, 2)), family=FAMILY, selective_ops=["aten.slice_scatter"])
def SliceAssignModule_input():
    def f(x, y):
        x[:, 1:3] = y
        return x * 1.5
    return Fn(f)


@case(inputs=lambda: (torch.zeros(12), torch.randn(12)), family=FAMILY, selective_ops=["aten.add.Tensor"])
def ArangeOutModule_basic():
    return Fn(lambda x, y: (torch.arange(0, 12, out=x), y + x)[1])


@case(inputs=lambda: (torch.randn(3, 4), torch.randn(3, 4), torch.zeros(3, 4)), family=FAMILY,
      selective_ops=["aten.mul.Scalar"])
def AddOutModule_basic():
    return Fn(lambda a, b, out: torch.add(a, b, out=out) * 2)


@case(inputs=lambda: (torch.zeros(3, 4), torch.randn(12)), family=FAMILY, selective_ops=["aten.add.Tensor"])
def ArangeOutModule_reshaped():
    """An out= of as many elements and another shape: eager leaves it [3, 4], holding 1..12 (issue 41)."""
    return Fn(lambda x, y: (torch.arange(start=1, end=13, out=x), y + x.flatten())[1])


@case(inputs=lambda: (torch.randn(3, 4), torch.randn(3, 4), torch.zeros(2, 2)), family=FAMILY,
      selective_ops=["aten.mul.Scalar"])
def AddOutModule_resized():
    """An out= of another element count: eager resizes it to [3, 4]."""
    return Fn(lambda a, b, out: torch.add(a, b, out=out) * 2)


# --- State carried over calls -------------------------------------------------------


class _Counter(nn.Module):
    def __init__(self):
        super().__init__()
        self.register_buffer("n", torch.zeros((), dtype=torch.int64))

    def forward(self, x):
        self.n += 1
        return x * self.n


@case(inputs=lambda: (torch.randn(3),), family=FAMILY, calls=5, selective_ops=["aten.mul.Tensor"],
      nonconformant={"stock": "the int64 counter is cast to float: TOSA 1.0 casts no i64 to a float, and a state "
                              "counter's range is not known (CONTRACT.md §13.4)"})
def BufferCounterModule_5calls():
    return _Counter()


class _KVCache(nn.Module):
    """A static cache of 8 positions filled one per call, read as attention.
    `index_copy=False` writes the slot through a one-hot mask (elementwise
    ops only); `index_copy=True` by index_copy_ on dim 1 (an index_put that
    compile() moves to dim 0, where TorchToTosa lowers it to tosa.scatter)."""

    def __init__(self, index_copy: bool):
        super().__init__()
        self.index_copy = index_copy
        self.register_buffer("k", torch.zeros(1, 8, 4))
        self.register_buffer("pos", torch.zeros(1, dtype=torch.int64))
        self.proj = nn.Linear(4, 4)

    def forward(self, x):
        new = self.proj(x).unsqueeze(1)
        if self.index_copy:
            self.k.index_copy_(1, self.pos, new)
        else:
            slot = (torch.arange(8) == self.pos).view(1, 8, 1)
            self.k.copy_(torch.where(slot, new, self.k))
        self.pos += 1
        scores = (self.k @ x.unsqueeze(-1)).squeeze(-1)
        return torch.softmax(scores, -1)


@case(inputs=lambda: (torch.randn(1, 4),), family=FAMILY, calls=5, selective_ops=["aten._softmax"])
def KVCacheModule_5calls():
    return _KVCache(index_copy=False)


@case(inputs=lambda: (torch.randn(1, 4),), family=FAMILY, calls=5, selective_ops=["aten.index_put"])
def KVCacheIndexCopyModule_5calls():
    return _KVCache(index_copy=True)


class _BatchNormTrain(nn.Module):
    """BatchNorm in training mode (functional, since the runner and compile()
    put modules in eval mode): batch statistics, running statistics updated."""

    def __init__(self):
        super().__init__()
        self.bn = nn.BatchNorm1d(4)

    def forward(self, x):
        bn = self.bn
        return F.batch_norm(x, bn.running_mean, bn.running_var, bn.weight, bn.bias, training=True, momentum=0.1)


@case(inputs=lambda: (torch.randn(6, 4) * 2 + 1,), family=FAMILY, calls=3, rtol=1e-4, atol=1e-4,
      selective_ops=["aten._native_batch_norm_legit_functional"])
def BatchNormTrainModule_3calls():
    return _BatchNormTrain()


# --- What a model returns ---------------------------------------------------------------

Pair = collections.namedtuple("Pair", ["low", "high"])


@case(inputs=lambda: (torch.randn(3, 4),), family=FAMILY, selective_ops=["aten.relu"])
def DictOutputModule_basic():
    return Fn(lambda x: {"relu": torch.relu(x), "sum": x.sum(1)})


@case(inputs=lambda: (torch.randn(3, 4),), family=FAMILY, selective_ops=["aten.relu"])
def NestedTupleOutputModule_basic():
    return Fn(lambda x: (torch.relu(x), (x * 2, [x.sum(0), (x - 1,)])))


@case(inputs=lambda: (torch.randn(3, 4),), family=FAMILY, selective_ops=["aten.relu"])
def NamedTupleOutputModule_basic():
    return Fn(lambda x: Pair(torch.relu(-x), torch.relu(x)))


@case(inputs=lambda: (torch.randn(2, 3),), family=FAMILY, selective_ops=["aten.tanh"])
def ModelOutputModule_basic():
    from transformers.modeling_outputs import BaseModelOutput

    return Fn(lambda x: BaseModelOutput(last_hidden_state=torch.tanh(x), hidden_states=(x * 2, x * 3)))


@case(inputs=lambda: (torch.randn(3, 4),), family=FAMILY, selective_ops=["aten.mul.Scalar"])
def IntResultModule_basic():
    return Fn(lambda x: (x * 2, x.shape[0]))


@case(inputs=lambda: (torch.randn(3, 4),), family=FAMILY, selective_ops=["aten.mul.Scalar"])
def FloatResultModule_basic():
    return Fn(lambda x: (x * 2, x.shape[1] / 8))


@case(inputs=lambda: (torch.randn(3, 4),), family=FAMILY, selective_ops=["aten.mul.Scalar"])
def BoolResultModule_basic():
    return Fn(lambda x: (x * 2, x.shape[0] > 2))
