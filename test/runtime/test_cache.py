"""The compiled-code cache's store (runtime/compiled/cache.py): entries verified before
use, written atomically, bounded by least recent use, moved and turned off
by the environment."""

from __future__ import annotations

import multiprocessing
import os
import time

import pytest

from tosa_custom.runtime.compiled import cache

KEY_A, KEY_B, KEY_C = ("a" * 64), ("b" * 64), ("c" * 64)


@pytest.fixture
def store(tmp_path):
    return cache.Cache(tmp_path / "cache", max_bytes=1 << 20)


def test_an_entry_comes_back_as_stored(store):
    assert store.put("runtime", KEY_A, b"\x7fELF code", {"pipeline": "p"}) == ""
    entry, reason = store.get("runtime", KEY_A)
    assert (entry.payload, entry.meta, reason) == (b"\x7fELF code", {"pipeline": "p"}, "")
    assert store.get("runtime", KEY_B) == (None, "")  # a plain miss
    assert store.get("iree", KEY_A) == (None, "")  # each loader has its own folder


@pytest.mark.parametrize("damage, reason", [
    (lambda data: data[:-3], "truncated"),
    (lambda data: data[:-1] + bytes([data[-1] ^ 1]), "checksum mismatch"),
    (lambda data: b"garbage" + data, "bad magic"),
    (lambda data: data[:30] + b"{" + data[31:], "unreadable header"),
])
def test_a_damaged_entry_is_refused_and_removed(store, damage, reason):
    store.put("runtime", KEY_A, b"payload " * 100, {"pipeline": "p"})
    path = store.path("runtime", KEY_A)
    path.write_bytes(damage(path.read_bytes()))
    entry, why = store.get("runtime", KEY_A)
    assert entry is None and reason in why
    assert not path.exists()  # refused once: the loader compiles and stores it again


def test_a_foreign_entry_is_refused(store):
    """An entry copied under another key's name is not that key's code."""
    store.put("runtime", KEY_A, b"code of A", {})
    store.path("runtime", KEY_A).rename(store.path("runtime", KEY_B))
    entry, why = store.get("runtime", KEY_B)
    assert entry is None and "another key" in why


def test_metadata_is_covered_by_the_checksum(store):
    store.put("runtime", KEY_A, b"code", {"pipeline": "abc"})
    path = store.path("runtime", KEY_A)
    path.write_bytes(path.read_bytes().replace(b'"abc"', b'"abd"'))
    assert "checksum mismatch" in store.get("runtime", KEY_A)[1]


def test_the_bound_evicts_the_least_recently_used(tmp_path):
    store = cache.Cache(tmp_path, max_bytes=2500)
    for i, key in enumerate((KEY_A, KEY_B)):
        store.put("runtime", key, bytes(1000), {})
        os.utime(store.path("runtime", key), (time.time() - 100 + i, time.time() - 100 + i))
    assert store.get("runtime", KEY_A)[0] is not None  # used: now the most recent
    store.put("runtime", KEY_C, bytes(1000), {})
    assert [p.name[:1] for p in store.entries()] == ["a", "c"]  # B, the least recently used, went
    assert store.size() <= 2500
    assert "over the cache's bound" in store.put("runtime", KEY_B, bytes(5000), {})  # never stored


def test_temporary_files_of_dead_writers_are_swept(store):
    store.put("runtime", KEY_A, b"x", {})
    stale = store.path("runtime", KEY_A).parent / ".dead-writer.tmp"
    stale.write_bytes(b"partial")
    os.utime(stale, (time.time() - 7200, time.time() - 7200))
    store.evict()
    assert not stale.exists() and store.path("runtime", KEY_A).exists()


def _writer(directory: str, key: str, payload: bytes, rounds: int) -> None:
    store = cache.Cache(directory)
    for _ in range(rounds):
        assert store.put("runtime", key, payload, {"n": len(payload)}) == ""


def test_concurrent_writers_never_leave_a_partial_entry(tmp_path):
    """Two processes rewrite one key while this one reads it: every read is
    a whole entry of one writer or a miss, never a refused (partial) one."""
    payloads = [bytes([1]) * 300_000, bytes([2]) * 200_000]
    fork = multiprocessing.get_context("fork")
    writers = [fork.Process(target=_writer, args=(str(tmp_path), KEY_A, p, 40)) for p in payloads]
    for w in writers:
        w.start()
    store, reads = cache.Cache(tmp_path), 0
    while any(w.is_alive() for w in writers):
        entry, why = store.get("runtime", KEY_A)
        assert why == ""
        if entry is not None:
            assert entry.payload in payloads and entry.meta == {"n": len(entry.payload)}
            reads += 1
    for w in writers:
        w.join()
        assert w.exitcode == 0
    assert reads and not list(tmp_path.glob("runtime/.*.tmp"))


def test_the_environment_moves_bounds_and_disables_it(tmp_path, monkeypatch):
    monkeypatch.setenv(cache.ENV_ENABLE, "1")
    monkeypatch.setenv(cache.ENV_DIR, str(tmp_path / "elsewhere"))
    monkeypatch.setenv(cache.ENV_SIZE, "3M")
    found = cache.default_cache()
    assert found.directory == tmp_path / "elsewhere" and found.max_bytes == 3 << 20
    monkeypatch.delenv(cache.ENV_DIR)
    monkeypatch.delenv(cache.ENV_SIZE)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    assert cache.default_cache().directory == tmp_path / "xdg" / "tosa_custom"
    assert cache.default_cache().max_bytes == cache.DEFAULT_SIZE
    for off in ("0", "off", "false", "no"):
        monkeypatch.setenv(cache.ENV_ENABLE, off)
        assert cache.default_cache() is None
    monkeypatch.setenv(cache.ENV_ENABLE, "1")
    monkeypatch.setenv(cache.ENV_SIZE, "lots")
    with pytest.warns(UserWarning, match="expected bytes or a size"):
        assert cache.default_cache() is None


@pytest.mark.parametrize("text, size", [("1000", 1000), ("2G", 2 << 30), ("500m", 500 << 20), ("1.5K", 1536),
                                        ("64MiB", 64 << 20)])
def test_sizes(text, size):
    assert cache.parse_size(text) == size


def test_digests_are_canonical():
    assert cache.digest({"b": 1, "a": [1, 2]}) == cache.digest({"a": [1, 2], "b": 1})
    assert cache.digest({"a": 1}) != cache.digest({"a": 2})
    parts = cache.toolchain(("runtime",))
    assert set(parts) == {"tosa-custom", "sources", "torch-mlir", "torch"}
    assert parts["sources"] != cache.toolchain(("runtime", "core"))["sources"]
