"""capture.py's memo of PyTorch's CompositeImplicitAutograd op set: the same
answer as PyTorch's own walk, recomputed when an op is registered."""

import torch
from torch._export import utils as export_utils
from torch.export import exported_program

import tosa_custom.capture  # noqa: F401  (installs the memo)


def test_memo_answers_as_pytorch_and_follows_new_registrations():
    cached = exported_program._collect_all_valid_cia_ops
    assert cached._tosa_custom_cached
    assert cached() == export_utils._collect_all_valid_cia_ops()
    mine = cached()
    mine.clear()  # callers remove from their copy: the memo must not change
    assert cached()

    lib = torch.library.Library("tosa_custom_capture_test", "DEF")
    lib.define("twice(Tensor x) -> Tensor")
    lib.impl("twice", lambda x: x + x, "CompositeImplicitAutograd")
    op = torch.ops.tosa_custom_capture_test.twice.default
    assert op in cached() and op in export_utils._collect_all_valid_cia_ops()
