"""A user's kernel library through the C ABI: built from a fixture with the
system C compiler against the installed header, loaded with
`load_kernel_library`, run from compiled code; its errors, and bad libraries."""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

import pytest
import torch

import tosa_custom
from tosa_custom import runtime
from tosa_custom.runtime.kernels import native

FIXTURE = Path(__file__).with_name("fixture_kernels.c")
F = torch.nn.functional


@pytest.fixture(scope="module")
def fixture_so(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("kernels") / "libfixture.so"
    return native.compile_kernel_library([FIXTURE], out, ["-Wall", "-Werror"])


@pytest.fixture
def fixture_library(fixture_so):
    library = runtime.load_kernel_library(fixture_so)
    yield library
    native.unload_kernel_library(library)  # it overrides aten.gelu: never leak it into other tests


def _attrs(obj) -> str:
    return json.dumps(obj, sort_keys=True, separators=(",", ":")).replace('"', "\\22")


def _module(op: str, attrs: str, shape=(2, 3), pre: str = "") -> str:
    t = f"tensor<{'x'.join(map(str, shape))}xf32>"
    src = "%a"
    body = ""
    if pre == "transpose":  # the custom op then reads a transposed (strided) view
        tt = f"tensor<{'x'.join(map(str, shape[::-1]))}xf32>"
        body = f"  %t = tosa.transpose %a {{perms = array<i32: 1, 0>}} : ({t}) -> {tt}\n"
        src, t_in = "%t", tt
        t_out = tt
    else:
        t_in = t_out = t
    return f"""
func.func @f(%a: {t}) -> {t_out} {{
{body}  %0 = tosa.custom {src} {{domain_name = "acme", implementation_attrs = "{attrs}", operator_name = "{op}"}} : ({t_in}) -> {t_out}
  return %0 : {t_out}
}}"""


SCALE_ATTRS = {"axes": [0, -1], "mode": "plain", "scale": 2.5, "shift": 3}


def test_library_lists_its_kernels(fixture_library):
    assert fixture_library.kernels() == [
        "acme::scale_shift [f32]", "acme::checked_sqrt [f32]", "acme::noop [f32]", "torch_mlir::torch.aten.gelu [f32]"]
    assert native.kernel_libraries()[0] is fixture_library
    assert native.kernel_libraries()[-1] is native.builtin_library()


@pytest.mark.parametrize("mode", ["plain", "relu"])
@pytest.mark.parametrize("pre", ["", "transpose"])
def test_user_kernel_with_attributes(fixture_library, mode, pre):
    program = runtime.load(_module("scale_shift", _attrs({**SCALE_ATTRS, "mode": mode}), (5, 7), pre))
    assert program.kernels == ["native (libfixture.so: scale_shift f32)"]
    x = torch.randn(5, 7)
    src = x.t() if pre else x
    expected = src * 2.5 + 3
    if mode == "relu":
        expected = expected.clamp_min(0)
    torch.testing.assert_close(program(x), expected)


def test_user_library_wins_over_the_builtin_kernels(fixture_library):
    x = torch.randn(3, 4)
    program = runtime.load(tosa_custom.compile(torch.nn.GELU(), (x,), backend_legal_ops=["aten.gelu"]))
    assert program.kernels == ["native (libfixture.so: 1000 + x, not gelu)"]
    torch.testing.assert_close(program(x), 1000 + x)
    native.unload_kernel_library(fixture_library)
    program = runtime.load(tosa_custom.compile(torch.nn.GELU(), (x,), backend_legal_ops=["aten.gelu"]))
    assert program.kernels[0].startswith("native (libtosa_custom_kernels.so")
    torch.testing.assert_close(program(x), F.gelu(x), rtol=1e-5, atol=1e-6)


def test_run_time_error_is_a_kernel_error_naming_the_op(fixture_library):
    program = runtime.load(_module("checked_sqrt", "", (4,)))
    x = torch.tensor([4.0, 9.0, -1.0, 16.0])
    with pytest.raises(runtime.KernelError,
                       match=r"kernel for checked_sqrt at .* failed: native \(libfixture.so: checked_sqrt f32\): "
                             r"invalid argument \(status 2\): checked_sqrt: element 2 is negative \(-1\)"):
        program(x)
    # the program still works, and the error does not stick
    torch.testing.assert_close(program(x.abs()), x.abs().sqrt())


def test_error_skips_later_native_kernels_and_zeroes_outputs(fixture_library):
    t = "tensor<3xf32>"
    text = f"""
func.func @f(%a: {t}) -> ({t}, {t}) {{
  %0 = tosa.custom %a {{domain_name = "acme", implementation_attrs = "", operator_name = "checked_sqrt"}} : ({t}) -> {t}
  %1 = tosa.custom %0 {{domain_name = "acme", implementation_attrs = "", operator_name = "checked_sqrt"}} : ({t}) -> {t}
  return %0, %1 : {t}, {t}
}}"""
    program = runtime.load(text)
    with pytest.raises(runtime.KernelError, match=r"checked_sqrt at .*element 1 is negative"):
        program(torch.tensor([1.0, -4.0, 9.0]))
    a, b = program(torch.tensor([1.0, 16.0, 81.0]))
    torch.testing.assert_close(b, torch.tensor([1.0, 2.0, 3.0]))


def test_prepare_error_fails_the_load_naming_the_op(fixture_library):
    with pytest.raises(tosa_custom.CompileError,
                       match=r"acme::scale_shift: native kernel in libfixture.so refused it: invalid argument "
                             r"\(status 2\): scale_shift: unknown mode 'cubic'"):
        runtime.load(_module("scale_shift", _attrs({**SCALE_ATTRS, "mode": "cubic"})))


def test_without_the_library_the_op_has_no_kernel():
    with pytest.raises(tosa_custom.CompileError, match=r"no kernel for acme::noop"):
        runtime.load(_module("noop", ""))


def test_loading_twice_keeps_one_entry(fixture_so, fixture_library):
    again = runtime.load_kernel_library(fixture_so)
    assert again is fixture_library
    assert [lib for lib in native.kernel_libraries() if lib.path == fixture_library.path] == [fixture_library]


def _build(tmp_path, name, source) -> Path:
    c = tmp_path / f"{name}.c"
    c.write_text(source)
    return native.compile_kernel_library([c], tmp_path / f"lib{name}.so")


def test_bad_libraries_are_refused_clearly(tmp_path):
    with pytest.raises(runtime.KernelLibraryError, match=r"kernel library .*nothing.so does not exist"):
        runtime.load_kernel_library(tmp_path / "nothing.so")
    (tmp_path / "garbage.so").write_bytes(b"not an ELF file")
    with pytest.raises(runtime.KernelLibraryError, match=r"cannot load kernel library .*garbage.so"):
        runtime.load_kernel_library(tmp_path / "garbage.so")
    plain = _build(tmp_path, "plain", "int answer(void) { return 42; }\n")
    with pytest.raises(runtime.KernelLibraryError, match=r"does not export tosa_custom_kernel_abi_version\(\)"):
        runtime.load_kernel_library(plain)
    future = _build(tmp_path, "future", """#include "tosa_custom_kernel.h"
TCK_EXPORT uint32_t tosa_custom_kernel_abi_version(void) { return 99; }
TCK_EXPORT const tck_kernel *tosa_custom_kernel_lookup(const char *d, const char *o, int32_t t) { return NULL; }
""")
    with pytest.raises(runtime.KernelLibraryError,
                       match=r"built for kernel ABI version 99; this runtime implements versions 1 to 2"):
        runtime.load_kernel_library(future)
    assert all(lib.path.name not in ("libplain.so", "libfuture.so") for lib in native.kernel_libraries())


@pytest.mark.skipif(shutil.which("c++") is None, reason="no C++ compiler")
def test_header_is_valid_cplusplus(tmp_path):
    src = tmp_path / "k.cc"
    src.write_text('#include "tosa_custom_kernel.h"\n'
                   'static int32_t run(const tck_call *, tck_memref *const *, tck_memref *const *) { return TCK_OK; }\n'
                   'static const tck_kernel table[] = {{"d", "o", TCK_F32, nullptr, run, nullptr, "x"}};\n'
                   'TCK_DEFINE_LIBRARY(table)\n')
    done = subprocess.run(["c++", "-std=c++17", "-fsyntax-only", f"-I{native.include_dir()}", str(src)],
                          capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
