"""Reads of the store's sales over any period: totals, per product, per category, per day, and a
comparison of two periods. Every function takes the store; nothing here writes.

Figures are net: a refund or a void is a receipt of its own with negative lines, counted in the
period it was recorded, so it takes its amount and units off that period; a voided sale no longer
counts as a receipt. Imported history counts like any other sale (these are the books over time).
Periods come from ``ledger.periods`` (the store's local days); bounds are aware datetimes,
``[start, end)``. A period reads the sums that the receipt writers keep (``ledger.services.sales_months``):
its totals and days from the store's quarter-hours inside it, its products and categories from the
whole UTC months inside it, and only the minutes or days around those from the receipts and lines,
so a year of a big store sums a few thousand rows instead of every line.
"""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass, field
from decimal import Decimal

from django.db.models import Count, Q, Sum
from django.db.models.functions import TruncDate
from django.utils.translation import gettext as _

from ledger.errors import InvalidInput
from ledger.models import Product, ProductSalesMonth, Receipt, ReceiptLine, SalesQuarterHour
from ledger.money import to_cents
from ledger.periods import Period
from ledger.quarters import QUARTER, quarter_of
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


def _utc_month(year: int, month: int) -> dt.datetime:
    year, month = year + (month - 1) // 12, (month - 1) % 12 + 1
    return dt.datetime(year, month, 1, tzinfo=dt.UTC)


def month_split(start: dt.datetime, end: dt.datetime) -> tuple[list[dt.date], list[tuple[dt.datetime, dt.datetime]]]:
    """The whole UTC months inside ``[start, end)`` (read from the month sums) and the spans around them
    (read from the receipts); with no whole month inside, the one span is the period itself."""
    start_utc, end_utc = start.astimezone(dt.UTC), end.astimezone(dt.UTC)
    first = _utc_month(start_utc.year, start_utc.month)
    if first < start_utc:
        first = _utc_month(start_utc.year, start_utc.month + 1)
    last = _utc_month(end_utc.year, end_utc.month)
    if first >= last:
        return [], [(start, end)] if start < end else []
    months = []
    at = first
    while at < last:
        months.append(at.date())
        at = _utc_month(at.year, at.month + 1)
    edges = [(a, b) for a, b in ((start, first), (last, end)) if a < b]
    return months, edges


def _product_sums(store: Store, start: dt.datetime, end: dt.datetime, group: str, **filters) -> dict:
    """Net units and revenue per ``group`` ("product_id", "product__category") over ``[start, end)``:
    the lines of the edges and the month sums of the whole months, added up."""
    months, edges = month_split(start, end)
    parts = [_lines(store, a, b).filter(**filters).values(group).annotate(units=Sum("qty"), revenue=Sum("line_total"))
             for a, b in edges]  # one query per edge: an OR of two ranges would scan the store's index
    if months:
        parts.append(ProductSalesMonth.objects.filter(store=store, month__gte=months[0], month__lte=months[-1], **filters)
                     .values(group).annotate(units=Sum("units"), revenue=Sum("revenue")))
    sums: dict = {}
    with store_scope(store):
        for rows in parts:
            for key, units, revenue in rows.order_by().values_list(group, "units", "revenue"):
                if key in sums:
                    sums[key] = (sums[key][0] + (units or 0), sums[key][1] + (revenue or 0))
                else:
                    sums[key] = (units or 0, revenue or 0)
    return {key: (int(units), to_cents(revenue)) for key, (units, revenue) in sums.items()}


def quarter_split(start: dt.datetime, end: dt.datetime) -> tuple[tuple[dt.datetime, dt.datetime] | None,
                                                                  list[tuple[dt.datetime, dt.datetime]]]:
    """The whole quarter-hours inside ``[start, end)`` as one span (read from the sums) and the minutes
    around them (read from the receipts); with no whole quarter-hour inside, the one span is the period."""
    first = quarter_of(start)
    if first < start:
        first += QUARTER
    last = quarter_of(end)
    if first >= last:
        return None, [(start, end)] if start < end else []
    return (first, last), [(a, b) for a, b in ((start, first), (last, end)) if a < b]


_TOTALS = {"sales": Sum("sales"), "voids": Sum("voids"), "revenue": Sum("revenue"), "given_back": Sum("given_back"),
           "units": Sum("units")}


def _receipt_totals(receipts) -> dict:
    return receipts.aggregate(
        sales=Count("id", filter=Q(kind=Receipt.Kind.SALE)),
        voids=Count("id", filter=Q(kind=Receipt.Kind.VOID)),
        revenue=Sum("total"),
        given_back=Sum("total", filter=~Q(kind=Receipt.Kind.SALE)),
    )


def sales_figures(*, store: Store, start: dt.datetime, end: dt.datetime) -> SalesFigures:
    """Receipts, net revenue, net units and what was given back, for ``[start, end)``.

    The whole quarter-hours come from the store's sums (``ledger.services.sales_months``), the minutes
    around them from the receipts.
    """
    inside, edges = quarter_split(start, end)
    parts = []
    with store_scope(store):
        for a, b in edges:  # one query per edge and table: each reads one range of its index
            totals = _receipt_totals(_receipts(store, a, b))
            totals["units"] = _lines(store, a, b).aggregate(units=Sum("qty"))["units"]
            parts.append(totals)
        if inside is not None:
            parts.append(SalesQuarterHour.objects.filter(store=store, starts__gte=inside[0], starts__lt=inside[1])
                         .aggregate(**_TOTALS))

    def total(name: str) -> Decimal | int:
        return sum((part[name] or 0 for part in parts), 0)

    return SalesFigures(
        receipts=max(int(total("sales")) - int(total("voids")), 0),
        revenue=to_cents(total("revenue")),
        units=int(total("units")),
        given_back=to_cents(-total("given_back")),
    )


def sales_of_products(
    *, store: Store, start: dt.datetime, end: dt.datetime, product_ids: list[int] | None = None,
    category: str | None = None,
) -> dict[int, tuple[int, Decimal]]:
    """Net units and revenue per product id for ``[start, end)`` (only products that moved)."""
    filters: dict[str, object] = {}
    if product_ids is not None:
        filters["product_id__in"] = product_ids
    if category:
        filters["product__category__iexact"] = category
    return {pk: sums for pk, sums in _product_sums(store, start, end, "product_id", **filters).items()}


def sales_by_category(*, store: Store, start: dt.datetime, end: dt.datetime) -> list[SalesRow]:
    """Net units and revenue per category, most revenue first."""
    sums = _product_sums(store, start, end, "product__category")
    result = [SalesRow(name=name, units=units, revenue=revenue) for name, (units, revenue) in sums.items()]
    return sorted(result, key=lambda row: (-row.revenue, -row.units, row.name))


def sales_by_day(*, store: Store, period: Period) -> list[SalesRow]:
    """Net units and revenue per local day of the period, oldest first; quiet days are zero.

    The store's quarter-hours are folded into its local days here (a local midnight is always the
    start of a quarter-hour); only the minutes around the whole quarter-hours are read from the receipts.
    """
    tz = store_tz(store)
    inside, edges = quarter_split(period.start, period.end)
    revenue: dict[dt.date, Decimal] = {}
    units: dict[dt.date, int] = {}
    with store_scope(store):
        if inside is not None:
            quarters = SalesQuarterHour.objects.filter(store=store, starts__gte=inside[0], starts__lt=inside[1])
            for starts, amount, count in quarters.values_list("starts", "revenue", "units"):
                day = starts.astimezone(tz).date()
                revenue[day] = revenue.get(day, Decimal(0)) + amount
                units[day] = units.get(day, 0) + count
        for a, b in edges:
            for day, amount in (_receipts(store, a, b).annotate(day=TruncDate("sold_at", tzinfo=tz))
                                .values("day").annotate(revenue=Sum("total")).order_by().values_list("day", "revenue")):
                revenue[day] = revenue.get(day, Decimal(0)) + (amount or 0)
            for day, count in (_lines(store, a, b).annotate(day=TruncDate("sold_at", tzinfo=tz))
                               .values("day").annotate(units=Sum("qty")).order_by().values_list("day", "units")):
                units[day] = units.get(day, 0) + (count or 0)
    days = []
    for offset in range(period.days):
        day = period.first_day + dt.timedelta(days=offset)
        days.append(SalesRow(name=day.isoformat(), day=day, units=int(units.get(day) or 0),
                             revenue=to_cents(revenue.get(day) or 0)))
    return days


# Past this many products tied at the cut of a ranking, the names are read for the whole catalog at once.
_NAMES_BY_ID = 500


def products_ranked(*, store: Store, period: Period, category: str | None = None, sort: str = "best",
                    limit: int | None = None) -> list[SalesRow]:
    """Products by units (then revenue, then name), best or worst first; the worst include active products
    that sold nothing. With ``limit``, names are read only for the products that can make the cut."""
    sold = sales_of_products(store=store, start=period.start, end=period.end, category=category)
    products = Product.objects.filter(store=store)
    if category:
        products = products.filter(category__iexact=category)
    zero = (0, to_cents(0))
    sums = dict(sold)
    if sort == "worst":
        with store_scope(store):
            sums.update((pk, zero) for pk in products.filter(active=True).values_list("pk", flat=True) if pk not in sold)

    def order(pk: int) -> tuple:
        units, revenue = sums[pk]
        return (units, revenue) if sort == "worst" else (-units, -revenue)

    wanted = sorted(sums, key=order)
    if limit is not None and len(wanted) > limit:
        cut = order(wanted[limit - 1])
        wanted = [pk for pk in wanted if order(pk) <= cut]  # the ties at the cut are settled by name
    with store_scope(store):
        named = products if len(wanted) > _NAMES_BY_ID else products.filter(pk__in=wanted)
        names = dict(named.values_list("pk", "name"))
    rows = [SalesRow(name=names[pk], product_id=pk, units=sums[pk][0], revenue=sums[pk][1]) for pk in wanted if pk in names]
    rows.sort(key=lambda row: (*order(row.product_id), row.name))  # type: ignore[arg-type]
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
