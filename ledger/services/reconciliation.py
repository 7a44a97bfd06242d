"""Closing the day: the day's sales against stock, and what needs reordering."""

from __future__ import annotations

import datetime as dt
from decimal import Decimal

from django.db import transaction
from django.db.models import Count, Q, Sum

from ledger.models import (
    Product,
    Receipt,
    Reconciliation,
    ReconciliationLine,
    StockEntry,
)
from ledger.money import to_cents
from ledger.scope import store_scope
from ledger.selectors import local_day_bounds, product_sales_between, reconciliation_get
from ledger.services import checks
from ledger.stock_velocity import reorder_suggestions
from tenants.models import Store


def day_reconcile(*, store: Store, actor: str, now: dt.datetime | None = None) -> Reconciliation:
    """Record the store's day so far: receipts, units and revenue, and per product its opening
    stock, units sold, current stock, whether it is low (stock <= reorder point) and the
    suggested reorder quantity (``ledger.stock_velocity.reorder_suggestion``).

    Opening stock is the count at the start of the local day: the current count less today's
    journalled changes (a product first counted today opens at that count).
    """
    actor = checks.actor_of(actor)
    at = checks.moment(now)
    day, start, end = local_day_bounds(store=store, now=at)
    with store_scope(store), transaction.atomic():
        products = list(Product.objects.filter(store=store, active=True).order_by("name"))
        totals = Receipt.objects.filter(store=store, sold_at__gte=start, sold_at__lt=end, historical=False).aggregate(
            receipts=Count("id", filter=Q(kind=Receipt.Kind.SALE)), revenue=Sum("total")
        )
        suggested = reorder_suggestions(store=store, products=products, now=at)
        sold = {row.product_id: row.units for row in product_sales_between(store=store, start=start, end=end)}
        changed = dict(
            StockEntry.objects.filter(store=store, created_at__gte=start, created_at__lt=end)
            .exclude(reason=StockEntry.Reason.OPENING)
            .values("product_id")
            .annotate(net=Sum("after") - Sum("before"))
            .order_by()
            .values_list("product_id", "net")
        )
        reconciliation = Reconciliation.objects.create(
            store=store,
            business_date=day,
            created_at=at,
            actor=actor,
            receipts=totals["receipts"] or 0,
            units_sold=sum(sold.values()),
            revenue=to_cents(totals["revenue"] or Decimal(0)),
        )
        ReconciliationLine.objects.bulk_create(
            [
                ReconciliationLine(
                    store=store,
                    reconciliation=reconciliation,
                    product=product,
                    opening_stock=product.stock - (changed.get(product.pk) or 0),
                    units_sold=sold.get(product.pk, 0),
                    stock=product.stock,
                    reorder_point=product.reorder_point,
                    par_level=product.par_level,
                    is_low=product.is_low,
                    suggested_qty=suggested[product.pk].qty,
                )
                for product in products
            ]
        )
    return reconciliation_get(store=store, reconciliation_id=reconciliation.pk)
