"""The workspace's sales page over HTTP: a period (today by default) against the one before, the chart
of its days drawn by the vendored Chart.js over bars and a table, and a bad period as a form error."""

from __future__ import annotations

import datetime as dt
import re
from decimal import Decimal
from zoneinfo import ZoneInfo

import pytest
from django.urls import reverse
from django.utils import timezone

from dashboard.tests.owner_data import make_product
from ledger import services
from ledger.services import SaleLine
from tenants.context import use_store

pytestmark = pytest.mark.django_db


def local_today(store) -> dt.date:
    return timezone.now().astimezone(ZoneInfo(store.timezone)).date()


def at_local(store, day: dt.date, hour: int, minute: int = 0) -> dt.datetime:
    return dt.datetime.combine(day, dt.time(hour, minute), tzinfo=ZoneInfo(store.timezone))


def sell(store, product, qty: int, when: dt.datetime | None = None) -> None:
    with use_store(store):
        services.sale_record(store=store, lines=[SaleLine(product=product, qty=qty)], actor="system:test",
                             sold_at=when)


def kpi(response, label: str):
    return next(k for k in response.context["kpis"] if k.label == label)


def test_today_is_shown_against_yesterday_by_this_time_with_the_chart_and_top_sellers(client, store, owner):
    atta = make_product(store, "Atta", price=Decimal("10.00"), stock=50)
    dal = make_product(store, "Toor dal", price=Decimal("5.00"), stock=50)
    sell(store, atta, 2)
    sell(store, dal, 4)
    yesterday = local_today(store) - dt.timedelta(days=1)
    sell(store, dal, 1, at_local(store, yesterday, 0, 1))  # early yesterday: before this time of day
    client.force_login(owner)

    response = client.get(reverse("owner:sales"))

    assert response.status_code == 200
    html = response.content.decode()
    assert response.context["period"].label == "today" and response.context["period"].running
    revenue = kpi(response, "Revenue")
    assert (revenue.value, revenue.previous, revenue.change, revenue.direction) == ("$40.00", "$5.00", "+700%", "up")
    assert kpi(response, "Receipts").value == "2" and kpi(response, "Average receipt").value == "$20.00"
    assert [row["product"] for row in response.context["top"]] == ["Toor dal", "Atta"]
    chart = response.context["chart"]
    assert len(chart) == 7 and chart[-1]["day"] == local_today(store) and chart[-1]["height"] == 100
    assert response.context["chart_data"]["revenue"][-1] == 40.0
    assert "Today so far" in html and "(was $5.00)" in html


def test_last_week_is_compared_with_the_week_before_day_by_day(client, store, owner):
    ghee = make_product(store, "Ghee", price=Decimal("12.00"), stock=100)
    today = local_today(store)
    monday = today - dt.timedelta(days=today.weekday())
    sell(store, ghee, 3, at_local(store, monday - dt.timedelta(days=7), 10))  # last Monday
    sell(store, ghee, 1, at_local(store, monday - dt.timedelta(days=14), 10))  # the Monday before
    client.force_login(owner)

    response = client.get(reverse("owner:sales"), {"period": "last_week"})

    assert response.status_code == 200
    assert (response.context["period"].label, response.context["previous"].label) == ("last week", "the week before")
    assert kpi(response, "Revenue").value == "$36.00" and kpi(response, "Revenue").previous == "$12.00"
    data = response.context["chart_data"]
    assert len(data["labels"]) == 7 and data["revenue"][0] == 36.0 and data["previous"][0] == 12.0
    assert response.context["chart"][0]["previous_day"] == monday - dt.timedelta(days=14)


def test_a_custom_range_and_another_stores_sales_stay_out(client, store, owner, other_store):
    rice = make_product(store, "Basmati rice", price=Decimal("4.00"), stock=100)
    theirs = make_product(other_store, "Basmati rice", price=Decimal("4.00"), stock=900)
    first = local_today(store) - dt.timedelta(days=10)
    sell(store, rice, 5, at_local(store, first + dt.timedelta(days=1), 12))
    sell(other_store, theirs, 500, at_local(other_store, first + dt.timedelta(days=1), 12))
    client.force_login(owner)

    response = client.get(reverse("owner:sales"), {"period": "custom", "start": first.isoformat(),
                                                   "end": (first + dt.timedelta(days=2)).isoformat()})

    assert response.status_code == 200
    assert response.context["period"].days == 3 and response.context["previous"].days == 3
    assert kpi(response, "Revenue").value == "$20.00" and kpi(response, "Units sold").value == "5"


@pytest.mark.parametrize(("query", "message"), [
    ({"period": "custom", "start": "2026-11-01"}, "A custom range needs both a first and a last day."),
    ({"period": "custom", "start": "2026-11-20", "end": "2026-11-01"}, "The first day of the range comes after the last one."),
    ({"period": "custom", "start": "2020-01-01", "end": "2026-11-01"}, "at most"),
    ({"period": "fortnight"}, "Select a valid choice."),
    ({"period": "custom", "start": "2026-13-01", "end": "2026-11-01"}, "Enter a valid date."),
])
def test_a_bad_period_is_a_clear_form_error_not_a_500(client, store, owner, query, message):
    client.force_login(owner)

    response = client.get(reverse("owner:sales"), query)

    assert response.status_code == 400
    html = response.content.decode()
    assert 'class="errorlist' in html and message in html
    assert "kpis" not in response.context and "sales-week-data" not in html


def test_a_future_range_says_so(client, store, owner):
    client.force_login(owner)
    later = local_today(store) + dt.timedelta(days=3)

    response = client.get(reverse("owner:sales"), {"period": "custom", "start": later.isoformat(),
                                                   "end": later.isoformat()})

    assert response.status_code == 400
    assert response.context["form"].non_field_errors()


def test_the_chart_is_the_vendored_chart_js_over_bars_and_a_table_that_work_without_it(client, store, staff):
    atta = make_product(store, "Atta", price=Decimal("10.00"), stock=50)
    sell(store, atta, 3)
    client.force_login(staff)  # staff see the sales page too

    html = client.get(reverse("owner:sales"), {"period": "this_month"}).content.decode()

    assert 'id="sales-week-data" type="application/json"' in html and 'chart.umd.min.js" defer' in html
    assert not re.search(r'<script[^>]+src="(https?:)?//', html)  # nothing from a CDN
    assert '<div class="chartjs-box" hidden><canvas id="sales-week-chart" role="img"' in html
    assert 'class="bars" id="sales-week-bars"' in html and "The same as a table" in html
    assert '<option value="last_month">Last month</option>' in html
