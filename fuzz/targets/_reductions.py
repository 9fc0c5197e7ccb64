"""The runtime target's `reductions` cases: reductions over the dim lists
that are edges of their meaning, compiled from PyTorch.

`torch.any(x, dim=())` reduces over no dim: eager returns `x != 0`. torch-mlir
folds `any.dims` over an empty list to `x` itself, so a uint8 tensor came back
unchanged (every-sample OpInfo any/uint8/3: 5 where eager gives 1, in stock
and auto mode). The family's first run found more: an int32 sum into int64
was summed in i32 and wrapped past 2**31 (`tosa-custom-integer-sums`). An empty list, `None` (every dim), a negative dim, every dim
listed, a 0-d tensor and keepdim are where a reduction's reading of its dims
can differ from eager's. These cases draw the reduction, the dim list, keepdim,
the dtype (uint8 and bool among them), the rank and the mode, and run on
values with zeros and the type's ends. Oracle: eager PyTorch, the same dtype
and shape, values equal (floats within the sum's rounding). Stock mode may
refuse with a clean error; auto mode must compile: it tunnels what TOSA cannot
take.
"""

from __future__ import annotations

from hypothesis import strategies as st

from ..outcome import CORRECT, Defect, Outcome
from ._compiled import run_compiled

__all__ = ["strategy", "check", "OPS", "DIMS"]

OPS = ("any", "all", "sum", "prod", "amax", "amin", "mean")
DIMS = ("empty", "none", "one", "negative", "every", "omitted")
_TYPES = ("uint8", "bool", "int8", "int32", "int64", "float32")


@st.composite
def strategy(draw):
    return {"kind": "reductions", "op": draw(st.sampled_from(OPS)), "dims": draw(st.sampled_from(DIMS)),
            "keepdim": draw(st.booleans()), "type": draw(st.sampled_from(_TYPES)),
            "rank": draw(st.sampled_from([0, 1, 2, 3])), "mode": draw(st.sampled_from(["stock", "auto"])),
            "seed": draw(st.integers(0, 2**31))}


def _dim(case: dict):
    rank, dims = case["rank"], case["dims"]
    if dims == "empty":
        return ()
    if dims == "none":
        return None
    if dims == "every":
        return tuple(range(rank))
    if rank == 0:
        return 0 if dims == "one" else -1  # a 0-d tensor takes dim 0 and -1
    return (rank - 1) // 2 if dims == "one" else -1


def _values(case: dict):
    import torch

    g = torch.Generator().manual_seed(case["seed"])
    shape = tuple(int(torch.randint(1, 4, (), generator=g)) for _ in range(case["rank"]))
    dtype = getattr(torch, case["type"])
    if dtype == torch.bool:
        return torch.rand(shape, generator=g) > 0.5
    if dtype.is_floating_point:
        x = torch.randn(shape, generator=g, dtype=dtype)
    else:
        info = torch.iinfo(dtype)
        x = torch.randint(info.min, info.max, shape, generator=g, dtype=torch.int64)
        if x.numel():  # the ends among the values
            x.view(-1)[0] = info.max if case["seed"] % 2 else info.min
        x = x.to(dtype)
    return x * (torch.rand(shape, generator=g) > 0.3).to(dtype)  # zeros, or a whole row of them


def _function(case: dict):
    import torch

    op, dim, keepdim = case["op"], _dim(case), case["keepdim"]

    def fn(x):
        if case["dims"] == "omitted":
            return getattr(torch, op)(x)
        return getattr(torch, op)(x, dim=dim, keepdim=keepdim)
    return fn


def check(case: dict) -> Outcome:
    import torch

    fn, x = _function(case), _values(case)
    what = (f"{case['op']} over dims {case['dims']} ({_dim(case)!r}, keepdim={case['keepdim']}) of a "
            f"{case['type']} tensor of shape {tuple(x.shape)}, {case['mode']} mode")
    try:
        want = fn(x)
    except Exception:  # eager refuses (mean of integers, a dim list of a 0-d tensor): nothing to compare
        return Outcome(CORRECT, f"{what}: eager refuses")

    got = run_compiled(fn, (x,), case["mode"], what, stock_may_refuse=True)
    if isinstance(got, Outcome):  # stock mode refused, cleanly
        return got
    if not isinstance(got, torch.Tensor) or got.dtype != want.dtype or got.shape != want.shape:
        raise Defect("wrong", f"{what}: got {got!r}, eager {want!r}")
    if want.dtype.is_floating_point:  # a sum of at most 27 terms, each rounded once more at worst
        tol = 32 * torch.finfo(want.dtype).eps * max(1.0, float(x.abs().sum()) if x.numel() else 1.0)
        ok = torch.allclose(got.double(), want.double(), rtol=0, atol=tol, equal_nan=True)
    else:
        ok = torch.equal(got, want)
    if not ok:
        raise Defect("wrong", f"{what}: on {x!r} got {got!r}, eager {want!r}")
    return Outcome(CORRECT, what)
