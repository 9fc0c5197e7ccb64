"""Draw a value from a hypothesis strategy with a seeded `random.Random`.

The plain loop (the supervisor's long runs) needs the same strategies the
hypothesis tests use, without hypothesis's test runner: one case per
(target, seed, index), reproducible from those three alone. This uses
hypothesis's `ConjectureData`, an internal class; it is the only place that
does, so a hypothesis upgrade that moves it breaks here, loudly.
"""

from __future__ import annotations

import os
import random
import sys

from hypothesis.control import BuildContext
from hypothesis.errors import StopTest
from hypothesis.internal.conjecture.data import ConjectureData

__all__ = ["draw", "case_random", "import_test_helpers"]


def case_random(target: str, seed: int, index: int) -> random.Random:
    return random.Random(f"{target}:{seed}:{index}")


def draw(strategy, rng: random.Random, *, attempts: int = 20):
    """One value of `strategy`, chosen by `rng` (retried if hypothesis rejects a draw)."""
    for _ in range(attempts):
        data = ConjectureData(random=random.Random(rng.getrandbits(64)), prefix=(), max_choices=20_000)
        try:
            with BuildContext(data, is_final=True, wrapped_test=draw):
                return data.draw(strategy)
        except StopTest:  # a filter or assume() rejected this draw
            continue
    raise RuntimeError(f"could not draw from {strategy!r} in {attempts} attempts")


_TEST_DIRS = ("test/contract",)


def import_test_helpers() -> None:
    """Put test/contract on sys.path: the fuzzers reuse its emitter (`_emit`)
    and its argument strategies (`test_roundtrip`) instead of copying them."""
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    for d in _TEST_DIRS:
        path = os.path.join(root, d)
        if path not in sys.path:
            sys.path.insert(0, path)
