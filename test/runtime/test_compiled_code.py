"""runtime.load through the compiled-code cache (runtime/compiled/compiled_code.py):
a second process loads the linked library instead of compiling, with its
imports bound to that process's kernels; what changes the code misses; a
damaged entry is compiled again; concurrent loads all succeed."""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap

import pytest
import torch

from tosa_custom import runtime
from tosa_custom.runtime.compiled import cache, compiled_code

pytestmark = pytest.mark.skipif(compiled_code._supported() != "", reason=compiled_code._supported() or "-")

# gelu(2x) + 1, gelu kept: a native kernel called with its context (the stub's override) or a Python callback.
MODULE = r"""
func.func @forward(%arg0: tensor<3x4xf32>) -> tensor<3x4xf32> {
  %0 = "tosa.const"() <{values = dense<0> : tensor<1xi8>}> : () -> tensor<1xi8>
  %1 = "tosa.const"() <{values = dense<2.000000e+00> : tensor<1x1xf32>}> : () -> tensor<1x1xf32>
  %2 = "tosa.const"() <{values = dense<1.000000e+00> : tensor<1x1xf32>}> : () -> tensor<1x1xf32>
  %3 = tosa.mul %arg0, %1, %0 : (tensor<3x4xf32>, tensor<1x1xf32>, tensor<1xi8>) -> tensor<3x4xf32>
  %4 = tosa.custom %3 {domain_name = "torch_mlir", implementation_attrs = "{\22args\22:{\22approximate\22:\22none\22,\22self\22:{\22operand\22:0}},\22version\22:1}", operator_name = "torch.aten.gelu"} : (tensor<3x4xf32>) -> tensor<3x4xf32>
  %5 = tosa.add %4, %2 : (tensor<3x4xf32>, tensor<1x1xf32>) -> tensor<3x4xf32>
  return %5 : tensor<3x4xf32>
}
"""
X = torch.linspace(-3, 3, 12).reshape(3, 4)
EAGER = torch.nn.functional.gelu(X * 2) + 1

# A fresh process: load natively and with Python kernels, print what the cache did and the results.
_CHILD = textwrap.dedent("""
    import json, sys, torch
    from tosa_custom import runtime
    module, x = open(sys.argv[1]).read(), torch.linspace(-3, 3, 12).reshape(3, 4)
    out = []
    for native in (True, False):
        program = runtime.load(module, native=native)
        out.append({"status": program.cache.status, "reason": program.cache.reason,
                    "kernels": program.kernels, "y": program(x).tolist()})
    print(json.dumps(out))
""")


@pytest.fixture
def cache_dir(tmp_path, monkeypatch):
    directory = tmp_path / "cache"
    monkeypatch.setenv(cache.ENV_ENABLE, "1")
    monkeypatch.setenv(cache.ENV_DIR, str(directory))
    return directory


def _children(tmp_path, count: int) -> list[list[dict]]:
    """`count` fresh processes loading MODULE at the same time."""
    (tmp_path / "m.mlir").write_text(MODULE)
    (tmp_path / "child.py").write_text(_CHILD)
    procs = [subprocess.Popen([sys.executable, str(tmp_path / "child.py"), str(tmp_path / "m.mlir")],
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True) for _ in range(count)]
    outs = []
    for p in procs:
        stdout, stderr = p.communicate(timeout=300)
        assert p.returncode == 0, stderr[-3000:]
        outs.append(json.loads(stdout.splitlines()[-1]))
    return outs


def _check(loads: list[dict]) -> None:
    for load in loads:
        torch.testing.assert_close(torch.tensor(load["y"]), EAGER)


def test_a_second_process_loads_the_cached_code(cache_dir, tmp_path):
    (first,) = _children(tmp_path, 1)
    assert [load["status"] for load in first] == ["stored", "stored"]
    (second,) = _children(tmp_path, 1)
    assert [load["status"] for load in second] == ["hit", "hit"]
    assert second[0]["kernels"][0].startswith("native") and second[1]["kernels"][0].startswith("python")
    _check(first + second)
    assert len(list(cache_dir.glob("runtime/*.entry"))) == 2


def test_two_processes_loading_at_once_both_succeed(cache_dir, tmp_path):
    outs = _children(tmp_path, 2)
    for loads in outs:
        assert {load["status"] for load in loads} <= {"stored", "hit"}
        _check(loads)
    assert runtime.load(MODULE).cache.status == "hit"


def test_what_changes_the_code_misses(cache_dir, monkeypatch):
    first = runtime.load(MODULE)
    again = runtime.load(MODULE)  # in one process too: a private instance of the library
    assert (first.cache.status, again.cache.status) == ("stored", "hit")
    torch.testing.assert_close(first(X), EAGER)
    torch.testing.assert_close(again(X), EAGER)
    other_cpu = runtime.load(MODULE, cpu="sse" if first.tiling.isa != "sse" else "avx")
    assert other_cpu.cache.status == "stored" and other_cpu.cache.key != first.cache.key
    unvectorized = runtime.load(MODULE, vectorize=False)
    assert unvectorized.cache.status == "stored"
    monkeypatch.setattr(cache, "_version", lambda name: "9.9" if name == "tosa-custom" else "same")
    assert runtime.load(MODULE).cache.status == "stored"
    assert len({p.cache.key for p in (first, other_cpu, unvectorized)}) == 3
    assert runtime.load(MODULE.replace("2.000000e+00", "3.000000e+00")).cache.status == "stored"


def test_a_damaged_entry_is_compiled_again(cache_dir):
    stored = runtime.load(MODULE)
    assert stored.cache.status == "stored"  # reading it waits for the entry being written
    (path,) = cache_dir.glob("runtime/*.entry")
    data = bytearray(path.read_bytes())
    data[len(data) // 2] ^= 0xFF  # inside the library's code
    path.write_bytes(bytes(data))
    again = runtime.load(MODULE)
    assert again.cache.status == "stored" and "checksum mismatch" in again.cache.reason
    torch.testing.assert_close(again(X), EAGER)
    assert runtime.load(MODULE).cache.status == "hit" and again.cache.key == stored.cache.key


def test_the_pipeline_and_the_boundary_come_back(cache_dir):
    stored = runtime.load(MODULE)
    hit = runtime.load(MODULE)
    assert hit.cache.status == "hit" and hit.pipeline == stored.pipeline and hit.custom_ops == ["torch.aten.gelu"]
    with pytest.raises(ValueError, match=r"expected \[3, 4\] float32"):
        hit(torch.zeros(2, 2))


def test_turned_off_it_writes_nothing(cache_dir, monkeypatch):
    monkeypatch.setenv(cache.ENV_ENABLE, "0")
    program = runtime.load(MODULE)
    assert program.cache.status == "off" and not cache_dir.exists()
    torch.testing.assert_close(program(X), EAGER)


def test_the_code_is_linked_and_stored_while_the_program_runs(cache_dir, monkeypatch):
    """The link and the write wait on a compiler process and the disk: a
    thread does them after load() returned; reading the status waits for
    it, and so does another load of the same module in this process."""
    import threading

    released, seen = threading.Event(), []
    real = compiled_code.link_objects

    def slow_link(objects, imports):
        seen.append(released.wait(timeout=60))  # True only if load() returned before the link ran out
        return real(objects, imports)

    monkeypatch.setattr(compiled_code, "link_objects", slow_link)
    program = runtime.load(MODULE)
    torch.testing.assert_close(program(X), EAGER)  # runs before its code is stored
    released.set()
    again = runtime.load(MODULE)  # waits for the entry, then hits it
    assert (program.cache.status, again.cache.status, seen) == ("stored", "hit", [True])


GONE = """
func.func @f(%x: tensor<4xf32>) -> tensor<4xf32> {
  %y = tosa.custom %x {domain_name = "acme", implementation_attrs = "", operator_name = "checked_sqrt"} : (tensor<4xf32>) -> tensor<4xf32>
  return %y : tensor<4xf32>
}
"""


def test_a_kernel_library_deleted_after_it_was_loaded_runs_uncached(cache_dir, tmp_path):
    """The library runs from memory; with no file its identity cannot be
    taken, so the code is compiled and not stored (never a crash in the key)."""
    from pathlib import Path

    from tosa_custom.runtime.kernels import native

    fixture = Path(__file__).parents[1] / "native" / "fixture_kernels.c"
    path = native.compile_kernel_library([fixture], tmp_path / "libgone.so")
    library = runtime.load_kernel_library(path)
    try:
        path.unlink()
        program = runtime.load(GONE)
        assert program(torch.tensor([1.0, 4.0, 9.0, 16.0])).tolist() == [1.0, 2.0, 3.0, 4.0]
        assert program.cache.status == "miss" and "libgone.so cannot be read" in program.cache.reason
        assert program.kernels == ["native (libgone.so: checked_sqrt f32)"]
        assert not list(cache_dir.glob("runtime/*.entry"))
    finally:
        native.unload_kernel_library(library)
