"""One check every executor's tests run: eager resizes an `out=` of another
size, and the user's inputs stay theirs to resize after a call (reading them
by `Tensor.numpy()` left them unresizable, and the write-back failed)."""

from __future__ import annotations

import warnings

import torch

import tosa_custom
from tosa_custom.e2e import Fn


def check_out_resize(load) -> None:
    fn = Fn(lambda a, b, out: torch.add(a, b, out=out) * 2)
    a, b = torch.randn(3, 4), torch.randn(3, 4)
    out, want_out = torch.zeros(2, 2), torch.zeros(2, 2)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # eager's own deprecation of resizing a non-empty out=
        program = load(tosa_custom.compile(fn, (a, b, torch.zeros(2, 2))))
        want = fn(a, b, want_out)
        got = program(a, b, out)
    torch.testing.assert_close(got, want)
    assert out.shape == (3, 4)
    torch.testing.assert_close(out, want_out)
    a.resize_(5)
