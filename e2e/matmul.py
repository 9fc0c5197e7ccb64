"""Matrix products: mm, matmul of every rank combination (with batch
broadcasting), bmm, linear, addmm/baddbmm with alpha/beta, dot/mv/outer, einsum."""

import torch

from tosa_custom.e2e import Fn, case

FAMILY = "matmul"

# Why a float64 case's TOSA cannot validate, in every mode (CONTRACT.md §13.5).
F64_BY_DESIGN = "computes in float64 by design (an f64 input, result or dtype): TOSA 1.0 has no f64 in any profile"


def _x(*shapes):
    return lambda: tuple(torch.randn(*s) for s in shapes)


@case(inputs=_x((4, 5), (5, 3)), family=FAMILY)
def MmModule_basic():
    return Fn(torch.mm)


@case(inputs=_x((5, 4), (5, 3)), family=FAMILY)
def MmModule_transposed_lhs():
    """A transposed (non-contiguous) left operand."""
    return Fn(lambda a, b: torch.mm(a.t(), b))


@case(inputs=_x((4, 5), (5, 3)), family=FAMILY)
def MatmulModule_2d():
    return Fn(torch.matmul)


@case(inputs=_x((5,), (5, 3)), family=FAMILY)
def MatmulModule_1d_2d():
    return Fn(torch.matmul)


@case(inputs=_x((4, 5), (5,)), family=FAMILY)
def MatmulModule_2d_1d():
    return Fn(torch.matmul)


@case(inputs=_x((5,), (5,)), family=FAMILY)
def MatmulModule_1d_1d():
    """A dot product: a 0-d result."""
    return Fn(torch.matmul)


@case(inputs=_x((2, 4, 5), (5, 3)), family=FAMILY)
def MatmulModule_3d_2d():
    return Fn(torch.matmul)


@case(inputs=_x((2, 1, 4, 5), (3, 5, 6)), family=FAMILY)
def MatmulModule_broadcast_batch():
    """Batch dims broadcast: (2,1) with (3,) -> (2,3)."""
    return Fn(torch.matmul)


@case(inputs=_x((3, 5), (2, 5, 4)), family=FAMILY)
def MatmulModule_2d_3d():
    return Fn(torch.matmul)


@case(inputs=lambda: (torch.randn(3, 4, dtype=torch.float64), torch.randn(4, 2, dtype=torch.float64)), family=FAMILY,
      nonconformant=F64_BY_DESIGN)
def MatmulF64Module_basic():
    return Fn(torch.matmul)


@case(inputs=_x((2, 4, 5), (2, 5, 3)), family=FAMILY)
def BmmModule_basic():
    return Fn(torch.bmm)


@case(inputs=_x((2, 5, 4), (2, 3, 5)), family=FAMILY)
def BmmModule_transposed_operands():
    return Fn(lambda a, b: torch.bmm(a.transpose(1, 2), b.transpose(1, 2)))


@case(inputs=_x((3, 8)), family=FAMILY)
def LinearModule_basic():
    return torch.nn.Linear(8, 4)


@case(inputs=_x((2, 5, 8)), family=FAMILY)
def LinearModule_3d_no_bias():
    return torch.nn.Linear(8, 6, bias=False)


@case(inputs=_x((3, 8), (4, 8), (4,)), family=FAMILY)
def FunctionalLinearModule_weight_inputs():
    """Weights as graph inputs, not parameters."""
    return Fn(torch.nn.functional.linear)


@case(inputs=_x((4,), (3, 5), (5, 4)), family=FAMILY)
def AddmmModule_broadcast_bias():
    return Fn(torch.addmm)


@case(inputs=_x((3, 4), (3, 5), (5, 4)), family=FAMILY)
def AddmmModule_alpha_beta():
    return Fn(lambda c, a, b: torch.addmm(c, a, b, beta=0.5, alpha=2.0))


@case(inputs=_x((2, 3, 4), (2, 3, 5), (2, 5, 4)), family=FAMILY)
def BaddbmmModule_basic():
    return Fn(lambda c, a, b: torch.baddbmm(c, a, b, beta=-1.0, alpha=0.5))


@case(inputs=_x((4, 5), (5,)), family=FAMILY)
def MvModule_basic():
    return Fn(torch.mv)


@case(inputs=_x((5,), (5,)), family=FAMILY)
def DotModule_basic():
    return Fn(torch.dot)


@case(inputs=_x((4,), (3,)), family=FAMILY)
def OuterModule_basic():
    return Fn(torch.outer)


@case(inputs=_x((2, 3, 4), (2, 4, 5)), family=FAMILY)
def EinsumModule_batch_matmul():
    return Fn(lambda a, b: torch.einsum("bij,bjk->bik", a, b))


@case(inputs=_x((2, 3, 4), (5, 4)), family=FAMILY)
def EinsumModule_contract_last():
    return Fn(lambda a, b: torch.einsum("bsh,oh->bso", a, b))


@case(inputs=_x((3, 4, 5), (4, 5, 2)), family=FAMILY)
def TensordotModule_two_dims():
    return Fn(lambda a, b: torch.tensordot(a, b, dims=2))


@case(inputs=lambda: (torch.randn(3, 4, dtype=torch.float16), torch.randn(4, 5, dtype=torch.float16)),
      family=FAMILY, rtol=1e-3, atol=1e-3)
def MmF16Module_basic():
    return Fn(torch.mm)


@case(inputs=lambda: (torch.randint(-3, 4, (3, 4)), torch.randint(-3, 4, (4, 2))), family=FAMILY,
      nonconformant={"stock": "an int64 matmul: TOSA 1.0's tosa.matmul takes i8 or i16 (into i32 or i48), not i64"})
def MmIntModule_basic():
    return Fn(torch.mm)


@case(inputs=_x((2, 8)), family=FAMILY)
def MlpModule_basic():
    """Linear -> ReLU -> Linear, the everyday composition."""
    return torch.nn.Sequential(torch.nn.Linear(8, 16), torch.nn.ReLU(), torch.nn.Linear(16, 3))
