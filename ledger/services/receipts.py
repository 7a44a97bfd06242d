"""Sales: receipts rung up through the ledger (they move stock) and imported history (it does not)."""

from __future__ import annotations

import datetime as dt
from collections.abc import Sequence
from decimal import Decimal

from django.db import transaction
from django.db.models import Max
from django.utils.translation import gettext as _

from ledger.errors import InvalidInput, InvalidQuantity, NotFound
from ledger.models import Product, Receipt, ReceiptLine, StockEntry
from ledger.money import to_cents
from ledger.scope import store_scope
from ledger.services import checks
from ledger.services.journal import journal_append
from ledger.services.locks import products_lock, store_lock
from tenants.models import Store

MAX_LINES = 200
MAX_IMPORT = 50_000

Lines = Sequence[tuple[Product, int]]


def _merged(store: Store, lines: Lines) -> dict[int, int]:
    """Quantities per product id, in first-seen order; the same product twice becomes one line."""
    if isinstance(lines, (str, bytes)) or not lines:
        raise InvalidInput(_("A receipt needs at least one line."))
    if len(lines) > MAX_LINES:
        raise InvalidInput(_("A receipt can have at most %(max)s lines.") % {"max": MAX_LINES})
    merged: dict[int, int] = {}
    for line in lines:
        try:
            product, qty = line
        except (TypeError, ValueError):
            raise InvalidInput(_("Each receipt line is a product and a quantity.")) from None
        if not isinstance(product, Product) or product.store_id != store.pk:
            raise NotFound("product")
        merged[product.pk] = merged.get(product.pk, 0) + checks.line_qty(qty)
    for qty in merged.values():
        checks.line_qty(qty)
    return merged


def _next_number(store: Store) -> int:
    return (Receipt.objects.filter(store=store).aggregate(top=Max("number"))["top"] or 0) + 1


def _line_rows(store: Store, receipt: Receipt, wanted: dict[int, int], products: dict[int, Product]) -> list[ReceiptLine]:
    rows = []
    for pk, qty in wanted.items():
        price = products[pk].price
        rows.append(
            ReceiptLine(
                store=store, receipt=receipt, product=products[pk], qty=qty, unit_price=price, line_total=to_cents(price * qty)
            )
        )
    return rows


def receipt_create(
    *,
    store: Store,
    lines: Lines,
    actor: str,
    sold_at: dt.datetime | None = None,
    move_stock: bool = True,
) -> Receipt:
    """Ring up a sale at the products' current prices; each line's units leave stock through the journal.

    ``move_stock=False`` records imported history: the receipt is marked ``historical``, stock is
    untouched, and it is left out of the day's live figures and reconciliation.

    Raises:
        NotFound: a product is not this store's.
        InvalidQuantity: a quantity is not 1..10,000, or more than is in stock.
        InvalidInput: no lines, or a time without a time zone.
    """
    actor = checks.actor_of(actor)
    sold_at = checks.moment(sold_at)
    wanted = _merged(store, lines)
    with store_scope(store, what="product"), transaction.atomic():
        store_lock(store)
        if move_stock:
            products = products_lock(store, wanted)
            for pk, qty in wanted.items():
                if products[pk].stock < qty:
                    raise InvalidQuantity(
                        _("Only %(stock)s of %(name)s in stock; a sale of %(qty)s cannot be rung up.")
                        % {"stock": products[pk].stock, "name": products[pk].name, "qty": qty}
                    )
        else:
            products = {p.pk: p for p in Product.objects.filter(store=store, pk__in=wanted)}
            if set(products) != set(wanted):
                raise NotFound("product")
        receipt = Receipt.objects.create(
            store=store,
            number=_next_number(store),
            sold_at=sold_at,
            total=Decimal("0.00"),
            actor=actor,
            historical=not move_stock,
        )
        rows = ReceiptLine.objects.bulk_create(_line_rows(store, receipt, wanted, products))
        receipt.total = to_cents(sum((row.line_total for row in rows), Decimal(0)))
        receipt.save(update_fields=["total"])
        if move_stock:
            for pk in sorted(wanted):
                journal_append(
                    product=products[pk],
                    after=products[pk].stock - wanted[pk],
                    reason=StockEntry.Reason.SALE,
                    actor=actor,
                    at=sold_at,
                    note=f"receipt #{receipt.number}",
                )
    return receipt


def receipts_import(
    *, store: Store, receipts: Sequence[tuple[dt.datetime, Lines]], actor: str
) -> list[Receipt]:
    """Record past sales in bulk as historical receipts (numbered by time); stock is not moved.

    Raises:
        NotFound: a product is not this store's.
        InvalidQuantity: a quantity is not 1..10,000.
        InvalidInput: a receipt without lines or a time without a time zone, or too many receipts.
    """
    actor = checks.actor_of(actor)
    if len(receipts) > MAX_IMPORT:
        raise InvalidInput(_("Import at most %(max)s receipts at a time.") % {"max": MAX_IMPORT})
    prepared = sorted(
        ((checks.moment(sold_at), _merged(store, lines)) for sold_at, lines in receipts), key=lambda item: item[0]
    )
    if not prepared:
        return []
    with store_scope(store, what="product"), transaction.atomic():
        store_lock(store)
        wanted_ids = {pk for _sold_at, wanted in prepared for pk in wanted}
        products = {p.pk: p for p in Product.objects.filter(store=store, pk__in=wanted_ids)}
        if set(products) != wanted_ids:
            raise NotFound("product")
        first = _next_number(store)
        rows = Receipt.objects.bulk_create(
            [
                Receipt(
                    store=store,
                    number=first + index,
                    sold_at=sold_at,
                    total=to_cents(sum((products[pk].price * qty for pk, qty in wanted.items()), Decimal(0))),
                    actor=actor,
                    historical=True,
                )
                for index, (sold_at, wanted) in enumerate(prepared)
            ]
        )
        if any(row.pk is None for row in rows):  # a backend that cannot return ids from bulk inserts
            rows = list(Receipt.objects.filter(store=store, number__gte=first).order_by("number"))
        ReceiptLine.objects.bulk_create(
            [line for row, (_sold_at, wanted) in zip(rows, prepared) for line in _line_rows(store, row, wanted, products)],
            batch_size=1000,
        )
    return rows
