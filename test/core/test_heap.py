"""core/heap.py: during a compile or a load the collector walks only what
the call allocated; the objects from before come back after it, a cycle the
call drops is still collected during it, and a process's own freeze is
left as it is. compile() and the loads use it without a frame of its own
between them and their caller (warnings name the caller's line)."""

from __future__ import annotations

import gc
import threading
import weakref

from tosa_custom.core.heap import YOUNG_THRESHOLD, collect_new_objects_only


def _inside(fn):
    """`fn` run in the context (the tests' stand-in for compile() and load())."""
    def run(*args, **kwargs):
        with collect_new_objects_only():
            return fn(*args, **kwargs)
    return run


class _Node:
    def __init__(self):
        self.other = self


def test_old_objects_frozen_for_the_call_only():
    seen = {}

    @_inside
    def call():
        seen["frozen"] = gc.get_freeze_count()
        seen["young"] = gc.get_threshold()[0]
        return "result"

    assert gc.get_freeze_count() == 0
    before = gc.get_threshold()
    assert call() == "result"
    assert seen["frozen"] > 1000  # the interpreter's own objects, at least
    assert seen["young"] == max(before[0], YOUNG_THRESHOLD)
    assert gc.get_freeze_count() == 0 and gc.get_threshold() == before


def test_a_cycle_dropped_in_the_call_is_collected_in_it():
    @_inside
    def call():
        node = _Node()
        alive = weakref.ref(node)
        del node
        gc.collect()
        return alive() is None

    assert call()


def test_nested_and_raising_calls_unfreeze_once():
    @_inside
    def inner():
        assert gc.get_freeze_count() > 0
        raise ValueError("inner")

    @_inside
    def outer():
        try:
            inner()
        except ValueError:
            pass
        return gc.get_freeze_count()

    assert outer() > 0  # still frozen after the inner call returned
    assert gc.get_freeze_count() == 0


def test_concurrent_calls_share_one_freeze():
    barrier, counts = threading.Barrier(2), []

    @_inside
    def call():
        barrier.wait(timeout=30)
        counts.append(gc.get_freeze_count())
        barrier.wait(timeout=30)

    threads = [threading.Thread(target=call) for _ in range(2)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert len(counts) == 2 and min(counts) > 0
    assert gc.get_freeze_count() == 0


def test_a_process_freeze_is_left_alone():
    @_inside
    def call():
        return gc.get_freeze_count()

    gc.freeze()
    try:
        before = gc.get_freeze_count()
        made_after = [[] for _ in range(10000)]  # tracked, not frozen: a freeze of ours would take them
        assert call() <= before  # (a frozen object may be freed meanwhile)
        assert 0 < gc.get_freeze_count() <= before  # the process's freeze stands
        del made_after
    finally:
        gc.unfreeze()


def test_compile_and_load_use_it(monkeypatch):
    import torch

    import tosa_custom
    from tosa_custom import runtime
    from tosa_custom.runtime.execute import program as program_module

    frozen = []
    export, lower = torch.export.export, program_module.lower
    monkeypatch.setattr(torch.export, "export", lambda *a, **k: frozen.append(gc.get_freeze_count()) or export(*a, **k))
    monkeypatch.setattr(program_module, "lower", lambda *a, **k: frozen.append(gc.get_freeze_count()) or lower(*a, **k))
    monkeypatch.setenv("TOSA_CUSTOM_CACHE", "0")
    module = tosa_custom.compile(torch.nn.Linear(3, 2).eval(), (torch.randn(1, 3),))
    runtime.load(module)
    assert len(frozen) == 2 and min(frozen) > 1000
    assert gc.get_freeze_count() == 0
