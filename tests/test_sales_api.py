"""GET /api/v1/sales and its pages: periods in the store's time zone, comparisons, filters, paging,
bad input answered in a sentence, and other stores' books out of reach."""

from __future__ import annotations

import datetime as dt
from decimal import Decimal
from zoneinfo import ZoneInfo

import pytest
from django.utils import timezone
from rest_framework.test import APIClient

from ledger import services
from ledger.models import Product, Receipt
from ledger.services import SaleLine
from tenants.context import use_store
from tenants.services import token_create

pytestmark = pytest.mark.django_db


def local_day(store, back: int) -> dt.date:
    return timezone.now().astimezone(ZoneInfo(store.timezone)).date() - dt.timedelta(days=back)


def at(store, day: dt.date, hour: int, minute: int = 0) -> dt.datetime:
    return dt.datetime.combine(day, dt.time(hour, minute), tzinfo=ZoneInfo(store.timezone))


def sell(store, name, qty, when):
    with use_store(store):
        product = Product.objects.get(store=store, name=name)
        return services.sale_record(store=store, lines=[SaleLine(product=product, qty=qty)], actor="system:test",
                                    sold_at=when).receipt


def figures_in_the_books(store, start, end):
    """What the receipts table itself says for [start, end), read without the selectors."""
    with use_store(store):
        rows = Receipt.objects.filter(store=store, sold_at__gte=start, sold_at__lt=end)
        sales = rows.filter(kind="sale").count() - rows.filter(kind="void").count()
        return sales, sum((row.total for row in rows), Decimal("0.00"))


def test_yesterday_matches_the_books_and_keeps_a_2330_sale_in_its_local_day(api_client, demo):
    yesterday = local_day(demo, 1)
    sell(demo, "Ghee", 2, at(demo, yesterday, 23, 30))

    body = api_client.get("/api/v1/sales", {"period": "yesterday"}).json()

    period = body["period"]
    assert period["first_day"] == period["last_day"] == yesterday.isoformat() and not period["running"]
    start, end = dt.datetime.fromisoformat(period["start"]), dt.datetime.fromisoformat(period["end"])
    assert start <= at(demo, yesterday, 23, 30) < end
    receipts, revenue = figures_in_the_books(demo, start, end)
    assert (body["receipts"], Decimal(body["revenue"])) == (receipts, revenue)
    assert body["currency"] == "USD" and body["timezone"] == demo.timezone and body["comparison"] is None


def test_a_span_said_as_two_dates_joined_by_to_is_one_period(api_client, demo):
    first, last = local_day(demo, 6), local_day(demo, 2)
    words = f"{first:%B} {first.day} to {last:%B} {last.day}"  # "november 26 to november 30", no "from"

    body = api_client.get("/api/v1/sales", {"period": words}).json()

    assert (body["period"]["first_day"], body["period"]["last_day"]) == (first.isoformat(), last.isoformat())
    assert body["period"]["days"] == 5 and body["comparison"] is None
    receipts, revenue = figures_in_the_books(demo, dt.datetime.fromisoformat(body["period"]["start"]),
                                             dt.datetime.fromisoformat(body["period"]["end"]))
    assert (body["receipts"], Decimal(body["revenue"])) == (receipts, revenue)


def test_a_product_compared_with_the_week_before(api_client, demo):
    body = api_client.get("/api/v1/sales", {"period": "last week", "compare": "the week before", "sku": "LI-022"}).json()

    assert body["period"]["label"] == "last week" and body["period"]["days"] == 7
    other = body["comparison"]["period"]
    assert dt.date.fromisoformat(other["last_day"]) == dt.date.fromisoformat(body["period"]["first_day"]) - dt.timedelta(days=1)
    with use_store(demo):
        ghee = Product.objects.get(store=demo, sku="LI-022")
        units = sum(line.qty for line in ghee.receipt_lines.filter(
            receipt__sold_at__gte=body["period"]["start"], receipt__sold_at__lt=body["period"]["end"]))
    assert body["product_units"] == units


def test_products_categories_and_days_are_pages(api_client, demo):
    products = api_client.get("/api/v1/sales/products", {"period": "the last 7 days", "limit": 5}).json()
    worst = api_client.get("/api/v1/sales/products", {"period": "today", "sort": "worst", "limit": 200}).json()
    days = api_client.get("/api/v1/sales/days", {"period": "the last 7 days"}).json()
    categories = api_client.get("/api/v1/sales/categories", {"period": "this month"}).json()

    assert len(products["results"]) == 5 and products["next"] and products["count"] >= 5
    units = [row["units"] for row in products["results"]]
    assert units == sorted(units, reverse=True)
    # Today the demo sells nothing of (at least) four products: they are among the zeros heading the worst list.
    zeros = [row["name"] for row in worst["results"] if row["units"] == 0]
    assert zeros == [row["name"] for row in worst["results"][:len(zeros)]]
    assert {"Toor dal", "Mustard oil", "Frozen samosas", "Paneer"} <= set(zeros)
    assert worst["count"] == 38
    assert days["count"] == 7 and days["results"][-1]["date"] == local_day(demo, 0).isoformat()
    assert categories["results"] and {"name", "units", "revenue"} <= set(categories["results"][0])


@pytest.mark.parametrize(
    ("query", "status", "code"),
    [
        ({"period": "next week"}, 400, "invalid_period"),
        ({"period": "whenever you like"}, 400, "invalid_period"),
        ({"period": "the last 9000 days"}, 400, "invalid_period"),
        ({"period": "2026-02-30"}, 400, "invalid_period"),
        ({"period": "x" * 81}, 400, "invalid"),
        ({"period": "yesterday", "compare": "next month"}, 400, "invalid_period"),
        ({"period": "yesterday", "sku": "NOPE-1"}, 404, "not_found"),
        ({"period": "yesterday", "sort": "sideways"}, 400, "invalid"),
    ],
)
def test_bad_queries_get_a_short_sentence_never_a_500(api_client, demo, query, status, code):
    path = "/api/v1/sales/products" if "sort" in query else "/api/v1/sales"
    response = api_client.get(path, query)

    assert response.status_code == status
    error = response.json()["error"]
    assert error["code"].startswith(code) and len(error["message"]) < 300


@pytest.mark.parametrize("junk", ["from to to to", "between and and", "since since", "the 0th", "on the 31st of february",
                                  "\u0000\u202e", "'; drop table receipts; --", "99/99/9999", "since the 1st of the 1st"])
def test_hostile_period_words_are_a_400(api_client, demo, junk):
    response = api_client.get("/api/v1/sales", {"period": junk})

    assert response.status_code == 400, response.content


def test_another_stores_credentials_see_only_their_own_books(api_client, demo, other_store):
    _, raw = token_create(store=other_store, name="other", scopes=["api"])
    other = APIClient()
    other.credentials(HTTP_AUTHORIZATION=f"Bearer {raw}")

    mine = api_client.get("/api/v1/sales", {"period": "today"}).json()
    theirs = other.get("/api/v1/sales", {"period": "today"}).json()
    their_product = other.get("/api/v1/sales", {"period": "today", "sku": "LI-022"})
    their_rows = other.get("/api/v1/sales/products", {"period": "today"}).json()

    assert mine["receipts"] == 40
    assert (theirs["receipts"], theirs["revenue"]) == (0, "0.00")
    assert their_product.status_code == 404 and their_rows["count"] == 0


def test_the_schema_documents_the_sales_reads(api_client):
    schema = api_client.get("/api/v1/schema", {"format": "json"}).json()

    for path in ("/api/v1/sales", "/api/v1/sales/products", "/api/v1/sales/categories", "/api/v1/sales/days"):
        operation = schema["paths"][path]["get"]
        assert {parameter["name"] for parameter in operation["parameters"]} >= {"period"}
        assert "400" in operation["responses"]
