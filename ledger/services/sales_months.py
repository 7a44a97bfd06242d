"""The monthly sums of a store's receipts (``SalesMonth``, ``ProductSalesMonth``), kept beside them.

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
from django.db.models import Count, F, Q, Sum
from django.db.models.functions import TruncMonth

from ledger.models import ProductSalesMonth, Receipt, ReceiptLine, SalesMonth
from ledger.money import to_cents
from ledger.scope import store_scope
from ledger.services.locks import store_lock
from tenants.models import Store

ZERO = Decimal("0.00")


def month_of(moment: dt.datetime) -> dt.date:
    """The first day of ``moment``'s UTC month."""
    utc = moment.astimezone(dt.UTC)
    return dt.date(utc.year, utc.month, 1)


@dataclass
class MonthSums:
    """A store's month as ``SalesMonth`` keeps it."""

    sales: int = 0
    voids: int = 0
    revenue: Decimal = ZERO
    given_back: Decimal = ZERO
    units: int = 0


def _store_sums(receipts: Iterable[Receipt], lines: Iterable[ReceiptLine]) -> dict[dt.date, MonthSums]:
    sums: dict[dt.date, MonthSums] = defaultdict(MonthSums)
    for receipt in receipts:
        row = sums[month_of(receipt.sold_at)]
        row.sales += receipt.kind == Receipt.Kind.SALE
        row.voids += receipt.kind == Receipt.Kind.VOID
        row.revenue += receipt.total
        if receipt.kind != Receipt.Kind.SALE:
            row.given_back += receipt.total
    for line in lines:
        sums[month_of(line.sold_at)].units += line.qty
    return sums


def months_add(*, store: Store, receipts: Iterable[Receipt], lines: Iterable[ReceiptLine]) -> None:
    """Add newly written receipts (with their final totals) and their lines to the month sums.

    The caller holds the store lock inside its transaction (every receipt writer does).
    """
    receipts, lines = list(receipts), list(lines)
    if not receipts and not lines:
        return
    with store_scope(store):
        for month, row in _store_sums(receipts, lines).items():
            if not SalesMonth.objects.filter(store=store, month=month).update(
                sales=F("sales") + row.sales, voids=F("voids") + row.voids,
                revenue=F("revenue") + row.revenue, given_back=F("given_back") + row.given_back,
                units=F("units") + row.units,
            ):
                SalesMonth.objects.create(store=store, month=month, **asdict(row))
        per_product: dict[tuple[dt.date, int], list] = defaultdict(lambda: [0, ZERO])
        for line in lines:
            sums = per_product[(month_of(line.sold_at), line.product_id)]
            sums[0] += line.qty
            sums[1] += line.line_total
        by_month: dict[dt.date, dict[int, list]] = defaultdict(dict)
        for (month, product_id), sums in per_product.items():
            by_month[month][product_id] = sums
        for month, products in by_month.items():
            existing = set(ProductSalesMonth.objects.filter(store=store, month=month, product_id__in=products)
                           .values_list("product_id", flat=True))
            for product_id in sorted(existing):
                units, revenue = products[product_id]
                ProductSalesMonth.objects.filter(store=store, month=month, product_id=product_id).update(
                    units=F("units") + units, revenue=F("revenue") + revenue)
            ProductSalesMonth.objects.bulk_create([
                ProductSalesMonth(store=store, month=month, product_id=product_id, units=units, revenue=revenue)
                for product_id, (units, revenue) in sorted(products.items()) if product_id not in existing
            ], batch_size=1000)


def _from_receipts(store: Store) -> tuple[dict[dt.date, MonthSums], dict[tuple[dt.date, int], tuple[int, Decimal]]]:
    """The month sums as the receipts and lines say they are (grouped in the database)."""
    utc_month = TruncMonth("sold_at", tzinfo=dt.UTC)
    totals: dict[dt.date, MonthSums] = defaultdict(MonthSums)
    receipts = (Receipt.objects.filter(store=store).annotate(m=utc_month).values("m").order_by()
                .annotate(sales=Count("id", filter=Q(kind=Receipt.Kind.SALE)),
                          voids=Count("id", filter=Q(kind=Receipt.Kind.VOID)),
                          revenue=Sum("total"), given_back=Sum("total", filter=~Q(kind=Receipt.Kind.SALE))))
    for month, sales, voids, revenue, given_back in receipts.values_list("m", "sales", "voids", "revenue", "given_back"):
        totals[_as_date(month)] = MonthSums(sales=sales, voids=voids, revenue=to_cents(revenue or 0),
                                            given_back=to_cents(given_back or 0))
    products: dict[tuple[dt.date, int], tuple[int, Decimal]] = {}
    lines = (ReceiptLine.objects.filter(store=store).annotate(m=utc_month).values("m", "product_id").order_by()
             .annotate(units=Sum("qty"), revenue=Sum("line_total")))
    for month, product_id, units, revenue in lines.values_list("m", "product_id", "units", "revenue"):
        products[(_as_date(month), product_id)] = (units or 0, to_cents(revenue or 0))
        totals[_as_date(month)].units += units or 0
    return dict(totals), products


def _as_date(value: dt.date | dt.datetime) -> dt.date:
    return value.date() if isinstance(value, dt.datetime) else value


def months_rebuild(*, store: Store) -> tuple[int, int]:
    """Recompute the store's month sums from its receipts; returns (months, product-months) written."""
    with store_scope(store), transaction.atomic():
        store_lock(store)
        totals, products = _from_receipts(store)
        SalesMonth.objects.filter(store=store).delete()
        ProductSalesMonth.objects.filter(store=store).delete()
        SalesMonth.objects.bulk_create([SalesMonth(store=store, month=month, **asdict(row))
                                        for month, row in sorted(totals.items())])
        ProductSalesMonth.objects.bulk_create([
            ProductSalesMonth(store=store, month=month, product_id=product_id, units=units, revenue=revenue)
            for (month, product_id), (units, revenue) in sorted(products.items())
        ], batch_size=2000)
    return len(totals), len(products)


def months_drift(*, store: Store) -> list[dt.date]:
    """The UTC months whose sums differ from the store's receipts (empty when they agree)."""
    with store_scope(store):
        totals, products = _from_receipts(store)
        kept = {row.month: MonthSums(sales=row.sales, voids=row.voids, revenue=to_cents(row.revenue),
                                     given_back=to_cents(row.given_back), units=row.units)
                for row in SalesMonth.objects.filter(store=store)}
        kept_products = {(row["month"], row["product_id"]): (row["units"], to_cents(row["revenue"]))
                         for row in ProductSalesMonth.objects.filter(store=store).values("month", "product_id", "units", "revenue")}
    empty = MonthSums()
    drift = {month for month in set(totals) | set(kept) if totals.get(month, empty) != kept.get(month, empty)}
    for key in set(products) | set(kept_products):
        if products.get(key, (0, ZERO)) != kept_products.get(key, (0, ZERO)):
            drift.add(key[0])
    return sorted(drift)
