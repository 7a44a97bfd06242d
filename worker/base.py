"""Store tasks: Celery tasks that take a ``store_id``, load the store and run inside its context.

    @store_task
    def send_sales_report_task(store, *, recipient): ...

    send_sales_report_task.delay(store_id=store.pk, recipient="raj@example.com")
    # inside use_store(store), store_id may be left out: the current store is carried over
    transaction.on_commit(lambda: send_sales_report_task.delay(store_id=store.pk, recipient=...))

The function gets the ``Store`` first (after the task itself with ``bind=True``) and runs inside
``tenants.context.use_store``, so ``current_store()`` and row-level security see that store. A
missing or deleted store fails closed with ``StoreNotFound`` (not retried). ``store_id`` stays
in the message's keyword arguments, so retries resend it unchanged.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from celery import Task, shared_task

from tenants.context import current_store_or_none, use_store
from tenants.errors import StoreNotFound

STORE_ID = "store_id"


def _with_current_store(kwargs: dict | None) -> dict:
    kwargs = dict(kwargs or {})
    if kwargs.get(STORE_ID) is None:
        store = current_store_or_none()
        if store is not None:
            kwargs[STORE_ID] = store.pk
    return kwargs


def load_store(store_id: Any):
    """The store for a task.

    Raises:
        StoreNotFound: no id, not an id, or no such store.
    """
    from tenants.models import Store

    if store_id is None:
        raise StoreNotFound("A store task needs store_id (or to be sent from inside use_store).")
    if isinstance(store_id, bool) or not isinstance(store_id, int | str):
        raise StoreNotFound(f"Not a store id: {store_id!r}.")
    try:
        return Store.objects.select_related("business_type").get(pk=int(store_id))
    except (Store.DoesNotExist, ValueError):
        raise StoreNotFound(f"Store {store_id!r} does not exist (deleted?).") from None


class StoreTask(Task):
    """Base of store tasks: sends the current store's id when the caller gave none."""

    abstract = True
    throws = (StoreNotFound,)

    def apply_async(self, args=None, kwargs=None, *rest, **options):
        return super().apply_async(args, _with_current_store(kwargs), *rest, **options)

    def apply(self, args=None, kwargs=None, *rest, **options):
        return super().apply(args, _with_current_store(kwargs), *rest, **options)


def store_task(fn: Callable | None = None, /, **options: Any):
    """Decorator: a shared Celery task that runs ``fn(store, ...)`` inside the store's context.

    Accepts Celery's task options: ``@store_task(bind=True, max_retries=3)``.
    """

    def decorate(func: Callable) -> Task:
        bind = options.get("bind", False)

        def run(*args: Any, **kwargs: Any) -> Any:
            store = load_store(kwargs.pop(STORE_ID, None))
            with use_store(store):
                if bind:
                    task, *rest = args
                    return func(task, store, *rest, **kwargs)
                return func(store, *args, **kwargs)

        # Named and documented after ``func``; ``run``'s open signature takes ``store_id`` where
        # ``func`` takes ``store`` (Celery checks call arguments against the task function's).
        run.__name__, run.__qualname__ = func.__name__, func.__qualname__
        run.__module__, run.__doc__ = func.__module__, func.__doc__
        return shared_task(base=StoreTask, **options)(run)

    return decorate(fn) if fn is not None else decorate
