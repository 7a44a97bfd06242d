"""Sales, refunds and voids: receipts that move stock through the journal, and imported history.

A sale is recorded even when it sells more than the books hold (the sale happened at the till):
that product's stock stops at zero, it is flagged for a recount, and the result says so. A
retried request names the receipt it means with an idempotency key or the till's external id
and gets the first result back; a key reused for a different request is a conflict. Refunds and
voids are receipts of their own with negative lines, pointing at the sale they give back, and
put the units back on the shelf. Each writer adds what it wrote to the month sums
(``ledger.services.sales_months``) in the same transaction.
"""

from __future__ import annotations

import datetime as dt
import hashlib
import json
from collections.abc import Sequence
from dataclasses import dataclass, field
from decimal import Decimal

from django.db import transaction
from django.db.models import Max, Sum
from django.utils.translation import gettext as _

from ledger.errors import (
    IdempotencyConflict,
    InvalidInput,
    InvalidLine,
    InvalidQuantity,
    InvalidTransition,
    NotFound,
)
from ledger.models import Product, Receipt, ReceiptLine, StockEntry
from ledger.money import to_cents
from ledger.scope import store_scope
from ledger.selectors import row_id
from ledger.services import checks
from ledger.services.journal import journal_append
from ledger.services.locks import products_lock, store_lock
from ledger.services.sales_months import months_add
from tenants.models import Store

MAX_LINES = 200
MAX_IMPORT = 50_000
MAX_KEY = 128
MAX_EXTERNAL_ID = 100

Lines = Sequence[tuple[Product, int]]


@dataclass(frozen=True)
class SaleLine:
    """One line to ring up: the product, the units, and the price charged (the product's price if None)."""

    product: Product
    qty: int
    # As given (a Decimal, or an amount as text or a whole number from a request); receipt_create checks it.
    unit_price: Decimal | str | int | None = None


@dataclass(frozen=True)
class Oversold:
    """A line that sold more than the books held: stock stopped at zero and the product needs a recount."""

    line: int
    product: Product
    sold: int
    in_stock: int


@dataclass(frozen=True)
class Recorded:
    """What a sale, refund or void came to.

    Attributes:
        receipt: the receipt (with its lines).
        created: False when an earlier request with the same key or external id recorded it.
        oversold: the lines that sold more than the books held (sales only).
    """

    receipt: Receipt
    created: bool
    oversold: list[Oversold] = field(default_factory=list)


def _key(value: str, *, what: str, max_length: int) -> str:
    if value is None:
        return ""
    if not isinstance(value, str) or len(value) > max_length or (value and (not value.isprintable() or not value.strip())):
        raise InvalidInput(
            _("The %(what)s must be 1 to %(max)s printable characters.") % {"what": what, "max": max_length}
        )
    return value.strip()


def _sale_lines(store: Store, lines: Sequence[SaleLine]) -> list[tuple[int, SaleLine]]:
    """The lines checked, numbered from 1 as given, the same product at the same price merged.

    Raises:
        NotFound: a product is not this store's.
        InvalidLine: a quantity or price cannot be used.
        InvalidInput: no lines, or too many.
    """
    if isinstance(lines, (str, bytes)) or not lines:
        raise InvalidInput(_("A receipt needs at least one line."))
    if len(lines) > MAX_LINES:
        raise InvalidInput(_("A receipt can have at most %(max)s lines.") % {"max": MAX_LINES})
    checked = []
    for number, line in enumerate(lines, start=1):
        if not isinstance(line, SaleLine) or not isinstance(line.product, Product) or line.product.store_id != store.pk:
            raise NotFound("product")
        try:
            qty = checks.line_qty(line.qty)
        except (InvalidInput, InvalidQuantity) as exc:
            raise InvalidLine(line=number, field="qty", reason=exc.message) from None
        try:
            price = None if line.unit_price is None else checks.money(line.unit_price, what="price")
        except (InvalidInput, InvalidQuantity) as exc:
            raise InvalidLine(line=number, field="price", reason=exc.message) from None
        checked.append((number, price, SaleLine(product=line.product, qty=qty, unit_price=price)))
    # The same product at the same price twice is one line (numbered where it first appeared).
    merged: dict[tuple[int, Decimal | None], tuple[int, SaleLine]] = {}
    for number, price, line in checked:
        key = (line.product.pk, price)
        if key in merged:
            first, earlier = merged[key]
            total = earlier.qty + line.qty
            try:
                checks.line_qty(total)
            except (InvalidInput, InvalidQuantity) as exc:
                raise InvalidLine(line=number, field="qty", reason=exc.message) from None
            merged[key] = (first, SaleLine(product=line.product, qty=total, unit_price=line.unit_price))
        else:
            merged[key] = (number, line)
    return list(merged.values())


def _fingerprint(kind: str, parts: object) -> str:
    canonical = json.dumps([kind, parts], sort_keys=True, separators=(",", ":"), default=str)
    return hashlib.sha256(canonical.encode()).hexdigest()


def _next_number(store: Store) -> int:
    return (Receipt.objects.filter(store=store).aggregate(top=Max("number"))["top"] or 0) + 1


def _earlier(store: Store, *, key: str, external_id: str, fingerprint: str) -> Receipt | None:
    """The receipt an earlier request with this key (or external id) recorded, if the request was the same.

    Raises:
        IdempotencyConflict: the key or external id recorded a different request.
    """
    earlier = Receipt.objects.filter(store=store, idempotency_key=key).first() if key else None
    if earlier is None and external_id:
        earlier = Receipt.objects.filter(store=store, external_id=external_id).first()
    if earlier is None:
        return None
    if earlier.fingerprint != fingerprint:
        what = _("Idempotency-Key") if key and earlier.idempotency_key == key else _("external_id")
        raise IdempotencyConflict(
            _("This %(what)s already recorded a different receipt (#%(number)s). Use a new one for a new sale.")
            % {"what": what, "number": earlier.number},
            receipt=earlier.pk,
        )
    return earlier


def _replayed(receipt: Receipt) -> Recorded:
    lines = list(receipt.lines.select_related("product").order_by("id"))
    oversold = [
        Oversold(line=n, product=line.product, sold=line.qty, in_stock=line.qty - line.oversold)
        for n, line in enumerate(lines, start=1)
        if line.oversold
    ]
    return Recorded(receipt=receipt, created=False, oversold=oversold)


def sale_record(
    *,
    store: Store,
    lines: Sequence[SaleLine],
    actor: str,
    sold_at: dt.datetime | None = None,
    external_id: str = "",
    idempotency_key: str = "",
) -> Recorded:
    """Ring up a sale; each line's units leave stock through the journal.

    A line that sells more than the books hold is still recorded: the product's stock stops at
    zero and it is flagged ``needs_recount``. With ``idempotency_key`` or ``external_id``, a
    repeat of the same sale returns the first receipt (``created=False``) and changes nothing.

    Raises:
        NotFound: a product is not this store's.
        InvalidLine: a line's quantity is not 1..10,000 or its price is not an amount.
        InvalidInput: no lines, too many, a malformed key, or a time without a time zone.
        IdempotencyConflict: the key or external id already recorded a different sale.
    """
    actor = checks.actor_of(actor)
    at = checks.moment(sold_at)
    key = _key(idempotency_key, what="Idempotency-Key", max_length=MAX_KEY)
    external_id = _key(external_id, what="external_id", max_length=MAX_EXTERNAL_ID)
    checked = _sale_lines(store, lines)
    fingerprint = _fingerprint(
        Receipt.Kind.SALE,
        [external_id, [[line.product.pk, line.qty, line.unit_price] for _number, line in checked]],
    )
    with store_scope(store, what="product"), transaction.atomic():
        store_lock(store)
        earlier = _earlier(store, key=key, external_id=external_id, fingerprint=fingerprint)
        if earlier is not None:
            return _replayed(earlier)
        products = products_lock(store, {line.product.pk for _number, line in checked})
        receipt = Receipt.objects.create(
            store=store, number=_next_number(store), kind=Receipt.Kind.SALE, sold_at=at, total=Decimal("0.00"),
            actor=actor, external_id=external_id, idempotency_key=key, fingerprint=fingerprint,
        )
        stock = {pk: product.stock for pk, product in products.items()}
        rows, oversold = [], []
        for number, line in checked:
            product = products[line.product.pk]
            price = product.price if line.unit_price is None else line.unit_price
            short = max(line.qty - stock[product.pk], 0)
            if short:
                oversold.append(Oversold(line=number, product=product, sold=line.qty, in_stock=stock[product.pk]))
            stock[product.pk] = max(stock[product.pk] - line.qty, 0)
            rows.append(ReceiptLine(store=store, receipt=receipt, product=product, qty=line.qty, unit_price=price,
                                    line_total=to_cents(price * line.qty), oversold=short))
        ReceiptLine.objects.bulk_create(rows)
        receipt.total = to_cents(sum((row.line_total for row in rows), Decimal(0)))
        receipt.save(update_fields=["total"])
        months_add(store=store, receipts=[receipt], lines=rows)
        short_by = {item.product.pk for item in oversold}
        for pk in sorted(stock):
            product = products[pk]
            sold = sum(line.qty for _number, line in checked if line.product.pk == pk)
            note = _("receipt #%(number)s") % {"number": receipt.number}
            if pk in short_by:
                note += " " + _("(sold %(sold)s, the books held %(held)s: recount)") % {"sold": sold, "held": product.stock}
            journal_append(product=product, after=stock[pk], reason=StockEntry.Reason.SALE, actor=actor, at=at, note=note)
            if pk in short_by and not product.needs_recount:
                product.needs_recount = True
                product.save(update_fields=["needs_recount"])
    return Recorded(receipt=receipt, created=True, oversold=oversold)


def receipt_create(
    *,
    store: Store,
    lines: Lines,
    actor: str,
    sold_at: dt.datetime | None = None,
    move_stock: bool = True,
) -> Receipt:
    """Ring up a sale of (product, quantity) lines at the products' current prices.

    ``move_stock=False`` records imported history: the receipt is marked ``historical``, stock is
    untouched, and it is left out of the day's live figures and reconciliation.

    Raises:
        NotFound: a product is not this store's.
        InvalidLine: a quantity is not 1..10,000.
        InvalidInput: no lines, or a time without a time zone.
    """
    if not move_stock:
        return receipts_import(store=store, receipts=[(checks.moment(sold_at), lines)], actor=actor)[0]
    if isinstance(lines, (str, bytes)) or not lines:
        raise InvalidInput(_("A receipt needs at least one line."))
    sale_lines = []
    for line in lines:
        try:
            product, qty = line
        except (TypeError, ValueError):
            raise InvalidInput(_("Each receipt line is a product and a quantity.")) from None
        sale_lines.append(SaleLine(product=product, qty=qty))
    return sale_record(store=store, lines=sale_lines, actor=actor, sold_at=sold_at).receipt


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


def _history_lines(store: Store, receipt: Receipt, wanted: dict[int, int], products: dict[int, Product]) -> list[ReceiptLine]:
    return [
        ReceiptLine(store=store, receipt=receipt, product=products[pk], qty=qty, unit_price=products[pk].price,
                    line_total=to_cents(products[pk].price * qty))
        for pk, qty in wanted.items()
    ]


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
        lines = ReceiptLine.objects.bulk_create(
            [line for row, (_sold_at, wanted) in zip(rows, prepared, strict=True) for line in _history_lines(store, row, wanted, products)],
            batch_size=1000,
        )
        months_add(store=store, receipts=rows, lines=lines)
    return rows


# ---------------------------------------------------------------------------------------------
# Refunds and voids


def _refundable(store: Store, sale: Receipt) -> dict[int, tuple[int, Decimal]]:
    """Per product of the sale: units still refundable and the price they were sold at."""
    sold: dict[int, tuple[int, Decimal]] = {}
    for line in sale.lines.order_by("id"):
        units, price = sold.get(line.product_id, (0, line.unit_price))
        sold[line.product_id] = (units + line.qty, price)
    given_back = dict(
        ReceiptLine.objects.filter(store=store, receipt__refund_of=sale)
        .values("product_id").annotate(units=Sum("qty")).order_by().values_list("product_id", "units")
    )
    return {pk: (units + (given_back.get(pk) or 0), price) for pk, (units, price) in sold.items()}


def _refund_wanted(sale: Receipt, left: dict[int, tuple[int, Decimal]], lines: Lines | None) -> dict[int, int]:
    if lines is None:
        everything = {pk: units for pk, (units, _price) in left.items() if units > 0}
        if not everything:
            raise InvalidTransition(_("Everything on receipt #%(number)s was already given back.") % {"number": sale.number},
                                    status="refunded")
        return everything
    if isinstance(lines, (str, bytes)) or not lines:
        raise InvalidInput(_("A refund needs at least one line."))
    wanted: dict[int, int] = {}
    for number, line in enumerate(lines, start=1):
        product, qty = line
        try:
            qty = checks.line_qty(qty)
        except (InvalidInput, InvalidQuantity) as exc:
            raise InvalidLine(line=number, field="qty", reason=exc.message) from None
        if product.pk not in left:
            raise InvalidLine(line=number, field="sku", reason=_("%(name)s is not on receipt #%(number)s")
                              % {"name": product.name, "number": sale.number})
        wanted[product.pk] = wanted.get(product.pk, 0) + qty
        if wanted[product.pk] > left[product.pk][0]:
            raise InvalidLine(line=number, field="qty", reason=_("only %(left)s of %(name)s are left to give back on "
                              "receipt #%(number)s") % {"left": left[product.pk][0], "name": product.name,
                                                        "number": sale.number})
    return wanted


def receipt_refund(
    *,
    store: Store,
    receipt_id: int | str,
    actor: str,
    lines: Lines | None = None,
    void: bool = False,
    idempotency_key: str = "",
    now: dt.datetime | None = None,
) -> Recorded:
    """Give back (refund) some or all units of a sale, or void the whole sale, as a receipt of its own
    with negative lines; the units go back on the shelf through the journal.

    ``lines`` None refunds everything still refundable; ``void=True`` cancels a sale nothing was
    refunded from yet. A repeat with the same ``idempotency_key`` returns the first result.

    Raises:
        NotFound: no such sale in this store, or a product is not this store's.
        InvalidLine: a product is not on the sale, or more units than are left to give back.
        InvalidTransition: the receipt is a refund, void or imported history, or nothing is left.
        IdempotencyConflict: the key already recorded something else.
    """
    actor = checks.actor_of(actor)
    at = checks.moment(now)
    key = _key(idempotency_key, what="Idempotency-Key", max_length=MAX_KEY)
    pk = row_id(receipt_id, "receipt")
    kind = Receipt.Kind.VOID if void else Receipt.Kind.REFUND
    if lines is not None:
        for product, _qty in lines:
            if not isinstance(product, Product) or product.store_id != store.pk:
                raise NotFound("product")
    requested = None if lines is None else [[product.pk, qty] for product, qty in lines]
    fingerprint = _fingerprint(kind, [pk, requested])
    with store_scope(store, what="receipt"), transaction.atomic():
        store_lock(store)
        earlier = _earlier(store, key=key, external_id="", fingerprint=fingerprint)
        if earlier is not None:
            return Recorded(receipt=earlier, created=False)
        sale = Receipt.objects.filter(store=store, pk=pk).first()
        if sale is None:
            raise NotFound("receipt")
        if sale.kind != Receipt.Kind.SALE or sale.historical:
            raise InvalidTransition(_("Only a sale rung up here can be refunded or voided."), status=sale.kind)
        left = _refundable(store, sale)
        if void and any(units != sum(line.qty for line in sale.lines.all() if line.product_id == product_pk)
                        for product_pk, (units, _price) in left.items()):
            raise InvalidTransition(_("Part of receipt #%(number)s was already refunded; refund the rest instead of "
                                      "voiding it.") % {"number": sale.number}, status="refunded")
        wanted = _refund_wanted(sale, left, None if void else lines)
        products = products_lock(store, wanted)
        receipt = Receipt.objects.create(
            store=store, number=_next_number(store), kind=kind, refund_of=sale, sold_at=at, total=Decimal("0.00"),
            actor=actor, idempotency_key=key, fingerprint=fingerprint,
        )
        rows = ReceiptLine.objects.bulk_create([
            ReceiptLine(store=store, receipt=receipt, product=products[product_pk], qty=-units,
                        unit_price=left[product_pk][1], line_total=to_cents(-left[product_pk][1] * units))
            for product_pk, units in wanted.items()
        ])
        receipt.total = to_cents(sum((row.line_total for row in rows), Decimal(0)))
        receipt.save(update_fields=["total"])
        months_add(store=store, receipts=[receipt], lines=rows)
        reason = StockEntry.Reason.VOID if void else StockEntry.Reason.REFUND
        note = _("%(what)s of receipt #%(number)s") % {"what": kind.label, "number": sale.number}
        for product_pk in sorted(wanted):
            product = products[product_pk]
            journal_append(product=product, after=product.stock + wanted[product_pk], reason=reason, actor=actor,
                           at=at, note=note)
    return Recorded(receipt=receipt, created=True)
