"""`out=` arguments of another shape end as eager PyTorch leaves them
(frontend/out_arguments.py, and the runtime's write-back, runtime/execute/boundary.py).

Found on a program nobody here wrote: `torch.arange(start=1, end=13, out=x)`
with a [3, 4] `x` raised at write-back ("size of tensor a (4) must match ...
b (12)"). Eager leaves that `x` [3, 4], holding 1..12 (a range factory
resizes only an `out=` of another element count), and resizes any other
`out=` of another shape (to [12] for a [2, 3] `x`).
"""

from __future__ import annotations

import warnings

import pytest
import torch

import tosa_custom
from tosa_custom import runtime
from tosa_custom.e2e import Fn
from tosa_custom.frontend import out_arguments

MODES = {"stock": None, "dummy": ["*"], "auto": "auto"}


def _arange_into(x):
    torch.arange(start=1, end=13, out=x)
    return x * 2


def _linspace_into(x):
    torch.linspace(0, 1, 12, out=x)
    return x + 1


def _add_into(x, y):
    torch.add(y, 1, out=x)
    return x * 2


def _cumsum_into(x, y):
    torch.cumsum(y, 0, out=x)
    return x


CASES = {
    "arange_same_count": (_arange_into, lambda: (torch.zeros(3, 4),)),
    "arange_other_count": (_arange_into, lambda: (torch.zeros(2, 3),)),
    "linspace_same_count": (_linspace_into, lambda: (torch.zeros(3, 4),)),
    "add_other_shape": (_add_into, lambda: (torch.zeros(3, 4), torch.arange(5.0))),
    "cumsum_same_count": (_cumsum_into, lambda: (torch.zeros(3, 4), torch.arange(12.0))),
    "add_into_empty": (_add_into, lambda: (torch.zeros(0), torch.arange(5.0))),
}


@pytest.mark.parametrize("mode", sorted(MODES))
@pytest.mark.parametrize("name", sorted(CASES))
def test_the_written_input_ends_with_eagers_shape_and_values(name, mode):
    fn, inputs = CASES[name]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        module = tosa_custom.compile(Fn(fn).eval(), inputs(), backend_legal_ops=MODES[mode])
        eager_args, args = inputs(), inputs()
        want = fn(*eager_args)
        got = runtime.load(module)(*args)
    torch.testing.assert_close(got, want)
    assert args[0].shape == eager_args[0].shape
    torch.testing.assert_close(args[0], eager_args[0])


def test_a_range_factory_writes_a_fresh_tensor_copied_in_the_outs_own_shape():
    program = torch.export.export(Fn(_arange_into).eval(), (torch.zeros(3, 4),))
    assert out_arguments.write_out_arguments_like_eager(program) == ["aten.arange.start_out"]
    ops = [str(n.target) for n in program.graph.nodes if n.op == "call_function"]
    assert ops == ["aten.empty.memory_format", "aten.arange.start_out", "aten.reshape.default",
                   "aten.copy_.default", "aten.mul.Tensor"]
    assert out_arguments.write_out_arguments_like_eager(program) == []


def test_ops_eager_resizes_are_left_to_the_runtime():
    """add resizes its out= as the graph says: nothing to rewrite (the
    runtime resizes the caller's tensor when it writes it back)."""
    program = torch.export.export(Fn(_add_into).eval(), (torch.zeros(3, 4), torch.arange(5.0)))
    assert out_arguments.write_out_arguments_like_eager(program) == []
