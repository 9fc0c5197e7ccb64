"""Building blocks shared by e2e case files (ours and users'), so a case is
just a function and its inputs."""

from __future__ import annotations

from typing import Callable

import torch

__all__ = ["Fn", "randn_inputs"]


class Fn(torch.nn.Module):
    """One function as a module: torch.export and compile() take modules."""

    def __init__(self, fn: Callable):
        super().__init__()
        self.fn = fn

    def forward(self, *args):
        return self.fn(*args)


def randn_inputs(*shape: int) -> Callable[[], tuple]:
    """An `inputs=` builder: one standard-normal float32 tensor of `shape`
    (the runner seeds torch before calling it)."""
    return lambda: (torch.randn(*shape),)
