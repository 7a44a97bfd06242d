"""``get_sales`` over real HTTP with the official MCP client: periods in the store's time zone,
refunds and voids netted out, comparisons, products and categories, and other stores' books."""

from __future__ import annotations

import datetime as dt
from decimal import Decimal
from zoneinfo import ZoneInfo

import pytest
from django.utils import timezone

from audit.models import Record
from ledger import services
from ledger.models import Product
from ledger.services import SaleLine
from mcp_gateway.tests.conftest import call
from tenants.context import use_store

pytestmark = pytest.mark.django_db(transaction=True, serialized_rollback=True)


def local_now(store) -> dt.datetime:
    return timezone.now().astimezone(ZoneInfo(store.timezone))


def at_local(store, day: dt.date, hour: int, minute: int = 0) -> dt.datetime:
    return dt.datetime.combine(day, dt.time(hour, minute), tzinfo=ZoneInfo(store.timezone))


def sell(store, name: str, qty: int, when: dt.datetime, price: str | None = None):
    with use_store(store):
        product = Product.objects.get(store=store, name=name)
        return services.sale_record(
            store=store, lines=[SaleLine(product=product, qty=qty, unit_price=Decimal(price) if price else None)],
            actor="system:test", sold_at=when,
        ).receipt


def sales(url, token, **arguments):
    result = call(url, token, "get_sales", arguments)
    return result


def test_a_receipt_at_2330_local_time_belongs_to_that_local_day(mcp_server, shop, mcp_token):
    yesterday = local_now(shop).date() - dt.timedelta(days=1)
    late = at_local(shop, yesterday, 23, 30)  # in Chicago that is already the next day in UTC
    assert late.astimezone(dt.UTC).date() != yesterday
    sell(shop, "Basmati rice", 2, late)
    sell(shop, "Chana dal", 1, at_local(shop, yesterday, 0, 15))
    sell(shop, "Moong dal", 5, at_local(shop, yesterday - dt.timedelta(days=1), 23, 59))

    result = sales(mcp_server.mcp_url, mcp_token, period="yesterday")

    assert not result.is_error
    data = result.structured_content
    assert data["period"]["from"] == data["period"]["to"] == yesterday.isoformat()
    assert (data["receipts"], data["unitsSold"], data["revenue"]) == (2, 3, "14.97")
    assert data["timezone"] == shop.timezone and data["currency"] == shop.currency
    assert data["averageBasket"] == "7.49"  # 14.97 / 2, to the cent


def test_refunds_and_voids_net_out_of_the_period_they_were_recorded_in(mcp_server, shop, mcp_token):
    yesterday = local_now(shop).date() - dt.timedelta(days=1)
    kept = sell(shop, "Basmati rice", 3, at_local(shop, yesterday, 10))
    voided = sell(shop, "Toor dal", 2, at_local(shop, yesterday, 11))
    with use_store(shop):
        rice = Product.objects.get(store=shop, name="Basmati rice")
        services.receipt_refund(store=shop, receipt_id=kept.pk, actor="system:test", lines=[(rice, 1)],
                                now=at_local(shop, yesterday, 12))
        services.receipt_refund(store=shop, receipt_id=voided.pk, actor="system:test", void=True,
                                now=at_local(shop, yesterday, 13))

    data = sales(mcp_server.mcp_url, mcp_token, period="yesterday").structured_content

    # 3 rice sold, 1 given back; the voided dal is gone from receipts, units and revenue.
    assert (data["receipts"], data["unitsSold"], data["revenue"], data["givenBack"]) == (1, 2, "9.98", "14.97")


def test_a_comparison_gives_both_periods_and_the_change(mcp_server, shop, mcp_token):
    today = local_now(shop).date()
    monday = today - dt.timedelta(days=today.weekday())
    sell(shop, "Basmati rice", 4, at_local(shop, monday - dt.timedelta(days=7), 10))  # last week
    sell(shop, "Basmati rice", 2, at_local(shop, monday - dt.timedelta(days=6), 10))
    sell(shop, "Chana dal", 1, at_local(shop, monday - dt.timedelta(days=13), 10))  # the week before

    data = sales(mcp_server.mcp_url, mcp_token, period="last week", compareTo="the week before",
                 item="basmati").structured_content

    assert data["period"]["label"] == "last week" and data["period"]["days"] == 7
    assert data["focus"] == {"name": "Basmati rice", "units": 6, "revenue": "29.94"}
    other = data["comparison"]
    assert other["period"]["from"] == (monday - dt.timedelta(days=14)).isoformat()
    assert (other["revenue"], other["focus"]["units"]) == ("4.99", 0)
    assert data["comparison"]["change"]["revenue"] == {"delta": "24.95", "percent": 500.0}
    assert data["comparison"]["change"]["focusUnits"] == {"delta": 6, "percent": None}


def test_worst_sellers_include_products_that_sold_nothing(mcp_server, shop, mcp_token):
    yesterday = local_now(shop).date() - dt.timedelta(days=1)
    sell(shop, "Basmati rice", 3, at_local(shop, yesterday, 10))
    sell(shop, "Jaggery", 1, at_local(shop, yesterday, 11))

    best = sales(mcp_server.mcp_url, mcp_token, period="yesterday", groupBy="product").structured_content
    worst = sales(mcp_server.mcp_url, mcp_token, period="yesterday", groupBy="product", sort="worst",
                  limit=3).structured_content

    assert [row["name"] for row in best["rows"]] == ["Basmati rice", "Jaggery"]
    assert [(row["name"], row["units"]) for row in worst["rows"]] == [("Chana dal", 0), ("Moong dal", 0),
                                                                       ("Toor dal", 0)]


def test_a_category_and_days_of_a_span(mcp_server, shop, mcp_token):
    today = local_now(shop).date()
    sell(shop, "Basmati rice", 1, at_local(shop, today - dt.timedelta(days=2), 9))

    data = sales(mcp_server.mcp_url, mcp_token, period="the last 3 days", category="staples",
                 groupBy="day").structured_content

    assert data["category"] == "Staples" and data["focus"]["units"] == 1
    assert [row["date"] for row in data["rows"]] == [(today - dt.timedelta(days=n)).isoformat() for n in (2, 1, 0)]
    assert [row["units"] for row in data["rows"]] == [1, 0, 0]


@pytest.mark.parametrize(
    ("arguments", "code"),
    [
        ({"period": "next week"}, "invalid_period"),
        ({"period": "the price of atta"}, "invalid_period"),
        ({"period": "yesterday", "item": "claw hammer"}, "product_not_found"),
        ({"period": "yesterday", "category": "hardware"}, "category_not_found"),
        ({"period": "yesterday", "limit": 500}, "invalid_arguments"),
        ({"period": "yesterday", "when": "now"}, "invalid_arguments"),
    ],
)
def test_bad_arguments_get_a_clear_error_and_an_audit_record(mcp_server, shop, mcp_token, arguments, code):
    result = sales(mcp_server.mcp_url, mcp_token, **arguments)

    assert result.is_error and result.structured_content["error"] == code
    assert len(result.content[0].text) < 300
    with use_store(shop):
        record = Record.objects.filter(store=shop, name="get_sales").latest("id")
    assert record.outcome in ("error", "invalid")


def test_another_stores_token_sees_only_its_own_sales(mcp_server, shop, other_shop, mcp_token, other_token):
    yesterday = local_now(shop).date() - dt.timedelta(days=1)
    sell(shop, "Basmati rice", 5, at_local(shop, yesterday, 10))

    other = sales(mcp_server.mcp_url, other_token, period="yesterday", groupBy="product").structured_content
    mine = sales(mcp_server.mcp_url, mcp_token, period="yesterday").structured_content
    named = sales(mcp_server.mcp_url, other_token, period="yesterday", item="moong dal")

    assert (other["receipts"], other["revenue"], other.get("rows", [])) == (0, "0.00", [])
    assert mine["receipts"] == 1
    assert named.is_error and named.structured_content["error"] == "product_not_found"
