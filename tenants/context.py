"""The current store, carried in a context variable through sync, async and Celery code.

``use_store(store)`` is the one way to enter a store's context: it sets the context variable
and, on PostgreSQL, the ``app.store_id`` setting that the ledger's row-level security
policies read (see ``tenants.rls``). Code that needs the store asks ``current_store()``.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from tenants.models import Store

_current_store: ContextVar["Store | None"] = ContextVar("shelfwise_current_store", default=None)


class NoStoreError(LookupError):
    """Raised when code that needs a store runs outside any store's context."""


def current_store() -> "Store":
    """The store of the running request, turn or task.

    Raises:
        NoStoreError: outside ``use_store``.
    """
    store = _current_store.get()
    if store is None:
        raise NoStoreError("No store is active here.")
    return store


def current_store_or_none() -> "Store | None":
    return _current_store.get()


@contextmanager
def use_store(store: "Store") -> Iterator["Store"]:
    """Run the block as ``store``: context variable plus the database's tenant setting."""
    from tenants import rls

    token = _current_store.set(store)
    previous = rls.set_db_store(store.pk)
    try:
        yield store
    finally:
        rls.set_db_store(previous)
        _current_store.reset(token)
