"""Result dtypes of mixed-dtype ops as eager PyTorch computes them
(frontend/promotion.py), in every mode.

Found on a program nobody here wrote: `threshold_backward` of an int64 grad
and a float32 self returned int64 in stock and auto mode (PyTorch's meta
kernel promotes otherwise than its eager kernel), and its kept `tosa.custom`
failed in dummy and selective mode (the kernel, eager, returned float32 where
the IR said int64). huber_loss and soft_margin_loss of float32 and float64
did the same the other way (float64 for eager's float32).
"""

from __future__ import annotations

import warnings

import pytest
import torch
import torch.nn.functional as F

import tosa_custom
from tosa_custom import runtime
from tosa_custom.e2e import Fn
from tosa_custom.frontend import promotion

MODES = {"stock": None, "dummy": ["*"], "auto": "auto"}


def _g():
    return torch.Generator().manual_seed(0)


def _ints(*shape):
    return torch.randint(-3, 4, shape, generator=_g())


def _floats(*shape, dtype=torch.float32):
    return torch.randn(*shape, generator=_g(), dtype=dtype)


# name -> (function, inputs, the op selective mode keeps)
CASES = {
    "threshold_backward": (lambda g, x: torch.ops.aten.threshold_backward(g, x, 0.25),
                           (_ints(3, 4), _floats(3, 4)), "aten.threshold_backward"),
    "huber_loss": (lambda a, b: F.huber_loss(a, b), (_floats(3, 4), _floats(3, 4, dtype=torch.float64)),
                   "aten.huber_loss"),
    "add": (lambda a, b: a + b, (_ints(3, 4), _floats(3, 4)), "aten.add.Tensor"),
    "where": (lambda c, a, b: torch.where(c, a, b), (_floats(3, 4) > 0, _ints(3, 4), _floats(3, 4)),
              "aten.where.self"),
    "clamp_tensor_bounds": (lambda x, lo, hi: torch.clamp(x, lo, hi),
                            (_ints(3, 4), _floats(3, 4) - 1, _floats(3, 4) + 1), "aten.clamp.Tensor"),
    "mul_scalar_tensor": (lambda a, b: a * b, (torch.tensor(3), _floats(3, 4)), "aten.mul.Tensor"),
    # One tensor and a size list: not mixed (every-sample OpInfo sum_to_size/bool/3 returned bool in auto mode).
    "sum_to_size_bool": (lambda x: x.sum_to_size(1), (_floats(5) > 0,), "aten.sum_to_size"),
}


def _run(fn, args, legal):
    """The compiled program's result (no target check: float64 and int64
    operands are the subject here, not TOSA conformance)."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        module = tosa_custom.compile(Fn(fn).eval(), args, backend_legal_ops=legal, tosa_target=None)
    return runtime.load(module)(*args)


@pytest.mark.parametrize("mode", ["stock", "selective", "dummy", "auto"])
@pytest.mark.parametrize("name", sorted(CASES))
def test_mixed_dtype_ops_give_eagers_dtype_and_values_in_every_mode(name, mode):
    fn, args, kept = CASES[name]
    legal = [kept] if mode == "selective" else MODES[mode]
    want = fn(*args)
    got = _run(fn, args, legal)
    assert got.dtype == want.dtype
    torch.testing.assert_close(got, want)


def test_the_op_computes_in_eagers_dtype_its_operands_converted_first():
    """threshold_backward's int64 grad is converted to float32 before it,
    as eager's TensorIterator does; the op itself then agrees with eager."""
    model = Fn(lambda g, x: torch.ops.aten.threshold_backward(g, x, 0.25)).eval()
    program = torch.export.export(model, CASES["threshold_backward"][1])
    assert promotion.promote_like_eager(program) == ["aten.threshold_backward.default"]
    ops = [(str(n.target), n.meta["val"].dtype) for n in program.graph.nodes if n.op == "call_function"]
    assert ops == [("aten._to_copy.default", torch.float32), ("aten.threshold_backward.default", torch.float32)]
    assert promotion.promote_like_eager(program) == []  # nothing left to change


def test_ints_of_a_size_list_are_not_number_operands():
    """Only a schema's `Scalar` arguments take part in type promotion. Read
    as an int operand, sum_to_size's [1] made a bool tensor "mixed", and
    eager asked at the shrunken size (where sum_to_size returns its input)
    "promoted" the int64 sum to bool; an int scalar (`alpha`) still counts."""
    program = torch.export.export(Fn(lambda x: x.sum_to_size(1)).eval(), (_floats(5) > 0,))
    assert promotion.promote_like_eager(program) == []
    node = next(n for n in program.graph.nodes if n.op == "call_function")
    assert promotion._operand_dtypes(node) == ([torch.bool], -1)
    program = torch.export.export(Fn(lambda a, b: torch.add(a, b, alpha=2.5)).eval(), (_floats(3), _floats(3)))
    node = next(n for n in program.graph.nodes if n.op == "call_function")
    assert promotion._operand_dtypes(node) == ([torch.float32, torch.float32], 2)


def test_ops_whose_meta_kernel_agrees_with_eager_are_left_alone():
    model = Fn(lambda a, b, c: torch.where(c, a + b, a)).eval()
    program = torch.export.export(model, (_ints(3), _floats(3), _floats(3) > 0))
    before = [str(n.target) for n in program.graph.nodes]
    assert promotion.promote_like_eager(program) == []
    assert [str(n.target) for n in program.graph.nodes] == before


def test_a_result_converted_after_the_op_keeps_its_name_in_the_signature(monkeypatch):
    """When converting operands cannot be shown to compute eager's values,
    the result is converted instead: stock and auto mode still give eager's
    dtype, and the converted value is still the program's output."""
    monkeypatch.setattr(promotion, "_convert_operands", lambda *a: False)
    fn, args, _ = CASES["threshold_backward"]
    for legal in (None, "auto"):
        got = _run(fn, args, legal)
        assert got.dtype == torch.float32
        torch.testing.assert_close(got, fn(*args))
