"""The reference runtime's compiled code kept on disk (cache.py), as a shared
object a later process loads instead of lowering and JIT-compiling again.

MLIR's ExecutionEngine can dump the object code it compiled
(`dump_to_object_file`); built with `enable_pic=True`, that object links
into a shared library with the system's C compiler driver (`cc`, `gcc` or
`clang` on PATH, for its linker). What the object leaves undefined is what
the program gives the engine at load, and those differ per process:
- each call site's extern (`_mlir_ciface_tosa_custom_kernel_<i>`): a Python
  callback, or a native kernel's trampoline called with the address of the
  op's prepared C structs as its first argument. That address is a constant
  in the object (outline.py bakes it in), stale in any other process;
- the compiler-rt builtins the runtime library provides (native.libcalls).
So the library gets one small stub per import, generated in assembly: it
jumps through a slot of a table (`tosa_custom_slots`, two words per import)
that the loading process fills, and for a site with a context first loads
the slot's context into the first argument register, overriding the stale
constant. The rest (malloc, libm) the dynamic linker resolves; `-z defs`
refuses anything else at link time, `-Bsymbolic` keeps the library's own
calls inside it (Python exports a `main`, the entry may be called that).

Loading an entry: the verified bytes go to an anonymous file (memfd) and are
dlopen'ed from there, so two programs of the same entry in one process get
two instances (two slot tables), and an entry replaced or evicted meanwhile
changes nothing. The library is closed when the program is gone.

The stubs are x86-64 (System V) only; elsewhere, or without a C compiler
driver, loads compile as before and store nothing (`Lookup.reason` says why).
"""

from __future__ import annotations

import ctypes
import dataclasses
import os
import platform
import shutil
import subprocess
import tempfile
import weakref

from . import cache as _cache
from . import parallel as _parallel
from ..kernels import native as _native
from .cpu import CpuTarget

__all__ = ["Import", "CodeCache", "SharedObject", "imports", "link_objects", "site_identity", "KIND", "LAYERS"]

KIND = "runtime"
# The package's layers whose code makes a runtime program (cache.toolchain).
LAYERS = ("core", "contract", "weights", "runtime")
_SLOTS = "tosa_custom_slots"
# The packed entry point the ExecutionEngine generates for each C interface.
_PACKED = "_mlir__mlir_ciface_"


@dataclasses.dataclass(frozen=True)
class Import:
    """A symbol the compiled code calls and this process provides: its
    address, and for a native kernel its context (the first argument)."""

    name: str
    address: int
    context: int | None = None


def _supported() -> str:
    """Why object code cannot be kept here, or ""."""
    if platform.system() != "Linux" or platform.machine().lower() not in ("x86_64", "amd64"):
        return f"object code is kept on x86-64 Linux only, not {platform.system()} {platform.machine()}"
    if _driver() is None:
        return "no C compiler driver (cc, gcc, clang) on PATH to link the object code"
    return ""


def _driver() -> str | None:
    return next((shutil.which(c) for c in ("cc", "gcc", "clang") if shutil.which(c)), None)


def _stubs(imports: list[Import]) -> str:
    """x86-64 assembly: one stub per import jumping through its slot (after
    loading its context into %rdi), and the slot table."""
    lines = ["    .text"]
    for i, imp in enumerate(imports):
        lines += [f"    .globl {imp.name}", f"    .type {imp.name},@function", f"{imp.name}:"]
        if imp.context is not None:
            lines.append(f"    movq .Lslots+{16 * i + 8}(%rip), %rdi")
        lines.append(f"    jmpq *.Lslots+{16 * i}(%rip)")
    lines += ["    .data", "    .balign 16", f"    .globl {_SLOTS}", f"{_SLOTS}:", ".Lslots:",
              f"    .zero {16 * max(len(imports), 1)}", '    .section .note.GNU-stack,"",@progbits']
    return "\n".join(lines) + "\n"


def link_objects(objects: list[str], imports: list[Import]) -> tuple[bytes | None, str]:
    """Object files (position-independent) linked with the import stubs
    into a shared library: its bytes, or None and why not."""
    with tempfile.TemporaryDirectory(prefix="tosa_custom_link_") as directory:
        stubs, lib = (os.path.join(directory, n) for n in ("stubs.s", "code.so"))
        with open(stubs, "w") as f:
            f.write(_stubs(imports))
        cmd = [_driver(), "-shared", "-o", lib, *objects, stubs, "-Wl,-Bsymbolic", "-Wl,-z,defs",
               "-Wl,-z,noexecstack", "-lm"]
        try:
            done = subprocess.run(cmd, capture_output=True, text=True, timeout=600)
        except (OSError, subprocess.TimeoutExpired) as e:
            return None, f"linking the object code failed: {e}"
        if done.returncode != 0:
            return None, f"linking the object code failed: {done.stderr.strip()[-2000:]}"
        with open(lib, "rb") as f:
            return f.read(), ""


class SharedObject:
    """A cached shared library loaded in this process: stands in for the
    ExecutionEngine (`lookup`), its imports bound through the slot table."""

    def __init__(self, payload: bytes, imports: list[Import]):
        self._dll, fd = _dlopen(payload)
        weakref.finalize(self, _close, self._dll._handle, fd)
        slots = (ctypes.c_uint64 * (2 * max(len(imports), 1))).in_dll(self._dll, _SLOTS)
        if any(slots):  # another program's instance: dlopen matched the path of a library not yet closed
            raise OSError("dlopen returned a library already loaded")
        for i, imp in enumerate(imports):
            slots[2 * i] = imp.address
            slots[2 * i + 1] = imp.context or 0

    def lookup(self, name: str):
        """The entry's packed C interface, as ExecutionEngine.lookup gives it."""
        return ctypes.CFUNCTYPE(None, ctypes.c_void_p)(self.address(_PACKED + name))

    def address(self, symbol: str) -> int:
        """Where a symbol of the library is in this process."""
        return ctypes.cast(getattr(self._dll, symbol), ctypes.c_void_p).value


def _dlopen(payload: bytes) -> tuple[ctypes.CDLL, int | None]:
    """dlopen a private copy of `payload`: a memfd, kept open while the
    library is (glibc matches an open library by its path first, and
    `/proc/self/fd/<n>` names another file once n is reused); a deleted
    temporary file where there is no memfd."""
    mode = os.RTLD_LOCAL | os.RTLD_NOW
    if hasattr(os, "memfd_create"):
        fd = os.memfd_create("tosa_custom_code", os.MFD_CLOEXEC)
        try:
            with os.fdopen(os.dup(fd), "wb") as f:
                f.write(payload)
            return ctypes.CDLL(f"/proc/self/fd/{fd}", mode=mode), fd
        except BaseException:
            os.close(fd)
            raise
    with tempfile.NamedTemporaryFile(suffix=".so") as f:
        f.write(payload)
        f.flush()
        return ctypes.CDLL(f.name, mode=mode), None


def _close(handle: int, fd: int | None) -> None:
    import _ctypes

    _ctypes.dlclose(handle)
    if fd is not None:
        os.close(fd)


def site_identity(symbol: str, binding, kernel) -> dict:
    """What the key holds of a call site's kernel: a native one by its
    library's content and the kernel's name (the code calls it with a
    context), a Python one by its qualified name."""
    if binding is not None:
        return {"symbol": symbol, "library": _cache.library_digest(binding.library.path),
                "abi": binding.library.version, "kernel": binding.description}
    return {"symbol": symbol, "python": f"{getattr(kernel, '__module__', '?')}."
                                        f"{getattr(kernel, '__qualname__', repr(kernel))}"}


def imports(sites) -> list[Import]:
    """What the compiled code of these bound sites calls in this process:
    each site's kernel (a native trampoline and its context, or the Python
    callback), then the runtime library's builtins."""
    out = []
    for s in sites:
        name = "_mlir_ciface_" + s.site.symbol
        out.append(Import(name, s.native.trampoline, s.native.address) if s.native is not None
                   else Import(name, ctypes.cast(s.callback, ctypes.c_void_p).value))
    return out + [Import(name, address) for name, address in _native.libcalls().items()]


def _import_names(imports: list[Import]) -> list:
    return [[imp.name, imp.context is not None] for imp in imports]


def _cpu(cpu: CpuTarget) -> dict:
    """The CPU plan and the host the JIT compiled for: code for one host's
    features never runs on another's."""
    return {"isa": cpu.name, "jit_features": list(cpu.jit_features), "arch": cpu.host.arch,
            "host_flags": sorted(cpu.host.flags)}


class CodeCache(_cache.Lookup):
    """One runtime load's use of the cache (`Program.cache`): started on the
    module as given (its digest, before any pass changes it), asked for code
    once the sites are bound (`find`), and handed the engine compiled
    otherwise (`engine`), whose code it stores."""

    def __init__(self, module):
        super().__init__()
        self._cache = _cache.default_cache()
        self._digest = self.code = None
        self._imports: list[Import] = []
        self.pipeline = ""  # of the cached code: the lowering it ran
        # How many processes compile a large program (parallel.py), and how this one was compiled.
        self.jobs = _parallel.jobs(_supported())
        self.compiled = ""
        self._workers: _parallel.Workers | None = None
        if self._cache is None:
            return
        unsupported = _supported()
        if unsupported:
            self._set("miss", reason=unsupported)
            return
        self._digest = _cache.module_digest(module)

    @property
    def wanted(self) -> bool:
        """Whether the code compiled now is to be stored (made position-independent)."""
        return self.key is not None and self.status == "miss"

    def find(self, entry: str, options: dict, cpu: CpuTarget, sites) -> bool:
        """Whether cached code of this load was found: then `code` is it,
        loaded with its imports bound. `sites`: the program's bound call
        sites (`site`, `native`, `kernel`, `callback` each)."""
        self._imports = imports(sites)
        if self._digest is None:
            return False
        try:
            identities = [site_identity(s.site.symbol, s.native, s.kernel) for s in sites]
        except _cache.Unkeyable as e:
            self._set("miss", reason=str(e))
            return False
        key = _cache.digest({"loader": KIND, "module": self._digest, "entry": entry, "options": options,
                             "cpu": _cpu(cpu), "sites": identities, "toolchain": _cache.toolchain(LAYERS),
                             "runtime": _cache.file_digest(_native.runtime_library_path())})
        _cache.wait_for(key)  # this process may be storing it now
        found, reason = self._cache.get(KIND, key)
        self._set("miss", key, reason)
        if found is None:
            return False
        if found.meta.get("imports") != _import_names(self._imports) or found.meta.get("entry") != entry:
            self.reason = "the entry's imports differ from this load's"
            return False
        try:
            self.code = SharedObject(found.payload, self._imports)
        except OSError as e:
            self.reason = f"the cached library does not load: {e}"
            return False
        self.pipeline = found.meta.get("pipeline", "")
        self._set("hit", key)
        return True

    def start_workers(self, module) -> None:
        """Start the worker processes for a module likely to be compiled in
        several (parallel.likely_large), before it is lowered."""
        if self.jobs > 1 and self._workers is None and _parallel.likely_large(module):
            self._workers = _parallel.Workers(self.jobs - 1)

    def stop_workers(self) -> None:
        if self._workers is not None:
            self._workers.stop()

    def engine(self, make_engine, module, entry: str, pipeline: str):
        """The cached code if found, else the code compiled in several
        processes (a large module, `jobs` > 1), else `make_engine(module)`;
        code compiled now is linked and stored when `wanted`."""
        if self.code is not None:
            self.compiled = "cached"
            return self.code
        code = self._parallel(module, entry, pipeline) if self.jobs > 1 else None
        if code is not None:
            return code
        engine = make_engine(module)
        self.compiled = self.compiled or "in this process"
        if self.wanted:
            engine.lookup(entry)  # the JIT compiles at the first lookup
            self._store_engine_code(engine, entry, pipeline)
        return engine

    def _store_engine_code(self, engine, entry: str, pipeline: str) -> None:
        """The engine's object code dumped now (the engine holds the GIL),
        linked and stored by a thread while the program runs: about half a
        second off a large program's first load (resnet18: the link 0.35 s,
        the entry's hash and write 0.15 s)."""
        directory = tempfile.mkdtemp(prefix="tosa_custom_link_")
        obj = os.path.join(directory, "code.o")
        try:
            engine.dump_to_object_file(obj)
        except Exception as e:  # the engine was made without its object cache
            shutil.rmtree(directory, ignore_errors=True)
            self._store(None, f"the engine did not dump its object code: {e}", entry, pipeline)
            return
        imports_ = list(self._imports)

        def work():
            try:
                self._store(*link_objects([obj], imports_), entry, pipeline)
            except Exception as e:  # never lost silently: the status says it
                self._set("miss", self.key, f"storing the compiled code failed: {e}")
            finally:
                shutil.rmtree(directory, ignore_errors=True)

        self._store_later(work)

    def _parallel(self, module, entry: str, pipeline: str) -> SharedObject | None:
        """The module compiled by worker processes and loaded, or None (then
        `compiled` says why)."""
        plan, reason = _parallel.plan(module, self.jobs)
        if plan is None:
            self.stop_workers()
            self.compiled = f"in this process ({reason})"
            return None
        with tempfile.TemporaryDirectory(prefix="tosa_custom_compile_") as directory:
            objects, reason = _parallel.compile_objects(module, plan, [i.name for i in self._imports], directory,
                                                        self._workers)
            payload, reason = link_objects(objects, self._imports) if objects else (None, reason)
        try:
            code = SharedObject(payload, self._imports) if payload is not None else None
        except OSError as e:
            code, reason = None, f"the linked library does not load: {e}"
        if code is None:
            self.compiled = f"in this process: compiling in {plan.describe()} failed: {reason}"
            return None
        self.compiled = f"in {plan.describe()}"
        if self.wanted:
            self._store(payload, "", entry, pipeline)
        return code

    def _store(self, payload: bytes | None, reason: str, entry: str, pipeline: str) -> None:
        if payload is not None:
            meta = {"pipeline": pipeline, "entry": entry, "imports": _import_names(self._imports)}
            reason = self._cache.put(KIND, self.key, payload, meta)
        self._set("stored" if not reason else "miss", self.key, reason or self._reason)
