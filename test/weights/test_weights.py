"""Weights as named entry arguments: compile(weights="arguments"), load_weights,
save/load, the lift/bind passes from Python (their IR is lit-tested beside this
file), against eager PyTorch on GPT-2 and BERT built offline from random configs.
"""

from __future__ import annotations

import json
import os
import re
import sys
import warnings

import pytest
import torch
from _tolerance import reduction_tolerance
from torch import nn
from torch_mlir import ir

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "runtime"))
import test_models as models  # noqa: E402  (GPT-2/BERT helpers; sets HF offline first)

import tosa_custom  # noqa: E402
from tosa_custom import runtime, weights  # noqa: E402
from tosa_custom.runtime import WeightError  # noqa: E402

# GPT-2's MLP (4 x n_embd, 2 layers) is the longest reduction compared here.
TOL = reduction_tolerance(4 * 32, depth=2)


def _gpt2(seed: int) -> nn.Module:
    model = models._gpt2("eager")
    torch.manual_seed(seed)
    with torch.no_grad():  # a second checkpoint of the same model: every weight differs
        for p in model.parameters():
            p.add_(torch.randn_like(p) * 0.05)
    return model


@pytest.fixture(scope="module")
def gpt2():
    """(compiled module text, program, checkpoint A, checkpoint B): compiled once."""
    a, b = _gpt2(1), _gpt2(2)
    with warnings.catch_warnings():
        warnings.filterwarnings("error", message=r".*but the model contains no such op.*")
        module = tosa_custom.compile(a, models._token_inputs(), backend_legal_ops=models.GPT2_KEPT["eager"],
                                     weights="arguments")
    text = module.operation.get_asm()
    return text, runtime.load(module, weights=a), a, b


def _expect(model, inputs=None):
    inputs = inputs or models._token_inputs()
    with torch.no_grad():
        return model(*inputs)


def _check(program, model, seed: int = 0):
    inputs = models._token_inputs(seed)
    torch.testing.assert_close(program(*inputs), _expect(model, inputs), **TOL)


# --------------------------------------------------------------------------
# compile(weights="arguments").
# --------------------------------------------------------------------------


def test_arguments_are_named_in_state_dict_order(gpt2):
    text, program, a, _ = gpt2
    manifest = program.weights_manifest
    assert manifest.names == list(a.state_dict().keys())
    assert [(i.argument, i.position) for i in manifest.inputs] == [(0, 0), (1, 1)]
    assert [w.argument for w in manifest.weights] == list(range(2, 2 + len(manifest.weights)))
    for w in manifest.weights:
        assert w.shape == tuple(a.state_dict()[w.name].shape) and w.dtype == "float32"
    # No weight is left as a constant: no resource blob in the module.
    assert "dense_resource" not in text
    signature = text[text.index("func.func @forward"):].split("\n")[0]
    # The int64 ids and mask travel as int32 (CONTRACT.md 13.4d), computed with in f32 within 2^24
    # (13.4e); the weights never narrow.
    for p in (0, 1):
        assert re.search(rf'tensor<\d+x\d+xi32> {{tosa_custom.dtype = "int64", tosa_custom.input = {p} : i64, '
                         r'tosa_custom.range = array<i64: -16777216, 16777216>}', signature), signature
    assert '{tosa_custom.weight = "model.transformer.h.0.ln_1.weight"}' in signature


def test_weights_reach_custom_ops_as_arguments(gpt2):
    text = gpt2[0]
    ctx = tosa_custom.core.ir.make_context()
    module = ir.Module.parse(text, ctx)
    func = weights.manifest.entry_function(module)
    names = {w.argument: w.name for w in weights.read_manifest(module).weights}
    fed = set()
    for op in tosa_custom.core.ir.collect_ops(module, lambda o: o.name == "tosa.custom"):
        for v in op.operands:
            if isinstance(v.owner, ir.Block) and v.owner == func.regions[0].blocks[0]:
                fed.add((ir.StringAttr(op.attributes["operator_name"]).value, names.get(v.arg_number)))
    assert ("torch.aten.layer_norm", "model.transformer.h.0.ln_1.weight") in fed
    assert ("torch.aten.layer_norm", "model.transformer.ln_f.bias") in fed


def test_two_checkpoints_one_program(gpt2):
    _, program, a, b = gpt2
    _check(program, a)
    program.load_weights(b.state_dict())
    _check(program, b)
    _check(program, b, seed=1)
    with pytest.raises(AssertionError):  # the swap really changed the answer
        _check(program, a)
    program.load_weights(a)  # an nn.Module works too
    _check(program, a)


def test_non_persistent_buffers_stay_constants():
    """Unmodified BERT: position_ids is not in state_dict(), so not a weight."""
    model = models._bert("eager", persistent=False)
    module = tosa_custom.compile(model, models._token_inputs(), weights="arguments")
    names = weights.read_manifest(module).names
    assert names == list(model.state_dict().keys())
    assert not any("position_ids" in n for n in names)
    program = runtime.load(module, weights=model.state_dict())
    torch.testing.assert_close(program(*models._token_inputs()), _expect(model), **TOL)


# --------------------------------------------------------------------------
# Save / load.
# --------------------------------------------------------------------------


def test_save_load_round_trip(gpt2, tmp_path):
    _, program, a, b = gpt2
    program.load_weights(a)
    program.save(tmp_path)
    assert sorted(os.listdir(tmp_path)) == ["manifest.json", "module.mlirbc", "weights.safetensors"]
    with open(tmp_path / "module.mlirbc", "rb") as f:
        assert f.read(4) == b"ML\xefR"  # MLIR bytecode
    manifest = json.loads((tmp_path / "manifest.json").read_text())
    assert manifest["format"] == "tosa_custom.weights" and manifest["entry"] == "forward"
    assert [w["name"] for w in manifest["weights"]] == list(a.state_dict().keys())
    assert manifest["weights"][0] == {"argument": 2, "name": "model.transformer.wte.weight",
                                      "shape": [models.VOCAB, 32], "dtype": "float32"}
    loaded = runtime.load(tmp_path)
    _check(loaded, a)
    # Another checkpoint at load time, then a new checkpoint dropped into the directory.
    _check(runtime.load(tmp_path, weights=b.state_dict()), b)
    from safetensors.torch import save_file
    # (tied tensors saved as separate copies: the program needs every name)
    save_file({k: v.clone() for k, v in b.state_dict().items()}, str(tmp_path / "weights.safetensors"))
    _check(runtime.load(tmp_path), b)


def test_torch_save_checkpoint(gpt2, tmp_path):
    _, program, a, b = gpt2
    torch.save(b.state_dict(), tmp_path / "b.pt")
    program.load_weights(str(tmp_path / "b.pt"))
    _check(program, b)
    program.load_weights(a)


class _Tied(nn.Module):
    def __init__(self):
        super().__init__()
        self.a = nn.Linear(4, 4)
        self.b = nn.Linear(4, 4)
        self.b.weight = self.a.weight

    def forward(self, x):
        return self.b(torch.relu(self.a(x)))


def test_tied_weights_save(tmp_path):
    """Tied tensors share storage; safetensors refuses that unless copies are made."""
    model = _Tied().eval()
    x = torch.randn(3, 4)
    program = runtime.load(tosa_custom.compile(model, (x,), weights="arguments"), weights=model)
    program.save(tmp_path)
    torch.testing.assert_close(runtime.load(tmp_path)(x), _expect(model, (x,)), **TOL)


def test_tied_weights_are_marked_and_a_checkpoint_may_name_one_of_them(tmp_path):
    """save_pretrained writes a tied group under one name; CONTRACT.md 10.3."""
    model = _Tied().eval()
    x = torch.randn(3, 4)
    module = tosa_custom.compile(model, (x,), weights="arguments")
    assert 'tosa_custom.tied_to = "a.weight", tosa_custom.weight = "b.weight"' in str(module)
    program = runtime.load(module)
    manifest = program.weights_manifest
    assert [(w.name, w.tied_to) for w in manifest.weights] == [
        ("a.weight", None), ("a.bias", None), ("b.weight", "a.weight"), ("b.bias", None)]
    assert weights.Manifest.from_json(json.loads(json.dumps(manifest.to_json()))) == manifest
    other = _Tied().eval()
    for drop in ("a.weight", "b.weight"):  # either name of the group will do
        state = {k: v for k, v in other.state_dict().items() if k != drop}
        program.load_weights(state)
        torch.testing.assert_close(program(x), _expect(other, (x,)), **TOL)
    with pytest.raises(WeightError, match=r"missing: a\.weight .*, b\.weight"):
        program.load_weights({k: v for k, v in other.state_dict().items() if not k.endswith("weight")})


# --------------------------------------------------------------------------
# Errors.
# --------------------------------------------------------------------------


def test_load_weights_lists_every_problem(gpt2):
    _, program, a, _ = gpt2
    program.load_weights(a)
    state = dict(a.state_dict())
    del state["model.transformer.ln_f.bias"]
    del state["model.transformer.h.1.ln_2.weight"]
    state["model.transformer.extra"] = torch.zeros(3)
    state["model.transformer.h.0.ln_1.weight"] = torch.zeros(31)
    state["model.transformer.h.0.ln_1.bias"] = torch.zeros(32, dtype=torch.float64)
    with pytest.raises(WeightError) as e:
        program.load_weights(state)
    text = str(e.value)
    assert "missing: model.transformer.h.1.ln_2.weight ([32] float32), model.transformer.ln_f.bias ([32] float32)" in text
    assert "unexpected: model.transformer.extra" in text
    assert "model.transformer.h.0.ln_1.weight is [31] float32, expected [32] float32" in text
    assert "model.transformer.h.0.ln_1.bias is [32] float64, expected [32] float32" in text
    _check(program, a)  # a failed load leaves the old weights in place


def test_call_before_loading_weights():
    model = nn.Linear(4, 2).eval()
    program = runtime.load(tosa_custom.compile(model, (torch.randn(1, 4),), weights="arguments"))
    with pytest.raises(WeightError, match=r"takes 2 weights as arguments and none are loaded"):
        program(torch.randn(1, 4))
    program.load_weights({"weight": model.weight, "bias": model.bias})
    torch.testing.assert_close(program(x := torch.randn(1, 4)), _expect(model, (x,)))


def test_bad_sources(tmp_path):
    model = nn.Linear(4, 2).eval()
    program = runtime.load(tosa_custom.compile(model, (torch.randn(1, 4),), weights="arguments"), weights=model)
    with pytest.raises(FileNotFoundError, match="no weights file .*: pass a .safetensors or torch.save file"):
        program.load_weights(str(tmp_path / "nope.safetensors"))
    (tmp_path / "damaged.safetensors").write_bytes(b"junk")  # used to raise safetensors' own error
    with pytest.raises(WeightError, match=r"cannot read .*damaged.safetensors' as a safetensors file .*"
                                          r"write it with safetensors.torch.save_file"):
        program.load_weights(str(tmp_path / "damaged.safetensors"))
    (tmp_path / "junk.bin").write_bytes(b"not a checkpoint")
    with pytest.raises(WeightError, match="cannot read .*junk.bin"):
        program.load_weights(str(tmp_path / "junk.bin"))
    with pytest.raises(TypeError, match="state_dict, an nn.Module or a path"):
        program.load_weights(42)


def test_save_needs_weight_arguments(tmp_path):
    model = nn.Linear(4, 2).eval()
    program = runtime.load(tosa_custom.compile(model, (torch.randn(1, 4),)))
    with pytest.raises(ValueError, match="weights='arguments'"):
        program.save(tmp_path)


def test_compile_rejects_unknown_mode_and_carries_a_mutated_buffer_as_state():
    with pytest.raises(ValueError, match="weights must be one of 'inline', 'arguments'"):
        tosa_custom.compile(nn.Linear(2, 2), (torch.randn(1, 2),), weights="constants")

    class Counter(nn.Module):
        def __init__(self):
            super().__init__()
            self.register_buffer("calls", torch.zeros(1))

        def forward(self, x):
            self.calls.add_(1)
            return x + self.calls

    # Issue 13 replaced the refusal: a written buffer is the program's state,
    # carried from call to call as eager carries it.
    model, x = Counter(), torch.randn(2)
    program = runtime.load(tosa_custom.compile(model, (x,), weights="arguments"), weights=model.state_dict())
    for _ in range(3):
        torch.testing.assert_close(program(x), model(x))
    torch.testing.assert_close(program.state_dict()["calls"], model.calls)


# --------------------------------------------------------------------------
# The lift pass on a module compiled with inline weights.
# --------------------------------------------------------------------------


def test_lift_inline_module_then_run(tmp_path):
    """Lift a compiled module's weights to a safetensors file (values read from
    the module's resource blobs), then run it with that file: eager's answer."""
    model = models._bert("eager")
    module = tosa_custom.compile(model, models._token_inputs(), backend_legal_ops=models.BERT_KEPT["eager"])
    path = str(tmp_path / "lifted.safetensors")
    with module.context:
        names = weights.lift_weights(module.operation, threshold=16, weights_path=path,
                                     manifest_path=str(tmp_path / "m.json"))
    assert names and "dense_resource" not in str(module)
    manifest = weights.Manifest.from_json(json.loads((tmp_path / "m.json").read_text()))
    assert manifest.names == names
    program = runtime.load(module, weights=path)
    torch.testing.assert_close(program(*models._token_inputs()), _expect(model), **TOL)
