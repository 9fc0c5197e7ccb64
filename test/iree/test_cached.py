"""iree.load through the compiled-code cache (iree/cached.py): the vmfb of a
module comes back in a second process, with the site ids it was compiled
with; the same module twice in one process compiles again (its ids are
held); a damaged entry is compiled again."""

from __future__ import annotations

import gc
import json
import subprocess
import sys
import textwrap

import pytest
import torch

pytest.importorskip("iree.runtime")
pytest.importorskip("iree.compiler")

from tosa_custom import iree  # noqa: E402
from tosa_custom.runtime.compiled import cache  # noqa: E402

# gelu(2x) + 1 with gelu kept (the built-in native gelu): test/runtime/test_compiled_code.py's module.
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

_CHILD = textwrap.dedent("""
    import json, sys, torch
    from tosa_custom import iree
    program = iree.load(open(sys.argv[1]).read(), threads=1)
    y = program(torch.linspace(-3, 3, 12).reshape(3, 4))
    print(json.dumps({"status": program.cache.status, "ids": [s.id for s in program._sites], "y": y.tolist()}))
""")


@pytest.fixture
def cache_dir(tmp_path, monkeypatch):
    directory = tmp_path / "cache"
    monkeypatch.setenv(cache.ENV_ENABLE, "1")
    monkeypatch.setenv(cache.ENV_DIR, str(directory))
    return directory


def test_a_second_process_takes_the_cached_vmfb(cache_dir, tmp_path):
    stored = iree.load(MODULE, threads=1)
    assert stored.cache.status == "stored"
    torch.testing.assert_close(stored(X), EAGER)
    (tmp_path / "m.mlir").write_text(MODULE)
    (tmp_path / "child.py").write_text(_CHILD)
    done = subprocess.run([sys.executable, str(tmp_path / "child.py"), str(tmp_path / "m.mlir")],
                          capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr[-3000:]
    child = json.loads(done.stdout.splitlines()[-1])
    assert child["status"] == "hit" and child["ids"] == [s.id for s in stored._sites]
    torch.testing.assert_close(torch.tensor(child["y"]), EAGER)


def test_the_same_module_twice_in_one_process_compiles_again(cache_dir):
    first = iree.load(MODULE, threads=1)
    second = iree.load(MODULE, threads=1)
    assert first.cache.status == "stored" and second.cache.status == "miss"
    assert "held by another program" in second.cache.reason
    assert {s.id for s in first._sites}.isdisjoint(s.id for s in second._sites)
    torch.testing.assert_close(second(X), EAGER)
    ids = [s.id for s in first._sites]
    del first
    gc.collect()  # its ids given back
    third = iree.load(MODULE, threads=1)
    assert third.cache.status == "hit" and [s.id for s in third._sites] == ids
    torch.testing.assert_close(third(X), EAGER)


def test_a_damaged_entry_is_compiled_again(cache_dir):
    stored = iree.load(MODULE, threads=1)
    key = stored.cache.key
    del stored
    gc.collect()
    (path,) = cache_dir.glob("iree/*.entry")
    path.write_bytes(path.read_bytes()[:-100])
    again = iree.load(MODULE, threads=1)
    assert again.cache.status == "stored" and "truncated" in again.cache.reason and again.cache.key == key
    torch.testing.assert_close(again(X), EAGER)
    two_threads = iree.load(MODULE, threads=2)  # another worker count: another dispatch split
    assert two_threads.cache.status == "stored" and two_threads.cache.key != key


GONE = """
func.func @f(%x: tensor<4xf32>) -> tensor<4xf32> {
  %y = tosa.custom %x {domain_name = "acme", implementation_attrs = "", operator_name = "checked_sqrt"} : (tensor<4xf32>) -> tensor<4xf32>
  return %y : tensor<4xf32>
}
"""


def test_a_kernel_library_deleted_after_it_was_loaded_runs_uncached(cache_dir, tmp_path):
    """As the reference runtime's: no identity on disk, compiled and not stored."""
    from pathlib import Path

    from tosa_custom import runtime
    from tosa_custom.runtime.kernels import native

    fixture = Path(__file__).parents[1] / "native" / "fixture_kernels.c"
    path = native.compile_kernel_library([fixture], tmp_path / "libgone.so")
    library = runtime.load_kernel_library(path)
    try:
        path.unlink()
        program = iree.load(GONE, threads=1)
        assert program(torch.tensor([1.0, 4.0, 9.0, 16.0])).tolist() == [1.0, 2.0, 3.0, 4.0]
        assert program.cache.status == "miss" and "libgone.so cannot be read" in program.cache.reason
        assert not list(cache_dir.glob("iree*/*.entry")) and not list(cache_dir.glob("*/*.entry"))
        del program
        gc.collect()
    finally:
        native.unload_kernel_library(library)
