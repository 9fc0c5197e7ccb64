"""The runtime on real architectures nobody here wrote, against eager PyTorch.

BERT and GPT-2 come from `transformers`, built offline from small random
configurations (nothing is downloaded: HF_HUB_OFFLINE is set before the import);
the conv net is written here. Each model runs twice: with every op lowered
through stock TOSA (`backend_legal_ops=None`), and with its normalization,
softmax, activation and attention ops kept as `tosa.custom`, run by kernels.

Tolerances come from `_tolerance.reduction_tolerance`: the compiled code
differs from eager in summation order / FMA contraction / polynomial exp and
tanh, so each model's bound scales with its longest reduction and its depth
(layers); the runtime's kernels compute in float64 and round once.
"""

from __future__ import annotations

import os
import warnings

os.environ["HF_HUB_OFFLINE"] = "1"  # before transformers is imported: never reach the hub
os.environ["TRANSFORMERS_OFFLINE"] = "1"

import pytest
import torch
from _tolerance import reduction_tolerance
from torch import nn

import tosa_custom
from tosa_custom import runtime

transformers = pytest.importorskip("transformers")

BERT_TOL = reduction_tolerance(64, depth=2)  # intermediate_size 64, 2 layers
GPT2_TOL = reduction_tolerance(4 * 32, depth=2)  # MLP over 4 x n_embd, 2 layers
CONVNET_TOL = reduction_tolerance(8 * 9, depth=3)  # conv 8x3x3, conv, then the linear layer
VOCAB, SEQ, BATCH = 100, 8, 2


# --------------------------------------------------------------------------
# Helpers.
# --------------------------------------------------------------------------


def _run(model: nn.Module, args: tuple, kept: list[str] | None, **load_kwargs):
    """Compile with `kept` ops as tosa.custom, load, run; return (program, output, eager)."""
    model.eval()
    with torch.no_grad():
        expected = model(*args)
    with warnings.catch_warnings():
        # "the model contains no such op" would mean a wrong op name here: fail on it.
        warnings.filterwarnings("error", message=r".*but the model contains no such op.*")
        module = tosa_custom.compile(model, args, output_type="tosa", backend_legal_ops=kept)
    program = runtime.load(module, **load_kwargs)
    return program, program(*args), expected


def _assert_kept(program, kept: list[str] | None) -> None:
    if kept is None:
        assert program.custom_ops == []
    else:
        # Every listed op appears as a custom op, and nothing else does.
        assert set(program.custom_ops) == {"torch." + k for k in kept}, program.custom_ops


def _make_buffers_persistent(model: nn.Module) -> nn.Module:
    """Work around the non-persistent-buffer bug (see test_non_persistent_buffer):
    HF registers position_ids / token_type_ids with persistent=False."""
    for m in model.modules():
        m._non_persistent_buffers_set.clear()
    return model


def _token_inputs(seed: int = 0) -> tuple[torch.Tensor, torch.Tensor]:
    g = torch.Generator().manual_seed(seed)
    ids = torch.randint(0, VOCAB, (BATCH, SEQ), generator=g, dtype=torch.int64)
    mask = torch.ones(BATCH, SEQ, dtype=torch.int64)
    mask[1, SEQ - 2:] = 0  # right padding in the second sequence: the mask matters
    return ids, mask


class HFWrapper(nn.Module):
    """forward(input_ids, attention_mask) -> one tensor (last hidden state or logits)."""

    def __init__(self, model: nn.Module, output: str):
        super().__init__()
        self.model = model
        self.output = output

    def forward(self, input_ids, attention_mask):
        out = self.model(input_ids=input_ids, attention_mask=attention_mask, use_cache=False) \
            if self.output == "logits" else self.model(input_ids=input_ids, attention_mask=attention_mask)
        return getattr(out, self.output)


# --------------------------------------------------------------------------
# BERT.
# --------------------------------------------------------------------------


def _bert(attn: str, hidden_act: str = "gelu_pytorch_tanh", persistent: bool = True) -> nn.Module:
    torch.manual_seed(0)
    config = transformers.BertConfig(
        hidden_size=32, num_hidden_layers=2, num_attention_heads=2, intermediate_size=64,
        vocab_size=VOCAB, max_position_embeddings=32, hidden_act=hidden_act, attn_implementation=attn,
    )
    model = transformers.BertModel(config).eval()
    assert model.config._attn_implementation == attn
    if persistent:
        _make_buffers_persistent(model)
    return HFWrapper(model, "last_hidden_state").eval()


BERT_KEPT = {
    "eager": ["aten.layer_norm", "aten.softmax.int", "aten.gelu"],
    "sdpa": ["aten.layer_norm", "aten.gelu", "aten.scaled_dot_product_attention"],
}


@pytest.mark.parametrize("kept", ["stock", "kept"])
@pytest.mark.parametrize("attn", ["eager", "sdpa"])
def test_bert(attn, kept):
    ops = BERT_KEPT[attn] if kept == "kept" else None
    program, out, expected = _run(_bert(attn), _token_inputs(), ops)
    _assert_kept(program, ops)
    if ops:  # embeddings LayerNorm + 2 per layer
        assert program.custom_ops.count("torch.aten.layer_norm") == 5
    assert out.shape == (BATCH, SEQ, 32) and out.dtype == torch.float32
    torch.testing.assert_close(out, expected, **BERT_TOL)


def test_bert_naive_lowering():
    """The fallback lowering (scalar loops, no vectorization) on the same model."""
    program, out, expected = _run(_bert("eager"), _token_inputs(), None, vectorize=False)
    torch.testing.assert_close(out, expected, **BERT_TOL)


def test_bert_erf_gelu_kept():
    """BERT's default activation (exact, erf-based GELU) through the gelu kernel."""
    ops = BERT_KEPT["eager"]
    program, out, expected = _run(_bert("eager", hidden_act="gelu"), _token_inputs(), ops)
    _assert_kept(program, ops)
    torch.testing.assert_close(out, expected, **BERT_TOL)


def test_bert_erf_gelu_stock():
    program, out, expected = _run(_bert("eager", hidden_act="gelu"), _token_inputs(), None)
    torch.testing.assert_close(out, expected, **BERT_TOL)


def test_bert_unmodified():
    program, out, expected = _run(_bert("eager", persistent=False), _token_inputs(), None)
    torch.testing.assert_close(out, expected, **BERT_TOL)


class _WithNonPersistentBuffer(nn.Module):
    def __init__(self):
        super().__init__()
        self.register_buffer("offset", torch.arange(4, dtype=torch.float32), persistent=False)

    def forward(self, x):
        return x + self.offset


def test_non_persistent_buffer():
    x = torch.randn(3, 4)
    program, out, expected = _run(_WithNonPersistentBuffer(), (x,), None)
    torch.testing.assert_close(out, expected)


# --------------------------------------------------------------------------
# GPT-2.
# --------------------------------------------------------------------------


def _gpt2(attn: str, activation: str = "gelu_pytorch_tanh") -> nn.Module:
    torch.manual_seed(0)
    config = transformers.GPT2Config(
        n_embd=32, n_layer=2, n_head=2, vocab_size=VOCAB, n_positions=32,
        bos_token_id=VOCAB - 1, eos_token_id=VOCAB - 1,
        activation_function=activation, attn_implementation=attn,
    )
    model = transformers.GPT2LMHeadModel(config).eval()
    assert model.config._attn_implementation == attn
    return HFWrapper(model, "logits").eval()


GPT2_KEPT = {
    "eager": ["aten.layer_norm", "aten.softmax.int", "aten.gelu"],
    "sdpa": ["aten.layer_norm", "aten.gelu", "aten.scaled_dot_product_attention"],
}


@pytest.mark.parametrize("attn,kept", [
    ("eager", "stock"),
    ("eager", "kept"),
    ("sdpa", "stock"),  # frontend/attention.py decomposes sdpa where PyTorch's decomposition fails (issue 41)
    ("sdpa", "kept"),
])
def test_gpt2(attn, kept):
    ops = GPT2_KEPT[attn] if kept == "kept" else None
    program, out, expected = _run(_gpt2(attn), _token_inputs(1), ops)
    _assert_kept(program, ops)
    assert out.shape == (BATCH, SEQ, VOCAB) and out.dtype == torch.float32
    torch.testing.assert_close(out, expected, **GPT2_TOL)


def test_gpt2_default_activation_stock():
    """GPT-2's own activation ("gelu_new", a tanh formula in Python: no aten.gelu)."""
    program, out, expected = _run(_gpt2("eager", activation="gelu_new"), _token_inputs(2), None)
    torch.testing.assert_close(out, expected, **GPT2_TOL)


# --------------------------------------------------------------------------
# A small conv net.
# --------------------------------------------------------------------------


class ConvNet(nn.Module):
    def __init__(self):
        super().__init__()
        self.features = nn.Sequential(
            nn.Conv2d(3, 8, 3, padding=1), nn.BatchNorm2d(8), nn.ReLU(),
            nn.MaxPool2d(2),
            nn.Conv2d(8, 16, 3, padding=1, bias=False), nn.BatchNorm2d(16), nn.ReLU(inplace=True),
            nn.AdaptiveAvgPool2d(1),
        )
        self.fc = nn.Linear(16, 10)

    def forward(self, x):
        return self.fc(torch.flatten(self.features(x), 1))


@pytest.fixture(scope="module")
def convnet():
    torch.manual_seed(0)
    model = ConvNet()
    with torch.no_grad():  # non-trivial running statistics, or eval BN is ~identity
        for bn in model.modules():
            if isinstance(bn, nn.BatchNorm2d):
                bn.running_mean.uniform_(-0.5, 0.5)
                bn.running_var.uniform_(0.5, 2.0)
                bn.weight.uniform_(0.5, 1.5)
                bn.bias.uniform_(-0.5, 0.5)
    return model.eval(), torch.randn(2, 3, 16, 16, generator=torch.Generator().manual_seed(0))


CONV_KEPT = {
    "stock": None,
    "batch_norm": ["aten._native_batch_norm_legit_no_training"],
    "most": ["aten._native_batch_norm_legit_no_training", "aten.conv2d", "aten.max_pool2d",
             "aten.adaptive_avg_pool2d", "aten.linear", "aten.relu"],
}


@pytest.mark.parametrize("vectorize", [True, False], ids=["vectorized", "naive"])
@pytest.mark.parametrize("kept", list(CONV_KEPT))
def test_convnet(convnet, kept, vectorize):
    model, x = convnet
    ops = CONV_KEPT[kept]
    program, out, expected = _run(model, (x,), ops, vectorize=vectorize)
    _assert_kept(program, ops)
    if ops:
        assert program.custom_ops.count("torch.aten._native_batch_norm_legit_no_training") == 2
    assert out.shape == (2, 10) and out.dtype == torch.float32
    torch.testing.assert_close(out, expected, **CONVNET_TOL)
    # a second call (fresh buffers, numpy input) gives the same answer
    torch.testing.assert_close(program(x.numpy()), expected, **CONVNET_TOL)


# --------------------------------------------------------------------------
# Llama generating with a static KV cache: one program, called once per token.
# --------------------------------------------------------------------------

LLAMA_TOL = reduction_tolerance(64, depth=2)  # MLP down projection over intermediate_size 64, 2 layers
PROMPT, NEW_TOKENS, CACHE_LEN = [5, 17, 42], 8, 16


class _LlamaStep(nn.Module):
    """forward(token [1, 1], position [1]) -> logits [1, 1, vocab]: one decoding
    step of a 2-layer Llama (grouped-query sdpa attention, RMSNorm, SiLU MLP)
    through transformers' own export recipe for a static cache
    (TorchExportableModuleWithStaticCache), whose cache tensors are buffers
    written in place (`index_copy_` on dim 2), so the compiled program carries
    them as state from one call to the next."""

    def __init__(self):
        super().__init__()
        from transformers.integrations.executorch import TorchExportableModuleWithStaticCache

        torch.manual_seed(0)
        config = transformers.LlamaConfig(
            vocab_size=VOCAB, hidden_size=32, intermediate_size=64, num_hidden_layers=2, num_attention_heads=2,
            num_key_value_heads=1, max_position_embeddings=32, attn_implementation="sdpa")
        lm = transformers.LlamaForCausalLM(config).eval()
        lm.generation_config.use_cache = True
        lm.generation_config.cache_implementation = "static"
        self.lm = TorchExportableModuleWithStaticCache(lm, batch_size=1, max_cache_len=CACHE_LEN)

    def forward(self, token, position):
        return self.lm(input_ids=token, cache_position=position)


def _generate(step) -> tuple[list[int], torch.Tensor]:
    """Greedy decoding as transformers' executorch recipe does it: the prompt one
    token per call, then NEW_TOKENS tokens, each the argmax of the last logits.
    Returns the tokens and the logits each new token was chosen from."""
    tokens, logits = list(PROMPT), []
    for position in range(len(PROMPT) + NEW_TOKENS - 1):
        out = step(torch.tensor([[tokens[position]]]), torch.tensor([position]))
        if position >= len(PROMPT) - 1:
            logits.append(out[0, -1].clone())
            tokens.append(int(out[0, -1].argmax()))
    return tokens, torch.stack(logits)


@pytest.fixture(scope="module")
def llama_eager():
    model = _LlamaStep().eval()
    with torch.no_grad():
        tokens, logits = _generate(model)
    # A cache that is never read, or never written, gives other tokens: the
    # sequence must depend on it for the test to show anything.
    assert len(set(tokens[len(PROMPT):])) > 2, tokens
    return tokens, logits, {name: b.clone() for name, b in model.named_buffers() if "cache" in name}


@pytest.mark.parametrize("kept", [None, ["aten.silu", "aten.scaled_dot_product_attention"], ["*"]],
                         ids=["stock", "selective", "dummy"])
def test_llama_static_cache_generates_like_eager(llama_eager, kept):
    """Compiled once, called 10 times: token for token what eager generates,
    and the cache (the program's state) ends as eager's does. In dummy mode
    the cache write itself (index_copy) is a tosa.custom run by a kernel."""
    expected_tokens, expected_logits, expected_cache = llama_eager
    with warnings.catch_warnings():
        warnings.filterwarnings("error", message=r".*but the model contains no such op.*")
        module = tosa_custom.compile(_LlamaStep().eval(), (torch.tensor([[PROMPT[0]]]), torch.tensor([0])),
                                     backend_legal_ops=kept,
                                     tosa_target=None)  # rotary positions cast an int64 input to f32: no TOSA profile
    program = runtime.load(module)
    if kept == ["*"]:
        assert {"torch.aten.index_copy", "torch.aten.scaled_dot_product_attention"} <= set(program.custom_ops)
    else:
        _assert_kept(program, kept)
    assert set(program.state_dict()) >= set(expected_cache)
    tokens, logits = _generate(program)
    assert tokens == expected_tokens
    torch.testing.assert_close(logits, expected_logits, **LLAMA_TOL)
    state = program.state_dict()
    for name, cache in expected_cache.items():
        assert cache.abs().sum() > 0, name  # eager filled it
        torch.testing.assert_close(state[name], cache, **LLAMA_TOL)
