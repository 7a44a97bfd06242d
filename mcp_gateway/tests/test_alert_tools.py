"""``get_alerts`` and ``dismiss_alert`` over real HTTP with the official MCP client: the role
rule of ``alerts.kinds`` (staff credentials see stock and unusual-day alerts only), an idempotent
acknowledge, and another store's alert id answered as "not found"."""

from __future__ import annotations

import pytest

from alerts.kinds import Kind
from alerts.models import Alert
from alerts.services import alert_raise
from assistant.policy import OwnerWords, OwnerWordsPolicy
from ledger.models import Product
from mcp_gateway.policy import Caller, ToolCall
from mcp_gateway.registry import REGISTRY
from mcp_gateway.tests.conftest import call
from tenants.context import use_store

pytestmark = pytest.mark.django_db(transaction=True, serialized_rollback=True)


def raise_alerts(store) -> dict[str, Alert]:
    """One alert of three kinds, raised through the alerts service as the checks raise them."""
    with use_store(store):
        jaggery = Product.objects.get(store=store, name="Jaggery")
    low, _ = alert_raise(store=store, kind=Kind.LOW_STOCK, event_key="stock:test-1", product=jaggery,
                         facts={"product": "Jaggery", "stock": 2, "reorder_point": 3})
    day, _ = alert_raise(store=store, kind=Kind.UNUSUAL_DAY, event_key="day:test", facts={
        "direction": "slow", "hour": 17, "revenue": "12.00", "usual": "80.00", "weekday": "Tuesday",
        "currency": store.currency})
    draft, _ = alert_raise(store=store, kind=Kind.DRAFT_WAITING, event_key="draft:test", facts={
        "supplier": "Amazon Business", "total": "42.00", "minutes": 45, "currency": store.currency})
    assert low and day and draft
    return {"low": low, "day": day, "draft": draft}


def alerts_of(url, token, **arguments):
    result = call(url, token, "get_alerts", arguments)
    assert not result.is_error, result.content
    return result.structured_content


def test_a_staff_credential_sees_stock_and_unusual_day_alerts_and_the_owner_sees_all(
        mcp_server, shop, mcp_token, confirm_token, other_token):
    raised = raise_alerts(shop)

    staff = alerts_of(mcp_server.mcp_url, mcp_token)
    owner = alerts_of(mcp_server.mcp_url, confirm_token)
    other = alerts_of(mcp_server.mcp_url, other_token)

    assert {a["alertId"] for a in staff["alerts"]} == {raised["low"].pk, raised["day"].pk}
    assert staff["kindsShown"] == ["low_stock", "sold_out", "unusual_day"]
    assert {a["alertId"] for a in owner["alerts"]} == {a.pk for a in raised.values()}
    low = next(a for a in owner["alerts"] if a["kind"] == "low_stock")
    assert (low["message"], low["product"]) == ("Jaggery is down to 2 (reorder point 3).", "Jaggery")
    assert (other["count"], other["alerts"]) == (0, [])


def test_acknowledging_twice_keeps_the_first_time_and_the_alert_leaves_the_open_list(mcp_server, shop, mcp_token):
    low = raise_alerts(shop)["low"]

    first = call(mcp_server.mcp_url, mcp_token, "dismiss_alert", {"alertId": low.pk})
    again = call(mcp_server.mcp_url, mcp_token, "dismiss_alert", {"alertId": low.pk})

    assert not first.is_error and not again.is_error
    assert first.structured_content["acknowledged"] is True
    assert again.structured_content["acknowledgedAt"] == first.structured_content["acknowledgedAt"]
    with use_store(shop):
        stored = Alert.objects.get(pk=low.pk)
    assert stored.acknowledged_by.startswith("token:") and stored.acknowledged_at is not None
    assert low.pk not in {a["alertId"] for a in alerts_of(mcp_server.mcp_url, mcp_token)["alerts"]}
    done = alerts_of(mcp_server.mcp_url, mcp_token, state="acknowledged")
    assert [a["alertId"] for a in done["alerts"]] == [low.pk]


def test_another_stores_alert_and_one_the_role_does_not_see_are_not_found(mcp_server, shop, mcp_token, other_token):
    raised = raise_alerts(shop)

    theirs = call(mcp_server.mcp_url, other_token, "dismiss_alert", {"alertId": raised["low"].pk})
    staff = call(mcp_server.mcp_url, mcp_token, "dismiss_alert", {"alertId": raised["draft"].pk})
    missing = call(mcp_server.mcp_url, mcp_token, "dismiss_alert", {"alertId": 999999})

    for result in (theirs, staff, missing):
        assert result.is_error and result.structured_content["error"] == "not_found"
    assert theirs.content[0].text == missing.content[0].text  # no hint that the id exists elsewhere
    with use_store(shop):
        assert not Alert.objects.filter(store=shop, acknowledged_at__isnull=False).exists()


def test_the_assistant_acknowledges_only_when_the_owner_says_it_was_seen(store):
    spec = REGISTRY["dismiss_alert"]
    caller = Caller(channel="assistant", actor="assistant:native", scopes=frozenset({"mcp"}))

    def refused(text: str) -> bool:
        policy = OwnerWordsPolicy(OwnerWords(text=text, numbers=()))
        return policy.check(ToolCall(spec=spec, arguments={"alertId": 1}, store=store, caller=caller)) is not None

    assert refused("any alerts today?") and refused("how much mustard oil is left")
    assert not refused("got it, dismiss the mustard oil alert") and not refused("mark it as done")
