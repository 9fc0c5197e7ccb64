"""Every ```sh, ```python and ```c block of README.md and e2e/README.md runs
as written, in document order, so the docs cannot drift from the code.

One driver process per README runs its blocks in a scratch directory:
- a ```python or ```c block whose first line is `# file: NAME` / `// file: NAME`
  is a file the text tells the reader to write: it is written there;
- any other ```python block runs in one namespace shared by the whole README
  (as a reader's session), after a prelude that defines what the text
  assumes exists: `model` (a tiny model with layer_norm, softmax, gelu and
  relu) and `x`, its input, and `other.safetensors` (a second checkpoint);
- a ```sh block runs with bash, the package's commands on PATH;
- a ```python block that runs a VGF (`vgf.`) is left out where no Vulkan
  device can be made (test/_vulkan.py), and the test, having run the rest,
  is skipped saying so; where Vulkan is promised it fails instead.

Commands too slow for a test are recognised and checked in a cheap way
instead, never skipped (`_cheap`): the set-up lines (a fresh venv and pip
install) run `tosa-custom-example --help`; the full test suite line must be
exactly what .ci/run executes (less pip's -q); the CPU torch install must name the pinned
version and PyTorch's CPU index; an audit of the whole e2e suite (no `--cases`)
runs on one case (`--filter '^LayerNormModule_basic$'` appended), one of the
whole OpInfo suite on one op entry (`--opinfo-ops '^abs$'`). An audit
exits 1 when a case fails unexpectedly, which the README's audits of the
user's own kernels expect, so 0 and 1 are accepted for tosa-custom-audit.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
BIN = Path(sys.executable).parent
FENCE = re.compile(r"^( *)```(\w+)\n(.*?)^\1```$", re.MULTILINE | re.DOTALL)

PRELUDE = """
import torch, safetensors.torch
from torch import nn

class TinyModel(nn.Module):
    def __init__(self):
        super().__init__()
        self.norm, self.fc = nn.LayerNorm(32), nn.Linear(32, 32)

    def forward(self, x):
        h = torch.relu(self.fc(self.norm(x)))
        return torch.softmax(nn.functional.gelu(h), dim=-1)

torch.manual_seed(0)
model, x = TinyModel().eval(), torch.randn(2, 8, 32)
safetensors.torch.save_file({k: v + 0.5 for k, v in model.state_dict().items()}, "other.safetensors")
"""

DRIVER = """
import json, os, subprocess, sys, traceback
blocks = json.load(open(sys.argv[1]))
namespace = {"__name__": "__main__"}
for block in [{"kind": "python", "code": sys.argv[2], "where": "prelude"}] + blocks:
    print(f"=== {block['where']}", flush=True)
    if block["kind"] == "file":
        with open(block["name"], "w") as f:
            f.write(block["code"])
    elif block["kind"] == "python":
        exec(compile(block["code"], block["where"], "exec"), namespace)
    else:
        done = subprocess.run(["bash", "-eo", "pipefail", "-c", block["code"]])
        if done.returncode not in block["ok"]:
            sys.exit(f"{block['where']}: exit status {done.returncode}: {block['code']}")
"""


def _ci_command() -> str:
    """The command .ci/run executes, less pip's -q (CI's log needs no download lines)."""
    return (ROOT / ".ci" / "run").read_text().strip().splitlines()[-1].replace(" install -q ", " install ")


def _torch_pin() -> str:
    return re.search(r'"torch==([^"]+)"', (ROOT / "pyproject.toml").read_text())[1]


def _cheap(command: str) -> str | None:
    """The stand-in for a command too slow to run here, or None to run it as written."""
    if "python -m pytest" in command:
        assert command == _ci_command(), f"the README's test command is not what .ci/run runs: {command}"
        return "true"
    if "--index-url" in command:
        assert command == (f"python3 -m venv .venv && .venv/bin/pip install torch=={_torch_pin()} --index-url "
                           "https://download.pytorch.org/whl/cpu && .venv/bin/pip install -e '.[test]'"), command
        return "true"
    if "pip install" in command:
        assert command.startswith("python3 -m venv .venv && .venv/bin/pip install -e '.[test]'"), command
        tail = command.split("&&")[-1].strip()
        return f"{tail} --help > /dev/null" if tail.startswith(".venv/bin/tosa-custom-") else "true"
    if command.startswith("tosa-custom-audit") and "--suite opinfo" in command and "--opinfo-ops" not in command:
        return command.split("#")[0] + " --opinfo-ops '^abs$'"
    if command.startswith("tosa-custom-audit") and "--cases" not in command and "--suite opinfo" not in command:
        return command.split("#")[0] + " --filter '^LayerNormModule_basic$'"
    return None


def _commands(code: str) -> list[str]:
    """A sh block's commands, continuation lines joined."""
    return [c.strip() for c in code.replace("\\\n", " ").splitlines() if c.strip()]


def _blocks(readme: Path) -> list[dict]:
    text, blocks = readme.read_text(), []
    for m in FENCE.finditer(text):
        kind, code = m[2], textwrap.dedent(m[3])
        where = f"{readme.relative_to(ROOT)}:{text[:m.start()].count(chr(10)) + 1}"
        first = code.splitlines()[0] if code.strip() else ""
        named = re.match(r"(?:#|//) file: (\S+)$", first)
        if named:
            blocks.append({"kind": "file", "name": named[1], "code": code, "where": where})
        elif kind == "python":
            blocks.append({"kind": "python", "code": code, "where": where})
        elif kind == "sh":
            for command in _commands(code):
                run = _cheap(command)
                ok = [0, 1] if command.startswith("tosa-custom-audit") else [0]
                ok = [0] if "--help" in (run or "") else ok
                blocks.append({"kind": "sh", "code": run or command, "where": where, "ok": ok})
        else:
            raise AssertionError(f"{where}: a ```{kind} block this test cannot run; name it `file: NAME` or "
                                 "use sh/python")
    return blocks


def _without_vulkan(blocks: list[dict]) -> list[str]:
    """Where no VGF can run (and Vulkan is not promised: test/_vulkan.py), the
    python blocks that run one (`vgf.`) are left out; returns where they were."""
    from _vulkan import required

    vulkan = [b for b in blocks if b["kind"] == "python" and "vgf." in b["code"]]
    if not vulkan or not required():
        return []
    for block in vulkan:
        block["code"] = "pass"
    return [b["where"] for b in vulkan]


@pytest.mark.parametrize("readme", ["README.md", "e2e/README.md"])
def test_snippets_run_as_written(readme, tmp_path):
    blocks = _blocks(ROOT / readme)
    assert blocks, f"{readme} has no snippets"
    left_out = _without_vulkan(blocks)
    (tmp_path / "blocks.json").write_text(json.dumps(blocks))
    env = {**os.environ, "PATH": f"{BIN}{os.pathsep}{os.environ['PATH']}"}
    if (ROOT / ".venv").resolve() != (tmp_path / ".venv").resolve():
        os.symlink(BIN.parent, tmp_path / ".venv")  # the set-up lines name .venv/bin/...
    done = subprocess.run([sys.executable, "-c", DRIVER, str(tmp_path / "blocks.json"), PRELUDE], cwd=tmp_path,
                          env=env, capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, f"{done.stdout[-3000:]}\n{done.stderr[-5000:]}"
    if left_out:  # everything else ran and passed
        from _vulkan import problem

        pytest.skip(f"the Vulkan blocks at {', '.join(left_out)} did not run: {problem()}")


def test_cheap_checks_recognise_the_set_up_lines():
    assert _cheap(_ci_command()) == "true"
    with pytest.raises(AssertionError, match="not what .ci/run runs"):
        _cheap("python3 -m venv .venv && .venv/bin/pip install -e . && .venv/bin/python -m pytest -x")
    assert _cheap("tosa-custom-audit --mode dummy -j 2").endswith("--filter '^LayerNormModule_basic$'")
    assert _cheap("tosa-custom-audit --mode dummy --cases my_models.py") is None
