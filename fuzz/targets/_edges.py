"""Edge sizes that crashed the process, drawn on purpose (the pass target's `edge` cases).

Random calls rarely hit the sizes an upstream pattern divides by or counts
with: adaptive max pooling to an output larger than its input (torch-mlir's
decomposition makes a max pool of stride 0, TorchToTosa divides by it:
SIGFPE), not dividing it, of size 1 or the input's own; pools with a zero
stride; arange with an integer step of 0 or more values than an LLVM
SmallVector counts; softmax and log_softmax of a 0-d tensor (torch-mlir's
decomposition never returns: a hang); index.Tensor with no indices (its
decomposition segfaults). Each case is torch IR at the backend contract, run the
three ways compile() meets it (CASE_PIPELINES); any diagnostic is clean, only
a dead process (the supervisor's `crash`) or an escaping exception is a defect.
"""

from __future__ import annotations

from hypothesis import strategies as st

__all__ = ["edge_case", "CASE_PIPELINES", "output_size"]

_DECOMPOSE = "func.func(torch-decompose-complex-ops)"
# How compile() meets the op: stock lowers torch-mlir's decomposition of it
# (after refusing what KNOWN_CRASHES names at the contract); auto mode probes
# either the op itself or, had the contract check not kept it, its decomposition.
CASE_PIPELINES = {
    "stock": ["tosa-custom-check-known-crashes{stage=contract}", _DECOMPOSE],
    "auto": ["convert-torch-backend-legal-to-tosa-custom{ops=auto}"],
    "auto-decomposed": [_DECOMPOSE, "convert-torch-backend-legal-to-tosa-custom{ops=auto}"],
}
_OUTPUT_KINDS = ("larger", "non-dividing", "one", "same", "smaller")


def output_size(kind: str, size: int, draw) -> int:
    """An adaptive pool's output size of `kind` for an input of `size`."""
    if kind == "larger":
        return size + draw(st.integers(1, 2 * size))
    if kind == "non-dividing":
        choices = [o for o in range(2, size) if size % o]
        return draw(st.sampled_from(choices)) if choices else size + 1
    if kind == "one":
        return 1
    if kind == "same":
        return size
    return draw(st.sampled_from([o for o in range(1, size + 1) if size % o == 0]))


def _list(name: str, values) -> list[str]:
    lines = [f"  %{name}{i} = torch.constant.int {v}" for i, v in enumerate(values)]
    items = ", ".join(f"%{name}{i}" for i in range(len(values)))
    lines.append(f"  %{name} = torch.prim.ListConstruct {items} : ({', '.join(['!torch.int'] * len(values))}) "
                 "-> !torch.list<int>")
    return lines


def _vtensor(dims, element="f32") -> str:
    return f"!torch.vtensor<[{','.join(map(str, dims))}],{element}>"


def _function(arg: str, result: str, body: list[str], value: str) -> str:
    head = f"func.func @edge({arg}) -> {result} {{" if arg else f"func.func @edge() -> {result} {{"
    return "\n".join([head, *body, f"  return {value} : {result}", "}", ""])


@st.composite
def _adaptive_max_pool(draw) -> dict:
    rank = draw(st.sampled_from([1, 2]))
    sizes = [draw(st.integers(1, 9)) for _ in range(rank)]
    kinds = [draw(st.sampled_from(_OUTPUT_KINDS)) for _ in range(rank)]
    out = [output_size(k, s, draw) for k, s in zip(kinds, sizes)]
    dynamic = draw(st.integers(0, 3)) == 0  # sizes known only at run time
    lead = [draw(st.integers(1, 2)), draw(st.integers(1, 3))]  # batch, channels
    in_dims = lead + (["?"] * rank if dynamic else sizes)
    source, values, indices = _vtensor(in_dims), _vtensor(lead + out), _vtensor(lead + out, "si64")
    op = f"torch.aten.adaptive_max_pool{rank}d"
    body = _list("out", out) + [f"  %r, %i = {op} %arg0, %out : {source}, !torch.list<int> -> {values}, {indices}"]
    want_indices = draw(st.booleans())
    text = _function(f"%arg0: {source}", indices if want_indices else values, body, "%i" if want_indices else "%r")
    return {"family": "adaptive_max_pool", "op": op, "sizes": [in_dims[len(lead):], out], "output_kinds": kinds,
            "text": text}


_POOLS = {"max_pool1d": 1, "max_pool2d": 2, "max_pool3d": 3, "avg_pool1d": 1, "avg_pool2d": 2}


@st.composite
def _pool_stride(draw) -> dict:
    name = draw(st.sampled_from(sorted(_POOLS)))
    rank = _POOLS[name]
    sizes = [draw(st.integers(1, 8)) for _ in range(rank)]
    kernel = [draw(st.integers(1, s)) for s in sizes]
    stride = [draw(st.sampled_from([0, 0, 1, 2])) for _ in range(rank)]
    out = [(s - k) // st_ + 1 if st_ else "?" for s, k, st_ in zip(sizes, kernel, stride)]
    source, result = _vtensor([1, 2, *sizes]), _vtensor([1, 2, *out])
    body = _list("k", kernel) + _list("s", stride) + _list("p", [0] * rank) + ["  %false = torch.constant.bool false"]
    if name.startswith("max"):
        body += _list("d", [1] * rank)
        call = f"%k, %s, %p, %d, %false : {source}{', !torch.list<int>' * 4}, !torch.bool"
    elif rank == 1:
        body += ["  %true = torch.constant.bool true"]
        call = f"%k, %s, %p, %false, %true : {source}{', !torch.list<int>' * 3}, !torch.bool, !torch.bool"
    else:
        body += ["  %true = torch.constant.bool true", "  %none = torch.constant.none"]
        call = f"%k, %s, %p, %false, %true, %none : {source}{', !torch.list<int>' * 3}, !torch.bool, !torch.bool, " \
               "!torch.none"
    body.append(f"  %r = torch.aten.{name} %arg0, {call} -> {result}")
    return {"family": "pool_stride", "op": f"torch.aten.{name}", "sizes": [sizes, kernel, stride],
            "text": _function(f"%arg0: {source}", result, body, "%r")}


# Spans and steps whose counts are tiny or beyond 2**32 - 1, never between: a
# count of 2**31 is no crash TorchToTosa could be spared, only tens of GB of memory.
_ARANGE_VALUES = [0, 1, -1, 7, -(2**40), 2**40, 0.0, 0.5, -3.6e16, 1e16]


@st.composite
def _arange(draw) -> dict:
    values = [draw(st.sampled_from(_ARANGE_VALUES)) for _ in range(3)]
    kinds = ["float" if isinstance(v, float) else "int" for v in values]
    element = "f32" if "float" in kinds else "si64"
    spelt = [f"{float(v):.17e}" if k == "float" else str(v) for k, v in zip(kinds, values)]  # MLIR needs "1.0e16"
    body = [f"  %v{i} = torch.constant.{k} {v}" for i, (k, v) in enumerate(zip(kinds, spelt))]
    body.append("  %none = torch.constant.none")
    types = ", ".join(f"!torch.{k}" for k in kinds)
    result = _vtensor(["?"], element)
    body.append(f"  %r = torch.aten.arange.start_step %v0, %v1, %v2, %none, %none, %none, %none : {types}, "
                f"!torch.none, !torch.none, !torch.none, !torch.none -> {result}")
    return {"family": "arange", "op": "torch.aten.arange.start_step", "sizes": values,
            "text": _function("", result, body, "%r")}


_SOFTMAXES = {"softmax.int": "none", "log_softmax.int": "none", "_softmax": "bool", "_log_softmax": "bool"}


@st.composite
def _softmax(draw) -> dict:
    """Softmax over a tensor of rank 0 (half the time) to 2, along any dim it has (a 0-d one has dim 0 and -1)."""
    name = draw(st.sampled_from(sorted(_SOFTMAXES)))
    dims = [draw(st.integers(1, 4)) for _ in range(draw(st.sampled_from([0, 0, 1, 2])))]
    dim = draw(st.integers(-max(len(dims), 1), max(len(dims), 1) - 1))
    source = _vtensor(dims)
    if _SOFTMAXES[name] == "none":
        body, third, kind = ["  %third = torch.constant.none"], "%third", "!torch.none"
    else:
        body, third, kind = ["  %third = torch.constant.bool false"], "%third", "!torch.bool"
    body += [f"  %dim = torch.constant.int {dim}",
             f"  %r = torch.aten.{name} %arg0, %dim, {third} : {source}, !torch.int, {kind} -> {source}"]
    return {"family": "softmax", "op": f"torch.aten.{name}", "sizes": [dims, dim],
            "text": _function(f"%arg0: {source}", source, body, "%r")}


@st.composite
def _index_empty(draw) -> dict:
    """index.Tensor with an empty list of indices (or one None), rank 0 to 2."""
    source = _vtensor([draw(st.integers(1, 4)) for _ in range(draw(st.integers(0, 2)))])
    if draw(st.booleans()):
        body, items = [], ""
    else:
        body, items = ["  %none = torch.constant.none"], "%none"
    types = "!torch.none" if items else ""
    body += [f"  %idx = torch.prim.ListConstruct {items} : ({types}) -> !torch.list<optional<vtensor>>",
             f"  %r = torch.aten.index.Tensor %arg0, %idx : {source}, !torch.list<optional<vtensor>> -> {source}"]
    return {"family": "index_empty", "op": "torch.aten.index.Tensor", "sizes": [source, items],
            "text": _function(f"%arg0: {source}", source, body, "%r")}


# Families whose crash is the decomposition itself, which compile() reaches
# only through the contract check (that keeps or refuses the op).
_DECOMPOSITION_CRASHES = ("softmax", "index_empty")


@st.composite
def edge_case(draw) -> dict:
    families = [_adaptive_max_pool, _pool_stride, _arange, _softmax, _index_empty]
    case = draw(st.sampled_from(families).flatmap(lambda s: s()))
    pipelines = [p for p in sorted(CASE_PIPELINES)
                 if not (case["family"] in _DECOMPOSITION_CRASHES and p == "auto-decomposed")]
    return {**case, "kind": "edge", "pipeline": draw(st.sampled_from(pipelines))}
