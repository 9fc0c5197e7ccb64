"""The fuzzers draw the inputs that once crashed the process, so that a
regression is found again: adaptive max pooling to larger, non-dividing, unit
and equal output sizes (SIGFPE in TorchToTosa via a stride of 0), pools with a
zero stride, arange counts beyond a SmallVector, softmax of a 0-d tensor (a
decomposition that never returns) and index.Tensor with no indices (a
segfaulting decomposition) (pass target, `edge` cases), and MLIR text ending inside a string of its file metadata (opt target)."""

from __future__ import annotations

import collections

from fuzz.draw import case_random, draw
from fuzz.targets import _edges, load_target, opt


def _edge_cases(n: int, seed: int = 0) -> list[dict]:
    return [draw(_edges.edge_case(), case_random("edges", seed, i)) for i in range(n)]


def test_edge_cases_cover_the_sizes_that_crashed():
    cases = _edge_cases(200)
    families = collections.Counter(c["family"] for c in cases)
    assert set(families) == {"adaptive_max_pool", "pool_stride", "arange", "softmax", "index_empty"}
    assert {c["pipeline"] for c in cases} == set(_edges.CASE_PIPELINES)
    adaptive = [c for c in cases if c["family"] == "adaptive_max_pool"]
    kinds = {k for c in adaptive for k in c["output_kinds"]}
    assert kinds == {"larger", "non-dividing", "one", "same", "smaller"}
    larger = [c for c in adaptive if any(isinstance(i, int) and o > i for i, o in zip(*c["sizes"]))]
    assert larger and any(c["op"].endswith("pool1d") for c in larger) and any(c["op"].endswith("pool2d") for c in larger)
    assert any("?" in c["sizes"][0] for c in adaptive)  # sizes known only at run time
    assert any(0 in c["sizes"][2] for c in cases if c["family"] == "pool_stride")
    ranges = [c["sizes"] for c in cases if c["family"] == "arange"]
    assert any(s[2] == 0 and all(isinstance(v, int) for v in s) for s in ranges)
    assert any(s[2] and abs(s[1] - s[0]) // abs(s[2]) + 1 > 2**32 - 1 for s in ranges)
    softmaxes = [c for c in cases if c["family"] == "softmax"]
    assert any(c["sizes"][0] == [] for c in softmaxes) and any(c["sizes"][0] for c in softmaxes)
    assert {c["op"] for c in softmaxes} == {f"torch.aten.{n}" for n in _edges._SOFTMAXES}
    empty = [c for c in cases if c["family"] == "index_empty"]
    assert {c["sizes"][1] for c in empty} == {"", "%none"}
    # The decomposition itself is what crashed: those families never take the pipeline that runs it.
    assert all(c["pipeline"] != "auto-decomposed" for c in softmaxes + empty)


def test_edge_output_sizes_are_what_they_say():
    rng = case_random("sizes", 0, 0)
    for size in range(1, 10):
        for kind in ("larger", "non-dividing", "one", "same", "smaller"):
            out = _edges.output_size(kind, size, lambda strategy: draw(strategy, rng))
            assert {"larger": out > size, "one": out == 1, "same": out == size,
                    "smaller": out <= size and size % out == 0,
                    "non-dividing": size % out != 0}[kind], (kind, size, out)


def test_pass_target_draws_edge_cases_and_they_run_clean():
    """Through the pass target's own strategy and check, in process: no crash,
    every outcome correct or clean (a crash here kills the test run)."""
    target = load_target("pass")
    drawn = [draw(target.strategy(), case_random("pass", 0, i)) for i in range(60)]
    edges = [c for c in drawn if c.get("kind") == "edge"]
    assert edges
    for case in edges[:6]:
        assert target.check(case).kind in ("correct", "clean")


def _open_metadata(text: str) -> bool:
    """A `{-#` outside a comment, followed by an odd number of quotes: a
    metadata string the text ends inside."""
    at = text.find("{-#")
    line = text[text.rfind("\n", 0, at) + 1:at]
    return at >= 0 and "//" not in line and text.count('"', at) % 2 == 1


def test_opt_target_draws_text_ending_in_an_open_metadata_string():
    drawn = [draw(opt.strategy(), case_random("opt", 0, i)) for i in range(200)]
    # (a case whose flags only list the passes or print help never reads its text)
    open_ended = [c for c in drawn if _open_metadata(c["text"]) and not {"--list-passes", "--help", "-h"} & set(
        str(c).replace("'", " ").split())]
    assert len(open_ended) >= 5
    for case in open_ended[:3]:  # MLIR used to read past the input here (seed 734959, case 280)
        assert opt.check(case).kind == "clean"
