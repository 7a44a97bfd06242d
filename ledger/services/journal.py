"""Appending to the stock journal: the only place a product's count is changed."""

from __future__ import annotations

import datetime as dt

from ledger.models import Product, StockEntry
from ledger.signals import stock_changed


def journal_append(
    *, product: Product, after: int, reason: str, actor: str, at: dt.datetime, note: str = ""
) -> StockEntry:
    """Set a locked product's stock to ``after`` and record the change with its before/after."""
    entry = StockEntry.objects.create(
        store_id=product.store_id,
        product=product,
        reason=reason,
        before=product.stock,
        after=after,
        actor=actor,
        note=note[:200],
        created_at=at,
    )
    product.stock = after
    product.save(update_fields=["stock", "updated_at"])
    stock_changed.send(sender=StockEntry, entry=entry, product=product)
    return entry
