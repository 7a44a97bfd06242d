"""The router's restock offer says why its quantity: the ledger's reason, every number from the results."""

from __future__ import annotations

import datetime as dt
import json
import re
from zoneinfo import ZoneInfo

from ledger import services
from ledger.models import Product
from tenants.context import use_store
from tests.turns import say as _say


def test_a_named_restock_without_a_number_says_the_rate_and_days_left_from_the_result(api_client, demo, router):
    with use_store(demo):
        dal = Product.objects.get(store=demo, name="Toor dal")
        three_days_ago = dt.datetime.now(ZoneInfo(demo.timezone)) - dt.timedelta(days=3)
        services.receipts_import(store=demo, receipts=[(three_days_ago, [(dal, 84)])], actor="system:test")
    router.add({"action": "draft_restock", "item": "toor dal"})

    answer = _say(api_client, "reorder the toor dal")

    lookup = next(call for call in answer["tool_calls"] if call["tool"] == "get_inventory")
    product = lookup["result"]["product"]
    assert product["dailySales"] >= 3.0 and product["daysOfCover"] is not None  # 84 of them in the last 28 days
    assert re.match(r"Sells about \d+ a day, \d+ days? left; \d+ brings it up to par", product["reorderReason"])
    assert f"Toor dal: s{product['reorderReason'][1:]}" in answer["reply"]
    assert answer["pending_draft"] is not None
    said = set(re.findall(r"\d+(?:\.\d+)?", answer["reply"]))
    results = json.dumps([call["result"] for call in answer["tool_calls"]])
    assert all(number in results for number in said), (said, answer["reply"])
