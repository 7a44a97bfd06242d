"""The alerts' Celery tasks (found by ``app.autodiscover_tasks()``); each is safe to run twice.

``stock_alert_task`` runs after a stock change commits; ``alerts_check_task`` (beat, every
``ALERT_CHECK_SECONDS``) hands each store's checks to ``alerts_store_check_task``, which runs
inside that store's context.
"""

from __future__ import annotations

from celery import shared_task
from django.db import InterfaceError, OperationalError

from tenants.models import Store
from worker.base import store_task

TRANSIENT = (OperationalError, InterfaceError)


@store_task(acks_late=True, ignore_result=True, autoretry_for=TRANSIENT, max_retries=5, retry_backoff=2)
def stock_alert_task(store: Store, *, entry_id: int) -> None:
    """Raise the stock alert one journal entry calls for (one alert per entry, however often it runs)."""
    from alerts.services import stock_alert_for_entry

    stock_alert_for_entry(store=store, entry_id=entry_id)


@store_task(acks_late=True, autoretry_for=TRANSIENT, max_retries=3, retry_backoff=5)
def alerts_store_check_task(store: Store) -> dict[str, int]:
    """One store's background checks and its daily digest (``alerts.checks.store_check``)."""
    from alerts.checks import store_check

    return store_check(store=store)


@shared_task(acks_late=True, autoretry_for=TRANSIENT, max_retries=3, retry_backoff=5)
def alerts_check_task() -> int:
    """Queue every store's checks; returns how many stores."""
    ids = list(Store.objects.order_by("pk").values_list("pk", flat=True))
    for store_id in ids:
        alerts_store_check_task.delay(store_id=store_id)
    return len(ids)
