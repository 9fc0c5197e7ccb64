"""Target `opt`: malformed, truncated and odd MLIR text and flags through `tosa-custom-opt`.

The tool's `run(argv, stdin, stdout, stderr)` runs in the worker (the same
code `main()` runs), with captured streams. Inputs start from the project's
own lit tests and from emitted calls, then are cut, spliced and garbled; the
flags are drawn from the tool's options, our pass with good and bad options,
and upstream passes and pipelines, good and garbled.

Clean: exit 1 with an `file:line:col: error:` diagnostic, a
`tosa-custom-opt: error:` usage error or a --verify-diagnostics report, and
no traceback or "internal error" on stderr. Correct: exit 0, and the output
parses again. Anything else (an escaping exception, another exit code, exit 1
saying nothing, exit 0 with output that does not parse) is a defect.
"""

from __future__ import annotations

import functools
import glob
import io
import os
import re
import tempfile

from hypothesis import strategies as st

from ..outcome import CLEAN, CORRECT, Defect, Outcome, describe
from . import _common

__all__ = ["strategy", "check"]

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


@functools.lru_cache(maxsize=1)
def _seed_texts() -> tuple[str, ...]:
    """The lit files of the tunnel pass and of the opt tool, to mutate."""
    texts = []
    for folder in _SEED_FOLDERS:
        paths = sorted(glob.glob(os.path.join(ROOT, "test", *folder, "*.mlir")))
        if not paths:
            raise FileNotFoundError(f"no lit files to seed the opt fuzzer in test/{'/'.join(folder)}")
        for path in paths:
            with open(path, encoding="utf-8") as f:
                texts.append(f.read())
    return tuple(texts)


# Where the lit tests of the tunnel pass and of the opt tool live (test/ mirrors the package).
_SEED_FOLDERS = (("tunnel",), ("tools", "opt"))


PASS = "--convert-torch-backend-legal-to-tosa-custom"
FLAGS = [
    f'{PASS}=ops=aten.layer_norm,aten.gelu', f"{PASS}=ops=*", f"{PASS}=ops=* encoding=const",
    f"{PASS}=ops=* strict=true", f"{PASS}=ops=aten.no_such_op", f"{PASS}=encoding=bogus", f"{PASS}=strict=maybe",
    f"{PASS}=ops=", f"{PASS}=nonsense", f'{PASS}="ops=aten.tanh', f"{PASS}={{}}", f"{PASS}=ops=aten.",
    f"{PASS}=ops=torch.aten.gelu.nope", PASS, "--canonicalize", "--cse", "--no-such-pass", "--canonicalize=bad",
    "--torch-backend-to-tosa-backend-pipeline", "--pass-pipeline=builtin.module(canonicalize)",
    "--pass-pipeline=builtin.module(func.func(cse))", "--pass-pipeline=builtin.module(", "--pass-pipeline=)",
    "--pass-pipeline=builtin.module(func.func(convert-torch-backend-legal-to-tosa-custom))",
    '--pass-pipeline="builtin.module(canonicalize)"', "--split-input-file", "--verify-diagnostics",
    "--allow-unregistered-dialect", "-o", "-o=", "--", "-", "-x", "--list-passes", "--mlir-print-debuginfo",
    "/no/such/file.mlir", "--pass-pipeline=builtin.module(convert-torch-backend-legal-to-tosa-custom{ops=*})",
]
INSERTS = ["}", "{", "(", ")", "%", "%0", "@", '"', "\\", "->", ":", ",", "!torch.vtensor<[", "tensor<",
           "torch.aten.gelu", "torch.constant.int 99999999999999999999999", "// -----\n", "\n", "\x00",
           "loc(", "#loc", "dense<", "0x", "func.func @g() {", "return", "tosa.custom", "é", "\ud800",
           "// expected-error {{", "// expected-warning@+1 {{x}}", "{-#", "#-}", "^bb0:", "<<", ">>"]


# A file metadata section whose last string is left open: the shape that made
# MLIR's lexer read past the input (seed 734959, case 280).
RESOURCE_TAIL = '{-#\n  dialect_resources: {\n    builtin: {\n      blob: "0x0800000001'


def _open_string_at_end(text: str, draw) -> str:
    """`text` cut inside a string literal (after its opening quote, before
    its closing one), of its file metadata (`{-# ... #-}`) when it has one,
    else with the tail of one appended."""
    metadata = text.find("{-#")
    quotes = [i for i, c in enumerate(text) if c == '"' and i > metadata >= 0]
    if len(quotes) < 2:
        cut = draw(st.integers(RESOURCE_TAIL.index('"') + 1, len(RESOURCE_TAIL)))
        return text.rstrip("\n") + "\n" + RESOURCE_TAIL[:cut]
    k = draw(st.integers(0, len(quotes) // 2 - 1))
    opening, closing = quotes[2 * k], quotes[2 * k + 1]
    return text[:draw(st.integers(opening + 1, closing))]


@st.composite
def _text(draw):
    if draw(st.integers(0, 3)) == 0:
        overload = draw(st.sampled_from(_common.OPS[:-2]))
        values, style, _ = draw(_common.rt.calls(overload))
        try:
            text = _common.rt.emit(overload, values, **style).text
        except ValueError:
            text = ""
    else:
        text = draw(st.sampled_from(_seed_texts()))
    for _ in range(draw(st.integers(0, 4))):
        kind = draw(st.sampled_from(["truncate", "delete", "insert", "swap-lines", "dup-line", "splice-chars",
                                     "truncate-in-string"]))
        n = len(text)
        i = draw(st.integers(0, max(n, 0)))
        if kind == "truncate":
            text = text[:i]
        elif kind == "truncate-in-string":
            text = _open_string_at_end(text, draw)
        elif kind == "delete":
            text = text[:i] + text[i + draw(st.integers(1, 40)):]
        elif kind == "insert":
            text = text[:i] + draw(st.sampled_from(INSERTS)) + text[i:]
        elif kind == "splice-chars":
            text = text[:i] + draw(st.text(max_size=8)) + text[i:]
        else:
            lines = text.split("\n")
            a, b = draw(st.integers(0, len(lines) - 1)), draw(st.integers(0, len(lines) - 1))
            if kind == "swap-lines":
                lines[a], lines[b] = lines[b], lines[a]
            else:
                lines.insert(b, lines[a])
            text = "\n".join(lines)
    return text


@st.composite
def strategy_(draw):
    return {
        "text": draw(_text()),
        "argv": draw(st.lists(st.sampled_from(FLAGS), max_size=4)),
        "input": draw(st.sampled_from(["stdin", "stdin", "file", "bad-utf8-file"])),
        "output": draw(st.sampled_from(["stdout", "stdout", "file", "bad-dir"])),
    }


def strategy():
    return strategy_()


_ERROR = re.compile(r"(^|\n)(\S.*:\d+:\d+: error: |tosa-custom-opt: error: |.*: unexpected (error|warning|note|remark): "
                    r"|.*: expected (error|warning|note|remark) )")


def check(case: dict) -> Outcome:
    from torch_mlir import ir

    from tosa_custom.core import ir as _ir
    from tosa_custom.tools import opt

    argv = list(case["argv"])
    stdin = io.StringIO(case["text"])
    with tempfile.TemporaryDirectory() as tmp:
        if case["input"] != "stdin":
            path = os.path.join(tmp, "in.mlir")
            data = case["text"].encode("utf-8", "surrogatepass")
            if case["input"] == "bad-utf8-file":
                data = b"\xff\xfe" + data
            with open(path, "wb") as f:
                f.write(data)
            argv.append(path)
        out_path = None
        if case["output"] == "file":
            out_path = os.path.join(tmp, "out.mlir")
            argv += ["-o", out_path]
        elif case["output"] == "bad-dir":
            argv += ["-o", os.path.join(tmp, "no", "such", "dir", "out.mlir")]
        stdout, stderr = io.StringIO(), io.StringIO()
        cwd = os.getcwd()
        os.chdir(tmp)  # `-o <a flag>` writes a file named like the flag: keep it in tmp
        try:
            code = opt.run(argv, stdin=stdin, stdout=stdout, stderr=stderr)
        except BaseException as e:  # SystemExit included: run() must return a code
            raise Defect("exception", f"tosa-custom-opt {argv} raised " + describe(e)) from None
        finally:
            os.chdir(cwd)
        err = stderr.getvalue()
        if "Traceback" in err or "internal error" in err:
            raise Defect("exception", f"tosa-custom-opt {argv}: exit {code}, stderr:\n{err[-3000:]}")
        if code == 1:
            if not _ERROR.search(err):
                raise Defect("wrong", f"tosa-custom-opt {argv}: exit 1 without an error naming a place:\n{err[-2000:]}")
            return Outcome(CLEAN, err.strip().splitlines()[0][:200] if err.strip() else "")
        if code != 0:
            raise Defect("wrong", f"tosa-custom-opt {argv}: exit code {code}:\n{err[-2000:]}")
        output = stdout.getvalue()
        if out_path is not None and os.path.exists(out_path):
            with open(out_path, encoding="utf-8") as f:
                output = f.read()
    if output.strip() and "--list-passes" not in argv and "-h" not in argv:
        ctx = _ir.make_context()
        ctx.allow_unregistered_dialects = True
        for chunk in output.split("\n// -----\n"):
            try:
                with ctx:
                    ir.Module.parse(chunk)
            except ir.MLIRError as e:
                raise Defect("wrong", f"tosa-custom-opt {argv}: exit 0 but its output does not parse: {e}\n"
                                      f"{chunk[:2000]}") from None
    return Outcome(CORRECT, " ".join(argv)[:200])
