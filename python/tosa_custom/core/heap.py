"""Garbage collection during a compile or a load: only of what it allocates.

torch.export, the FX importer and our Python passes allocate hundreds of
thousands of short-lived objects, and CPython's collector answers with
collections of the oldest generation, each of which walks every object the
process holds: torch, transformers and MLIR's bindings make that ~0.5 M
objects, 0.2-0.3 s a walk (a 2-layer BERT's compile: one such walk in a
1.3 s export, or none, by the luck of the counters at its start). The
objects that existed before the call are not this call's garbage, so
`gc.freeze()` sets them aside for its duration and `gc.unfreeze()` hands them
back to the oldest generation after it (both O(1) list splices): cycles the
call makes are still collected, and nothing is kept that would have been
freed, only later. A process that froze objects itself keeps its own
freeze as it is: nothing is frozen or unfrozen for it.
"""

from __future__ import annotations

import functools
import gc
import threading

__all__ = ["collect_new_objects_only"]

_lock = threading.Lock()
_depth = 0
_frozen = False  # whether the outermost call froze (and so unfreezes)


def collect_new_objects_only(fn):
    """`fn`, with the objects that exist when it is called frozen until the
    outermost such call returns (nested and concurrent calls share one freeze)."""

    @functools.wraps(fn)
    def wrapper(*args, **kwargs):
        global _depth, _frozen
        with _lock:
            _depth += 1
            if _depth == 1:
                _frozen = gc.get_freeze_count() == 0
                if _frozen:
                    gc.freeze()
        try:
            return fn(*args, **kwargs)
        finally:
            with _lock:
                _depth -= 1
                if _depth == 0 and _frozen:
                    gc.unfreeze()

    return wrapper
