"""A per-process cache of values built per key and kept while the key's version is unchanged.

Used for what is costly to build from a store's rows and cheap to fingerprint: the grounding
catalog (``assistant.catalogs``), the shelf finder's view (``dashboard.finder``) and the fast
path's taught phrases (``assistant.matcher.taught``). Past ``size`` keys the least recently used
is dropped. Building runs outside the lock: two threads may build the same value once each.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Callable, Hashable
from typing import Generic, TypeVar

V = TypeVar("V")


class VersionedCache(Generic[V]):
    def __init__(self, size: int | Callable[[], int]) -> None:
        self._size = size
        self._items: OrderedDict[Hashable, tuple[Hashable, V]] = OrderedDict()
        self._lock = threading.Lock()

    def get(self, key: Hashable, version: Hashable, build: Callable[[], V]) -> V:
        """The value kept for ``key`` at ``version``, else ``build()``'s (kept in its place)."""
        with self._lock:
            cached = self._items.get(key)
            if cached is not None and cached[0] == version:
                self._items.move_to_end(key)
                return cached[1]
        value = build()
        size = self._size() if callable(self._size) else self._size
        with self._lock:
            self._items[key] = (version, value)
            self._items.move_to_end(key)
            while len(self._items) > size:
                self._items.popitem(last=False)
        return value

    def clear(self) -> None:
        with self._lock:
            self._items.clear()
