"""Target `runtime`: `runtime.load` and `Program.__call__` with bad inputs and misbehaving kernels.

Case kinds:
- `inputs`: a loaded program called with inputs of every layout (contiguous,
  transposed, strided, expanded, Fortran-order numpy, 0-d, requiring grad)
  and of the wrong count, shape, dtype or type (zero-size, lists, None).
  Oracle: eager PyTorch for the program's function.
- `kernel`: a program whose `tosa.custom` runs a kernel told, per case, to be
  correct, slow, re-entrant, to raise (any exception type), or to return the
  wrong shape, dtype, count or type. A following good call must be correct
  (a failure leaves no state behind). Oracle: eager PyTorch. Or a custom op
  of two results whose kernel misbehaves on the second only, which the
  program reads or not: a wrong value nothing reads is no error (OpInfo's
  embedding_bag: PyTorch's CPU kernel returns an empty offset2bag where the
  op's type says [N]).
- `attrs`: a module whose `implementation_attrs` was mutated (the `decode`
  target's mutations), loaded and called. Oracle: the mutated call, decoded
  and run by eager PyTorch: the program gives its result, or the same kind of
  failure, as a clean error.
- `module`: truncated or garbled module text through `runtime.load`.
- `cast` (_casts.py): float narrowing and widening at the values where
  rounding is decided, bit-exact against rounding once to nearest even.
- `math` (_math.py): elementwise math (libm calls, expanded polynomials)
  in f32, f16 and bf16, against torch in float64.
- `folds` (_folds.py): an op with a constant operand (0, -0, 1, inf, NaN...)
  compiled from PyTorch in stock or auto mode, on NaN, infinities and signed
  zeros: what a fold of `x * 0` to 0 gets wrong.
- `extremes` (_extremes.py): max and min reductions and max pooling compiled
  from PyTorch in stock or auto mode, of rows of infinities, NaN and the
  type's largest finite values: what starting a max from -3.4e38 gets wrong.
- `quotients` (_quotients.py): floor and trunc division, remainder and fmod
  compiled from PyTorch where the quotient is an integer or just off one,
  against the exact answer: what dividing as x * (1/y) gets wrong.
- `reductions` (_reductions.py): any, all, sum, prod, amax, amin and mean
  over no dim, every dim, None, a negative dim, of uint8, bool, int and float
  tensors of rank 0-3, compiled in stock or auto mode: what folding `any`
  over no dims to `x` gets wrong.
- `mixed` (_mixed.py): ops whose operands mix dtypes (threshold_backward
  of an int64 grad and a float32 self), and `out=` tensors of another shape
  (`arange(1, 13, out=x)` of a [3, 4] `x`), compiled in stock or auto mode:
  eager's result dtype, and the `out=` tensor as eager leaves it.
- `dynamic` (_dynamic.py): one load of a program with `?` dims, called at
  sizes at the edges of its declared range and beyond them.
- `sizes` (_sizes.py): PyTorch functions using a `?` dim's size as a value
  (arithmetic into views, expands, slices, divisors; causal masks from
  arange/tril/triu; causal sdpa), compiled once with dynamic shapes in stock
  or auto mode, run at the range's ends and inside against eager, refused
  past its end naming the range.
- `resize` (_resize.py): F.interpolate, bilinear, up and down by any ratio
  or scale factor, align_corners either way, float32 and float16, compiled
  in stock or auto mode against eager: both sides of the line between one
  tosa.resize and PyTorch's decomposition.
- `results`: a valid module whose results are drawn from a computed value, a
  custom op's result, an argument, a constant and reshaped views of them, any
  of them repeated (what torch.export makes of an in-place update), or none,
  with unused arguments besides, loaded vectorized or naive. Oracle: the same
  values computed by eager PyTorch; any failure at all is a defect.

`native=` of `load` is drawn when the runtime has native kernels (issue 6), so
the same cases run through them; an AddressSanitizer build is a separate run
of this target against an instrumented kernel library.
"""

from __future__ import annotations

import inspect
import json
import math
import time

import numpy as np
from hypothesis import strategies as st

from ..outcome import CORRECT, Defect, Outcome, clean_or_defect, describe
from . import _casts, _dynamic, _extremes, _folds, _math, _mixed, _quotients, _reductions, _resize, _sizes
from . import decode as _decode_target

__all__ = ["strategy", "check", "PROGRAMS"]


def _attrs(obj) -> str:
    from _emit import mlir_string

    return mlir_string(json.dumps(obj, separators=(",", ":"), sort_keys=True))


def _custom(operands, types, result, name, attrs_text, domain="torch_mlir"):
    return (f"%0 = tosa.custom {', '.join(operands)} {{domain_name = \"{domain}\", implementation_attrs = {attrs_text}, "
            f"operator_name = \"{name}\"}} : ({', '.join(types)}) -> {result}")


GELU_ATTRS = {"args": {"approximate": "none", "self": {"operand": 0}}, "version": 1}
LN_ATTRS = {"args": {"bias": None, "cudnn_enable": False, "eps": 1e-05, "input": {"operand": 0},
                     "normalized_shape": [8], "weight": {"operand": 1}}, "version": 1}
SOFTMAX_ATTRS = {"args": {"dim": -1, "dtype": None, "self": {"operand": 0}}, "version": 1}
NEG_ATTRS = {"args": {"self": {"operand": 0}}, "version": 1}


def _module(name: str, attrs: dict | None = None, attrs_text: str | None = None) -> str:
    """MLIR text of base program `name` (attrs replaced when given)."""
    p = PROGRAMS[name]
    text = attrs_text if attrs_text is not None else _attrs(attrs if attrs is not None else p["attrs"])
    return p["template"].replace("ATTRS", text)


PROGRAMS = {
    "gelu": dict(
        inputs=[((3, 4), "float32")], attrs=GELU_ATTRS, op="torch.aten.gelu",
        template="""func.func @f(%a: tensor<3x4xf32>) -> tensor<3x4xf32> {
  %0 = tosa.custom %a {domain_name = "torch_mlir", implementation_attrs = ATTRS, operator_name = "torch.aten.gelu"} : (tensor<3x4xf32>) -> tensor<3x4xf32>
  return %0 : tensor<3x4xf32>
}""",
        eager=lambda a: __import__("torch").nn.functional.gelu(a)),
    "layer_norm": dict(
        inputs=[((2, 8), "float32"), ((8,), "float32")], attrs=LN_ATTRS, op="torch.aten.layer_norm",
        template="""func.func @f(%x: tensor<2x8xf32>, %w: tensor<8xf32>) -> tensor<2x8xf32> {
  %0 = tosa.custom %x, %w {domain_name = "torch_mlir", implementation_attrs = ATTRS, operator_name = "torch.aten.layer_norm"} : (tensor<2x8xf32>, tensor<8xf32>) -> tensor<2x8xf32>
  return %0 : tensor<2x8xf32>
}""",
        eager=lambda x, w: __import__("torch").nn.functional.layer_norm(x, [8], w, None, 1e-05)),
    "softmax_add": dict(
        inputs=[((4, 5), "float32"), ((4, 5), "float32")], attrs=SOFTMAX_ATTRS, op="torch.aten.softmax.int",
        operands=1,
        template="""func.func @f(%a: tensor<4x5xf32>, %b: tensor<4x5xf32>) -> tensor<4x5xf32> {
  %0 = tosa.custom %a {domain_name = "torch_mlir", implementation_attrs = ATTRS, operator_name = "torch.aten.softmax.int"} : (tensor<4x5xf32>) -> tensor<4x5xf32>
  %1 = tosa.add %0, %b : (tensor<4x5xf32>, tensor<4x5xf32>) -> tensor<4x5xf32>
  return %1 : tensor<4x5xf32>
}""",
        eager=lambda a, b: __import__("torch").softmax(a, -1) + b),
    "neg_0d": dict(
        inputs=[((), "float64")], attrs=NEG_ATTRS, op="torch.aten.neg",
        template="""func.func @f(%a: tensor<f64>) -> tensor<f64> {
  %0 = tosa.custom %a {domain_name = "torch_mlir", implementation_attrs = ATTRS, operator_name = "torch.aten.neg"} : (tensor<f64>) -> tensor<f64>
  return %0 : tensor<f64>
}""",
        eager=lambda a: -a),
    "softmax_0d": dict(  # a 0-d result of a numpy kernel (OpInfo's softmin of a 0-d float64 sample)
        inputs=[((), "float64")], attrs={**SOFTMAX_ATTRS, "args": {**SOFTMAX_ATTRS["args"], "dim": 0}},
        op="torch.aten.softmax.int",
        template="""func.func @f(%a: tensor<f64>) -> tensor<f64> {
  %0 = tosa.custom %a {domain_name = "torch_mlir", implementation_attrs = ATTRS, operator_name = "torch.aten.softmax.int"} : (tensor<f64>) -> tensor<f64>
  return %0 : tensor<f64>
}""",
        eager=lambda a: __import__("torch").softmax(a, 0)),
    "fuzz_kernel": dict(
        inputs=[((3, 4), "float32"), ((3, 4), "float32")], attrs=None, op="fuzz.mul",
        template="""func.func @f(%a: tensor<3x4xf32>, %b: tensor<3x4xf32>) -> tensor<3x4xf32> {
  %0 = tosa.custom %a, %b {domain_name = "fuzz", implementation_attrs = "", operator_name = "fuzz.mul"} : (tensor<3x4xf32>, tensor<3x4xf32>) -> tensor<3x4xf32>
  %1 = tosa.add %0, %a : (tensor<3x4xf32>, tensor<3x4xf32>) -> tensor<3x4xf32>
  return %1 : tensor<3x4xf32>
}""",
        eager=lambda a, b: a * b + a),
}

GOOD_LAYOUTS = ["contiguous", "contiguous", "transposed", "strided", "expanded", "numpy", "numpy-fortran",
                "requires-grad", "nan-inf"]
BAD_LAYOUTS = ["wrong-shape", "wrong-dtype", "zero-size", "zero-d", "list", "none", "scalar", "int-tensor",
               "extra-dim", "bool"]
BEHAVIOURS = ["correct", "correct-in-place", "numpy", "non-contiguous-result", "slow", "reentrant",
              "raise-ValueError", "raise-RuntimeError", "raise-ZeroDivisionError", "raise-KeyError",
              "raise-SystemExit", "raise-RecursionError", "raise-empty", "wrong-shape", "wrong-dtype",
              "wrong-count", "not-a-tensor", "zero-d-result", "list-result", "huge-result"]


PAIR_BEHAVIOURS = ["correct", "numpy", "empty", "raise-ValueError", "wrong-shape", "wrong-dtype", "wrong-count",
                   "not-a-tensor", "zero-d-result", "list-result", "huge-result"]
_PAIR_TEMPLATE = """func.func @f(%a: tensor<3x4xf32>, %b: tensor<3x4xf32>) -> (RESULTS) {
  %0:2 = tosa.custom %a, %b {domain_name = "fuzz", implementation_attrs = "", operator_name = "fuzz.mul_sub"} : (tensor<3x4xf32>, tensor<3x4xf32>) -> (tensor<3x4xf32>, tensor<3x4xf32>)
  %1 = tosa.add %0#0, %a : (tensor<3x4xf32>, tensor<3x4xf32>) -> tensor<3x4xf32>
  return RETURNED
}"""


def _pair_module(used: bool) -> str:
    """fuzz.mul_sub (a * b, a - b): the program returns a * b + a, and a - b when `used`."""
    t = "tensor<3x4xf32>"
    return (_PAIR_TEMPLATE.replace("RESULTS", f"{t}, {t}" if used else t)
            .replace("RETURNED", f"%1, %0#1 : {t}, {t}" if used else f"%1 : {t}"))


@st.composite
def strategy_(draw):
    kind = draw(st.sampled_from(["inputs", "inputs", "kernel", "kernel", "attrs", "module", "results", "results",
                                 "dynamic", "dynamic", "cast", "math", "folds", "extremes", "quotients",
                                 "reductions", "mixed", "sizes", "resize"]))
    if kind == "resize":
        return draw(_resize.strategy())
    if kind == "sizes":
        return draw(_sizes.strategy())
    if kind == "mixed":
        return draw(_mixed.strategy())
    if kind == "dynamic":
        return draw(_dynamic.strategy())
    if kind == "cast":
        return draw(_casts.strategy())
    if kind == "math":
        return draw(_math.strategy())
    if kind == "folds":
        return draw(_folds.strategy())
    if kind == "extremes":
        return draw(_extremes.strategy())
    if kind == "quotients":
        return draw(_quotients.strategy())
    if kind == "reductions":
        return draw(_reductions.strategy())
    case = {"kind": kind, "seed": draw(st.integers(0, 2**31)), "native": draw(st.booleans())}
    if kind == "results":
        case["results"] = draw(st.lists(st.sampled_from(sorted(_RESULTS)), min_size=0, max_size=5))
        case["unused"] = draw(st.integers(0, 2))
        case["vectorize"] = draw(st.booleans())
        case["dtype"] = draw(st.sampled_from(sorted(_FLOATS)))
    elif kind == "inputs":
        case["program"] = draw(st.sampled_from(sorted(PROGRAMS)))
        n = len(PROGRAMS[case["program"]]["inputs"])
        bad = draw(st.integers(0, 3)) == 0
        case["layouts"] = [draw(st.sampled_from(GOOD_LAYOUTS)) for _ in range(n)]
        if bad:
            case["layouts"][draw(st.integers(0, n - 1))] = draw(st.sampled_from(BAD_LAYOUTS))
        case["count"] = draw(st.sampled_from([0] * 8 + [-1, 1]))  # inputs missing or extra
    elif kind == "kernel":
        case["program"] = "fuzz_kernel"
        case["pair"] = draw(st.sampled_from([None, None, "unused", "used"]))
        case["behaviour"] = draw(st.sampled_from(PAIR_BEHAVIOURS if case["pair"] else BEHAVIOURS))
        case["sleep"] = draw(st.sampled_from([0.0, 0.01, 0.2]))
    elif kind == "attrs":
        case["program"] = draw(st.sampled_from(["gelu", "layer_norm", "softmax_add", "neg_0d"]))
        case["mutations"] = draw(st.lists(st.one_of(_decode_target._json_mutation(),
                                                    _decode_target._text_mutation()), min_size=1, max_size=2))
        case["mutations"] = [list(m) for m in case["mutations"]]
    else:
        case["program"] = draw(st.sampled_from(sorted(PROGRAMS)))
        case["cut"] = draw(st.integers(0, 10**6))
        case["insert"] = draw(st.sampled_from(["", "}", "{", "%", "tensor<", "tosa.custom", "\x00", "é", "?x"]))
    return case


def strategy():
    return strategy_()


# --------------------------------------------------------------------------
# The misbehaving kernel (domain "fuzz"), told what to do by the case.
# --------------------------------------------------------------------------

_STATE = {"behaviour": "correct", "sleep": 0.0, "program": None, "depth": 0}


def _fuzz_kernel(call):
    import torch

    a, b = call.inputs
    out = call.outputs[0]
    behaviour = _STATE["behaviour"]
    if _STATE["sleep"]:
        time.sleep(_STATE["sleep"])
    good = a * b
    if behaviour == "correct":
        return good
    if behaviour == "correct-in-place":
        torch.mul(a, b, out=out)
        return None
    if behaviour == "numpy":
        return good.numpy()
    if behaviour == "non-contiguous-result":
        return good.t().contiguous().t()
    if behaviour == "slow":
        time.sleep(0.05)
        return good
    if behaviour == "reentrant":
        if _STATE["depth"] == 0:
            _STATE["depth"] += 1
            try:
                inner = _STATE["program"](a.clone(), b.clone())  # = a*b + a
            finally:
                _STATE["depth"] -= 1
            return inner - a
        return good
    if behaviour.startswith("raise-"):
        name = behaviour[len("raise-"):]
        if name == "empty":
            raise ValueError()
        raise {"ValueError": ValueError, "RuntimeError": RuntimeError, "ZeroDivisionError": ZeroDivisionError,
               "KeyError": KeyError, "SystemExit": SystemExit, "RecursionError": RecursionError}[name]("fuzz")
    if behaviour == "wrong-shape":
        return good.t()
    if behaviour == "wrong-dtype":
        return good.double()
    if behaviour == "wrong-count":
        return good, good
    if behaviour == "not-a-tensor":
        return 3.0
    if behaviour == "zero-d-result":
        return good.sum()
    if behaviour == "list-result":
        return [good]
    if behaviour == "huge-result":
        return torch.zeros(3000, 4000)
    raise AssertionError(behaviour)


_ERROR_BEHAVIOURS = {b for b in BEHAVIOURS if b.startswith(("raise-", "wrong-", "not-", "zero-d", "huge"))}


def _fuzz_pair_kernel(call):
    """(a * b, a - b), the second result as the case says."""
    import torch

    a, b = call.inputs
    behaviour, good = _STATE["behaviour"], a - b
    if behaviour == "raise-ValueError":
        raise ValueError("fuzz")
    if behaviour == "wrong-count":
        return a * b, good, good
    second = {"correct": good, "numpy": good.numpy(), "empty": torch.zeros(0, dtype=torch.int64),
              "wrong-shape": good.t(), "wrong-dtype": good.double(), "not-a-tensor": 3.0,
              "zero-d-result": good.sum(), "list-result": [good], "huge-result": torch.zeros(3000, 4000)}[behaviour]
    return a * b, second


def setup():
    from tosa_custom import runtime

    runtime.register_kernel("fuzz.mul", domain_name="fuzz")(_fuzz_kernel)
    runtime.register_kernel("fuzz.mul_sub", domain_name="fuzz")(_fuzz_pair_kernel)


_LOADED: dict = {}


def _load(text: str, native: bool):
    from tosa_custom import runtime

    if "native" in inspect.signature(runtime.load).parameters:
        return runtime.load(text, native=native)
    return runtime.load(text)


def _program(name: str, native: bool):
    key = (name, native)
    if key not in _LOADED:
        _LOADED[key] = _load(_module(name), native)
    return _LOADED[key]


# --------------------------------------------------------------------------
# Inputs.
# --------------------------------------------------------------------------


def _make(shape, dtype_name: str, layout: str, g):
    import torch

    dtype = getattr(torch, dtype_name)
    base = torch.randn(shape, generator=g, dtype=torch.float64).to(dtype)
    if layout in ("contiguous",):
        return base
    if layout == "nan-inf":
        flat = base.reshape(-1).clone()
        if flat.numel():
            flat[0] = math.nan
            # eager gelu(inf) is nan, the numpy kernel's is inf (the limit): not compared
            flat[-1] = -math.inf if _STATE.get("no_inf") else math.inf
        return flat.reshape(shape)
    if layout == "transposed":
        return base.t().contiguous().t() if len(shape) == 2 else base
    if layout == "strided":
        big = torch.randn([2 * d for d in shape], generator=g, dtype=torch.float64).to(dtype)
        return big[tuple(slice(None, None, 2) for _ in shape)]
    if layout == "expanded":
        return base.reshape(-1)[:1].reshape([1] * len(shape)).expand(shape) if shape else base
    if layout == "numpy":
        return base.numpy()
    if layout == "numpy-fortran":  # (numpy makes a 0-d array 1-d here)
        return np.asfortranarray(base.numpy()) if shape else base.numpy()
    if layout == "requires-grad":
        return base.clone().requires_grad_(True) if dtype.is_floating_point else base
    if layout == "wrong-shape":
        return torch.randn(tuple(d + 1 for d in shape) or (2,), generator=g).to(dtype)
    if layout == "wrong-dtype":
        return base.to(torch.float16 if dtype != torch.float16 else torch.float32)
    if layout == "zero-size":
        return torch.zeros((0,) + tuple(shape[1:]), dtype=dtype)
    if layout == "zero-d":
        return torch.tensor(1.5, dtype=dtype) if shape else torch.zeros(1, dtype=dtype)
    if layout == "list":
        return base.tolist()
    if layout == "none":
        return None
    if layout == "scalar":
        return 1.5
    if layout == "int-tensor":
        return base.to(torch.int64)
    if layout == "extra-dim":
        return base.unsqueeze(0)
    if layout == "bool":
        return base > 0
    raise AssertionError(layout)


def _as_tensor(x):
    import torch

    if isinstance(x, np.ndarray):
        return torch.from_numpy(x.copy())  # (np.ascontiguousarray makes 0-d arrays 1-d)
    if isinstance(x, (bool, int, float)):
        return torch.tensor(x, dtype=torch.float64 if isinstance(x, float) else None)
    return x


def _same(got, want) -> bool:
    import torch

    if not isinstance(got, torch.Tensor) or got.shape != want.shape or got.dtype != want.dtype:
        return False
    return bool(torch.allclose(got.detach(), want.detach(), rtol=1e-4, atol=1e-5, equal_nan=True))


def _call(program, inputs):
    from tosa_custom import CompileError, ContractError
    from tosa_custom.runtime import KernelError

    try:
        return program(*inputs), None
    except (KernelError, ContractError, CompileError, ValueError, TypeError) as e:
        return None, e


def _check_inputs(case) -> Outcome:
    import torch

    p = PROGRAMS[case["program"]]
    program = _program(case["program"], case["native"])
    g = torch.Generator().manual_seed(case["seed"])
    _STATE["no_inf"] = case["program"] == "gelu"
    inputs = [_make(s, d, layout, g) for (s, d), layout in zip(p["inputs"], case["layouts"])]
    if case["count"] == -1:
        inputs = inputs[:-1]
    elif case["count"] == 1:
        inputs = inputs + [inputs[0]]
    snapshot = [x.clone() if isinstance(x, torch.Tensor) else x for x in inputs]
    # A Python float is a valid 0-d f64 input (CONTRACT.md 4.6); `list` of a 0-d tensor is one.
    scalar_ok = [s == () and d == "float64" for s, d in p["inputs"]]
    valid = case["count"] == 0 and all(layout in GOOD_LAYOUTS or (ok and layout in ("scalar", "list"))
                                       for layout, ok in zip(case["layouts"], scalar_ok))
    try:
        got = program(*inputs)
    except Exception as e:
        if valid:
            raise Defect("exception", f"valid inputs {case['layouts']} refused: {describe(e)}") from None
        return clean_or_defect(e, (ValueError, TypeError))
    if not valid:
        raise Defect("wrong", f"invalid inputs {case['layouts']} (count {case['count']:+d}) accepted: {got}")
    with torch.no_grad():
        want = p["eager"](*[_as_tensor(x).detach() for x in inputs])
    if not _same(got, want):
        raise Defect("wrong", f"{case['program']}({case['layouts']}) = {got}, eager PyTorch gives {want}")
    for before, after in zip(snapshot, inputs):
        if isinstance(before, torch.Tensor) and not torch.equal(before.nan_to_num(), after.nan_to_num()):
            raise Defect("wrong", f"{case['program']} changed its input {case['layouts']}")
    return Outcome(CORRECT, f"{case['program']} {case['layouts']}")


def _check_pair(case) -> Outcome:
    import torch

    from tosa_custom.runtime import KernelError

    used = case["pair"] == "used"
    key = ("fuzz_pair", used, case["native"])
    if key not in _LOADED:
        _LOADED[key] = _load(_pair_module(used), case["native"])
    g = torch.Generator().manual_seed(case["seed"])
    a, b = torch.randn(3, 4, generator=g), torch.randn(3, 4, generator=g)
    want = (a * b + a, a - b) if used else a * b + a
    _STATE.update(behaviour=case["behaviour"])
    try:
        got, error = _call(_LOADED[key], (a, b))
    finally:
        _STATE.update(behaviour="correct")
    fails = case["behaviour"] in ("raise-ValueError", "wrong-count") or (
        used and case["behaviour"] not in ("correct", "numpy"))
    if fails:
        if error is None:
            raise Defect("wrong", f"a kernel that does '{case['behaviour']}' on a {case['pair']} result gave {got}")
        return clean_or_defect(error, (KernelError,))
    if error is not None:
        raise Defect("exception", f"a kernel that does '{case['behaviour']}' on a result nothing reads failed: "
                                  f"{describe(error)}")
    if not (all(map(_same, got, want)) if used else _same(got, want)):
        raise Defect("wrong", f"kernel '{case['behaviour']}' on a {case['pair']} result: {got}, expected {want}")
    return Outcome(CORRECT, f"{case['behaviour']} ({case['pair']})")


def _check_kernel(case) -> Outcome:
    import torch

    from tosa_custom.runtime import KernelError

    if case.get("pair"):
        return _check_pair(case)
    program = _program("fuzz_kernel", case["native"])
    g = torch.Generator().manual_seed(case["seed"])
    a, b = torch.randn(3, 4, generator=g), torch.randn(3, 4, generator=g)
    want = a * b + a
    _STATE.update(behaviour=case["behaviour"], sleep=case["sleep"], program=program)
    try:
        got, error = _call(program, (a, b))
    finally:
        _STATE.update(behaviour="correct", sleep=0.0)
    if case["behaviour"] in _ERROR_BEHAVIOURS:
        if error is None:
            raise Defect("wrong", f"a kernel that does '{case['behaviour']}' gave a result: {got}")
        outcome = clean_or_defect(error, (KernelError,))
        if "fuzz.mul" not in str(error):
            raise Defect("wrong", f"the kernel error does not name the op: {error}")
    else:
        if error is not None:
            raise Defect("exception", f"a kernel that does '{case['behaviour']}' failed: {describe(error)}")
        if not _same(got, want):
            raise Defect("wrong", f"kernel '{case['behaviour']}': {got}, expected {want}")
        outcome = Outcome(CORRECT, case["behaviour"])
    # No state survives a call: the next one is right.
    got, error = _call(program, (b, a))
    if error is not None or not _same(got, b * a + b):
        raise Defect("wrong", f"after a '{case['behaviour']}' call, a good call gave {got} / {error!r}")
    return outcome


def _check_attrs(case) -> Outcome:
    import torch

    from tosa_custom import CompileError, ContractError
    from tosa_custom.contract.encoding import decode_attrs
    from tosa_custom.runtime import KernelError

    p = PROGRAMS[case["program"]]
    name, _, text, n = _decode_target.mutations(
        {"operator_name": p["op"], "attrs": json.dumps(p["attrs"]), "num_operands": len(p["inputs"]),
         "mutations": case["mutations"]})
    from _emit import mlir_string

    try:
        attrs_text = mlir_string(text)
    except UnicodeEncodeError:
        attrs_text = mlir_string(text.encode("utf-8", "surrogatepass").decode("latin-1"))
    try:
        program = _load(_module(case["program"], attrs_text=attrs_text), case["native"])
    except Exception as e:
        return clean_or_defect(e, (CompileError, ContractError, ValueError, TypeError))
    # It loaded, so the attributes decode: the oracle is that decoded call, run eagerly.
    call = decode_attrs(p["op"], text, p.get("operands", len(p["inputs"])))
    g = torch.Generator().manual_seed(case["seed"])
    inputs = [torch.randn(s, generator=g, dtype=torch.float64).to(getattr(torch, d)) for s, d in p["inputs"]]
    try:
        with torch.no_grad():
            want = call(*inputs[:p.get("operands", len(inputs))])
            if case["program"] == "softmax_add" and isinstance(want, torch.Tensor):
                want = want + inputs[1]  # the tosa.add after the custom op
    except Exception as e:
        want = e
    got, error = _call(program, inputs)
    if isinstance(want, Exception) or not isinstance(want, torch.Tensor) or want.shape != got_shape(p) \
            or want.dtype != getattr(torch, p["inputs"][0][1]):
        if error is None:
            raise Defect("wrong", f"{text}: eager PyTorch gives {want!r}, the program returned {got}")
        return clean_or_defect(error, (KernelError,))
    if error is not None:
        return clean_or_defect(error, (KernelError,))  # a kernel may refuse arguments eager torch takes
    if not _same(got, want):
        raise Defect("wrong", f"{text}: program gives {got}, eager PyTorch {want}")
    return Outcome(CORRECT, text[:150])


def got_shape(p):
    import torch

    return torch.Size(p["inputs"][0][0])


def _check_module(case) -> Outcome:
    from tosa_custom import CompileError, ContractError

    text = _module(case["program"])
    cut = case["cut"] % (len(text) + 1)
    text = text[:cut] + case["insert"] + text[cut:] if case["insert"] else text[:cut]
    try:
        _load(text, case["native"])
    except Exception as e:
        # A cut that leaves one word ("f", "func.f") is a file name as much as MLIR: load() says no such file.
        return clean_or_defect(e, (CompileError, ContractError, ValueError, TypeError, FileNotFoundError))
    return Outcome(CORRECT, "loaded")


# --------------------------------------------------------------------------
# Result shapes: repeated, aliased, constant and argument results.
# --------------------------------------------------------------------------

_CONST = [float(i) / 2 for i in range(12)]  # exact in every float type below
# MLIR element type -> torch dtype name. bf16 and f16 are computed in f32 by
# LLVM on hosts without native support (a builtin the JIT may lack: found so).
_FLOATS = {"f32": "float32", "f64": "float64", "f16": "float16", "bf16": "bfloat16"}
# result name -> (MLIR type, eager value from the two [2, 6] arguments)
_RESULTS = {
    "sum": ("tensor<2x6xf32>", lambda a, b: a + b),
    "neg": ("tensor<2x6xf32>", lambda a, b: -a),
    "arg0": ("tensor<2x6xf32>", lambda a, b: a),
    "arg1": ("tensor<2x6xf32>", lambda a, b: b),
    "const": ("tensor<2x6xf32>", lambda a, b: __import__("torch").tensor(_CONST, dtype=a.dtype).reshape(2, 6)),
    "view_sum": ("tensor<3x4xf32>", lambda a, b: (a + b).reshape(3, 4)),
    "view_arg": ("tensor<3x4xf32>", lambda a, b: a.reshape(3, 4)),
    "view_neg": ("tensor<12xf32>", lambda a, b: (-a).reshape(12)),
}


def _results_module(names: list[str], unused: int, dtype: str = "f32") -> str:
    """The module, written on f32 and then given element type `dtype`."""
    args = ["%arg0: tensor<2x6xf32>", "%arg1: tensor<2x6xf32>"] + [f"%u{i}: tensor<{i + 2}xi32>" for i in range(unused)]
    types = [_RESULTS[n][0] for n in names]
    values = ", ".join(f"%{n}" for n in names)
    const = ", ".join(map(str, _CONST))
    neg_attrs = _attrs(NEG_ATTRS)
    text = f"""func.func @f({', '.join(args)}) -> ({', '.join(types)}) {{
  %sum = tosa.add %arg0, %arg1 : (tensor<2x6xf32>, tensor<2x6xf32>) -> tensor<2x6xf32>
  %neg = tosa.custom %arg0 {{domain_name = "torch_mlir", implementation_attrs = {neg_attrs}, operator_name = "torch.aten.neg"}} : (tensor<2x6xf32>) -> tensor<2x6xf32>
  %flat = "tosa.const"() <{{values = dense<[{const}]> : tensor<12xf32>}}> : () -> tensor<12xf32>
  %s26 = tosa.const_shape {{values = dense<[2, 6]> : tensor<2xindex>}} : () -> !tosa.shape<2>
  %s34 = tosa.const_shape {{values = dense<[3, 4]> : tensor<2xindex>}} : () -> !tosa.shape<2>
  %s12 = tosa.const_shape {{values = dense<[12]> : tensor<1xindex>}} : () -> !tosa.shape<1>
  %const = tosa.reshape %flat, %s26 : (tensor<12xf32>, !tosa.shape<2>) -> tensor<2x6xf32>
  %view_sum = tosa.reshape %sum, %s34 : (tensor<2x6xf32>, !tosa.shape<2>) -> tensor<3x4xf32>
  %view_arg = tosa.reshape %arg0, %s34 : (tensor<2x6xf32>, !tosa.shape<2>) -> tensor<3x4xf32>
  %view_neg = tosa.reshape %neg, %s12 : (tensor<2x6xf32>, !tosa.shape<1>) -> tensor<12xf32>
  return {values} {': ' + ', '.join(types) if names else ''}
}}"""
    return text.replace("xf32>", f"x{dtype}>")


def _check_results(case) -> Outcome:
    import torch

    from tosa_custom import runtime

    names, dtype = case["results"], case.get("dtype", "f32")
    text = _results_module(names, case["unused"], dtype)
    program = runtime.load(text, native=case["native"], vectorize=case["vectorize"])
    g = torch.Generator().manual_seed(case["seed"])
    a, b = (torch.randn(2, 6, generator=g).to(getattr(torch, _FLOATS[dtype])) for _ in range(2))
    unused = [torch.zeros(i + 2, dtype=torch.int32) for i in range(case["unused"])]
    got = program(a, b, *unused)
    got = list(got) if isinstance(got, tuple) else [got]
    # One rounded add or negation: eager rounds the same f32 value, so equal.
    want = [_RESULTS[n][1](a, b) for n in names]
    if len(got) != len(want) or not all(isinstance(x, torch.Tensor) and x.dtype == y.dtype and torch.equal(x, y)
                                        for x, y in zip(got, want)):
        raise Defect("wrong", f"results {names} on {dtype}: got {got}, expected {want}")
    return Outcome(CORRECT, f"{len(names)} {dtype} results")


def check(case: dict) -> Outcome:
    return {"inputs": _check_inputs, "kernel": _check_kernel, "attrs": _check_attrs,
            "module": _check_module, "results": _check_results, "dynamic": _dynamic.check,
            "cast": _casts.check, "math": _math.check, "folds": _folds.check,
            "extremes": _extremes.check, "quotients": _quotients.check,
            "reductions": _reductions.check, "mixed": _mixed.check, "sizes": _sizes.check,
            "resize": _resize.check}[case["kind"]](case)
