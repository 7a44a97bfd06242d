"""Routing-set scoring of sales over periods: the product or group, and the period found in the words (pure)."""

from __future__ import annotations

import datetime as dt
from types import SimpleNamespace
from zoneinfo import ZoneInfo

import pytest

from lab.bench.routing import (
    RoutingItem,
    RoutingSetError,
    item_matches,
    period_match,
    route_score,
    routing_set_load,
    routing_summary,
)

NOW = dt.datetime(2026, 12, 3, 15, 0, tzinfo=ZoneInfo("Asia/Kolkata"))  # a Thursday


def _grounding(*names, group=None):
    return SimpleNamespace(products=tuple(SimpleNamespace(name=n) for n in names), group=group, unknown=None)


def _item(say, period, compare=None, **gold):
    return RoutingItem(id="p", say=say, action="sales_period", period=period, compare=compare, **gold)


def test_a_sales_question_needs_its_product_or_group_and_nothing_grounded_where_it_names_none():
    atta = _item("how much atta this month", "this month", item="Atta")
    assert item_matches(atta, _grounding("Atta")) and not item_matches(atta, _grounding("Ghee"))
    spices = _item("how did the spices do", "this month", group="Spices")
    assert item_matches(spices, _grounding(group="Spices")) and not item_matches(spices, _grounding(group="Lentils"))
    plain = _item("what sold best this week", "this week")
    assert item_matches(plain, _grounding()) and item_matches(plain, None)
    assert not item_matches(plain, _grounding("Ghee")) and not item_matches(plain, _grounding(group="Spices"))


def test_the_period_found_must_resolve_to_the_gold_days_and_comparison():
    assert period_match(_item("how did we do yesterday", "yesterday"), "how did we do yesterday", now=NOW)[0]
    assert period_match(_item("sales for the past 30 days", "last 30 days"), "sales for the past 30 days", now=NOW)[0]
    ok, said = period_match(_item("x", "yesterday"), "how did we do last week", now=NOW)
    assert ok is False and said == "last week"
    compared = _item("are we selling more ghee than last month", "this month", "last month")
    assert period_match(compared, compared.say, now=NOW)[0]
    assert not period_match(compared, "how much ghee this month", now=NOW)[0]  # no comparison found
    assert not period_match(_item("x", "this month"), "sales next month", now=NOW)[0]  # refused: a miss
    assert period_match(RoutingItem(id="f", say="x", action="find_product"), "x", now=NOW) == (None, "")


def test_a_wrong_period_is_a_miss_of_action_and_item_and_counted_apart():
    item = _item("how did we do yesterday", "yesterday")
    right = route_score(item, words=SimpleNamespace(text="how did we do yesterday", numbers=()),
                        decision=SimpleNamespace(action="sales_period"), grounding=_grounding(), ms=1, now=NOW)
    wrong = route_score(item, words=SimpleNamespace(text="how did we do last week", numbers=()),
                        decision=SimpleNamespace(action="sales_period"), grounding=_grounding(), ms=1, now=NOW)
    assert right.item_ok and right.period_ok
    assert wrong.action_ok and not wrong.item_ok and wrong.period_ok is False
    summary = routing_summary([right, wrong])
    assert (summary.periods_ok, summary.periods_total, summary.item_ok) == (1, 2, 1)


def test_a_gold_period_the_resolver_cannot_read_is_the_sets_error_not_a_miss():
    with pytest.raises(RoutingSetError, match="p: the gold period cannot be read"):
        period_match(_item("sales on the 32nd", "the 32nd of november"), "x", now=NOW)


@pytest.mark.parametrize("now", [NOW, dt.datetime(2027, 1, 1, 0, 30, tzinfo=ZoneInfo("America/Chicago")),
                                 dt.datetime(2027, 3, 14, 12, 0, tzinfo=ZoneInfo("America/Chicago"))])
def test_every_gold_period_of_the_periods_set_can_be_read(now):
    for item in routing_set_load("assistant/data/routing_periods.json"):
        period_match(item, item.say, now=now)  # raises on an unreadable gold
