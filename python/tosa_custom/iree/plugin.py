"""The IREE executable plugin (lib/iree_plugin.c), seen from Python.

IREE loads the plugin with the system loader (`--executable_plugin=<so>`);
loading the same file here with ctypes gives the same library instance, so
the sites this process loads (from a sites file, or a Python kernel's
callback) are the ones IREE's dispatches call, and a kernel's failure,
recorded by the plugin, is read back here to raise a KernelError naming the op.
"""

from __future__ import annotations

import ctypes
import functools
import os
from pathlib import Path

from ..core.diagnostics import CompileError
from ..runtime.kernels import native

__all__ = ["plugin_path", "load_sites", "add_site", "release_site", "take_error"]

_ERROR_CAPACITY = 2048


def plugin_path() -> Path:
    """The plugin CMake installed beside the kernel libraries."""
    path = native.include_dir().parent / "libtosa_custom_iree_plugin.so"
    if not path.exists():
        raise native.KernelLibraryError(f"{path} is missing: reinstall the package (`pip install -e .`) to "
                                        "rebuild lib/")
    return path


@functools.lru_cache(maxsize=None)
def _plugin() -> ctypes.CDLL:
    dll = ctypes.CDLL(str(plugin_path()))
    if dll.tck_iree_abi_version() != native.ABI_VERSION:
        raise native.KernelLibraryError(f"{plugin_path().name} implements kernel ABI {dll.tck_iree_abi_version()}, "
                                        f"this package {native.ABI_VERSION}: reinstall the package")
    dll.tck_iree_load_sites.argtypes = [ctypes.c_char_p, ctypes.c_char_p, ctypes.c_size_t]
    dll.tck_iree_last_error.argtypes = [ctypes.c_char_p, ctypes.c_size_t, ctypes.POINTER(ctypes.c_uint64)]
    dll.tck_iree_take_error.argtypes = [ctypes.c_uint64, ctypes.c_char_p, ctypes.c_size_t,
                                        ctypes.POINTER(ctypes.c_uint64)]
    dll.tck_iree_release_site.argtypes = [ctypes.c_uint64]
    dll.tck_iree_add_site.argtypes = [ctypes.c_uint64, ctypes.c_void_p, ctypes.c_void_p, ctypes.c_char_p,
                                      ctypes.c_size_t]
    return dll


def load_sites(path: str | os.PathLike) -> int:
    """Prepare every site of a sites file in the plugin; CompileError if one fails."""
    error = ctypes.create_string_buffer(_ERROR_CAPACITY)
    count = _plugin().tck_iree_load_sites(os.fsencode(path), error, _ERROR_CAPACITY)
    if count < 0:
        raise CompileError(f"the IREE plugin could not prepare the kernels: {error.value.decode(errors='replace')}",
                           category="runtime-lowering-failed")
    return count


def add_site(site_id: int, binding) -> None:
    """Register a Python kernel's site (callbacks.PythonBinding, which keeps
    its structs alive until release_site); CompileError if the plugin refuses."""
    error = ctypes.create_string_buffer(_ERROR_CAPACITY)
    if not _plugin().tck_iree_add_site(site_id, ctypes.addressof(binding.call), ctypes.addressof(binding.struct),
                                       error, _ERROR_CAPACITY):
        raise CompileError(f"the IREE plugin could not take the Python kernel of {binding.site.operator_name}: "
                           f"{error.value.decode(errors='replace')}", category="runtime-lowering-failed",
                           ops=[binding.site.operator_name])


def release_site(site_id: int) -> None:
    _plugin().tck_iree_release_site(site_id)


def take_error(invocation: int) -> tuple[int, str, int]:
    """The first kernel failure of call `invocation` (its id, passed to every
    kernel of the call), forgotten once taken: (status, message, site id);
    status 0: none."""
    error = ctypes.create_string_buffer(_ERROR_CAPACITY)
    site = ctypes.c_uint64()
    status = _plugin().tck_iree_take_error(invocation, error, _ERROR_CAPACITY, ctypes.byref(site))
    return status, error.value.decode(errors="replace"), site.value
