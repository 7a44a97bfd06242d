"""Alerts asked for by voice in router mode: "any alerts?" says the open ones from ``get_alerts`` (a
restocked product's alert is not said; a low one with its count now), and "clear the alerts" or
"dismiss the mustard oil alert" acknowledges them through ``dismiss_alert``, audited. The router
model is scripted at its process boundary; grounding, the tools and the replies are the real code."""

from __future__ import annotations

import pytest

from alerts.checks import report_failed_alert
from alerts.kinds import Kind
from alerts.models import Alert
from alerts.tests.conftest import ACTOR, make_product, sell
from assistant.pipeline import run_turn
from assistant.types import TurnInput
from inference.base import Role
from inference.fake import fake_models
from ledger import services as ledger
from tenants.context import use_store

pytestmark = pytest.mark.django_db


def _turn(store, text, routed, actor, conversation=None, channel="api"):
    with fake_models(Role.ROUTER, default=routed):
        return run_turn(store=store, turn=TurnInput(text=text, conversation=conversation, channel=channel, actor=actor))


def _open(store):
    with use_store(store):
        return list(Alert.objects.filter(store=store, acknowledged_at__isnull=True).order_by("id"))


def _tools(store, result):
    """The turn's tool calls as its answer lists them (each went through the gateway and its audit)."""
    return [(call["tool"], call["ok"]) for call in result.tool_calls]


def test_any_alerts_says_the_open_ones_from_the_ledger_and_leaves_them_open(store, owner, after_commit):
    oil, atta = make_product(store), make_product(store, "Atta", stock=9, reorder_point=5)
    with after_commit():
        sell(store, oil, 7)  # 10 -> 3: low
        sell(store, atta, 5)  # 9 -> 4: low
        sell(store, oil, 1)  # 3 -> 2: the same alert, the count is 2 now
    with use_store(store):
        ledger.stock_set(store=store, product=atta, count=30, expected=4, actor=ACTOR, reason="delivery")

    result = _turn(store, "any alerts?", {"action": "alerts"}, f"user:{owner.pk}")

    assert result.reply == "One open alert: Mustard oil is down to 2."
    assert _tools(store, result) == [("get_alerts", True)]
    assert len(_open(store)) == 2  # saying them acknowledges nothing


def test_the_word_alerts_is_never_a_product_the_store_lacks(store, owner):
    result = _turn(store, "any alerts", {"action": "find_product", "item": "alerts", "ask": "available"},
                   f"user:{owner.pk}")
    assert result.reply == "No open alerts, and nothing is at or below its reorder point."
    assert "carry" not in result.reply


def test_clear_the_alerts_acknowledges_every_open_one_and_says_how_many(store, owner, after_commit):
    with after_commit():
        sell(store, make_product(store), 7)
    report_failed_alert(store=store, key=f"daily:{store.pk}:sales:2026-11-25", error="The mail server refused.")

    said = _turn(store, "what needs my attention", {"action": "alerts"}, f"user:{owner.pk}")
    cleared = _turn(store, "ok clear the alerts", {"action": "alerts"}, f"user:{owner.pk}",
                    conversation=said.conversation)

    assert said.reply.startswith("2 open alerts: ") and "Mustard oil is down to 3." in said.reply
    assert "did not send: The mail server refused." in said.reply
    assert cleared.reply == "Done: 2 alerts put away."
    assert _open(store) == []
    assert [name for name, _ in _tools(store, cleared)] == ["get_alerts", "dismiss_alert", "dismiss_alert"]
    again = _turn(store, "any alerts", {"action": "alerts"}, f"user:{owner.pk}")
    # Put away, the product is still low: said from the ledger, not "all is well".
    assert again.reply == "No open alerts. But 1 item is at or below the reorder point: Mustard oil (3 left)."
    assert [name for name, _ in _tools(store, again)] == ["get_alerts", "get_inventory"]


def test_dismissing_one_products_alert_leaves_the_others_open(store, owner, after_commit):
    with after_commit():
        sell(store, make_product(store), 7)
        sell(store, make_product(store, "Atta", stock=9, reorder_point=5), 5)

    result = _turn(store, "dismiss the mustard oil alert", {"action": "alerts", "item": "mustard oil"},
                   f"user:{owner.pk}")

    assert result.reply == "Done: the Mustard oil alert is put away."
    assert [alert.facts["product"] for alert in _open(store)] == ["Atta"]
    nothing = _turn(store, "dismiss the mustard oil alert", {"action": "alerts", "item": "mustard oil"},
                    f"user:{owner.pk}")
    assert nothing.reply == "There is no open alert about Mustard oil, so nothing changed."


def test_staff_hear_and_clear_only_the_alerts_their_role_sees(store, owner, staff, after_commit):
    with after_commit():
        sell(store, make_product(store, stock=3, reorder_point=1), 3)  # sold out
    report_failed_alert(store=store, key=f"daily:{store.pk}:sales:2026-11-25", error="The mail server refused.")

    heard = _turn(store, "any alerts", {"action": "alerts"}, f"user:{staff.pk}")
    cleared = _turn(store, "clear them all", {"action": "alerts"}, f"user:{staff.pk}")

    assert heard.reply == "One open alert: Mustard oil is sold out."
    assert cleared.reply == "Done: 1 alert put away."
    assert [alert.kind for alert in _open(store)] == [Kind.REPORT_FAILED]  # the owner's alert stays open


def test_words_that_do_not_say_it_was_dealt_with_acknowledge_nothing(store, owner, after_commit):
    with after_commit():
        sell(store, make_product(store), 7)
    result = _turn(store, "tell me about the alerts", {"action": "alerts"}, f"user:{owner.pk}")
    assert result.reply == "One open alert: Mustard oil is down to 3." and len(_open(store)) == 1


def test_stock_alerts_read_as_the_low_stock_list_stay_that_list_until_they_are_dealt_with(store, owner, after_commit):
    with after_commit():
        sell(store, make_product(store), 7)

    listed = _turn(store, "any stock alerts today", {"action": "low_stock"}, f"user:{owner.pk}")
    cleared = _turn(store, "clear the stock alerts", {"action": "low_stock"}, f"user:{owner.pk}")

    assert [name for name, _ in _tools(store, listed)] == ["get_inventory"] and "Mustard oil" in listed.reply
    assert cleared.reply == "Done: 1 alert put away." and _open(store) == []


def test_an_alert_restocked_since_is_not_said_as_if_it_still_held(store, owner, after_commit):
    oil = make_product(store)
    with after_commit():
        sell(store, oil, 7)  # 10 -> 3: low
    with use_store(store):
        ledger.stock_set(store=store, product=oil, count=30, expected=3, actor=ACTOR, reason="delivery")

    result = _turn(store, "any alerts", {"action": "alerts"}, f"user:{owner.pk}")

    assert result.reply == ('No open alert holds now: 1 was restocked since (say "clear the alerts" to put it away), '
                            "and nothing is at or below its reorder point.")


def test_asked_first_thing_by_voice_the_alerts_are_said_once_not_prefaced_again(store, owner, after_commit):
    with after_commit():
        sell(store, make_product(store), 7)
    result = _turn(store, "any alerts", {"action": "alerts"}, f"user:{owner.pk}", channel="voice")
    assert result.reply == "One open alert: Mustard oil is down to 3."  # no "Before you ask: ..." before it


def test_of_two_products_named_the_reply_names_the_one_whose_alert_was_put_away(store, owner, after_commit):
    make_product(store, "Atta", stock=9, reorder_point=5)
    with after_commit():
        sell(store, make_product(store), 7)
    result = _turn(store, "dismiss the atta and mustard oil alerts",
                   {"action": "alerts", "item": "atta and mustard oil"}, f"user:{owner.pk}")
    assert result.reply == "Done: the Mustard oil alert is put away." and _open(store) == []
