"""Writes mlp.tosa and cnn.tosa: INT TOSA that nobody here wrote, ExecuTorch's
Arm backend's own output (TOSA-1.0+INT flatbuffers) for two small PT2E
models, which test_int_tosa.py runs on our executors against TOSA's
reference model. ExecuTorch is not a dependency of this project; to write
them again (the files are kept as ExecuTorch wrote them):

    python3 -m venv /tmp/et && echo "$PWD/.venv/lib/python3.11/site-packages" \\
        > /tmp/et/lib/python3.11/site-packages/zz_project.pth
    /tmp/et/bin/pip install executorch==1.5.1
    PYTHONPATH=.venv/share/tosa-custom/tosa-tools-2026.8.0 /tmp/et/bin/python test/runtime/executorch_tosa/make.py

(the .pth gives ExecuTorch this venv's torch 2.13 and torchao; the PYTHONPATH
its `tosa_serializer`, from the tosa-tools the project installs). Models:
an MLP (linear, relu, linear, sigmoid: a TABLE) and a CNN (convolution,
depthwise convolution, a 1x1 convolution added back, max pooling, linear),
weights uniform in [-0.5, 0.5], quantized by ExecuTorch's TOSAQuantizer
(symmetric, weights per channel) calibrated on 4 random batches."""

import os
import shutil
import sys
import tempfile

import torch
from executorch.backends.arm.quantizer import TOSAQuantizer, get_symmetric_quantization_config
from executorch.backends.arm.tosa.compile_spec import TosaCompileSpec
from executorch.backends.arm.tosa.partitioner import TOSAPartitioner
from executorch.exir import to_edge_transform_and_lower
from torchao.quantization.pt2e.quantize_pt2e import convert_pt2e, prepare_pt2e


class MLP(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.a, self.b = torch.nn.Linear(16, 32), torch.nn.Linear(32, 8)

    def forward(self, x):
        return torch.sigmoid(self.b(torch.relu(self.a(x))))


class CNN(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.c1 = torch.nn.Conv2d(3, 8, 3, padding=1)
        self.dw = torch.nn.Conv2d(8, 8, 3, padding=1, groups=8)
        self.c2 = torch.nn.Conv2d(8, 8, 1)
        self.fc = torch.nn.Linear(8 * 4 * 4, 4)

    def forward(self, x):
        h = torch.relu(self.c1(x))
        h = h + self.c2(torch.relu(self.dw(h)))
        return self.fc(torch.nn.functional.max_pool2d(h, 2).flatten(1))


def write(name: str, model: torch.nn.Module, shape: tuple, here: str) -> None:
    torch.manual_seed(0)
    model = model.eval()
    for p in model.parameters():
        torch.nn.init.uniform_(p, -0.5, 0.5)
    x = torch.randn(shape)
    with tempfile.TemporaryDirectory() as scratch:
        spec = TosaCompileSpec("TOSA-1.0+INT").dump_intermediate_artifacts_to(scratch)
        quantizer = TOSAQuantizer(spec)
        quantizer.set_global(get_symmetric_quantization_config(is_per_channel=True))
        prepared = prepare_pt2e(torch.export.export(model, (x,)).module(), quantizer)
        for _ in range(4):
            prepared(torch.randn(shape))
        converted = convert_pt2e(prepared)
        to_edge_transform_and_lower(torch.export.export(converted, (x,)), partitioner=[TOSAPartitioner(spec)])
        (written,) = [f for f in os.listdir(scratch) if f.endswith(".tosa")]
        shutil.copy(os.path.join(scratch, written), os.path.join(here, f"{name}.tosa"))


if __name__ == "__main__":
    here = os.path.dirname(os.path.abspath(__file__))
    write("mlp", MLP(), (2, 16), here)
    write("cnn", CNN(), (1, 3, 8, 8), here)
    sys.exit(0)
