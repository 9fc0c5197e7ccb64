"""CI's quick slice of the e2e suite: the first case of every family but whole models, and every
case of the families an issue made its acceptance list (`inplace`, issue 13: each must pass in all
three modes; `dynamic`, issue 23), in every mode (selective: each case's own ops), through the real audit CLI (two workers).
The same slice (one dynamic case for its family) runs on TOSA's reference model in stock and
selective mode (`--executor refmodel`, issue 37), when tosa-tools is installed.

The whole suite is the audit's job (`tosa-custom-audit --mode dummy`); this
keeps CI to a few minutes while still crossing every family once.
"""

import re
import subprocess
import sys
from pathlib import Path

import pytest

SUITE = Path(__file__).resolve().parents[2] / "e2e"

pytestmark = pytest.mark.skipif(
    not SUITE.is_dir(), reason=f"the e2e suite folder {SUITE} is absent (an installed package without the checkout)"
)


# Whole models (BERT, GPT-2, ...) take tens of seconds each, with dynamic dims too
# (e2e/dynamic_models.py: every architecture at three sizes), torchvision's architectures
# (e2e/torchvision_models.py, a minute or more each): the full audit runs them.
_SLOW_FAMILIES = {"model", "dynamic_model", "torchvision"}
# Every case, not the first: in-place ops, out=, state over calls, result structure and Python
# numbers are each a different path through the program's boundary (about 40 s a mode at -j 2).
# Every dynamic case too (issue 23: the family runs in every mode): each is one compile run at
# several sizes (about 15 s a mode).
_WHOLE_FAMILIES = {"inplace", "dynamic"}

# A case listed as not conformant in every mode (an f64 model by design), so
# the slice crosses a listed expectation as well as outputs that validate.
_LISTED_NONCONFORMANT = "ToF64Module_basic"


def _slice() -> dict[str, str]:
    """The slice's cases, name -> family."""
    listing = subprocess.run(
        [sys.executable, "-m", "tosa_custom.e2e.audit", "--mode", "stock", "--list", "--suite", str(SUITE)],
        capture_output=True, text=True, timeout=300,
    )
    assert listing.returncode == 0, listing.stderr
    first: dict[str, str] = {}
    whole: list[str] = []
    families: dict[str, str] = {}
    for line in listing.stdout.splitlines():
        name, family, _ = line.split("\t", 2)
        families[name] = family
        if family in _WHOLE_FAMILIES:
            whole.append(name)
        elif family not in _SLOW_FAMILIES:
            first.setdefault(family, name)
    assert len(whole) >= 26, whole  # issue 13's list: 8 in-place/out=, 4 stateful, 4 structures, 3 numbers
    return {n: families[n] for n in sorted({*first.values(), *whole, _LISTED_NONCONFORMANT})}


@pytest.fixture(scope="module")
def families() -> dict[str, str]:
    return _slice()


@pytest.fixture(scope="module")
def names(families) -> list[str]:
    return list(families)


@pytest.mark.parametrize("mode", ["stock", "selective", "dummy", "auto"])
def test_quick_slice(mode, names, audit):
    assert len(names) >= 5, names
    run = audit("--mode", mode, "--suite", str(SUITE), "--filter", "^(" + "|".join(map(re.escape, names)) + ")$",
                "-j", "2", "--timeout", "300")
    assert sorted(c["name"] for c in run.summary["cases"]) == names
    unexpected = {c["name"]: f"{c['status']} [{c['category']}] {c['message'][:300]}"
                  for c in run.summary["cases"] if c["status"] not in ("pass", "xfail")}
    assert run.returncode == 0 and not unexpected, unexpected
    for c in run.summary["cases"]:
        # PT2E's quantize/dequantize ops are kept whole for the integer lowering (quant/), which makes them integer
        # TOSA: compile()'s report counts them apart, never as converted or tunneled.
        assert not any(k.startswith("torch.quantized_decomposed.") for k in c["converted"]), c["converted"]
        assert not any(str(t[0]).startswith("torch.quantized_decomposed.") for t in c["tunneled"]), c["tunneled"]
        if c["status"] == "pass":
            assert c["ops_seen"], c["name"]  # compile()'s report reached the audit
            if mode == "dummy":
                # Every op is asked for: each one seen at import was converted,
                # or compile()'s report says why not.
                assert c["converted"], c["name"]
                unexplained = (set(c["ops_seen"]) - set(c["converted"]) - set(c["integer"])
                               - {s["identifier"] for s in c["skipped"]})
                assert not unexplained, (c["name"], unexplained)
            elif mode == "stock":
                assert not c["converted"], c["name"]
            elif mode == "auto":
                # Only what torch-mlir cannot take, each site with its reason.
                assert sum(c["converted"].values()) == len(c["tunneled"]), c["name"]
                assert all(category in ("no-tosa-lowering", "wrong-lowering", "not-conformant")
                           for _, category in c["tunneled"]), (c["name"], c["tunneled"])
            else:  # selective: the case's own ops, and only those
                assert all(any(k == f"torch.{op}" or k.startswith(f"torch.{op}.") for op in c["legal_ops"])
                           for k in c["converted"]), (c["name"], c["converted"], c["legal_ops"])
    if mode == "selective":
        assert any(c["converted"] for c in run.summary["cases"]), "no case of the slice kept an op"
    if mode == "auto":  # the slice has ops stock cannot lower, and the report ranks them
        assert run.summary["kernels_needed"]["ranked"], run.summary["kernels_needed"]
    # Every output validated or is listed with its reason (else the run failed above).
    verdicts = {c["name"]: c["conformance"] for c in run.summary["cases"]}
    assert verdicts[_LISTED_NONCONFORMANT] == "listed", verdicts
    assert run.case(_LISTED_NONCONFORMANT)["nonconformant_reason"]
    assert sum(v == "validated" for v in verdicts.values()) >= len(names) // 2, verdicts
    assert run.summary["conformance"]["counts"]["listed"] >= 1


# On TOSA's reference model, one dynamic case stands for its family: each is
# refused at load by design (the reference model interprets static graphs),
# after a compile that costs seconds in selective mode.
_DYNAMIC_ON_REFMODEL = "DynamicElementwiseModule_batch"


@pytest.mark.parametrize("mode", ["stock", "selective"])
def test_quick_slice_on_the_reference_model(mode, families, audit, tosa_tools):
    """The slice with `--executor refmodel` (tosa_custom.refmodel): the TOSA
    between kept ops on TOSA's reference model, each kept op by its kernel;
    every case passes, is listed, or is refused at load by design."""
    names = [n for n, family in families.items() if family != "dynamic" or n == _DYNAMIC_ON_REFMODEL]
    run = audit("--mode", mode, "--executor", "refmodel", "--suite", str(SUITE),
                "--filter", "^(" + "|".join(map(re.escape, names)) + ")$", "-j", "2", "--timeout", "300")
    assert sorted(c["name"] for c in run.summary["cases"]) == sorted(names)
    unexpected = {c["name"]: f"{c['status']} [{c['category']}] {c['message'][:300]}"
                  for c in run.summary["cases"] if c["status"] not in ("pass", "xfail")}
    assert run.returncode == 0 and not unexpected, unexpected
    assert {c["executor"] for c in run.summary["cases"]} == {"refmodel"}
    counts = run.summary["by_executor"]["refmodel"]
    assert counts["refused"]["dynamic-shape"] == 1 and counts["refused"]["not-conformant"] >= 1, counts
    assert run.case(_DYNAMIC_ON_REFMODEL)["refused"] and run.case(_LISTED_NONCONFORMANT)["refused"]
    assert counts["ran"]["pass"] >= len(names) * 3 // 4, counts
    if mode == "selective":  # kept ops ran on their kernels between segments
        assert sum(bool(c["converted"]) and c["status"] == "pass" for c in run.summary["cases"]) >= 20
