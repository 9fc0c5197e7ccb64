"""Whole PT2E-quantized models as integer TOSA: an MLP, a small CNN with
depthwise convolutions, batch norm and residuals, and (when torchvision
imports) MobileNetV2 and ResNet18 with random weights on a small input;
the MLP and the CNN also with int16 activations and int8 weights (a16w8).
At least 99% of the elements within 1 LSB of PT2E's graph evaluated in
float64, within 1 LSB of PT2E eager as often as eager itself is within 1 LSB
of that (and at least 99% when eager is), and the same top-1 class, on our
runtime, IREE and the reference model; the reference model equal to our
runtime bit for bit."""

from __future__ import annotations

import pytest
import torch

from _pt2e import compile_and_check, in_float64, quantize

from tosa_custom.e2e.quantized_models import CNN, MLP


def _torchvision(name: str):
    from _torchvision import torchvision  # the tests' own install, off the venv; it skips when it cannot
    return getattr(torchvision().models, name)(weights=None)


# name -> (model maker, input shape, quantization config of _pt2e.CONFIGS)
_MODELS = {
    "mlp": (MLP, (2, 32), "per-channel"),
    "cnn": (CNN, (1, 3, 32, 32), "per-channel"),
    "mobilenet_v2": (lambda: _torchvision("mobilenet_v2"), (1, 3, 64, 64), "per-channel"),
    "resnet18": (lambda: _torchvision("resnet18"), (1, 3, 64, 64), "per-channel"),
    # int16 activations, int8 weights (EXT-INT16: i48 accumulators)
    "mlp-a16w8": (MLP, (2, 32), "a16w8"),
    "cnn-a16w8": (CNN, (1, 3, 32, 32), "a16w8"),
}


def _within(got, want, scale: float) -> float:
    return ((got - want).abs() <= scale * (1 + 1e-6)).float().mean().item()


@pytest.mark.slow
@pytest.mark.parametrize("name", list(_MODELS))
def test_model(name):
    make, shape, config = _MODELS[name]
    torch.manual_seed(0)
    model = make()
    args = (torch.randn(shape),)
    qm = quantize(model, args, config)
    inputs = [(torch.randn(shape) * 2,) for _ in range(2)]
    out, scales, _ = compile_and_check(qm, args, inputs, executors=("runtime", "iree", "refmodel"))
    for k, (x,) in enumerate(inputs):
        want, exact = qm(x), in_float64(qm, x)
        assert torch.equal(out["runtime"][k], out["refmodel"][k]), "the reference model and the runtime differ"
        eager_itself = _within(want, exact, scales[0])  # PT2E eager's own float32 rounding
        for executor in ("runtime", "iree"):
            got = out[executor][k]
            within = _within(got, exact, scales[0])
            assert within >= 0.99, f"{executor}: {within:.2%} of the elements within 1 LSB of PT2E in float64"
            within = _within(got, want, scales[0])
            assert within >= min(0.99, eager_itself - 0.01), \
                f"{executor}: {within:.2%} within 1 LSB of PT2E eager (eager of itself in float64: {eager_itself:.2%})"
            assert torch.equal(got.argmax(-1), want.argmax(-1)), f"{executor}: another top-1 class"
