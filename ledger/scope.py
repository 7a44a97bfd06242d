"""Entering a store's context for ledger work (the database's row-level security reads it).

Callers (requests, MCP tools, tasks) normally already run inside ``tenants.context.use_store``;
ledger functions still take the store explicitly and enter its context only when no store is
active, so a shell or a test works, and a call for a different store than the active one fails
closed with the same "not found" as a missing row.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

from ledger.errors import NotFound
from tenants.context import current_store_or_none, use_store
from tenants.models import Store


@contextmanager
def store_scope(store: Store, *, what: str = "item") -> Iterator[Store]:
    """Run the block as ``store``.

    Raises:
        NotFound: another store is active here.
    """
    active = current_store_or_none()
    if active is None:
        with use_store(store):
            yield store
    elif active.pk != store.pk:
        raise NotFound(what)
    else:
        yield store
