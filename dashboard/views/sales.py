"""The workspace's sales page: a period (today by default, or a picked one) against the one before.

Periods are resolved by ``ledger.periods`` in the store's time zone and the figures come from
``ledger.sales_history`` (the service layer under ``get_sales``), so the page and the assistant
say the same numbers. A period still running is compared with the same stretch of the one before
("this week so far" against last week to the same point). The chart shows the period's days (for
a single day, the seven days that end with it) next to the days before, drawn by the vendored
Chart.js over CSS bars and a table that work without scripts.
"""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass
from decimal import Decimal
from typing import Any

from django.http import HttpRequest, HttpResponse
from django.shortcuts import render
from django.views.decorators.http import require_GET

from dashboard.forms import SalesPeriodForm
from dashboard.views.owner import workspace_view
from ledger import sales_history
from ledger.money import money_format
from ledger.periods import Period, PeriodError, period_parse, same_length, shift_back, store_now
from ledger.sales_history import SalesFigures, SalesRow
from ledger.selectors import store_tz
from tenants.models import Store

CHART_DAYS_FOR_ONE_DAY = 7


@dataclass(frozen=True)
class Kpi:
    """One figure of the period, the same figure of the period before, and the change in words."""

    label: str
    value: str
    previous: str
    change: str
    direction: str  # "up", "down" or "flat"


def _percent(now: Decimal, then: Decimal) -> tuple[str, str]:
    if now == then:
        return "no change", "flat"
    if not then:
        return "new", "up"
    percent = (now - then) / abs(then) * 100
    return f"{'+' if percent > 0 else '−'}{abs(percent):.0f}%", "up" if percent > 0 else "down"


def _kpis(store: Store, figures: SalesFigures, before: SalesFigures) -> list[Kpi]:
    def money(value: Decimal | None) -> str:
        return "—" if value is None else money_format(value, store.currency)

    rows = [
        ("Revenue", figures.revenue, before.revenue, money),
        ("Receipts", Decimal(figures.receipts), Decimal(before.receipts), lambda v: f"{v:,.0f}"),
        ("Units sold", Decimal(figures.units), Decimal(before.units), lambda v: f"{v:,.0f}"),
        ("Average receipt", figures.average_basket, before.average_basket, money),
    ]
    kpis = []
    for label, now, then, say in rows:
        change, direction = _percent(now, then) if now is not None and then is not None else ("—", "flat")
        kpis.append(Kpi(label=label, value=say(now), previous=say(then), change=change, direction=direction))
    return kpis


def _chart_period(period: Period, now: dt.datetime) -> Period:
    """The days the chart shows: the period's own, or for one day the seven days that end with it."""
    if period.days > 1:
        return period
    first = period.first_day - dt.timedelta(days=CHART_DAYS_FOR_ONE_DAY - 1)
    return period_parse(f"{first.isoformat()}..{period.last_day.isoformat()}", now=now)


def _chart(store: Store, days: list[SalesRow], before: list[SalesRow]) -> dict[str, Any]:
    """The bars (with their CSS heights), the table rows and what Chart.js draws, aligned day by day."""
    peak = max([row.revenue for row in days + before] + [Decimal(0)]) or Decimal(1)
    rows = []
    for index, row in enumerate(days):
        then = before[index] if index < len(before) else None
        rows.append({
            "day": row.day, "units": row.units, "revenue": money_format(row.revenue, store.currency),
            "height": round(100 * row.revenue / peak),
            "short": money_format(row.revenue.quantize(Decimal(1)), store.currency).removesuffix(".00"),
            "previous_day": then.day if then else None,
            "previous": money_format(then.revenue, store.currency) if then else "—",
        })
    data = {
        "labels": [f"{row.day:%a} {row.day.day}" if row.day else row.name for row in days],
        "titles": [f"{row.day:%a} {row.day.day} {row.day:%b}" if row.day else row.name for row in days],
        "revenue": [float(row.revenue) for row in days],
        "previous": [float(before[i].revenue) if i < len(before) else None for i in range(len(days))],
        "display": [row["revenue"] for row in rows],
        "previousDisplay": [row["previous"] for row in rows],
    }
    return {"rows": rows, "data": data}


def _periods(store: Store, form: SalesPeriodForm) -> tuple[Period, Period, dt.datetime] | None:
    """The chosen period and the one before it (cut to the same length when still running), or None
    with the form's error set."""
    now = store_now(store_tz(store))
    try:
        period = period_parse(form.words(), now=now)
    except PeriodError as exc:
        form.add_error(None, exc.message)
        return None
    return period, same_length(period, shift_back(period, now=now), now=now), now


def _context(store: Store, period: Period, previous: Period, now: dt.datetime) -> dict[str, Any]:
    figures = sales_history.sales_figures(store=store, start=period.start, end=period.end)
    before = sales_history.sales_figures(store=store, start=previous.start, end=previous.end)
    shown = _chart_period(period, now)
    shown_before = same_length(shown, shift_back(shown, now=now), now=now)
    days = sales_history.sales_by_day(store=store, period=shown)
    chart = _chart(store, days, sales_history.sales_by_day(store=store, period=shown_before))
    top = sales_history.products_ranked(store=store, period=period, limit=5)
    return {
        "period": period,
        "previous": previous,
        "chart_period": shown,
        "chart_previous": shown_before,
        "figures": figures,
        "kpis": _kpis(store, figures, before),
        "chart": chart["rows"],
        "chart_data": chart["data"],
        "chart_revenue": money_format(sum((row.revenue for row in days), Decimal(0)), store.currency),
        "top": [{"product": row.name, "units": row.units, "revenue": money_format(row.revenue, store.currency)}
                for row in top],
    }


@require_GET
@workspace_view
def sales(request: HttpRequest) -> HttpResponse:
    """The period's revenue, receipts, units and average receipt against the period before, a chart of
    its days against the days before, and its top sellers. A period that cannot be read is a form error."""
    store = request.store  # type: ignore[attr-defined]
    form = SalesPeriodForm(request.GET or {"period": "today"})
    resolved = _periods(store, form) if form.is_valid() else None
    context: dict[str, Any] = {"section": "sales", "form": form}
    if resolved is None:
        return render(request, "dashboard/sales.html", context, status=400)
    context.update(_context(store, *resolved))
    return render(request, "dashboard/sales.html", context)
