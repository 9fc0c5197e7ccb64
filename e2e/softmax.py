"""The softmax family: softmax, log_softmax, softmin over every kind of dim,
with dtype arguments and inputs large enough to need the max-subtraction."""

import torch
from torch import nn
from torch.nn import functional as F

from tosa_custom.e2e import Fn, case, randn_inputs

FAMILY = "softmax"

# Why a float64 case's TOSA cannot validate, in every mode (CONTRACT.md §13.5).
F64_BY_DESIGN = "computes in float64 by design (an f64 input, result or dtype): TOSA 1.0 has no f64 in any profile"
SOFTMAX = ["aten.softmax.int"]
LOG_SOFTMAX = ["aten.log_softmax.int"]


@case(inputs=randn_inputs(3, 4), family=FAMILY, selective_ops=SOFTMAX)
def SoftmaxIntModule_basic():
    return nn.Softmax(dim=1)


@case(inputs=randn_inputs(2, 3, 4), family=FAMILY, selective_ops=SOFTMAX)
def SoftmaxIntModule_negative_dim():
    return nn.Softmax(dim=-1)


@case(inputs=randn_inputs(2, 3, 4), family=FAMILY, selective_ops=SOFTMAX)
def SoftmaxIntModule_dim0():
    return nn.Softmax(dim=0)


@case(inputs=randn_inputs(2, 4, 3, 3), family=FAMILY, selective_ops=SOFTMAX)
def SoftmaxIntModule_channel_dim():
    return nn.Softmax2d()


@case(inputs=lambda: (torch.randn(3, 5) * 200,), family=FAMILY, selective_ops=SOFTMAX)
def SoftmaxIntModule_large_values():
    """exp(200) overflows float32: the max must be subtracted first."""
    return nn.Softmax(dim=-1)


@case(inputs=randn_inputs(3, 4), family=FAMILY, selective_ops=SOFTMAX, nonconformant=F64_BY_DESIGN)
def SoftmaxIntDtypeModule_float64():
    return Fn(lambda x: torch.softmax(x, dim=1, dtype=torch.float64))


@case(inputs=lambda: (torch.randn(3, 4, dtype=torch.float64),), family=FAMILY, selective_ops=SOFTMAX,
      nonconformant=F64_BY_DESIGN)
def SoftmaxF64Module_basic():
    return nn.Softmax(dim=-1)


@case(inputs=randn_inputs(4, 3), family=FAMILY, selective_ops=SOFTMAX)
def SoftmaxIntModule_noncontiguous():
    return Fn(lambda x: torch.softmax(x.t(), dim=-1))


@case(inputs=lambda: (torch.randn(2, 6), torch.rand(2, 6) > 0.3), family=FAMILY, selective_ops=SOFTMAX)
def SoftmaxMaskedModule_basic():
    """A masked softmax: masked positions filled with -inf before it."""
    return Fn(lambda x, keep: torch.softmax(x.masked_fill(~keep, float("-inf")), dim=-1).nan_to_num(0.0))


@case(inputs=randn_inputs(3, 4), family=FAMILY, selective_ops=LOG_SOFTMAX)
def LogSoftmaxIntModule_basic():
    return nn.LogSoftmax(dim=1)


@case(inputs=lambda: (torch.randn(2, 5) * 100,), family=FAMILY, selective_ops=LOG_SOFTMAX)
def LogSoftmaxIntModule_large_values():
    return nn.LogSoftmax(dim=-1)


@case(inputs=randn_inputs(2, 3, 4), family=FAMILY, selective_ops=LOG_SOFTMAX)
def LogSoftmaxIntModule_dim0():
    return Fn(lambda x: F.log_softmax(x, dim=0))


@case(inputs=randn_inputs(3, 4), family=FAMILY, selective_ops=SOFTMAX)
def SoftminModule_basic():
    return nn.Softmin(dim=1)


@case(inputs=lambda: (torch.randn(3, 5), torch.randint(0, 5, (3,))), family=FAMILY, selective_ops=LOG_SOFTMAX)
def CrossEntropyLossModule_basic():
    """Cross entropy = log_softmax + nll_loss, mean-reduced to a 0-d tensor."""
    return nn.CrossEntropyLoss()


@case(inputs=lambda: (torch.randn(3, 5), torch.randint(0, 5, (3,))), family=FAMILY, selective_ops=LOG_SOFTMAX)
def CrossEntropyLossModule_label_smoothing_sum():
    return nn.CrossEntropyLoss(reduction="sum", label_smoothing=0.1)


_ZERO_D_STOCK = ("torch-mlir's decomposition of softmax and log_softmax never returns on a 0-d input (a hang the "
                 "OpInfo suite found, masked softmax of a 0-d sample): refused before the decomposition")


@case(inputs=lambda: (torch.tensor(1.5),), family=FAMILY, selective_ops=SOFTMAX, xfail={"stock": _ZERO_D_STOCK})
def SoftmaxIntModule_zero_d():
    """A 0-d softmax is 1 (its one element); auto mode keeps the op."""
    return Fn(lambda x: x.softmax(0))


@case(inputs=lambda: (torch.tensor(-0.5),), family=FAMILY, selective_ops=LOG_SOFTMAX, xfail={"stock": _ZERO_D_STOCK})
def LogSoftmaxIntModule_zero_d():
    return Fn(lambda x: torch.log_softmax(x, -1))
