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


class RepeatKv(torch.nn.Module):
    """transformers' repeat_kv (grouped-query attention) times 2."""

    def forward(self, h):
        b, k, s, d = h.shape
        return h[:, :, None, :, :].expand(b, k, 2, s, d).reshape(b, k * 2, s, d) * 2


def test_repeat_kv_over_dynamic_batch_and_length():
    """An unsqueeze and a tile of two `?` dims: a tosa.reshape by shape ops
    here, the tile a linalg.generic in the runtime (runtime/lower/shape_ops.py)."""
    dims = {0: Dim("b", min=1, max=4), 2: Dim("s", min=1, max=32)}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        module = tosa_custom.compile(RepeatKv(), (torch.randn(2, 2, 8, 8),), dynamic_shapes=(dims,))
    program = runtime.load(module)
    for b, s in ((1, 1), (3, 5), (4, 32)):
        x = torch.randn(b, 2, s, 8)
        torch.testing.assert_close(program(x), RepeatKv()(x), rtol=0, atol=0)
