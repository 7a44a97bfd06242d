"""The sums of a store's receipts, kept beside them: the store's per quarter-hour (``SalesQuarterHour``)
and each product's per month (``ProductSalesMonth``), both in UTC.

Every writer of receipts (``ledger.services.receipts``: sales, refunds and voids, imported history)
calls ``months_add`` in its own transaction, under the store lock it already holds, so the sums
move with the receipts or not at all and two writers never race on one row. ``months_rebuild``
recomputes a store's sums from its receipts (rows written around the services, such as a
benchmark's ``bulk_create``, or a repair), and ``months_drift`` lists the months where the sums
and the receipts disagree (the ``sales_months --check`` command).
"""

from __future__ import annotations

import datetime as dt
from collections import defaultdict
from collections.abc import Iterable
from dataclasses import asdict, dataclass
from decimal import Decimal

from django.db import transaction
from django.db.models import F, Sum
from django.db.models.functions import TruncMonth

from ledger.models import ProductSalesMonth, Receipt, ReceiptLine, SalesQuarterHour
from ledger.money import to_cents
from ledger.quarters import quarter_of
from ledger.scope import store_scope
from ledger.services.locks import store_lock
from tenants.models import Store

ZERO = Decimal("0.00")
_CHUNK = 500


def month_of(moment: dt.datetime) -> dt.date:
    """The first day of ``moment``'s UTC month."""
    utc = moment.astimezone(dt.UTC)
    return dt.date(utc.year, utc.month, 1)


@dataclass
class QuarterSums:
    """A store's quarter-hour as ``SalesQuarterHour`` keeps it."""

    sales: int = 0
    voids: int = 0
    revenue: Decimal = ZERO
    given_back: Decimal = ZERO
    units: int = 0


def _store_sums(receipts: Iterable[Receipt], lines: Iterable[ReceiptLine]) -> dict[dt.datetime, QuarterSums]:
    sums: dict[dt.datetime, QuarterSums] = defaultdict(QuarterSums)
    for receipt in receipts:
        row = sums[quarter_of(receipt.sold_at)]
        row.sales += receipt.kind == Receipt.Kind.SALE
        row.voids += receipt.kind == Receipt.Kind.VOID
        row.revenue += receipt.total
        if receipt.kind != Receipt.Kind.SALE:
            row.given_back += receipt.total
    for line in lines:
        sums[quarter_of(line.sold_at)].units += line.qty
    return sums


def months_add(*, store: Store, receipts: Iterable[Receipt], lines: Iterable[ReceiptLine]) -> None:
    """Add newly written receipts (with their final totals) and their lines to the month sums.

    The caller holds the store lock inside its transaction (every receipt writer does).
    """
    receipts, lines = list(receipts), list(lines)
    if not receipts and not lines:
        return
    with store_scope(store):
        quarters = _store_sums(receipts, lines)
        keys = sorted(quarters)
        for at in range(0, len(keys), _CHUNK):
            chunk = keys[at:at + _CHUNK]
            existing = set(SalesQuarterHour.objects.filter(store=store, starts__in=chunk).values_list("starts", flat=True))
            for starts in sorted(existing):
                row = quarters[starts]
                SalesQuarterHour.objects.filter(store=store, starts=starts).update(
                    sales=F("sales") + row.sales, voids=F("voids") + row.voids,
                    revenue=F("revenue") + row.revenue, given_back=F("given_back") + row.given_back,
                    units=F("units") + row.units,
                )
            SalesQuarterHour.objects.bulk_create([SalesQuarterHour(store=store, starts=starts, **asdict(quarters[starts]))
                                                  for starts in chunk if starts not in existing])
        per_product: dict[tuple[dt.date, int], list] = defaultdict(lambda: [0, ZERO])
        for line in lines:
            sums = per_product[(month_of(line.sold_at), line.product_id)]
            sums[0] += line.qty
            sums[1] += line.line_total
        by_month: dict[dt.date, dict[int, list]] = defaultdict(dict)
        for (month, product_id), sums in per_product.items():
            by_month[month][product_id] = sums
        for month, products in by_month.items():
            ids = sorted(products)
            moved: set[int] = set()
            for at in range(0, len(ids), _CHUNK):
                moved |= set(ProductSalesMonth.objects.filter(store=store, month=month, product_id__in=ids[at:at + _CHUNK])
                                .values_list("product_id", flat=True))
            for product_id in sorted(moved):
                units, revenue = products[product_id]
                ProductSalesMonth.objects.filter(store=store, month=month, product_id=product_id).update(
                    units=F("units") + units, revenue=F("revenue") + revenue)
            ProductSalesMonth.objects.bulk_create([
                ProductSalesMonth(store=store, month=month, product_id=product_id, units=units, revenue=revenue)
                for product_id, (units, revenue) in sorted(products.items()) if product_id not in moved
            ], batch_size=1000)


def _from_receipts(store: Store) -> tuple[dict[dt.datetime, QuarterSums], dict[tuple[dt.date, int], tuple[int, Decimal]]]:
    """The sums as the receipts and lines say they are: the quarter-hours folded here from the rows'
    times and amounts, the product months grouped in the database."""
    quarters: dict[dt.datetime, QuarterSums] = defaultdict(QuarterSums)
    for sold_at, kind, total in Receipt.objects.filter(store=store).values_list("sold_at", "kind", "total").iterator(2000):
        row = quarters[quarter_of(sold_at)]
        row.sales += kind == Receipt.Kind.SALE
        row.voids += kind == Receipt.Kind.VOID
        row.revenue += total
        if kind != Receipt.Kind.SALE:
            row.given_back += total
    for sold_at, qty in ReceiptLine.objects.filter(store=store).values_list("sold_at", "qty").iterator(5000):
        quarters[quarter_of(sold_at)].units += qty
    for row in quarters.values():
        row.revenue, row.given_back = to_cents(row.revenue), to_cents(row.given_back)
    products: dict[tuple[dt.date, int], tuple[int, Decimal]] = {}
    lines = (ReceiptLine.objects.filter(store=store).annotate(m=TruncMonth("sold_at", tzinfo=dt.UTC))
             .values("m", "product_id").order_by().annotate(units=Sum("qty"), revenue=Sum("line_total")))
    for month, product_id, units, revenue in lines.values_list("m", "product_id", "units", "revenue"):
        products[(_as_date(month), product_id)] = (units or 0, to_cents(revenue or 0))
    return dict(quarters), products


def _as_date(value: dt.date | dt.datetime) -> dt.date:
    return value.date() if isinstance(value, dt.datetime) else value


def months_rebuild(*, store: Store) -> tuple[int, int]:
    """Recompute the store's sums from its receipts; returns (quarter-hours, product-months) written."""
    with store_scope(store), transaction.atomic():
        store_lock(store)
        quarters, products = _from_receipts(store)
        SalesQuarterHour.objects.filter(store=store).delete()
        ProductSalesMonth.objects.filter(store=store).delete()
        SalesQuarterHour.objects.bulk_create([SalesQuarterHour(store=store, starts=starts, **asdict(row))
                                              for starts, row in sorted(quarters.items())], batch_size=2000)
        ProductSalesMonth.objects.bulk_create([
            ProductSalesMonth(store=store, month=month, product_id=product_id, units=units, revenue=revenue)
            for (month, product_id), (units, revenue) in sorted(products.items())
        ], batch_size=2000)
    return len(quarters), len(products)


def months_drift(*, store: Store) -> list[dt.date]:
    """The UTC months in which the sums differ from the store's receipts (empty when they agree)."""
    with store_scope(store):
        quarters, products = _from_receipts(store)
        kept = {row.starts: QuarterSums(sales=row.sales, voids=row.voids, revenue=to_cents(row.revenue),
                                        given_back=to_cents(row.given_back), units=row.units)
                for row in SalesQuarterHour.objects.filter(store=store)}
        kept_products = {(row["month"], row["product_id"]): (row["units"], to_cents(row["revenue"]))
                         for row in ProductSalesMonth.objects.filter(store=store).values("month", "product_id", "units", "revenue")}
    empty = QuarterSums()
    drift = {month_of(starts) for starts in set(quarters) | set(kept) if quarters.get(starts, empty) != kept.get(starts, empty)}
    for key in set(products) | set(kept_products):
        if products.get(key, (0, ZERO)) != kept_products.get(key, (0, ZERO)):
            drift.add(key[0])
    return sorted(drift)
