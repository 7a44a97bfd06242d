"""The current store, carried in a context variable through sync, async and Celery code.

``use_store(store)`` is the one way to enter a store's context: it sets the context variable
and, on PostgreSQL, the ``app.store_id`` setting that the ledger's row-level security
policies read (see ``tenants.rls``). Code that needs the store asks ``current_store()``.

Context variables follow the code: ``asyncio`` tasks and ``sync_to_async``/``async_to_sync``
copy them, Celery ``store_task``s enter ``use_store`` themselves, and a new thread starts with
no store (so it sees no ledger rows until it enters one).

Requests: ``CurrentStoreMiddleware`` runs each request inside ``request_scope`` (the signed-in
member's store, or none); DRF token authentication then calls ``activate_store`` for the token's
store, which lasts until that request's scope ends.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from typing import TYPE_CHECKING

from django.core.exceptions import ImproperlyConfigured

if TYPE_CHECKING:
    from tenants.models import Store

_current_store: ContextVar[Store | None] = ContextVar("shelfwise_current_store", default=None)
_in_request_scope: ContextVar[bool] = ContextVar("shelfwise_in_request_scope", default=False)


class NoStoreError(LookupError):
    """Raised when code that needs a store runs outside any store's context."""


def current_store() -> Store:
    """The store of the running request, turn or task.

    Raises:
        NoStoreError: outside ``use_store``.
    """
    store = _current_store.get()
    if store is None:
        raise NoStoreError("No store is active here.")
    return store


def current_store_or_none() -> Store | None:
    return _current_store.get()


@contextmanager
def use_store(store: Store) -> Iterator[Store]:
    """Run the block as ``store``: context variable plus the database's tenant setting."""
    from tenants import rls

    if store is None or store.pk is None:
        raise ValueError("use_store needs a saved store.")
    token = _current_store.set(store)
    previous = rls.set_db_store(store.pk)
    try:
        yield store
    finally:
        rls.set_db_store(previous)
        _current_store.reset(token)


@contextmanager
def store_context(store: Store) -> Iterator[Store]:
    """``use_store(store)`` unless a store is already active (then row-level security judges the work).

    For services that take the store explicitly and write fenced tables (the audit): callers
    usually already run inside the store's context; a shell, a test or a task need not.
    """
    if _current_store.get() is None:
        with use_store(store):
            yield store
    else:
        yield store


@contextmanager
def request_scope(store: Store | None) -> Iterator[Store | None]:
    """Run one request as ``store`` (or as no store), undoing whatever the request activated."""
    from tenants import rls

    token = _current_store.set(store)
    previous = rls.set_db_store(store.pk if store is not None else None)
    scope_token = _in_request_scope.set(True)
    try:
        yield store
    finally:
        _in_request_scope.reset(scope_token)
        rls.set_db_store(previous)
        _current_store.reset(token)


def activate_store(store: Store) -> None:
    """Make ``store`` current for the rest of the enclosing ``request_scope`` (token authentication).

    Raises:
        ImproperlyConfigured: outside a request scope, where nothing would undo it.
    """
    from tenants import rls

    if not _in_request_scope.get():
        raise ImproperlyConfigured(
            "Store tokens need tenants.middleware.CurrentStoreMiddleware in MIDDLEWARE: "
            "it scopes each request so that the token's store ends with the request."
        )
    _current_store.set(store)
    rls.set_db_store(store.pk)
