"""``get_sales``: the store's sales over any period, and a comparison of two, for every caller.

The period words are resolved in code (``ledger.periods``) in the store's time zone; the figures
come from ``ledger.sales_history``. The result carries each period's dates, totals (receipts,
revenue net of refunds and voids, units, average basket, revenue per day), the product's or the
category's share when one was asked for, a ranking when ``groupBy`` asks, and for a comparison
the same for the second period and the change, so a reply can say every number from the result.
"""

from __future__ import annotations

from decimal import Decimal
from typing import Any

from django.utils.translation import gettext as _

from ledger import sales_history
from ledger.models import Product
from ledger.periods import Period, PeriodError, period_parse, same_length, store_now
from ledger.sales_history import PeriodSales, SalesFigures, SalesRow
from ledger.selectors import store_tz
from mcp_gateway.policy import ToolCall


def _money(value: Decimal | None) -> str | None:
    return None if value is None else f"{value:.2f}"


def _figures(figures: SalesFigures, period: Period) -> dict[str, Any]:
    per_day = figures.revenue / period.days if period.days else figures.revenue
    return {
        "receipts": figures.receipts,
        "revenue": _money(figures.revenue),
        "unitsSold": figures.units,
        "averageBasket": _money(figures.average_basket),
        "revenuePerDay": f"{per_day:.2f}",
        "givenBack": _money(figures.given_back),
    }


def _row(row: SalesRow) -> dict[str, Any]:
    data: dict[str, Any] = {"name": row.name, "units": row.units, "revenue": _money(row.revenue)}
    if row.day is not None:
        data["date"] = row.day.isoformat()
    return data


def _change(now: Decimal | int | None, then: Decimal | int | None) -> dict[str, Any] | None:
    if now is None or then is None:
        return None
    delta = Decimal(now) - Decimal(then)
    percent = None if not then else round(float(delta / Decimal(then) * 100), 1)
    is_money = isinstance(now, Decimal)
    return {"delta": f"{delta:.2f}" if is_money else int(delta), "percent": percent}


def _sales(sales: PeriodSales) -> dict[str, Any]:
    data: dict[str, Any] = {"period": sales.period.as_dict(), **_figures(sales.figures, sales.period)}
    if sales.focus is not None:
        data["focus"] = _row(sales.focus)
    if sales.rows:
        data["rows"] = [_row(row) for row in sales.rows]
    return data


def _comparison(first: PeriodSales, second: PeriodSales) -> dict[str, Any]:
    a, b = first.figures, second.figures
    change: dict[str, Any] = {
        "revenue": _change(a.revenue, b.revenue),
        "receipts": _change(a.receipts, b.receipts),
        "unitsSold": _change(a.units, b.units),
        "averageBasket": _change(a.average_basket, b.average_basket),
        "revenuePerDay": _change(a.revenue / first.period.days, b.revenue / second.period.days),
    }
    if first.focus is not None and second.focus is not None:
        change["focusUnits"] = _change(first.focus.units, second.focus.units)
        change["focusRevenue"] = _change(first.focus.revenue, second.focus.revenue)
    return {**_sales(second), "change": change}


def _product(call: ToolCall, words: str) -> tuple[Product, list[str]]:
    """The product the words mean (the best match) and the other matches, as get_inventory reads names.

    Raises:
        ToolFailure: no product matches.
    """
    from mcp_gateway.tools import _candidates, _not_found

    found = _candidates(call, words)
    if not found:
        raise _not_found(words)
    return found[0], [product.name for product in found[1:]]


def _category(call: ToolCall, words: str) -> str:
    """The store's category with that name (any case).

    Raises:
        ToolFailure: no such category.
    """
    from mcp_gateway.tools import ToolFailure

    categories = sales_history.store_categories(store=call.store)
    wanted = " ".join(words.split()).casefold()
    for name in categories:
        if name.casefold() == wanted:
            return name
    raise ToolFailure(
        "category_not_found",
        _("There is no category '%(words)s' in this store. The categories are: %(names)s.")
        % {"words": words[:60], "names": ", ".join(categories) or _("none yet")},
    )


def get_sales(call: ToolCall) -> dict[str, Any]:
    """Sales for a period (today by default), optionally one product's or category's, ranked, or compared."""
    from mcp_gateway.tools import ToolFailure

    args = call.arguments
    store = call.store
    now = store_now(store_tz(store))
    try:
        period = period_parse(args.get("period") or "today", now=now)
        other = None
        if args.get("compareTo"):
            other = same_length(period, period_parse(args["compareTo"], now=now, base=period), now=now)
    except PeriodError as exc:
        raise ToolFailure("invalid_period", exc.message) from None
    product: Product | None = None
    other_matches: list[str] = []
    if args.get("item"):
        product, other_matches = _product(call, args["item"])
    category = _category(call, args["category"]) if args.get("category") and product is None else None
    def sales_in(span: Period, group_by: str | None) -> PeriodSales:
        return sales_history.period_sales(store=store, period=span, product=product, category=category,
                                          group_by=group_by, sort=args.get("sort") or "best", limit=args.get("limit") or 5)

    first = sales_in(period, args.get("groupBy"))
    result: dict[str, Any] = {"currency": store.currency, "timezone": store.timezone, **_sales(first)}
    if product is not None and other_matches:
        result["otherMatches"] = other_matches
    if category is not None:
        result["category"] = category
    if other is not None:
        second = sales_in(other, None)
        result["comparison"] = _comparison(first, second)
    return result
