"""A least-recently-used map bounded by the sizes of its values (and, if asked, a number of
entries), safe to share between Streamlit's session threads. Standard library only.

The caller measures each value (a dataset's footprint, a file's length, a result's pickled
size): the bound is on what is held, so a few large values cannot pass it the way a count
of entries would let them.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Hashable
from typing import Generic, TypeVar

K = TypeVar("K", bound=Hashable)
V = TypeVar("V")


class SizedLRU(Generic[K, V]):
    """At most ``budget`` in the sizes given with the values (and ``max_entries`` entries),
    the least recently used let go first; a value larger than the whole budget is not kept."""

    def __init__(self, budget: int, *, max_entries: int | None = None) -> None:
        self.budget = budget
        self.max_entries = max_entries
        self.total = 0
        self._data: OrderedDict[K, tuple[V, int]] = OrderedDict()
        self._lock = threading.Lock()

    def get(self, key: K) -> V | None:
        with self._lock:
            found = self._data.get(key)
            if found is None:
                return None
            self._data.move_to_end(key)
            return found[0]

    def put(self, key: K, value: V, size: int) -> None:
        with self._lock:
            self._drop(key)
            if size > self.budget:
                return
            while self._data and (self.total + size > self.budget
                                  or (self.max_entries is not None and len(self._data) >= self.max_entries)):
                self._drop(next(iter(self._data)))
            self._data[key] = (value, size)
            self.total += size

    def pop_oldest(self) -> bool:
        """Let go of the least recently used entry; False when empty."""
        with self._lock:
            if not self._data:
                return False
            self._drop(next(iter(self._data)))
            return True

    def _drop(self, key: K) -> None:
        found = self._data.pop(key, None)
        if found is not None:
            self.total -= found[1]

    def __len__(self) -> int:
        return len(self._data)

    def clear(self) -> None:
        with self._lock:
            self._data.clear()
            self.total = 0
