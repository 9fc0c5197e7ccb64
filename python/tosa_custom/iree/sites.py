"""Binding each tosa.custom to its kernel for IREE, and the sites file the
plugin (lib/iree_plugin.c) prepares the native calls from.

The reference runtime's facts are reused, not repeated: call sites are found
by `runtime.lower.outline`, arguments decoded by the contract, the kernel
chosen in the runtime's order (`runtime.kernels.registry.find_kernel`: a
user's `register_kernel` first, then a native kernel where one takes the
op, then the package's Python kernels and the generic torch kernel), a
native one prepared by `runtime.kernels.native.bind` (the user's libraries
newest first, then the built-in one, CONTRACT.md 11.3), which also reads
the split the kernel declared. Each op then gets a process-wide site id and
the two attributes the dispatch pass reads.

A native call (types, decoded attributes, library) is written to a sites
file in a format C reads in a few lines (lib/iree_plugin.c describes it),
and the plugin prepares its own copy: in this process through ctypes, or
from `$TOSA_CUSTOM_IREE_SITES` under `iree-run-module`. A Python kernel is
called back in this process (callbacks.py); no sites file can carry one, so
writing one for such a program is refused, naming the op.
"""

from __future__ import annotations

import dataclasses
import itertools
import os
import threading
from pathlib import Path

from torch_mlir import ir

from ..contract.decode import custom_ops
from ..contract.encoding import DOMAIN, ContractError, Operand, decode_attrs
from ..core.diagnostics import CompileError
from ..runtime.kernels import native
from ..runtime.kernels.registry import find_kernel, is_builtin
from ..runtime.lower.outline import CustomCallSite, find_custom_call_sites
from .callbacks import PythonBinding, check_at_load, python_binding, refuse_python
from .dispatch import SITE_ATTR, SPLIT_ATTR

__all__ = ["BoundSite", "METADATA_CHECKS", "bind_sites", "bind_kernels", "mark_sites", "reserve_ids", "new_ids",
           "free_ids", "ID_LIMIT", "ID_CHUNK", "SITES_FORMAT"]

SITES_FORMAT = 1
# Site ids the plugin holds: below CHUNK x CHUNKS (lib/iree_plugin.c), in chunks of 1024.
ID_LIMIT = 1024 * 1024
ID_CHUNK = 1024
_IDS = itertools.count(1)
_IDS_LOCK = threading.Lock()
_LIVE: set[int] = set()  # ids of this process's loaded programs


def reserve_ids(ids: list[int]) -> bool:
    """Take exactly `ids` (those a cached vmfb was compiled with), if no
    program of this process holds any of them."""
    with _IDS_LOCK:
        if any(i in _LIVE or not 0 < i < ID_LIMIT for i in ids) or len(set(ids)) != len(ids):
            return False
        _LIVE.update(ids)
        return True


def new_ids(n: int, start: int = 0) -> list[int]:
    """`n` free ids: `start`, `start`+1, ... when all are free (a cacheable
    program's block, derived from its key so that its vmfb's ids are likely
    free in the next process too), else the next free ones of the counter."""
    wanted = list(range(start, start + n))
    if start > 0 and reserve_ids(wanted):
        return wanted
    out = []
    with _IDS_LOCK:
        while len(out) < n:
            i = next(_IDS)
            if i not in _LIVE:
                out.append(i)
        _LIVE.update(out)
    return out


def free_ids(ids) -> None:
    """Give ids back once their program is gone."""
    with _IDS_LOCK:
        _LIVE.difference_update(ids)


@dataclasses.dataclass
class BoundSite:
    """One tosa.custom, its process-wide id and its prepared kernel."""

    id: int
    site: CustomCallSite
    binding: native.NativeBinding | PythonBinding

    @property
    def python(self) -> bool:
        return isinstance(self.binding, PythonBinding)

    @property
    def description(self) -> str:
        return self.binding.description


def _decode(site: CustomCallSite):
    if site.domain_name != DOMAIN:
        return None  # another domain's kernel reads implementation_attrs itself

    def read(index: int, kind):
        value = site.const_inputs[index]
        return Operand(index, kind.name) if value is None else value

    try:
        return decode_attrs(site.operator_name, site.implementation_attrs, len(site.input_types), read,
                            site.domain_name)
    except ContractError as e:
        raise CompileError(f"{site.location}: cannot decode {site.operator_name}: {e}", category="decode-failed",
                           ops=[site.operator_name]) from None


# Result-less ops whose verdict depends only on their operands' static types
# (dtype, sizes, dense strides, device, layout), which IREE's dispatch of
# them would lose (it removes a dispatch nobody reads): checked once at
# load by their kernel, then left out of the program.
METADATA_CHECKS = frozenset({"torch.aten._assert_tensor_metadata"})


def _bind(site: CustomCallSite, torch_fallback: bool = True,
          kernels: str = "all") -> native.NativeBinding | PythonBinding | None:
    """The kernel runtime.load would run `site` with (its order and its
    `torch_fallback` and `kernels` choices), prepared; None for a check of
    METADATA_CHECKS, which passed."""
    def error(message: str) -> CompileError:
        return CompileError(f"{site.location}: {site.domain_name}::{site.operator_name}: {message}",
                            category="runtime-lowering-failed", ops=[site.operator_name])

    decoded = _decode(site)
    builtin = kernels == "all"
    kernel = find_kernel(site.operator_name, site.domain_name, decoded, torch_fallback, builtin)
    if not site.output_types and kernel is not None and site.operator_name in METADATA_CHECKS \
            and site.domain_name == DOMAIN:
        check_at_load(site, decoded, kernel)
        return None
    if not site.output_types:
        raise CompileError(
            f"{site.location}: {site.domain_name}::{site.operator_name} has no results (an assertion): IREE takes "
            "a dispatch to be free of side effects and removes one whose results nobody reads, so it would never "
            "run; run this program on the reference runtime (tosa_custom.runtime.load)", category="executor-limit",
            ops=[site.operator_name])
    if is_builtin(kernel):  # a native kernel replaces the package's Python ones (not a user's)
        try:
            binding = native.bind(site, decoded, native.ProgramStatus(), error, builtin=builtin)
        except native.KernelLibraryError as e:
            raise error(str(e)) from None
        if binding is not None:
            return binding
    if kernel is None:
        raise CompileError(
            f"{site.location}: no kernel for {site.domain_name}::{site.operator_name} (element types "
            f"{', '.join(site.input_types)}); " + ("" if builtin else "kernels='user' leaves out the built-in ones; ")
            + ("" if torch_fallback or not builtin else "the generic torch kernel is off (torch_fallback=False); ")
            + "register one (tosa_custom.runtime.register_kernel) or load a kernel library for it "
            "(tosa_custom.runtime.load_kernel_library)", category="no-kernel", ops=[site.operator_name])
    return python_binding(site, decoded, kernel)


def bind_kernels(module, torch_fallback: bool = True,
                 kernels: str = "all") -> list[tuple[CustomCallSite, native.NativeBinding | PythonBinding]]:
    """Every tosa.custom of `module` with its kernel (native or Python),
    prepared; CompileError naming the first op that has none.
    `torch_fallback`, `kernels`: as runtime.load's."""
    op = getattr(module, "operation", module)
    bound, checked = [], []
    try:
        for site in find_custom_call_sites(op):
            binding = _bind(site, torch_fallback, kernels)
            (checked if binding is None else bound).append((site, binding))
    except BaseException:
        for _, binding in bound:
            binding.release()
        raise
    ops = custom_ops(op)
    for site, _ in checked:  # passed at load: nothing left to run
        ops[site.index].erase()
    return bound


def mark_sites(module, bound: list, ids: list[int] | None = None) -> list[BoundSite]:
    """Give each bound op its process-wide id (`ids`, already taken, or new
    ones) and mark it for the dispatch pass."""
    op = getattr(module, "operation", module)
    ids = ids if ids is not None else new_ids(len(bound))
    sites = [BoundSite(i, site, binding) for i, (site, binding) in zip(ids, bound)]
    with op.context:
        i64 = ir.IntegerType.get_signless(64)
        for custom, b in zip(custom_ops(op), sites):
            custom.attributes[SITE_ATTR] = ir.IntegerAttr.get(i64, b.id)
            split = b.binding.split
            if split is not None and split.parallel:
                custom.attributes[SPLIT_ATTR] = ir.ArrayAttr.get(
                    [ir.DenseI64ArrayAttr.get(list(d)) for d in split.dims])
    return sites


def bind_sites(module) -> list[BoundSite]:
    """Bind every tosa.custom of `module` to its kernel and mark it for the
    dispatch pass; CompileError naming the first op that has none."""
    return mark_sites(module, bind_kernels(module))


# --- The sites file (format: lib/iree_plugin.c).

_INT_KINDS = (native.A_INT_LIST, native.A_BOOL_LIST, native.A_OPERAND_LIST)
_FLOAT_KINDS = (native.A_FLOAT_LIST, native.A_COMPLEX)


def _string(value: bytes | None) -> str:
    text = (value or b"").decode("utf-8", errors="replace")
    return f"{len(text.encode())}:{text}"


def _attr(a: native.Attr) -> str:
    ints = [a.ints[i] for i in range(a.count)] if a.kind in _INT_KINDS else []
    floats = [a.floats[i] for i in range(a.count)] if a.kind in _FLOAT_KINDS else []
    return " ".join([_string(a.name), str(a.kind), str(a.count), str(a.i), float(a.f).hex(), _string(a.s),
                     str(len(ints)), *map(str, ints), str(len(floats)), *(float(f).hex() for f in floats)])


def _site_record(b: BoundSite, library: str) -> str:
    call = b.binding.struct.call
    s = b.site
    parts = ["site", str(b.id), _string(library.encode()), _string(s.domain_name.encode()),
             _string(s.operator_name.encode()), _string(s.implementation_attrs.encode()),
             _string(s.location.encode()), str(len(s.input_types)), str(len(s.output_types))]
    types = [call.inputs[i] for i in range(call.num_inputs)] + [call.outputs[i] for i in range(call.num_outputs)]
    for t in types:
        parts += [str(t.element_type), str(t.rank), *(str(t.shape[d]) for d in range(t.rank))]
    parts.append(str(call.num_attrs))
    lines = [" ".join(parts)] + [_attr(call.attrs[i]) for i in range(call.num_attrs)]
    return "\n".join(lines)


def write_sites(sites: list[BoundSite], path: str | os.PathLike, libraries: dict[Path, str] | None = None) -> Path:
    """Write the sites file of the native `sites`; `libraries` maps a kernel
    library to the name written for it (a saved program's copy beside the
    file), else its path. CompileError naming an op bound to a Python
    kernel, which no sites file can carry."""
    refuse_python(b.binding for b in sites)
    libraries = libraries or {}
    records = [_site_record(b, libraries.get(b.binding.library.path, str(b.binding.library.path))) for b in sites]
    Path(path).write_text(f"tosa_custom_iree_sites {SITES_FORMAT}\n" + "".join(r + "\n" for r in records),
                          encoding="utf-8")
    return Path(path)
