"""Reads of the store's books. Every function takes the store; nothing here writes.

Rows are always looked up inside the given store, so another store's id answers exactly like
a missing one (``NotFound``). Lists come back evaluated, with their lines prefetched, so the
number of queries does not grow with the number of rows.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Mapping
from dataclasses import dataclass
from decimal import Decimal
from typing import Any, NamedTuple
from zoneinfo import ZoneInfo

from django.db.models import Count, F, Max, Prefetch, Q, Sum, TextField
from django.db.models.functions import Cast, TruncDate
from django.utils import timezone
from django.utils.translation import gettext as _

from ledger import matching
from ledger.errors import InvalidInput, NotFound
from ledger.models import (
    DraftLine,
    Order,
    OrderLine,
    Product,
    Receipt,
    ReceiptLine,
    Reconciliation,
    ReconciliationLine,
    ReorderDraft,
    StockEntry,
)
from ledger.money import to_cents
from ledger.scope import store_scope
from tenants.models import Store

TOP_SELLERS = 5


# ---------------------------------------------------------------------------------------------
# Store-local days


def store_tz(store: Store) -> ZoneInfo:
    return ZoneInfo(store.timezone)


def local_day_bounds(*, store: Store, now: dt.datetime | None = None) -> tuple[dt.date, dt.datetime, dt.datetime]:
    """The store's local date at ``now`` and its start and end as aware datetimes."""
    tz = store_tz(store)
    local = (now or timezone.now()).astimezone(tz)
    day = local.date()
    return day, _local_midnight(day, tz), _local_midnight(day + dt.timedelta(days=1), tz)


def _local_midnight(day: dt.date, tz: ZoneInfo) -> dt.datetime:
    # Midnight can fall in a DST gap in a few zones; normalising through UTC gives the real instant.
    return dt.datetime.combine(day, dt.time.min, tzinfo=tz).astimezone(dt.UTC).astimezone(tz)


def row_id(value: Any, what: str) -> int:
    """A row id from a caller (URL, tool argument); anything that is not one is simply not found."""
    if isinstance(value, bool):
        raise NotFound(what)
    try:
        number = int(value)
    except (TypeError, ValueError):
        raise NotFound(what) from None
    if number < 1 or number > 2**63 - 1:
        raise NotFound(what)
    return number


def _fold(text: str) -> str:
    return " ".join(text.split()).casefold()


# ---------------------------------------------------------------------------------------------
# Products


def product_get(*, store: Store, product_id: int | str) -> Product:
    """The store's product with that id.

    Raises:
        NotFound: no such product in this store.
    """
    pk = row_id(product_id, "product")
    with store_scope(store, what="product"):
        product = Product.objects.filter(store=store, pk=pk).first()
    if product is None:
        raise NotFound("product")
    return product


def _rows(rows: list[tuple[int, str, list]], store: Store, pks: list[int]) -> list[Product]:
    """The full rows of the products with these ids, in that order (a matcher reads only names)."""
    with store_scope(store, what="product"):
        found = Product.objects.filter(store=store, pk__in=pks).in_bulk()
    return [found[pk] for pk in pks if pk in found]


def _names(store: Store, *ordering: str) -> list[tuple[int, str, list]]:
    """(id, name, aliases) of the store's active products: all a name lookup reads of a big catalog."""
    with store_scope(store, what="product"):
        products = Product.objects.filter(store=store, active=True)
        return list((products.order_by(*ordering) if ordering else products).values_list("pk", "name", "aliases"))


def product_by_name(*, store: Store, name: str) -> Product | None:
    """The active product whose name or one of whose aliases is exactly ``name`` (any case)."""
    wanted = _fold(name or "")
    if not wanted:
        return None
    rows = _names(store)
    hit = next((pk for pk, product_name, _aliases in rows if _fold(product_name) == wanted), None)
    if hit is None:
        hit = next((pk for pk, _name, aliases in rows if any(_fold(str(alias)) == wanted for alias in aliases or ())), None)
    return None if hit is None else next(iter(_rows(rows, store, [hit])), None)


def product_match(*, store: Store, text: str, limit: int = 5) -> list[Product]:
    """The store's active products that spoken or typed ``text`` probably means, best first.

    Ranked by the one product matcher (``ledger.matching.Matcher``): exact names and aliases
    first, then close ones, plural or singular ("samosas" and "Frozen samosa" meet).
    """
    if not matching.folded(text) or limit < 1:
        return []
    rows = _names(store, "name", "pk")
    matcher = matching.Matcher((pk, [name, *(str(alias) for alias in aliases or ())]) for pk, name, aliases in rows)
    return _rows(rows, store, [match.id for match in matcher.rank(text, limit=limit)])


def product_search_q(term: str) -> Q:
    """The products a list search finds: every word starts a word of the name or an alias
    (``ledger.matching.search_spellings``). The queryset must be annotated with ``aliases_text``
    (the aliases' JSON as text, where each alias starts after a quote)."""
    condition = Q()
    for spellings in matching.search_spellings(term):
        either = Q()
        for spelling in spellings:
            either |= Q(name__istartswith=spelling) | Q(name__icontains=f" {spelling}")
            either |= Q(aliases_text__icontains=f'"{spelling}') | Q(aliases_text__icontains=f" {spelling}")
        condition &= either
    return condition


def product_list(
    *,
    store: Store,
    search: str | None = None,
    low_only: bool = False,
    category: str | None = None,
    active: bool | None = True,
    code: str | None = None,
) -> list[Product]:
    """The store's products by name (active ones unless ``active`` says otherwise), optionally filtered.

    ``search`` finds products where each of its words (or its singular) starts a word of the name
    or an alias, any case; ``low_only`` keeps products at or below their reorder point; ``category`` is matched case-insensitively;
    ``code`` is an exact SKU or barcode; ``active=None`` lists archived products too.
    """
    queryset = Product.objects.filter(store=store)
    if active is not None:
        queryset = queryset.filter(active=active)
    if code:
        queryset = queryset.filter(Q(sku=code.strip()) | Q(barcode__iexact=code.strip()))
    term = " ".join((search or "").split())
    if term:
        queryset = queryset.annotate(aliases_text=Cast("aliases", TextField())).filter(product_search_q(term))
    if low_only:
        queryset = queryset.filter(stock__lte=F("reorder_point"))
    if category:
        queryset = queryset.filter(category__iexact=category.strip())
    with store_scope(store, what="product"):
        return list(queryset.order_by("name"))


def catalog_version(*, store: Store) -> tuple[int, int, int, str]:
    """A fingerprint of the store's catalog that changes with every catalog write (not with stock):
    the number of products, the sum of their edit versions, the highest id and the latest creation."""
    with store_scope(store, what="product"):
        row = Product.objects.filter(store=store).aggregate(
            n=Count("id"), v=Sum("version"), top=Max("id"), newest=Max("created_at")
        )
    return int(row["n"] or 0), int(row["v"] or 0), int(row["top"] or 0), str(row["newest"] or "")


def products_by_code(*, store: Store, skus: set[str], barcodes: set[str]) -> tuple[dict[str, Product], dict[str, Product]]:
    """The store's products with these SKUs (exact) and barcodes (any case), as two lookups."""
    with store_scope(store, what="product"):
        by_sku = {p.sku: p for p in Product.objects.filter(store=store, sku__in=skus)} if skus else {}
        wanted = {b.casefold() for b in barcodes}
        by_barcode = (
            {p.barcode.casefold(): p for p in Product.objects.filter(store=store).exclude(barcode="")
             if p.barcode.casefold() in wanted}
            if barcodes else {}
        )
    return by_sku, by_barcode


def receipt_list(*, store: Store, since: dt.datetime | None = None, until: dt.datetime | None = None,
                 kind: str | None = None):
    """The store's receipts, newest first, with their lines and products (a queryset to page through)."""
    queryset = Receipt.objects.filter(store=store).prefetch_related(
        Prefetch("lines", queryset=ReceiptLine.objects.select_related("product").order_by("id"))
    )
    if since is not None:
        queryset = queryset.filter(sold_at__gte=since)
    if until is not None:
        queryset = queryset.filter(sold_at__lt=until)
    if kind:
        queryset = queryset.filter(kind=kind)
    return queryset.order_by("-sold_at", "-id")


def receipt_get(*, store: Store, receipt_id: int | str) -> Receipt:
    """The store's receipt with that id, with its lines.

    Raises:
        NotFound: no such receipt in this store.
    """
    pk = row_id(receipt_id, "receipt")
    with store_scope(store, what="receipt"):
        receipt = receipt_list(store=store).filter(pk=pk).first()
    if receipt is None:
        raise NotFound("receipt")
    return receipt


def journal_for(*, store: Store, product: Product) -> list[StockEntry]:
    """The product's stock journal, oldest first.

    Raises:
        NotFound: the product is not this store's.
    """
    if product.store_id != store.pk:
        raise NotFound("product")
    with store_scope(store, what="product"):
        return list(StockEntry.objects.filter(store=store, product_id=product.pk).order_by("created_at", "id"))


# ---------------------------------------------------------------------------------------------
# Sales


class TopSeller(NamedTuple):
    product: str
    units: int
    revenue: Decimal


@dataclass(frozen=True)
class SalesToday:
    """A store's sales for its local day.

    Attributes:
        date: the store's local date.
        receipts: sales rung up that day (imported history, refunds and voids excluded).
        revenue: their total less refunds and voids, in the store's currency.
        units: units sold, net of refunds.
        top_sellers: up to five products by units sold, then revenue.
    """

    date: dt.date
    receipts: int
    revenue: Decimal
    units: int
    top_sellers: list[TopSeller]


@dataclass(frozen=True)
class DaySales:
    """One local day of sales (imported history included)."""

    date: dt.date
    receipts: int
    revenue: Decimal
    units: int


@dataclass(frozen=True)
class ProductSales:
    product_id: int
    product: str
    units: int
    revenue: Decimal


def product_sales_between(*, store: Store, start: dt.datetime, end: dt.datetime) -> list[ProductSales]:
    """Units and revenue per product for live receipts in [start, end), net of refunds, most units first."""
    with store_scope(store):
        rows = list(
            ReceiptLine.objects.filter(
                store=store, receipt__sold_at__gte=start, receipt__sold_at__lt=end, receipt__historical=False
            )
            .values("product_id", "product__name")
            .annotate(units=Sum("qty"), revenue=Sum("line_total"))
            .order_by("-units", "-revenue", "product__name")
        )
    return [
        ProductSales(
            product_id=row["product_id"],
            product=row["product__name"],
            units=int(row["units"] or 0),
            revenue=to_cents(row["revenue"] or 0),
        )
        for row in rows
    ]


def sales_today(*, store: Store, now: dt.datetime | None = None) -> SalesToday:
    """Receipts, revenue, units and top sellers for the store's local today."""
    day, start, end = local_day_bounds(store=store, now=now)
    with store_scope(store):
        totals = Receipt.objects.filter(store=store, sold_at__gte=start, sold_at__lt=end, historical=False).aggregate(
            receipts=Count("id", filter=Q(kind=Receipt.Kind.SALE)), revenue=Sum("total")
        )
        per_product = product_sales_between(store=store, start=start, end=end)
    return SalesToday(
        date=day,
        receipts=totals["receipts"] or 0,
        revenue=to_cents(totals["revenue"] or 0),
        units=sum(row.units for row in per_product),
        top_sellers=[TopSeller(row.product, row.units, row.revenue) for row in per_product[:TOP_SELLERS]],
    )


def sales_by_day(*, store: Store, days: int = 7, now: dt.datetime | None = None) -> list[DaySales]:
    """Sales per local day for the last ``days`` days up to today, oldest first; quiet days are zero.

    Raises:
        InvalidInput: ``days`` is not between 1 and 366.
    """
    if isinstance(days, bool) or not isinstance(days, int) or not 1 <= days <= 366:
        raise InvalidInput("Ask for between 1 and 366 days of sales.")
    today, _start, end = local_day_bounds(store=store, now=now)
    first = today - dt.timedelta(days=days - 1)
    tz = store_tz(store)
    start = _local_midnight(first, tz)
    with store_scope(store):
        receipts = {
            row["day"]: row
            for row in Receipt.objects.filter(store=store, sold_at__gte=start, sold_at__lt=end)
            .annotate(day=TruncDate("sold_at", tzinfo=tz))
            .values("day")
            .annotate(receipts=Count("id", filter=Q(kind=Receipt.Kind.SALE)), revenue=Sum("total"))
            .order_by()
        }
        units = {
            row["day"]: row["units"]
            for row in ReceiptLine.objects.filter(store=store, receipt__sold_at__gte=start, receipt__sold_at__lt=end)
            .annotate(day=TruncDate("receipt__sold_at", tzinfo=tz))
            .values("day")
            .annotate(units=Sum("qty"))
            .order_by()
        }
    result = []
    for offset in range(days):
        day = first + dt.timedelta(days=offset)
        row: Mapping[str, Any] = receipts.get(day, {})
        result.append(
            DaySales(
                date=day,
                receipts=row.get("receipts", 0),
                revenue=to_cents(row.get("revenue") or 0),
                units=int(units.get(day) or 0),
            )
        )
    return result


# ---------------------------------------------------------------------------------------------
# Drafts, orders, reconciliations


def _drafts(store: Store):
    return ReorderDraft.objects.filter(store=store).prefetch_related(
        Prefetch("lines", queryset=DraftLine.objects.select_related("product").order_by("id"))
    )


def draft_get(*, store: Store, draft_id: int | str) -> ReorderDraft:
    """The store's draft with that id, with its lines.

    Raises:
        NotFound: no such draft in this store.
    """
    pk = row_id(draft_id, "draft")
    with store_scope(store, what="draft"):
        draft = _drafts(store).filter(pk=pk).first()
    if draft is None:
        raise NotFound("draft")
    return draft


def draft_list(*, store: Store, status: str | None = None, now: dt.datetime | None = None) -> list[ReorderDraft]:
    """The store's drafts, newest first, with their lines.

    ``status="pending"`` lists only drafts that can still be confirmed (not past their expiry);
    a pending draft past its expiry is listed under ``"expired"``.

    Raises:
        InvalidInput: ``status`` is not a draft status.
    """
    queryset = _drafts(store)
    if status:
        if status not in ReorderDraft.Status.values:
            raise InvalidInput(_("Draft status must be one of: %(statuses)s.") % {"statuses": ", ".join(ReorderDraft.Status.values)})
        moment = now or timezone.now()
        if status == ReorderDraft.Status.PENDING:
            queryset = queryset.filter(status=status, expires_at__gt=moment)
        elif status == ReorderDraft.Status.EXPIRED:
            queryset = queryset.filter(
                Q(status=status) | Q(status=ReorderDraft.Status.PENDING, expires_at__lte=moment)
            )
        else:
            queryset = queryset.filter(status=status)
    with store_scope(store, what="draft"):
        return list(queryset.order_by("-created_at", "-id"))


def draft_pending(*, store: Store, now: dt.datetime | None = None) -> ReorderDraft | None:
    """The store's draft waiting for a yes or no (pending and not expired), if any."""
    drafts = draft_list(store=store, status=ReorderDraft.Status.PENDING, now=now)
    return drafts[0] if drafts else None


def order_get(*, store: Store, order_id: int | str) -> Order:
    """The store's order with that id, with its lines.

    Raises:
        NotFound: no such order in this store.
    """
    pk = row_id(order_id, "order")
    with store_scope(store, what="order"):
        order = _orders(store).filter(pk=pk).first()
    if order is None:
        raise NotFound("order")
    return order


def _orders(store: Store):
    return Order.objects.filter(store=store).prefetch_related(
        Prefetch("lines", queryset=OrderLine.objects.select_related("product").order_by("id"))
    )


def order_list(*, store: Store) -> list[Order]:
    """The store's orders, newest first, with their lines."""
    with store_scope(store, what="order"):
        return list(_orders(store).order_by("-placed_at", "-id"))


def _reconciliations(store: Store):
    return Reconciliation.objects.filter(store=store).prefetch_related(
        Prefetch("lines", queryset=ReconciliationLine.objects.select_related("product").order_by("product__name"))
    )


def reconciliation_get(*, store: Store, reconciliation_id: int | str) -> Reconciliation:
    """The store's day close with that id, with its lines (by product name).

    Raises:
        NotFound: no such reconciliation in this store.
    """
    pk = row_id(reconciliation_id, "reconciliation")
    with store_scope(store, what="reconciliation"):
        reconciliation = _reconciliations(store).filter(pk=pk).first()
    if reconciliation is None:
        raise NotFound("reconciliation")
    return reconciliation


def reconciliation_latest(*, store: Store) -> Reconciliation | None:
    """The store's most recent day close, with its lines (by product name), or None."""
    with store_scope(store):
        return _reconciliations(store).order_by("-created_at", "-id").first()


def draft_expiry_store_ids(*, now: dt.datetime | None = None) -> list[int]:
    """Ids of the stores with a pending draft past its expiry: platform maintenance, across stores.

    Runs past row-level security (``tenants.rls.bypass``) and returns ids only; each store's
    drafts are then expired inside that store's own context.
    """
    from tenants.rls import bypass

    with bypass():
        return sorted(
            ReorderDraft.objects.filter(status=ReorderDraft.Status.PENDING, expires_at__lte=now or timezone.now())
            .order_by()
            .values_list("store_id", flat=True)
            .distinct()
        )
