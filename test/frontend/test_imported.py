"""Constant tensors inside list arguments, lifted before torch-mlir's FX
import, and the importer's refusals as CompileErrors (frontend/imported.py).

torchvision's Swin Transformer indexes a parameter by a buffer
(`table[index]`, `aten.index.Tensor(table, [index])`): the frozen import put
the buffer itself in the index list, and the importer failed with a bare
`AssertionError: Heterogeneous lists are not supported` in every mode.
"""

from __future__ import annotations

import re
import warnings

import pytest
import torch

import tosa_custom
from tosa_custom import CompileError, runtime
from tosa_custom.frontend import imported

MODES = {"stock": None, "dummy": ["*"], "auto": "auto"}


class RelativeBias(torch.nn.Module):
    """Swin's relative position bias, a few lines long: a parameter table
    indexed by a buffer, and a buffer concatenated with an input."""

    def __init__(self, persistent: bool = True):
        super().__init__()
        self.table = torch.nn.Parameter(torch.randn(9, 2, generator=torch.Generator().manual_seed(0)))
        self.register_buffer("index", torch.tensor([[0, 4, 8], [2, 4, 6]]), persistent=persistent)
        self.register_buffer("row", torch.full((1, 3, 2), 0.5), persistent=persistent)

    def forward(self, x):
        bias = self.table[self.index]  # [2, 3, 2]
        return torch.cat([x + bias, self.row], 0)


def _compile(model, args, **kw):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return tosa_custom.compile(model.eval(), args, **kw)


@pytest.mark.parametrize("weights,persistent", [("inline", True), ("arguments", False)])
@pytest.mark.parametrize("mode", sorted(MODES))
def test_constants_in_list_arguments_compile_and_run_like_eager(mode, weights, persistent):
    model, x = RelativeBias(persistent), torch.randn(2, 3, 2)
    module = _compile(model, (x,), backend_legal_ops=MODES[mode], weights=weights)
    program = runtime.load(module)
    if weights == "arguments":
        program.load_weights(dict(model.state_dict()))
    torch.testing.assert_close(program(x), model(x))


def test_what_the_importer_refuses_is_a_compile_error_naming_node_op_and_line(monkeypatch):
    """Without the lifting, the importer's bare AssertionError becomes a
    CompileError with the node, its op and the model's source line."""
    monkeypatch.setattr(imported, "lift_list_constants", lambda program, placeholders: 0)
    with pytest.raises(CompileError) as info:
        _compile(RelativeBias(), (torch.randn(2, 3, 2),))
    message = str(info.value)
    assert "torch-mlir's FX importer could not import node index (aten.index.Tensor) at " in message
    assert "test_imported.py:" in message and "bias = self.table[self.index]" in message
    assert "AssertionError: Heterogeneous lists are not supported" in message
    assert (info.value.category, info.value.ops) == ("compile-failed", ("torch.aten.index.Tensor",))


def test_lifting_makes_get_attr_nodes_once_per_tensor():
    program = torch.export.export(RelativeBias().eval(), (torch.randn(2, 3, 2),))
    assert imported.lift_list_constants(program, placeholders=True) == 2  # the index and the row
    get_attrs = [n for n in program.graph.nodes if n.op == "get_attr"]
    assert len(get_attrs) == 2
    assert all(isinstance(getattr(program.graph_module, n.target), torch.Tensor) for n in get_attrs)
    assert imported.lift_list_constants(program, placeholders=True) == 0


class Literals(torch.nn.Module):
    """A literal of each kind the frozen import makes: float and integer
    tensors, half precisions, one-element and empty tensors, a
    non-contiguous one, and several bool masks of one shape."""

    def __init__(self):
        super().__init__()
        g = torch.Generator().manual_seed(0)
        self.register_buffer("f32", torch.randn(3, 4, generator=g))
        self.register_buffer("f16", torch.randn(3, 4, generator=g).half())
        self.register_buffer("bf16", torch.randn(3, 4, generator=g).bfloat16())
        self.register_buffer("i64", torch.randint(-9, 9, (3, 4), generator=g))
        self.register_buffer("one", torch.tensor([2.5]))
        self.register_buffer("transposed", torch.randn(4, 3, generator=g).t())
        for i in range(4):
            self.register_buffer(f"mask{i}", torch.rand(3, 4, generator=g) > 0.5)

    def forward(self, x):
        y = x * self.f32 + self.f16.float() + self.bf16.float() + self.i64 + self.one + self.transposed
        for i in range(4):
            y = torch.where(getattr(self, f"mask{i}"), y * (i + 2), y)
        return y


def _torch_ir(hooks: bool, monkeypatch) -> str:
    """The printed module, each blob named by the order it is first used in:
    the importer's own names count its temporaries (a bool buffer goes
    through a uint8 copy), which it caches by id(), so whether a freed one's
    id comes back, and with it the numbering, depends on the garbage
    collector (it differed once in a full test run)."""
    if not hooks:
        monkeypatch.setattr(imported, "LiteralHooks", lambda: None)
    text = str(_compile(Literals(), (torch.randn(3, 4),), output_type="torch"))
    monkeypatch.undo()
    body, resources = text.split("{-#")
    names: dict[str, str] = {}
    for name in re.findall(r"dense_resource<([^>]+)>", body):
        names.setdefault(name, f"blob{len(names)}")
    body = re.sub(r"dense_resource<([^>]+)>", lambda m: f"dense_resource<{names[m[1]]}>", body)
    blobs = sorted(f"{names[m[1]]}: {m[2]}" for m in re.finditer(r"^\s*([\w.]+): (\"0x[0-9A-F]*\")", resources, re.M))
    return body + "\n".join(blobs)


def test_literals_from_storage_are_the_importers_own(monkeypatch):
    """The hooks' literals (module doc: the importer's `tolist` took 10.6 s of
    resnet18's 12.4 s import) print exactly as the importer's own: same
    ops, types, blobs and bytes."""
    ours = _torch_ir(True, monkeypatch)
    assert ours.count("dense_resource<") >= 8 and ours.count(": \"0x") >= 8  # the blobs are compared
    assert ours == _torch_ir(False, monkeypatch)


def test_bool_masks_of_one_shape_stay_distinct():
    """Four bool buffers of one shape: each literal its own mask (the
    importer's uint8 temporaries are kept alive, so no id is reused), and
    the integer-range analysis reads their blobs as i1, not int64."""
    model, x = Literals().eval(), torch.randn(3, 4)
    program = runtime.load(_compile(model, (x,)))
    torch.testing.assert_close(program(x), model(x), rtol=1e-5, atol=1e-5)
