"""Reads of the store's sales over any period: totals, per product, per category, per day, and a
comparison of two periods. Every function takes the store; nothing here writes.

Figures are net: a refund or a void is a receipt of its own with negative lines, counted in the
period it was recorded, so it takes its amount and units off that period; a voided sale no longer
counts as a receipt. Imported history counts like any other sale (these are the books over time).
Periods come from ``ledger.periods`` (the store's local days); bounds are aware datetimes,
``[start, end)``.
"""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass, field
from decimal import Decimal

from django.db.models import Count, Q, Sum
from django.db.models.functions import TruncDate
from django.utils.translation import gettext as _

from ledger.errors import InvalidInput
from ledger.models import Product, Receipt, ReceiptLine
from ledger.money import to_cents
from ledger.periods import Period
from ledger.scope import store_scope
from ledger.selectors import store_tz
from tenants.models import Store

MAX_ROWS = 50
GROUPS = ("product", "category", "day")
SORTS = ("best", "worst")


@dataclass(frozen=True)
class SalesFigures:
    """One period's totals.

    Attributes:
        receipts: sales rung up in the period, less the sales voided in it.
        revenue: what the period's receipts came to, refunds and voids taken off.
        units: units sold, less units given back.
        given_back: the refunds and voids recorded in the period, as a positive amount.
    """

    receipts: int
    revenue: Decimal
    units: int
    given_back: Decimal

    @property
    def average_basket(self) -> Decimal | None:
        return to_cents(self.revenue / self.receipts) if self.receipts > 0 else None


@dataclass(frozen=True)
class SalesRow:
    """A product's, a category's or a day's share of a period (net)."""

    name: str
    units: int
    revenue: Decimal
    product_id: int | None = None
    day: dt.date | None = None


@dataclass(frozen=True)
class PeriodSales:
    """A period's sales: totals, and optionally one product's or category's share and a ranking."""

    period: Period
    figures: SalesFigures
    focus: SalesRow | None = None
    rows: list[SalesRow] = field(default_factory=list)


def _receipts(store: Store, start: dt.datetime, end: dt.datetime):
    return Receipt.objects.filter(store=store, sold_at__gte=start, sold_at__lt=end)


def _lines(store: Store, start: dt.datetime, end: dt.datetime):
    return ReceiptLine.objects.filter(store=store, sold_at__gte=start, sold_at__lt=end)


def sales_figures(*, store: Store, start: dt.datetime, end: dt.datetime) -> SalesFigures:
    """Receipts, net revenue, net units and what was given back, for ``[start, end)``."""
    with store_scope(store):
        totals = _receipts(store, start, end).aggregate(
            sales=Count("id", filter=Q(kind=Receipt.Kind.SALE)),
            voids=Count("id", filter=Q(kind=Receipt.Kind.VOID)),
            revenue=Sum("total"),
            given_back=Sum("total", filter=~Q(kind=Receipt.Kind.SALE)),
        )
        units = _lines(store, start, end).aggregate(units=Sum("qty"))["units"]
    return SalesFigures(
        receipts=max((totals["sales"] or 0) - (totals["voids"] or 0), 0),
        revenue=to_cents(totals["revenue"] or 0),
        units=int(units or 0),
        given_back=to_cents(-(totals["given_back"] or 0)),
    )


def sales_of_products(
    *, store: Store, start: dt.datetime, end: dt.datetime, product_ids: list[int] | None = None,
    category: str | None = None,
) -> dict[int, tuple[int, Decimal]]:
    """Net units and revenue per product id for ``[start, end)`` (only products that moved)."""
    lines = _lines(store, start, end)
    if product_ids is not None:
        lines = lines.filter(product_id__in=product_ids)
    if category:
        lines = lines.filter(product__category__iexact=category)
    with store_scope(store):
        rows = lines.values("product_id").annotate(units=Sum("qty"), revenue=Sum("line_total")).order_by()
        return {row["product_id"]: (int(row["units"] or 0), to_cents(row["revenue"] or 0)) for row in rows}


def sales_by_category(*, store: Store, start: dt.datetime, end: dt.datetime) -> list[SalesRow]:
    """Net units and revenue per category, most revenue first."""
    with store_scope(store):
        rows = list(
            _lines(store, start, end).values("product__category")
            .annotate(units=Sum("qty"), revenue=Sum("line_total")).order_by()
        )
    result = [SalesRow(name=row["product__category"], units=int(row["units"] or 0),
                       revenue=to_cents(row["revenue"] or 0)) for row in rows]
    return sorted(result, key=lambda row: (-row.revenue, -row.units, row.name))


def sales_by_day(*, store: Store, period: Period) -> list[SalesRow]:
    """Net units and revenue per local day of the period, oldest first; quiet days are zero."""
    tz = store_tz(store)
    with store_scope(store):
        revenue = {
            row["day"]: row["revenue"]
            for row in _receipts(store, period.start, period.end).annotate(day=TruncDate("sold_at", tzinfo=tz))
            .values("day").annotate(revenue=Sum("total")).order_by()
        }
        units = {
            row["day"]: row["units"]
            for row in _lines(store, period.start, period.end).annotate(day=TruncDate("sold_at", tzinfo=tz))
            .values("day").annotate(units=Sum("qty")).order_by()
        }
    days = []
    for offset in range(period.days):
        day = period.first_day + dt.timedelta(days=offset)
        days.append(SalesRow(name=day.isoformat(), day=day, units=int(units.get(day) or 0),
                             revenue=to_cents(revenue.get(day) or 0)))
    return days


def products_ranked(*, store: Store, period: Period, category: str | None = None, sort: str = "best",
                    limit: int | None = None) -> list[SalesRow]:
    """Products by units (then revenue), best or worst first; the worst include active products that sold nothing."""
    sold = sales_of_products(store=store, start=period.start, end=period.end, category=category)
    products = Product.objects.filter(store=store)
    if category:
        products = products.filter(category__iexact=category)
    with store_scope(store):
        catalog = list(products.values_list("pk", "name", "active"))
    zero = (0, to_cents(0))
    rows = [SalesRow(name=name, product_id=pk, units=sold.get(pk, zero)[0], revenue=sold.get(pk, zero)[1])
            for pk, name, active in catalog if pk in sold or (sort == "worst" and active)]
    if sort == "worst":
        rows.sort(key=lambda row: (row.units, row.revenue, row.name))
    else:
        rows.sort(key=lambda row: (-row.units, -row.revenue, row.name))
    return rows if limit is None else rows[:limit]


def period_sales(
    *, store: Store, period: Period, product: Product | None = None, category: str | None = None,
    group_by: str | None = None, sort: str = "best", limit: int = 5,
) -> PeriodSales:
    """The period's totals, the product's (or the category's) share, and a ranking when ``group_by`` asks.

    Raises:
        InvalidInput: an unknown grouping or sort, a limit outside 1..50, or another store's product.
    """
    if group_by is not None and group_by not in GROUPS:
        raise InvalidInput(_("Group sales by one of: %(groups)s.") % {"groups": ", ".join(GROUPS)})
    if sort not in SORTS:
        raise InvalidInput(_("Sort sellers by one of: %(sorts)s.") % {"sorts": ", ".join(SORTS)})
    if isinstance(limit, bool) or not isinstance(limit, int) or not 1 <= limit <= MAX_ROWS:
        raise InvalidInput(_("Ask for between 1 and %(max)s rows.") % {"max": MAX_ROWS})
    if product is not None and product.store_id != store.pk:
        raise InvalidInput(_("That product is not this store's."))
    figures = sales_figures(store=store, start=period.start, end=period.end)
    focus = None
    if product is not None:
        units, revenue = sales_of_products(store=store, start=period.start, end=period.end,
                                           product_ids=[product.pk]).get(product.pk, (0, to_cents(0)))
        focus = SalesRow(name=product.name, product_id=product.pk, units=units, revenue=revenue)
    elif category:
        sold = sales_of_products(store=store, start=period.start, end=period.end, category=category)
        focus = SalesRow(name=category, units=sum(u for u, _r in sold.values()),
                         revenue=to_cents(sum((r for _u, r in sold.values()), Decimal(0))))
    rows: list[SalesRow] = []
    if group_by == "product":
        rows = products_ranked(store=store, period=period, category=category, sort=sort, limit=limit)
    elif group_by == "category":
        rows = sales_by_category(store=store, start=period.start, end=period.end)
        rows = (rows[::-1] if sort == "worst" else rows)[:limit]
    elif group_by == "day":
        rows = sales_by_day(store=store, period=period)
    return PeriodSales(period=period, figures=figures, focus=focus, rows=rows)


def store_categories(*, store: Store) -> list[str]:
    """The store's product categories (active products), by name."""
    with store_scope(store):
        return sorted(set(Product.objects.filter(store=store, active=True).values_list("category", flat=True)))
