"""``get_inventory`` over real HTTP with the official MCP client: days of cover and the reorder
suggestion's reason, from the store's own sales only."""

from __future__ import annotations

import datetime as dt
from zoneinfo import ZoneInfo

import pytest

from ledger import services
from ledger.models import Product
from mcp_gateway.tests.conftest import call
from tenants.context import use_store

pytestmark = pytest.mark.django_db(transaction=True, serialized_rollback=True)


def sold_days_ago(store, name: str, qty: int, days: int) -> None:
    when = dt.datetime.now(ZoneInfo(store.timezone)) - dt.timedelta(days=days)
    with use_store(store):
        product = Product.objects.get(store=store, name=name)
        services.receipts_import(store=store, receipts=[(when, [(product, qty)])], actor="system:test")


def test_a_product_lookup_says_its_days_of_cover_and_why_the_suggested_quantity(mcp_server, shop, mcp_token,
                                                                                other_shop):
    sold_days_ago(shop, "Toor dal", 56, days=3)  # 2 a day; 4 in stock
    sold_days_ago(other_shop, "Basmati rice", 2800, days=3)

    dal = call(mcp_server.mcp_url, mcp_token, "get_inventory", {"item": "turdal"}).structured_content["product"]
    rice = call(mcp_server.mcp_url, mcp_token, "get_inventory", {"item": "basmati"}).structured_content["product"]

    assert (dal["dailySales"], dal["daysOfCover"], dal["salesWindowDays"], dal["suggestedReorderQty"]) == (2.0, 2.0, 28, 20)
    assert dal["reorderReason"] == "Sells about 2 a day, 2 days left; 20 brings it up to par (24), about 12 days at this rate."
    assert (rice["dailySales"], rice["daysOfCover"]) == (None, None)  # the other store's sales are not ours


def test_the_low_list_carries_days_of_cover_for_every_product(mcp_server, shop, mcp_token):
    sold_days_ago(shop, "Jaggery", 14, days=1)

    data = call(mcp_server.mcp_url, mcp_token, "get_inventory", {"filter": "low"}).structured_content

    cover = {product["name"]: product["daysOfCover"] for product in data["products"]}
    assert cover == {"Jaggery": 4.0, "Toor dal": None}
