"""Stock counts as compare-and-set: a new count applies only over the count the caller saw."""

from __future__ import annotations

from django.db import transaction
from django.utils import timezone
from django.utils.translation import gettext as _

from ledger.errors import InvalidInput, NotFound, StockConflict
from ledger.models import Product, StockEntry
from ledger.scope import store_scope
from ledger.services import checks
from ledger.services.journal import journal_append
from tenants.models import Store

# Sales move stock only through receipts; opening counts only through product_create and stock imports.
_SETTABLE = {StockEntry.Reason.COUNT, StockEntry.Reason.DELIVERY, StockEntry.Reason.ADJUSTMENT}


def stock_set(
    *,
    store: Store,
    product: Product,
    count: int,
    expected: int,
    actor: str,
    reason: str = StockEntry.Reason.COUNT,
    note: str = "",
) -> StockEntry:
    """Set the product's stock to ``count`` if it is still ``expected``, and journal the change.

    A count equal to the current one is still recorded: the shelf was checked.

    Raises:
        NotFound: the product is not this store's.
        InvalidQuantity: ``count`` or ``expected`` is negative, fractional or above 1,000,000.
        StockConflict: the current count is not ``expected``; nothing was changed.
        InvalidInput: ``reason`` is not a count, delivery or adjustment.
    """
    actor = checks.actor_of(actor)
    count = checks.stock_count(count)
    expected = checks.stock_count(expected, what="expected count")
    if reason not in _SETTABLE:
        raise InvalidInput(_("A stock update is a count, a delivery or an adjustment."))
    note = checks.text(note, what="note", max_length=200, required=False)
    if product.store_id != store.pk:
        raise NotFound("product")
    with store_scope(store, what="product"), transaction.atomic():
        locked = Product.objects.select_for_update().filter(store=store, pk=product.pk).first()
        if locked is None:
            raise NotFound("product")
        if locked.stock != expected:
            raise StockConflict(product=locked.name, expected=expected, current=locked.stock)
        entry = journal_append(
            product=locked, after=count, reason=reason, actor=actor, at=timezone.now(), note=note
        )
        if reason == StockEntry.Reason.COUNT and locked.needs_recount:
            # Someone looked at the shelf: the count the oversold sale left behind is settled.
            locked.needs_recount = False
            locked.save(update_fields=["needs_recount", "updated_at"])
    product.stock = locked.stock
    product.needs_recount = locked.needs_recount
    product.updated_at = locked.updated_at
    return entry
