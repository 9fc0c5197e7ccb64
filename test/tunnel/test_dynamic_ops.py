"""tosa-custom-lower-dynamic-ops at run time (the IR: test/tunnel/
lower-dynamic-ops.mlir): an arange whose length has no largest value
(Dim.AUTO) is counted in base 256 by the program, exactly past each digit's
carry (256, 65536) and as eager computes it in every dtype."""

from __future__ import annotations

import warnings

import pytest
import torch
from torch.export import Dim

import tosa_custom
from tosa_custom import runtime
from tosa_custom.e2e import Fn


@pytest.mark.parametrize("dtype", [torch.int64, torch.float32])
def test_unbounded_arange_counts_like_eager(dtype):
    model = Fn(lambda x: x + torch.arange(3, x.shape[0] + 3, dtype=dtype))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        module = tosa_custom.compile(model, (torch.zeros(8, dtype=dtype),), dynamic_shapes=(({0: Dim.AUTO},),))  # Fn: forward(*args)
    text = module.operation.get_asm(large_elements_limit=4)
    assert "tosa.custom" not in text and "div_ceil_shape" in text  # counted by the program, not tunneled
    program = runtime.load(module)
    for n in (2, 255, 256, 257, 65537, 70000):
        x = torch.randint(-5, 5, (n,)).to(dtype)
        torch.testing.assert_close(program(x), model(x), rtol=0, atol=0)
