"""Row-level security on PostgreSQL: the database's own tenant fence under the selectors.

Placeholder contract, implemented in the tenants work: ``set_db_store(store_id)`` sets
``app.store_id`` for the current connection and returns the previous value; on SQLite it
only remembers the value.
"""

from __future__ import annotations

from contextvars import ContextVar

_db_store: ContextVar[int | None] = ContextVar("shelfwise_db_store", default=None)


def set_db_store(store_id: int | None) -> int | None:
    previous = _db_store.get()
    _db_store.set(store_id)
    return previous
