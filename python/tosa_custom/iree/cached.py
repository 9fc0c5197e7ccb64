"""IREE's compiled module (the .vmfb) kept in the compiled-code cache
(runtime/compiled/cache.py), so that a second process loading the same module skips
the dispatch pass and iree-compile.

The key: the module as given (its bytecode), the entry, the worker count and
the compile flags, the kernels bound (library content, kernel, declared
split), the host's CPU features (iree-compile targets `host`), IREE's
versions, the plugin's content and this package's sources.

The one thing of this process a vmfb holds is the site ids: each kept op's
dispatch imports `tosa_custom_site_<id>` (lib/iree_plugin.c), ids unique in
the process. An entry records the ids it was compiled with, and a hit takes
exactly those (sites.reserve_ids); where a program of this process already
holds one (the same module loaded twice), the load compiles afresh and
leaves the entry alone. So that a vmfb's ids are free in the next process
whatever else it loads, a cacheable program's ids are taken from a block
its key chooses, not from the counter every other program draws from.
"""

from __future__ import annotations

from importlib import metadata

from ..runtime.compiled import cache as _cache
from ..runtime.compiled.compiled_code import LAYERS as _RUNTIME_LAYERS
from ..runtime.compiled.cpu import host_cpu
from .plugin import plugin_path
from .sites import ID_CHUNK, ID_LIMIT, BoundSite, bind_kernels, free_ids, mark_sites, new_ids, reserve_ids

__all__ = ["VmfbCache", "KIND", "LAYERS"]

KIND = "iree"
LAYERS = _RUNTIME_LAYERS + ("iree",)


def _versions() -> dict:
    out = {}
    for name in ("iree-base-compiler", "iree-base-runtime"):
        try:
            out[name] = metadata.version(name)
        except metadata.PackageNotFoundError:
            out[name] = "none"
    return out


def _identity(site, binding) -> dict:
    if binding.library is None:  # a Python kernel: called back, nothing of it in the vmfb but its site
        return {"symbol": site.symbol, "kernel": binding.description}
    return {"symbol": site.symbol, "library": _cache.library_digest(binding.library.path),
            "abi": binding.library.version, "kernel": binding.description, "split": repr(binding.split)}


def _block(key: str, n: int) -> int:
    """The first id of the block `key` chooses (0: none, more sites than a block)."""
    chunks = ID_LIMIT // ID_CHUNK
    return ID_CHUNK * (1 + int(key[:12], 16) % (chunks - 2)) if n <= ID_CHUNK else 0


class VmfbCache(_cache.Lookup):
    """One IREE load's use of the cache (`iree.Program.cache`): the module's
    digest taken as given; `build` binds the kernels and returns the cached
    vmfb or compiles (and stores) a new one."""

    def __init__(self, module, options: dict):
        super().__init__()
        self._cache = _cache.default_cache()
        self._options = options
        self._digest = _cache.module_digest(module) if self._cache is not None else None

    def build(self, module, entry: str, compile, **choice) -> tuple[list[BoundSite], bytes, dict]:
        """The bound sites, the vmfb and its metadata. `compile(module,
        sites)` gives (vmfb, metadata) for the sites marked on `module`;
        `choice`: which kernels may run them (sites.bind_kernels)."""
        bound = bind_kernels(module, **choice)
        sites: list[BoundSite] = []
        try:
            key = None
            try:
                key = self._key(entry, bound) if self._digest is not None else None
            except _cache.Unkeyable as e:
                self._set("miss", reason=str(e))
            if key is None:
                sites = mark_sites(module, bound)
                return (sites, *compile(module, sites))
            found, reason = self._cache.get(KIND, key)
            self._set("miss", key, reason)
            ids = found.meta.get("ids") if found is not None else None
            if ids is not None and len(ids) == len(bound) and reserve_ids(ids):
                self._set("hit", key)
                return mark_sites(module, bound, ids), bytes(found.payload), found.meta
            if found is not None:  # its ids are held here: compiled afresh, the entry kept for other processes
                self.reason = "its site ids are held by another program of this process"
                sites = mark_sites(module, bound)
                return (sites, *compile(module, sites))
            sites = mark_sites(module, bound, new_ids(len(bound), _block(key, len(bound))))
            vmfb, meta = compile(module, sites)
            meta = {**meta, "ids": [s.id for s in sites]}
            reason = self._cache.put(KIND, key, vmfb, meta)
            self._set("stored" if not reason else "miss", key, reason or self.reason)
            return sites, vmfb, meta
        except BaseException:
            free_ids([s.id for s in sites])
            for _, binding in bound:
                binding.release()
            raise

    def _key(self, entry: str, bound: list) -> str:
        host = host_cpu().host
        return _cache.digest({"loader": KIND, "module": self._digest, "entry": entry, "options": self._options,
                              "sites": [_identity(site, binding) for site, binding in bound],
                              "cpu": {"arch": host.arch, "host_flags": sorted(host.flags)},
                              "iree": _versions(), "plugin": _cache.file_digest(plugin_path()),
                              "toolchain": _cache.toolchain(LAYERS)})
