"""Sales over periods through POST /api/v1/turns: the router's sales action, the period found in code,
``get_sales`` through the gateway, and a reply whose every number is the tool's.

Only the router model is replaced, at its process boundary (``FakeBackend``, scripted answers).
"""

from __future__ import annotations

import datetime as dt
import re
from decimal import Decimal
from zoneinfo import ZoneInfo

from django.utils import timezone

from ledger import services
from ledger.models import Product, StockEntry
from ledger.services import SaleLine
from tenants.context import use_store


def say(client, text, conversation=None):
    response = client.post("/api/v1/turns", {"text": text, "conversation": conversation, "mode": "router"},
                           format="json")
    assert response.status_code == 200, response.content
    return response.json()


def local_day(store, back: int) -> dt.date:
    return timezone.now().astimezone(ZoneInfo(store.timezone)).date() - dt.timedelta(days=back)


def at(store, day: dt.date, hour: int, minute: int = 0) -> dt.datetime:
    return dt.datetime.combine(day, dt.time(hour, minute), tzinfo=ZoneInfo(store.timezone))


def sell(store, name, qty, when):
    with use_store(store):
        product = Product.objects.get(store=store, name=name)
        services.sale_record(store=store, lines=[SaleLine(product=product, qty=qty)], actor="system:test", sold_at=when)


def sales_call(answer):
    calls = [call for call in answer["tool_calls"] if call["tool"] == "get_sales"]
    assert len(calls) == 1, answer["tool_calls"]
    return calls[0]


def numbers(text: str) -> set[str]:
    return set(re.findall(r"\d[\d,]*(?:\.\d+)?", text))


def said_numbers_come_from(reply: str, result: dict) -> None:
    """Every number in the reply is a number of the result (amounts without zero cents, dates' days)."""
    found: set[str] = set()

    def walk(value):
        if isinstance(value, dict):
            for item in value.values():
                walk(item)
        elif isinstance(value, list):
            for item in value:
                walk(item)
        elif isinstance(value, (int, float, str)) and not isinstance(value, bool):
            text = str(value)
            found.add(text)
            if re.fullmatch(r"-?\d+\.\d\d", text):
                amount = Decimal(text)
                found.add(f"{abs(amount):,.2f}")
                found.add(f"{int(abs(amount)):,}")
            if re.fullmatch(r"\d{4}-\d{2}-\d{2}", text):
                found.add(str(int(text[8:])))
                found.add(text[:4])
            if isinstance(value, float):
                found.add(f"{abs(value):g}")

    walk(result)
    assert numbers(reply) <= found, (reply, numbers(reply) - found)


def test_yesterday_is_answered_from_the_books_including_a_sale_at_2330_local(api_client, demo, router):
    yesterday = local_day(demo, 1)
    sell(demo, "Ghee", 2, at(demo, yesterday, 23, 30))
    router.add({"action": "sales_period"})

    answer = say(api_client, "how did we do yesterday")

    call = sales_call(answer)
    assert call["arguments"] == {"period": "yesterday"}
    result = call["result"]
    assert result["period"]["from"] == yesterday.isoformat()
    assert answer["action"] == "sales_period"
    assert answer["reply"].startswith("Yesterday (")
    assert f"{result['receipts']} receipts" in answer["reply"]
    said_numbers_come_from(answer["reply"], result)


def test_a_product_over_a_period_grounds_the_owners_words(api_client, demo, router):
    sell(demo, "Atta", 3, timezone.now() - dt.timedelta(minutes=1))
    router.add({"action": "sales_period", "item": "otta"})

    answer = say(api_client, "how many bags of otta did we sell this month")

    call = sales_call(answer)
    assert call["arguments"]["item"] == "Atta" and call["arguments"]["period"] == "this month"
    focus = call["result"]["focus"]
    assert focus["units"] >= 3
    assert f"we sold {focus['units']} Atta" in answer["reply"]
    said_numbers_come_from(answer["reply"], call["result"])


def test_a_comparison_with_a_running_month_is_to_the_same_point(api_client, demo, router):
    router.add({"action": "sales_period", "item": "ghee"})

    answer = say(api_client, "are we selling more ghee than last month")

    call = sales_call(answer)
    assert call["arguments"] == {"period": "this month", "compareTo": "last month", "item": "Ghee"}
    other = call["result"]["comparison"]["period"]
    assert other["trimmed"] and other["label"] == "last month to the same point"
    assert "Last month" in answer["reply"]
    said_numbers_come_from(answer["reply"], call["result"])


def test_best_and_worst_sellers_of_a_week(api_client, demo, router):
    router.add({"action": "sales_period"}, {"action": "sales_period"})

    best = say(api_client, "what sold best last week")
    worst = say(api_client, "what were the slowest sellers last week")

    assert sales_call(best)["arguments"] == {"period": "last week", "groupBy": "product", "sort": "best", "limit": 3}
    assert sales_call(worst)["arguments"]["sort"] == "worst"
    assert "best sellers:" in best["reply"] and "slowest:" in worst["reply"]
    for answer in (best, worst):
        said_numbers_come_from(answer["reply"], sales_call(answer)["result"])


def test_a_model_that_picks_todays_sales_for_yesterday_is_corrected_in_code(api_client, demo, router):
    router.add({"action": "todays_sales"})

    answer = say(api_client, "what were sales like yesterday")

    assert answer["action"] == "sales_period"
    assert sales_call(answer)["arguments"] == {"period": "yesterday"}


def test_the_sales_action_for_today_alone_is_todays_sales(api_client, demo, router):
    router.add({"action": "sales_period"})

    answer = say(api_client, "how are sales looking")

    assert answer["action"] == "todays_sales"
    assert [call["tool"] for call in answer["tool_calls"]] == ["get_todays_transactions"]


def test_a_future_period_is_a_clear_question_back_and_runs_nothing(api_client, demo, router):
    with use_store(demo):
        journal = StockEntry.objects.filter(store=demo).count()
    router.add({"action": "sales_period"})

    answer = say(api_client, "how will sales be next week")

    assert answer["tool_calls"] == [] and "still to come" in answer["reply"]
    with use_store(demo):
        assert StockEntry.objects.filter(store=demo).count() == journal
