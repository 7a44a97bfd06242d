"""The ledger's stock changes, heard after they commit: a crossing raises its alert on a worker."""

from __future__ import annotations

import logging

from django.db import transaction

from alerts.services import stock_crossing

logger = logging.getLogger(__name__)


def on_stock_changed(sender, *, entry, product, **kwargs) -> None:
    """``ledger.signals.stock_changed``: a change that crossed the reorder point or sold out is
    handed to ``stock_alert_task`` once the write commits (a rolled-back sale raises nothing)."""
    if stock_crossing(before=entry.before, after=entry.after, reorder_point=product.reorder_point) is None:
        return
    store_id, entry_id = entry.store_id, entry.pk

    def enqueue() -> None:
        from alerts.tasks import stock_alert_task

        stock_alert_task.delay(store_id=store_id, entry_id=entry_id)

    # robust: a broker that is down must not fail the sale; the beat's sweep raises it later.
    transaction.on_commit(enqueue, robust=True)
