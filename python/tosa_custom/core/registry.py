"""The one registry shape every table here uses (argument kinds, passes, and
later kernels): a duplicate is refused, a failed lookup lists what exists."""

from __future__ import annotations

from typing import Generic, Iterator, TypeVar

__all__ = ["Registry"]

V = TypeVar("V")


class Registry(Generic[V]):
    def __init__(self, what: str):
        self._what = what
        self._entries: dict[str, V] = {}

    def add(self, key: str, value: V) -> V:
        if key in self._entries:
            raise ValueError(f"{self._what} '{key}' is registered twice")
        self._entries[key] = value
        return value

    def replace(self, key: str, value: V) -> V:
        """Register `value` for `key`, replacing any entry: for explicit overrides only."""
        self._entries[key] = value
        return value

    def get(self, key: str) -> V | None:
        return self._entries.get(key)

    def __getitem__(self, key: str) -> V:
        try:
            return self._entries[key]
        except KeyError:
            known = ", ".join(sorted(self._entries)) or "none"
            raise KeyError(f"no {self._what} '{key}'; registered: {known}") from None

    def __contains__(self, key: str) -> bool:
        return key in self._entries

    def __iter__(self) -> Iterator[str]:
        return iter(self._entries)

    def as_dict(self) -> dict[str, V]:
        return dict(self._entries)
