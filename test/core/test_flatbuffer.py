"""The TOSA flatbuffer as output and input (core/tosa_flatbuffer.py, mlir_files.save/read).

What we write is read with tosa-tools' own reader (`flatc` with the schema
`tosa.fbs`), not ours: every CUSTOM op must carry the operator name, domain and
implementation attrs of its `tosa.custom`. What we read back must run as the
model does in eager PyTorch.
"""

from __future__ import annotations

import json
import subprocess

import pytest
import torch
from torch_mlir import ir

import tosa_custom
from tosa_custom.contract.decode import custom_ops
from tosa_custom.core import mlir_files, tosa_flatbuffer, tosa_tools as tools
from tosa_custom.tools.example import KEPT_OPS, TransformerBlock
from _tolerance import reduction_tolerance

# Tests that run tosa-tools' programs without reading its directory themselves.
needs_tools = pytest.mark.usefixtures("tosa_tools")


def _block() -> TransformerBlock:
    torch.manual_seed(0)
    model = TransformerBlock().eval()
    for m in model.modules():  # LayerNorm starts at ones and zeros: give its weights values to check
        if isinstance(m, torch.nn.LayerNorm):
            torch.nn.init.normal_(m.weight)
            torch.nn.init.normal_(m.bias)
    return model


class _Rows(torch.nn.Module):
    """The dynamic case: the example block's attention reshapes with an
    inferred dim (-1), which strict TOSA 1.1 validation refuses; this keeps
    the same three ops on rows of any count."""

    def __init__(self):
        super().__init__()
        self.norm, self.scale = torch.nn.LayerNorm(32), torch.nn.Parameter(torch.randn(32))

    def forward(self, x):
        return torch.softmax(torch.nn.functional.gelu(self.norm(x) * self.scale, approximate="tanh"), dim=-1)


_X = torch.randn(2, 8, 32, generator=torch.Generator().manual_seed(1))
_VARIANTS = {
    "static": {},
    "dynamic": {"dynamic_shapes": {"x": {0: torch.export.Dim("b", min=1, max=16)}}},
    "weights": {"weights": "arguments"},
}


@pytest.fixture(scope="module")
def models():
    block = _block()
    return {"static": block, "weights": block, "dynamic": _Rows().eval()}


@pytest.fixture(scope="module")
def block(models):
    return models["static"]


def _compile(models, variant: str):
    return tosa_custom.compile(models[variant], (_X,), backend_legal_ops=KEPT_OPS, **_VARIANTS[variant])


def _flatc_json(tosa_tools, path, out) -> dict:
    """The flatbuffer as tosa-tools' flatc reads it with TOSA's schema."""
    bin_dir = tosa_tools / "bin"
    subprocess.run([str(bin_dir / "flatc"), "--json", "--strict-json", "--raw-binary", "-o", str(out),
                    str(bin_dir / "tosa.fbs"), "--", str(path)], check=True, capture_output=True)
    return json.loads((out / (path.stem + ".json")).read_text())


def _main_block(graph: dict) -> dict:
    (region,) = graph["regions"]
    (block,) = region["blocks"]
    return block


@pytest.mark.parametrize("variant", sorted(_VARIANTS))
def test_custom_ops_as_flatc_reads_them(models, variant, tosa_tools, tmp_path):
    module = _compile(models, variant)
    tosa_custom.save(module, tmp_path / "m.tosa")
    graph = _flatc_json(tosa_tools, tmp_path / "m.tosa", tmp_path)
    written = [(op["attribute"]["operator_name"], op["attribute"]["domain_name"],
                bytes(op["attribute"]["implementation_attrs"]).decode())
               for op in _main_block(graph)["operators"] if op["op"] == "CUSTOM"]
    expected = [(ir.StringAttr(op.attributes["operator_name"]).value, ir.StringAttr(op.attributes["domain_name"]).value,
                 ir.StringAttr(op.attributes["implementation_attrs"]).value) for op in custom_ops(module)]
    assert len(expected) >= 3 and written == expected
    assert (graph["version"]["_major"], graph["version"]["_minor"]) == (1, 1)  # what tosa-tools writes


def test_dynamic_dims_reach_the_flatbuffer(models, tosa_tools, tmp_path):
    module = _compile(models, "dynamic")
    assert "specification_version=1.1.draft" in ir.StringAttr(module.operation.attributes["tosa_custom.tosa_target"]).value
    tosa_custom.save(module, tmp_path / "d.tosa")
    main = _main_block(_flatc_json(tosa_tools, tmp_path / "d.tosa", tmp_path))
    shapes = {t["name"]: t["shape"] for t in main["tensors"]}
    assert shapes["TosaInput_0"] == [-1, 8, 32] and shapes["TosaOutput_0"] == [-1, 8, 32]


def test_inline_weights_are_constants_and_argument_weights_named_inputs(block, tosa_tools, tmp_path):
    tosa_custom.save(_compile({"static": block}, "static"), tmp_path / "s.tosa")
    main = _main_block(_flatc_json(tosa_tools, tmp_path / "s.tosa", tmp_path))
    tensors = {t["name"]: t for t in main["tensors"]}
    constants = [bytes(tensors[op["outputs"][0]]["data"]) for op in main["operators"] if op["op"] == "CONST"]
    assert block.norm1.weight.detach().numpy().tobytes() in constants
    assert main["inputs"] == ["TosaInput_0"]

    tosa_custom.save(_compile({"weights": block}, "weights"), tmp_path / "w.tosa")
    main = _main_block(_flatc_json(tosa_tools, tmp_path / "w.tosa", tmp_path))
    assert main["inputs"] == ["TosaInput_0", *block.state_dict()]
    tensors = {t["name"]: t for t in main["tensors"]}
    assert all(not tensors[name]["data"] for name in block.state_dict())


def _mlp():
    torch.manual_seed(0)
    return torch.nn.Sequential(torch.nn.Linear(16, 32), torch.nn.ReLU(), torch.nn.Linear(32, 4)).eval()


@needs_tools
@pytest.mark.parametrize("sidecar", [True, False], ids=["with-attributes", "flatbuffer-only"])
def test_stock_mlp_round_trip_matches_eager(sidecar, tmp_path):
    model, x = _mlp(), torch.randn(3, 16)
    path = tmp_path / "mlp.tosa"
    tosa_custom.save(tosa_custom.compile(model, (x,)), path)
    if not sidecar:  # a flatbuffer alone: the plain convention, which for one result is that tensor
        tosa_flatbuffer.sidecar(path).unlink()
    torch.testing.assert_close(tosa_custom.runtime.load(str(path))(x), model(x).detach(), **reduction_tolerance(32))


@needs_tools
@pytest.mark.parametrize("variant", ["static", "weights"])
def test_block_with_kept_ops_round_trip_matches_eager(block, variant, tmp_path):
    tosa_custom.save(_compile({variant: block}, variant), tmp_path / "b.tosa")
    program = tosa_custom.runtime.load(tmp_path / "b.tosa", weights=block if variant == "weights" else None)
    torch.testing.assert_close(program(_X), block(_X).detach(), **reduction_tolerance(128, depth=2))


@needs_tools
def test_dynamic_round_trip_matches_eager(models, tmp_path):
    tosa_custom.save(_compile(models, "dynamic"), tmp_path / "d.tosa")
    program = tosa_custom.runtime.load(tmp_path / "d.tosa")
    for rows in (1, 5):
        x = torch.randn(rows, 8, 32)
        torch.testing.assert_close(program(x), models["dynamic"](x).detach(), **reduction_tolerance(32))


def _signature_attrs(module) -> tuple:
    func = module.body.operations[0]
    return (str(module.operation.attributes["tosa_custom.tosa_target"]), str(func.attributes["sym_name"]),
            *(str(func.attributes[k]) for k in ("arg_attrs", "res_attrs", "tosa_custom.output_tree")
              if k in func.attributes))


@needs_tools
@pytest.mark.parametrize("variant", sorted(_VARIANTS))
def test_attributes_come_back_from_the_sidecar(models, variant, tmp_path):
    module = _compile(models, variant)
    path = tmp_path / "m.tosa"
    tosa_custom.save(module, path)
    back = mlir_files.read(path)
    assert _signature_attrs(back) == _signature_attrs(module)
    assert len(custom_ops(back)) == len(custom_ops(module))
    tosa_flatbuffer.sidecar(path).unlink()
    plain = mlir_files.read(path).body.operations[0]
    assert str(plain.attributes["sym_name"]) == '"main"'
    names = [ir.StringAttr(ir.DictAttr(a)["tosa.tensor_name"]).value for a in ir.ArrayAttr(plain.attributes["arg_attrs"])]
    assert names == ["TosaInput_0", *(models[variant].state_dict() if variant == "weights" else ())]


@needs_tools
def test_a_stale_sidecar_is_refused(tmp_path):
    model = _mlp()
    tosa_custom.save(tosa_custom.compile(model, (torch.randn(3, 16),)), tmp_path / "a.tosa")
    tosa_custom.save(tosa_custom.compile(model, (torch.randn(5, 16),)), tmp_path / "b.tosa")
    tosa_flatbuffer.sidecar(tmp_path / "b.tosa").replace(tosa_flatbuffer.sidecar(tmp_path / "a.tosa"))
    with pytest.raises(tosa_custom.CompileError, match=r"was written for a function \(tensor<5x16xf32>\)"):
        mlir_files.read(tmp_path / "a.tosa")


def test_non_tosa_modules_are_refused_by_name(tmp_path):
    with ir.Context():
        arith = ir.Module.parse("func.func @f(%x: tensor<4xf32>) -> tensor<4xf32> {\n"
                                "  %0 = arith.addf %x, %x : tensor<4xf32>\n  return %0 : tensor<4xf32>\n}")
        with pytest.raises(tosa_custom.CompileError, match="holds only tosa ops.*not: arith.addf") as e:
            tosa_custom.save(arith, tmp_path / "x.tosa")
        assert e.value.category == "not-tosa" and e.value.ops == ("arith.addf",)
        empty = ir.Module.parse("func.func @f(%x: tensor<4xf32>) -> tensor<4xf32> {\n  return %x : tensor<4xf32>\n}")
        with pytest.raises(tosa_custom.CompileError, match="no tosa op"):
            tosa_custom.save(empty, tmp_path / "x.tosa")
        two = ir.Module.parse("func.func @f() {\n  return\n}\nfunc.func @g() {\n  return\n}")
        with pytest.raises(tosa_custom.CompileError, match="holds one function; the module has 2: @f, @g"):
            tosa_custom.save(two, tmp_path / "x.tosa")
    assert not (tmp_path / "x.tosa").exists()


def test_weight_mark_is_the_weights_layers():
    from tosa_custom.weights.manifest import WEIGHT_ATTR

    assert tosa_flatbuffer._WEIGHT == WEIGHT_ATTR


@pytest.mark.parametrize("suffix", [".mlir", ".mlirbc"])
def test_mlir_forms_by_extension(suffix, tmp_path):
    module = tosa_custom.compile(_mlp(), (torch.randn(3, 16),))
    tosa_custom.save(module, tmp_path / f"m{suffix}")
    assert (tmp_path / f"m{suffix}").read_bytes().startswith(mlir_files.BYTECODE_MAGIC) == (suffix == ".mlirbc")
    assert str(mlir_files.read(tmp_path / f"m{suffix}")) == str(module)


def test_unknown_extension_is_refused(tmp_path):
    module = tosa_custom.compile(_mlp(), (torch.randn(3, 16),))
    with pytest.raises(ValueError, match=r"cannot save '.*m\.onnx': the extension must be one of \.mlir \(text\), "
                                         r"\.mlirbc \(bytecode\), \.tosa \(flatbuffer\)"):
        tosa_custom.save(module, tmp_path / "m.onnx")


def test_missing_tools_say_how_to_install_them(monkeypatch, tmp_path):
    monkeypatch.setenv(tools.ENV, str(tmp_path))  # a directory without bin/tosa-opt
    module = tosa_custom.compile(_mlp(), (torch.randn(3, 16),))
    with pytest.raises(tools.ToolsMissing, match=r"writing .*m\.tosa needs TOSA's own toolchain .*"
                                                 r"tosa-custom-tosa-tools install") as e:
        tosa_custom.save(module, tmp_path / "m.tosa")
    assert e.value.category == "toolchain-missing"
