"""A persistent cache of compiled code, shared by the loaders
(`runtime.load`: a linked shared object, compiled_code.py; `iree.load`: the
.vmfb), so that a second process loading the same module skips the pass
pipelines and LLVM.

Where: `$TOSA_CUSTOM_CACHE_DIR`, else `$XDG_CACHE_HOME/tosa_custom`, else
`~/.cache/tosa_custom`; one folder per loader (`runtime/`, `iree/`), one file
per entry. `TOSA_CUSTOM_CACHE=0` (or off/false/no) turns it off;
`TOSA_CUSTOM_CACHE_SIZE` bounds it (bytes, or with a K/M/G suffix; default
2G): after each store the least recently used entries go (a hit refreshes an
entry's mtime). The environment is read at every load, so a test or a
process can move or disable the cache at any time.
`TOSA_CUSTOM_COMPILE_JOBS` is how many processes `runtime.load` compiles a
large program's LLVM code in (parallel.py; unset or `auto`: the usable CPUs,
at most 4; `1`: in the loading process); their linked library is
stored as the in-process compile's is. `Program.cache.compiled` says how it was compiled.

The key is a digest the loader computes of everything the code depends on
(`digest`): the module's content (`module_digest`, its bytecode), the
loader's options, the CPU, the kernels bound, and `toolchain()` (the
package's version and a digest of the sources of the layers the loader
runs, so an editable checkout that changes a pass misses, plus torch-mlir's
and torch's versions).

An entry is never trusted: its header names the key, the payload's size and
a SHA-256 over key, metadata and payload, and everything is checked before
the payload is returned. A corrupted, truncated or foreign entry (one copied
under another key's name) is removed and reported as a miss with the reason,
and the loader compiles again and replaces it. Writes go to a temporary file
in the same folder, renamed over the entry with `os.replace`: a reader sees
the old file or the new one, never a partial one, and two processes storing
the same key both succeed (the last rename wins; both wrote the same code).
The checksum finds damage, not tampering: what is in the folder runs as
code, so the folders the cache makes are its user's alone (mode 0700).
"""

from __future__ import annotations

import dataclasses
import functools
import hashlib
import io
import json
import os
import re
import struct
import tempfile
import threading
import time
from importlib import metadata
from pathlib import Path

__all__ = ["Cache", "Entry", "Lookup", "wait_for", "ENV_DIR", "ENV_ENABLE", "ENV_SIZE", "DEFAULT_SIZE", "default_cache",
           "digest", "file_digest", "library_digest", "Unkeyable", "module_digest", "toolchain", "parse_size"]

ENV_DIR = "TOSA_CUSTOM_CACHE_DIR"
ENV_ENABLE = "TOSA_CUSTOM_CACHE"
ENV_SIZE = "TOSA_CUSTOM_CACHE_SIZE"
DEFAULT_SIZE = 2 << 30
_OFF = ("0", "off", "false", "no")

# File layout: magic, header length (u32 little-endian), header JSON, payload.
_MAGIC = b"TOSA_CUSTOM_CACHE\n"
_FORMAT = 1
_SUFFIX = ".entry"
# A temporary file older than this was left by a writer that died.
_STALE_SECONDS = 3600
_KEY = re.compile(r"^[0-9a-f]{64}$")


def digest(parts) -> str:
    """SHA-256 of `parts` as canonical JSON (sorted keys): the cache key of
    whatever the parts describe."""
    text = json.dumps(parts, sort_keys=True, separators=(",", ":"), default=str)
    return hashlib.sha256(text.encode()).hexdigest()


def module_digest(module) -> str:
    """SHA-256 of an MLIR module's bytecode: its content, weights included
    (bytecode is much faster to write than text for large constants)."""
    buffer = io.BytesIO()
    module.operation.write_bytecode(buffer)
    return hashlib.sha256(buffer.getbuffer()).hexdigest()


@functools.lru_cache(maxsize=None)
def _file_digest(path: str, size: int, mtime_ns: int) -> str:
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


def file_digest(path) -> str:
    """SHA-256 of a file's content (a kernel library's identity), computed
    once per (path, size, mtime) in a process."""
    st = os.stat(path)
    return _file_digest(os.fspath(path), st.st_size, st.st_mtime_ns)


class Unkeyable(Exception):
    """A load whose key cannot be taken: its code is compiled and not cached
    (the message says why, as the lookup's reason)."""


def library_digest(path) -> str:
    """A kernel library's identity, its content's digest. A library deleted
    or replaced by an unreadable file since it was loaded keeps running from
    memory, but has no identity on disk: Unkeyable."""
    try:
        return file_digest(path)
    except OSError as e:
        raise Unkeyable(f"kernel library {path} cannot be read ({e.strerror or e}): "
                        "code calling it is compiled, not cached") from e


def _version(distribution: str) -> str:
    try:
        return metadata.version(distribution)
    except metadata.PackageNotFoundError:
        return "none"


@functools.lru_cache(maxsize=None)
def _sources_digest(layers: tuple[str, ...]) -> str:
    """The Python sources of the package's `layers` (subpackages): the
    version does not move when an editable checkout changes a pass, this
    does; the layers a loader does not import (the frontend, say) stay out,
    so that their edits keep its entries."""
    root = Path(__file__).resolve().parents[2]
    h = hashlib.sha256()
    for layer in layers:
        for path in sorted((root / layer).rglob("*.py")):
            h.update(str(path.relative_to(root)).encode() + b"\0" + path.read_bytes() + b"\0")
    return h.hexdigest()


def toolchain(layers: tuple[str, ...]) -> dict:
    """What every key holds of the tools: this package (its version, and the
    sources of the `layers` the loader runs), torch-mlir (MLIR and LLVM), torch."""
    return {"tosa-custom": _version("tosa-custom"), "sources": _sources_digest(tuple(layers)),
            "torch-mlir": _version("torch-mlir"), "torch": _version("torch")}


def parse_size(text: str) -> int:
    """`TOSA_CUSTOM_CACHE_SIZE`: bytes, or a number with K, M or G (powers of 1024)."""
    match = re.fullmatch(r"\s*(\d+(?:\.\d+)?)\s*([kmg]?)i?b?\s*", text.lower())
    if not match:
        raise ValueError(f"{ENV_SIZE}={text!r}: expected bytes or a size such as 500M or 2G")
    return int(float(match.group(1)) * 1024 ** " kmg".index(match.group(2) or " "))


@dataclasses.dataclass(frozen=True)
class Entry:
    """A verified entry: the loader's metadata and the code."""

    key: str
    meta: dict
    payload: "bytes | memoryview"


# Entries being stored by this process's threads, by key (Lookup._store_later).
_PENDING: dict[str, threading.Thread] = {}
_PENDING_LOCK = threading.Lock()


def wait_for(key: str) -> None:
    """Wait until this process has finished storing the entry of `key`, if it is storing it."""
    with _PENDING_LOCK:
        thread = _PENDING.get(key)
    if thread is not None and thread is not threading.current_thread():
        thread.join()


class Lookup:
    """What the cache did for one load (`program.cache`): `status` "hit",
    "stored", "miss" (compiled; not stored when `reason` says why) or "off";
    `reason` also says why an entry found was refused. Code may be stored
    after the load returned, by a thread (`_store_later`): reading `status`
    or `reason` waits for it."""

    def __init__(self):
        self._status, self.key, self._reason = "off", None, ""
        self._pending: threading.Thread | None = None

    def _set(self, status: str, key: str | None = None, reason: str = "") -> None:
        self._status, self.key, self._reason = status, key, reason

    def _store_later(self, work) -> None:
        """Run `work` (linking and storing, which wait on a compiler process
        and the disk with the GIL released) on a thread of its own, so the
        program runs meanwhile; not a daemon: the interpreter's exit waits
        for it, so an entry begun is finished. Another load of the same key
        in this process waits for it (`wait_for`) rather than compile again."""
        key = self.key

        def run():
            try:
                work()
            finally:
                with _PENDING_LOCK:
                    if _PENDING.get(key) is thread:
                        del _PENDING[key]

        thread = threading.Thread(target=run, name="tosa_custom-cache-store")
        with _PENDING_LOCK:
            _PENDING[key] = thread
        self._pending = thread
        thread.start()

    def wait(self) -> "Lookup":
        """Wait for code being stored, if any; returns self."""
        if self._pending is not None:
            self._pending.join()
            self._pending = None
        return self

    @property
    def status(self) -> str:
        return self.wait()._status

    @property
    def reason(self) -> str:
        return self.wait()._reason

    @reason.setter
    def reason(self, value: str) -> None:
        self._reason = value

    def __repr__(self) -> str:
        key = f" {self.key[:12]}" if self.key else ""
        return f"{type(self).__name__}({self.status}{key}{': ' + self.reason if self.reason else ''})"


class Cache:
    """The entries of one folder, bounded to `max_bytes` (least recently used go first)."""

    def __init__(self, directory, max_bytes: int = DEFAULT_SIZE):
        self.directory = Path(directory)
        self.max_bytes = max_bytes

    def __repr__(self) -> str:
        return f"Cache({str(self.directory)!r}, max_bytes={self.max_bytes})"

    def path(self, kind: str, key: str) -> Path:
        if not _KEY.match(key) or not kind.isidentifier():
            raise ValueError(f"bad cache key {kind}/{key}")
        return self.directory / kind / (key + _SUFFIX)

    def get(self, kind: str, key: str) -> tuple[Entry | None, str]:
        """The entry of `key`, verified, and "" ; or None and why not ("" for
        a plain miss). A refused entry is removed."""
        path = self.path(kind, key)
        try:
            data = path.read_bytes()
        except FileNotFoundError:
            return None, ""
        except OSError as e:
            return None, f"cannot read {path}: {e}"
        entry, problem = _decode(data, kind, key)
        if entry is None:
            _remove(path)
            return None, f"entry {path.name} refused: {problem}"
        try:
            os.utime(path)  # least recently used: by mtime
        except OSError:
            pass
        return entry, ""

    def put(self, kind: str, key: str, payload: bytes, meta: dict) -> str:
        """Store an entry atomically; returns "" or why it was not stored."""
        data = _encode(kind, key, payload, meta)
        if len(data) > self.max_bytes:
            return f"{len(data)} bytes is over the cache's bound of {self.max_bytes}"
        path = self.path(kind, key)
        try:
            # The user's alone: what is in it is loaded as code.
            self.directory.mkdir(mode=0o700, parents=True, exist_ok=True)
            path.parent.mkdir(mode=0o700, exist_ok=True)
            fd, temp = tempfile.mkstemp(dir=path.parent, prefix=f".{key[:16]}-", suffix=".tmp")
            try:
                with os.fdopen(fd, "wb") as f:
                    f.write(data)
                os.replace(temp, path)
            except BaseException:
                _remove(Path(temp))
                raise
        except OSError as e:
            return f"cannot write {path}: {e}"
        self.evict(keep=path)
        return ""

    def entries(self) -> list[Path]:
        return sorted(self.directory.glob(f"*/*{_SUFFIX}"))

    def size(self) -> int:
        return sum(_stat(p)[0] for p in self.entries())

    def evict(self, keep: Path | None = None) -> list[Path]:
        """Remove the least recently used entries until the cache fits its
        bound (never `keep`, the entry just stored), and temporary files left
        by writers that died. Returns the entries removed."""
        now = time.time()
        for temp in self.directory.glob("*/.*.tmp"):
            if now - _stat(temp)[1] > _STALE_SECONDS:
                _remove(temp)
        stats = [(p, *_stat(p)) for p in self.entries()]
        total = sum(size for _, size, _ in stats)
        removed = []
        for path, size, _ in sorted(stats, key=lambda s: s[2]):
            if total <= self.max_bytes:
                break
            if path != keep and _remove(path):
                total -= size
                removed.append(path)
        return removed

    def clear(self) -> None:
        for path in self.entries():
            _remove(path)


def _stat(path: Path) -> tuple[int, float]:
    try:
        st = path.stat()
    except OSError:
        return 0, 0.0
    return st.st_size, st.st_mtime


def _remove(path: Path) -> bool:
    try:
        path.unlink()
        return True
    except OSError:
        return False


def _checksum(key: str, meta: dict, payload: bytes) -> str:
    h = hashlib.sha256(key.encode() + b"\0")
    h.update(json.dumps(meta, sort_keys=True).encode() + b"\0")
    h.update(payload)
    return h.hexdigest()


def _encode(kind: str, key: str, payload: bytes, meta: dict) -> bytes:
    header = json.dumps({"format": _FORMAT, "kind": kind, "key": key, "size": len(payload),
                         "sha256": _checksum(key, meta, payload), "meta": meta}, sort_keys=True).encode()
    return b"".join([_MAGIC, struct.pack("<I", len(header)), header, payload])


def _decode(data: bytes, kind: str, key: str) -> tuple[Entry | None, str]:
    """The entry in `data` if it is whole and is `key`'s; else None and why."""
    if not data.startswith(_MAGIC) or len(data) < len(_MAGIC) + 4:
        return None, "not a cache entry (bad magic)"
    start = len(_MAGIC) + 4
    (length,) = struct.unpack_from("<I", data, len(_MAGIC))
    try:
        header = json.loads(data[start:start + length])
        size, meta, checksum = header["size"], header["meta"], header["sha256"]
    except (ValueError, KeyError, TypeError):
        return None, "unreadable header"
    if header.get("format") != _FORMAT or header.get("kind") != kind:
        return None, f"format {header.get('format')} of {header.get('kind')}, expected {_FORMAT} of {kind}"
    if header.get("key") != key:
        return None, f"it is the entry of another key ({str(header.get('key'))[:12]})"
    payload = memoryview(data)[start + length:]  # no copy of a large library
    if len(payload) != size:
        return None, f"truncated: {len(payload)} bytes of {size}"
    if _checksum(key, meta, payload) != checksum:
        return None, "checksum mismatch"
    return Entry(key, meta, payload), ""


def default_cache() -> Cache | None:
    """The cache the environment asks for, or None when it is off (or its
    size is not understood: then a warning says why)."""
    if os.environ.get(ENV_ENABLE, "1").strip().lower() in _OFF:
        return None
    directory = os.environ.get(ENV_DIR, "").strip()
    if not directory:
        base = os.environ.get("XDG_CACHE_HOME", "").strip() or os.path.join(os.path.expanduser("~"), ".cache")
        directory = os.path.join(base, "tosa_custom")
    size = os.environ.get(ENV_SIZE, "").strip()
    if not size:
        return Cache(directory)
    try:
        return Cache(directory, parse_size(size))
    except ValueError as e:
        import warnings

        warnings.warn(f"{e}; the cache is off", stacklevel=3)
        return None
