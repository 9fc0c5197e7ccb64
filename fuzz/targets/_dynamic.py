"""Case kind `dynamic` of the `runtime` target: one load of a program with
`?` dims (CONTRACT.md §15), then calls at sizes drawn at the edges of the
declared range (its min and max, 1, 0, one past either end) and inside it.

The program is drawn from a few shapes a dynamic model has: a custom op
whose result has `?` dims (`result_shapes` over its operand's dims), an
elementwise TOSA op after it, a reduction over the dynamic dim, a reshape
with a -1, two inputs sharing one symbol. Oracle: eager PyTorch at every
size inside the range; outside it (or with the two inputs' sizes differing)
a clean error naming the input, before anything runs, and a following good
call still correct.
"""

from __future__ import annotations

import json

from hypothesis import strategies as st

from ..outcome import CORRECT, Defect, Outcome, clean_or_defect

__all__ = ["strategy", "check", "PROGRAMS"]


def _attrs(obj) -> str:
    from _emit import mlir_string

    return mlir_string(json.dumps(obj, separators=(",", ":"), sort_keys=True))


_SOFTMAX = {"args": {"dim": -1, "dtype": None, "self": {"operand": 0}}, "version": 3,
            "result_shapes": [["dim(0,0)", 8]]}
_GELU = {"args": {"approximate": "none", "self": {"operand": 0}}, "version": 3,
         "result_shapes": [["dim(0,0)", 8]]}

# name -> (function text with SYMBOLS/ATTRS placeholders, eager function of the inputs, inputs sharing s0)
PROGRAMS = {
    "custom_then_add": ("""func.func @f(%a: tensor<?x8xf32> {tosa_custom.shape = ["s0", 8]}, %b: tensor<?x8xf32> {tosa_custom.shape = ["s0", 8]}) -> tensor<?x8xf32> attributes {tosa_custom.symbols = SYMBOLS} {
  %0 = tosa.custom %a {domain_name = "torch_mlir", implementation_attrs = SOFTMAX, operator_name = "torch.aten.softmax.int"} : (tensor<?x8xf32>) -> tensor<?x8xf32>
  %1 = tosa.add %0, %b : (tensor<?x8xf32>, tensor<?x8xf32>) -> tensor<?x8xf32>
  return %1 : tensor<?x8xf32>
}""", lambda a, b: a.softmax(-1) + b, 2),
    "reduce": ("""func.func @f(%a: tensor<?x8xf32> {tosa_custom.shape = ["s0", 8]}) -> tensor<1x8xf32> attributes {tosa_custom.symbols = SYMBOLS} {
  %0 = tosa.custom %a {domain_name = "torch_mlir", implementation_attrs = GELU, operator_name = "torch.aten.gelu"} : (tensor<?x8xf32>) -> tensor<?x8xf32>
  %1 = tosa.reduce_sum %0 {axis = 0 : i32} : (tensor<?x8xf32>) -> tensor<1x8xf32>
  return %1 : tensor<1x8xf32>
}""", lambda a: __import__("torch").nn.functional.gelu(a).sum(0, keepdim=True), 1),
    "reshape": ("""func.func @f(%a: tensor<?x8xf32> {tosa_custom.shape = ["s0", 8]}) -> tensor<?x4xf32> attributes {tosa_custom.symbols = SYMBOLS} {
  %s = tosa.const_shape {values = dense<[-1, 4]> : tensor<2xindex>} : () -> !tosa.shape<2>
  %0 = tosa.reshape %a, %s : (tensor<?x8xf32>, !tosa.shape<2>) -> tensor<?x4xf32>
  %1 = tosa.tanh %0 : (tensor<?x4xf32>) -> tensor<?x4xf32>
  return %1 : tensor<?x4xf32>
}""", lambda a: a.reshape(-1, 4).tanh(), 1),
}

# Where the size is drawn: the range's ends, 1, inside, and outside it.
SIZES = ["min", "max", "one", "inside", "inside", "zero", "below", "above", "mismatch"]


@st.composite
def strategy(draw):
    low = draw(st.sampled_from([1, 1, 2, 3]))
    return {"kind": "dynamic", "program": draw(st.sampled_from(sorted(PROGRAMS))),
            "range": [low, low + draw(st.sampled_from([0, 1, 7, 100]))], "native": draw(st.booleans()),
            "vectorize": draw(st.booleans()), "seed": draw(st.integers(0, 2**31)),
            "sizes": draw(st.lists(st.sampled_from(SIZES), min_size=1, max_size=4))}


def _module(case) -> str:
    text, _, _ = PROGRAMS[case["program"]]
    low, high = case["range"]
    return (text.replace("SYMBOLS", f"{{s0 = array<i64: {low}, {high}>}}")
            .replace("SOFTMAX", _attrs(_SOFTMAX)).replace("GELU", _attrs(_GELU)))


def _size(where: str, low: int, high: int, g) -> tuple[int, bool]:
    """(rows, inside the range)."""
    import torch

    n = {"min": low, "max": high, "one": 1, "zero": 0, "below": low - 1, "above": high + 1, "mismatch": low,
         "inside": int(torch.randint(low, high + 1, (), generator=g))}[where]
    return n, low <= n <= high and where != "mismatch"


def check(case: dict) -> Outcome:
    import torch

    from tosa_custom import CompileError, runtime

    _, eager, count = PROGRAMS[case["program"]]
    low, high = case["range"]
    program = runtime.load(_module(case), native=case["native"], vectorize=case["vectorize"])
    g = torch.Generator().manual_seed(case["seed"])
    for where in case["sizes"] + ["inside"]:  # a good call last: a refusal leaves nothing behind
        rows, good = _size(where, low, high, g)
        if where == "mismatch" and count == 1:
            rows, good = high + 1, False
        inputs = [torch.randn(rows, 8, generator=g) for _ in range(count)]
        if where == "mismatch" and count > 1:
            inputs[1] = torch.randn(rows + 1, 8, generator=g)
        try:
            got = program(*inputs)
        except Exception as e:
            if good:
                raise Defect("wrong", f"{case['program']} at {rows} rows in [{low}, {high}] failed: {e!r}")
            clean_or_defect(e, (ValueError, CompileError))  # raises Defect unless a clean error
            if "input" not in str(e):
                raise Defect("exception", f"{case['program']} at {rows} rows: the refusal names no input: {e}")
            continue
        if not good:
            raise Defect("wrong", f"{case['program']} at {rows} rows ({where}) outside [{low}, {high}] ran")
        want = eager(*inputs)
        if got.shape != want.shape or not torch.allclose(got, want, rtol=1e-5, atol=1e-5 * (1 + rows) ** 0.5):
            raise Defect("wrong", f"{case['program']} at {rows} rows: got {got.shape}, expected {want.shape} "
                                  f"(max diff {(got - want).abs().max() if got.shape == want.shape else '-'})")
    return Outcome(CORRECT, f"{case['program']} at {case['sizes']} of [{low}, {high}]")
