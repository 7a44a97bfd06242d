"""How fast products sell, how long their stock lasts, and how much to reorder (reads only).

The rate is net units sold per day over the ``WINDOW_DAYS`` full local days before today, in the
store's time zone (today is left out: half a day would pull the rate down every morning). Refunds
and voids take their units off; imported history counts like any other sale. Days of cover is
stock divided by that rate, and there is none when nothing sold.

A reorder suggestion brings stock up to the owner's par level when one is set (par levels are the
owner's: the rate only says how long that lasts), else to ``COVER_DAYS`` of selling at the rate.
Its ``reason`` says why in plain words, every number in it one of the suggestion's own.
"""

from __future__ import annotations

import datetime as dt
import math
from collections.abc import Iterable
from dataclasses import dataclass

from django.utils import timezone

from ledger.models import Product
from ledger.periods import local_midnight
from ledger.sales_history import sales_of_products
from ledger.selectors import store_tz
from tenants.models import Store

WINDOW_DAYS = 28
COVER_DAYS = 14  # without a par level: a delivery about once a week, and a week's safety
_ALL_AT_ONCE = 200  # asking for more products than this reads the whole store's sales in one query


@dataclass(frozen=True)
class Velocity:
    """A product's recent selling rate.

    Attributes:
        units: net units sold in the window (refunds and voids taken off).
        window_days: the window's length in days; it ends at the start of the store's today.
        per_day: units per day, or None when the window's net is zero or less.
        days_of_cover: how many days the current stock lasts at that rate (None when nothing sold).
    """

    units: int
    window_days: int
    per_day: float | None
    days_of_cover: float | None


@dataclass(frozen=True)
class Suggestion:
    """How many to reorder, the stock that brings, and why.

    Attributes:
        qty: units to order (0: nothing needed).
        target: the stock the order brings the product to.
        basis: "par" (up to the owner's par level), "cover" (``cover_days`` of selling) or "none"
            (no par level and no recent sales: nothing to go on).
        cover_days: with basis "cover", the days the target is meant to last.
        reason: the why, in plain words ("Sells about 3 a day, 2 days left; 30 brings it up to par (36).").
    """

    qty: int
    target: int
    basis: str
    cover_days: int | None
    velocity: Velocity
    reason: str


def velocity_window(*, store: Store, now: dt.datetime | None = None) -> tuple[dt.datetime, dt.datetime]:
    """The window's bounds: local midnight ``WINDOW_DAYS`` days ago to local midnight today, ``[start, end)``."""
    tz = store_tz(store)
    today = (now or timezone.now()).astimezone(tz).date()
    return local_midnight(today - dt.timedelta(days=WINDOW_DAYS), tz), local_midnight(today, tz)


def _velocity(stock: int, units: int) -> Velocity:
    if units <= 0:
        return Velocity(units=units, window_days=WINDOW_DAYS, per_day=None, days_of_cover=None)
    per_day = units / WINDOW_DAYS
    return Velocity(units=units, window_days=WINDOW_DAYS, per_day=round(per_day, 2),
                    days_of_cover=round(max(stock, 0) / per_day, 1))


def stock_velocity(*, store: Store, products: Iterable[Product], now: dt.datetime | None = None) -> dict[int, Velocity]:
    """Each product's velocity, by product id (one query for all of them).

    Raises:
        ledger.errors.NotFound: through the store scope, never another store's sales.
    """
    chosen = [product for product in products if product.store_id == store.pk]
    if not chosen:
        return {}
    start, end = velocity_window(store=store, now=now)
    ids = None if len(chosen) > _ALL_AT_ONCE else [product.pk for product in chosen]
    sold = sales_of_products(store=store, start=start, end=end, product_ids=ids)
    return {product.pk: _velocity(product.stock, sold.get(product.pk, (0, 0))[0]) for product in chosen}


def _rate_words(velocity: Velocity) -> str:
    per_day = velocity.per_day or 0
    if per_day >= 0.95:
        return f"about {round(per_day)} a day"
    if per_day * 7 >= 0.95:
        return f"about {round(per_day * 7)} a week"
    return f"{velocity.units} in the last {velocity.window_days} days"


def _left_words(stock: int, velocity: Velocity) -> str:
    days = velocity.days_of_cover
    if stock <= 0:
        return "none left"
    if days is None:
        return f"{stock} left"
    if days < 1:
        return "less than a day left"
    whole = math.floor(days)
    return f"{whole} day left" if whole == 1 else f"{whole} days left"


def reorder_suggestion(product: Product, velocity: Velocity) -> Suggestion:
    """How many of ``product`` to reorder given its velocity: up to par when set, else ``COVER_DAYS`` of cover."""
    stock = max(product.stock, 0)
    sells = (f"Sells {_rate_words(velocity)}, {_left_words(stock, velocity)}" if velocity.per_day
             else f"No sales in the last {velocity.window_days} days, {_left_words(stock, velocity)}")
    if product.par_level > 0:
        qty = max(product.par_level - stock, 0)
        lasts = ""
        if velocity.per_day and qty:
            lasts = f", about {math.floor(product.par_level / velocity.per_day)} days at this rate"
        then = (f"; {qty} brings it up to par ({product.par_level}){lasts}." if qty
                else f"; at or above par ({product.par_level}).")
        return Suggestion(qty=qty, target=max(product.par_level, stock), basis="par", cover_days=None,
                          velocity=velocity, reason=sells + then)
    if velocity.per_day:
        target = math.ceil(velocity.per_day * COVER_DAYS)
        qty = max(target - stock, 0)
        then = (f"; {qty} brings it to about {COVER_DAYS} days (no par level set)." if qty
                else f"; enough for {COVER_DAYS} days (no par level set).")
        return Suggestion(qty=qty, target=max(target, stock), basis="cover", cover_days=COVER_DAYS,
                          velocity=velocity, reason=sells + then)
    return Suggestion(qty=0, target=stock, basis="none", cover_days=None, velocity=velocity,
                      reason=sells + "; no par level set, so no quantity to suggest.")


def reorder_suggestions(
    *, store: Store, products: Iterable[Product], now: dt.datetime | None = None
) -> dict[int, Suggestion]:
    """Each product's reorder suggestion, by product id (its velocity read in one query for all)."""
    chosen = list(products)
    velocities = stock_velocity(store=store, products=chosen, now=now)
    return {product.pk: reorder_suggestion(product, velocities[product.pk])
            for product in chosen if product.pk in velocities}
