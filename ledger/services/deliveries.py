"""Goods received: what arrives for a placed order raises stock through the journal.

An order is received in full, or line by line with the units that came; a partial delivery
leaves the rest open (the order is ``partial`` until every line has arrived, then ``received``).
Each line is received over the amount the caller saw as already received, so the same delivery
entered twice (two people, a double submit) is a conflict, not double stock.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Mapping

from django.db import transaction
from django.utils.translation import gettext as _

from ledger.errors import (
    EditConflict,
    InvalidInput,
    InvalidLine,
    InvalidQuantity,
    InvalidTransition,
    NotFound,
)
from ledger.models import Order, OrderLine, StockEntry
from ledger.scope import store_scope
from ledger.selectors import order_get, row_id
from ledger.services import checks
from ledger.services.journal import journal_append
from ledger.services.locks import products_lock

_OPEN = (Order.Status.PLACED, Order.Status.PARTIAL)


def _arrivals(lines: list[OrderLine], arrived: Mapping[int, int] | None) -> dict[int, int]:
    """Units arriving per order line id; None means everything still open."""
    if arrived is None:
        return {line.pk: line.open_qty for line in lines if line.open_qty}
    by_id = {line.pk: (number, line) for number, line in enumerate(lines, start=1)}
    wanted: dict[int, int] = {}
    for line_id, qty in arrived.items():
        if line_id not in by_id:
            raise NotFound("order line")
        number, line = by_id[line_id]
        if qty in (0, None):
            continue
        try:
            qty = checks.line_qty(qty)
        except (InvalidInput, InvalidQuantity) as exc:
            raise InvalidLine(line=number, field="qty", reason=exc.message) from None
        if qty > line.open_qty:
            raise InvalidLine(
                line=number, field="qty",
                reason=_("%(qty)s of %(name)s arrived but only %(open)s are still open on this order")
                % {"qty": qty, "name": line.product.name, "open": line.open_qty},
            )
        wanted[line_id] = qty
    return wanted


def order_receive(
    *,
    store,
    order_id: int | str,
    actor: str,
    arrived: Mapping[int, int] | None = None,
    seen: Mapping[int, int] | None = None,
    now: dt.datetime | None = None,
) -> Order:
    """Record goods received for an order and raise each product's stock by what arrived.

    ``arrived`` maps order line ids to the units that came (0 or missing: none of that line);
    None receives everything still open. ``seen`` maps line ids to the received amounts the
    caller saw; if any changed since, nothing is recorded.

    Raises:
        NotFound: no such order (or line) in this store.
        InvalidTransition: the order was already fully received or was cancelled.
        InvalidLine: a line's quantity is not a whole number of 1..10,000, or more than is open.
        InvalidInput: nothing arrived.
        EditConflict: someone recorded a delivery for this order since the caller looked.
    """
    actor = checks.actor_of(actor)
    at = checks.moment(now)
    pk = row_id(order_id, "order")
    with store_scope(store, what="order"), transaction.atomic():
        order = Order.objects.select_for_update().filter(store=store, pk=pk).first()
        if order is None:
            raise NotFound("order")
        if order.status not in _OPEN:
            raise InvalidTransition(
                _("Order #%(id)s is %(status)s; nothing more can be received.") % {"id": order.pk, "status": order.get_status_display().lower()},
                status=order.status,
            )
        lines = list(OrderLine.objects.select_for_update().filter(store=store, order=order).select_related("product").order_by("id"))
        if seen is not None and any(line.received_qty != seen.get(line.pk, line.received_qty) for line in lines):
            raise EditConflict(
                _("Someone recorded a delivery for order #%(id)s since you opened it. Nothing was saved; check what "
                  "is still open and try again.") % {"id": order.pk}
            )
        wanted = _arrivals(lines, arrived)
        if not wanted:
            raise InvalidInput(_("Enter how many units arrived for at least one line."))
        by_id = {line.pk: line for line in lines}
        products = products_lock(store, {by_id[line_id].product_id for line_id in wanted})
        note = _("order #%(id)s") % {"id": order.pk}
        for line_id in sorted(wanted, key=lambda i: by_id[i].product_id):
            line = by_id[line_id]
            product = products[line.product_id]
            journal_append(product=product, after=product.stock + wanted[line_id], reason=StockEntry.Reason.DELIVERY,
                           actor=actor, at=at, note=note)
            line.received_qty += wanted[line_id]
            line.save(update_fields=["received_qty"])
        order.status = Order.Status.RECEIVED if all(not line.open_qty for line in lines) else Order.Status.PARTIAL
        order.save(update_fields=["status"])
    return order_get(store=store, order_id=order.pk)
