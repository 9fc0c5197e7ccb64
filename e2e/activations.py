"""Activation functions, each with the keyword arguments that change it
(slopes, thresholds, approximate='tanh', inplace)."""

import torch
from torch import nn
from torch.nn import functional as F

from tosa_custom.e2e import Fn, case

FAMILY = "activation"


def _x(*shape):
    return lambda: (torch.randn(*shape) * 3,)


@case(inputs=_x(3, 4), family=FAMILY, selective_ops=["aten.relu"])
def ReluModule_basic():
    return nn.ReLU()


@case(inputs=_x(3, 4), family=FAMILY, selective_ops=["aten.relu"])
def ReluModule_inplace():
    """inplace=True on an intermediate (functionalized by export)."""
    relu = nn.ReLU(inplace=True)
    return Fn(lambda x: relu(x * 2))


@case(inputs=lambda: (torch.randint(-5, 5, (3, 4)),), family=FAMILY, selective_ops=["aten.relu"],
      xfail={"stock": "torch-mlir has no TOSA lowering for aten.relu on int64"})
def ReluIntModule_basic():
    return nn.ReLU()


@case(inputs=lambda: (torch.randn(3, 4) * 5,), family=FAMILY, selective_ops=["aten.hardtanh"])
def Relu6Module_basic():
    return nn.ReLU6()


@case(inputs=_x(3, 4), family=FAMILY, selective_ops=["aten.leaky_relu"])
def LeakyReluModule_basic():
    return nn.LeakyReLU(0.2)


@case(inputs=_x(3, 4), family=FAMILY, selective_ops=["aten.elu"])
def EluModule_alpha():
    return nn.ELU(alpha=0.5)


@case(inputs=_x(3, 4), family=FAMILY, selective_ops=["aten.elu"])
def SeluModule_basic():
    return nn.SELU()


@case(inputs=_x(3, 4), family=FAMILY, selective_ops=["aten.celu"])
def CeluModule_basic():
    return nn.CELU(alpha=1.5)


@case(inputs=_x(2, 3, 4), family=FAMILY, selective_ops=["aten.gelu"])
def GeluModule_basic():
    return nn.GELU()


@case(inputs=_x(2, 3, 4), family=FAMILY, selective_ops=["aten.gelu"])
def GeluModule_tanh():
    return nn.GELU(approximate="tanh")


@case(inputs=_x(2, 3, 4), family=FAMILY, selective_ops=["aten.silu"])
def SiluModule_basic():
    return nn.SiLU()


@case(inputs=_x(3, 4), family=FAMILY, selective_ops=["aten.mish"])
def MishModule_basic():
    return nn.Mish()


@case(inputs=_x(3, 4), family=FAMILY, selective_ops=["aten.hardswish"])
def HardswishModule_basic():
    return nn.Hardswish()


@case(inputs=_x(3, 4), family=FAMILY, selective_ops=["aten.hardsigmoid"])
def HardsigmoidModule_basic():
    return nn.Hardsigmoid()


@case(inputs=_x(3, 4), family=FAMILY, selective_ops=["aten.hardtanh"])
def HardtanhModule_min_max():
    return nn.Hardtanh(-2.0, 1.5)


@case(inputs=lambda: (torch.randn(3, 4) * 15,), family=FAMILY, selective_ops=["aten.softplus"])
def SoftplusModule_beta_threshold():
    """Large inputs take the linear branch above threshold/beta."""
    return nn.Softplus(beta=2.0, threshold=10.0)


@case(inputs=_x(3, 4), family=FAMILY)
def SoftsignModule_basic():
    return nn.Softsign()


@case(inputs=_x(3, 4), family=FAMILY)
def TanhshrinkModule_basic():
    return nn.Tanhshrink()


@case(inputs=_x(3, 4), family=FAMILY, selective_ops=["aten.sigmoid"])
def SigmoidModule_basic():
    return nn.Sigmoid()


@case(inputs=_x(3, 4), family=FAMILY, selective_ops=["aten.tanh"])
def TanhModule_basic():
    return nn.Tanh()


@case(inputs=lambda: (torch.randn(3, 4) * 30,), family=FAMILY)
def LogSigmoidModule_basic():
    """Large negative inputs: log(sigmoid(x)) must not underflow to -inf."""
    return nn.LogSigmoid()


@case(inputs=_x(2, 3, 4, 4), family=FAMILY, selective_ops=["aten.prelu"])
def PreluModule_per_channel():
    prelu = nn.PReLU(3)
    with torch.no_grad():
        prelu.weight.copy_(torch.tensor([0.1, -0.2, 0.5]))
    return prelu


@case(inputs=_x(3, 8), family=FAMILY, selective_ops=["aten.glu"])
def GluModule_basic():
    return nn.GLU(dim=-1)


@case(inputs=_x(3, 4), family=FAMILY, selective_ops=["aten.threshold"])
def ThresholdModule_basic():
    return nn.Threshold(0.5, -1.0)


@case(inputs=_x(3, 4), family=FAMILY)
def HardshrinkModule_basic():
    return nn.Hardshrink(1.0)


@case(inputs=_x(3, 4), family=FAMILY)
def SoftshrinkModule_basic():
    return nn.Softshrink(0.7)


@case(inputs=_x(3, 4), family=FAMILY)
def RReluModule_eval():
    """In eval, RReLU is a leaky ReLU with the mean slope (deterministic)."""
    return nn.RReLU(0.1, 0.3)


@case(inputs=_x(2, 8), family=FAMILY, selective_ops=["aten.silu"])
def SwiGluModule_basic():
    """silu(x W1) * (x W2), the Llama MLP gate."""
    class SwiGlu(nn.Module):
        def __init__(self):
            super().__init__()
            self.w1, self.w2 = nn.Linear(8, 6, bias=False), nn.Linear(8, 6, bias=False)

        def forward(self, x):
            return F.silu(self.w1(x)) * self.w2(x)

    return SwiGlu()
