"""REST /api/v1/alerts: list, acknowledge, snooze and preferences, per role, with the API's error shape."""

from __future__ import annotations

import datetime as dt

import pytest

from alerts.checks import report_failed_alert
from alerts.kinds import Kind
from alerts.tests.conftest import make_product, sell

pytestmark = pytest.mark.django_db


@pytest.fixture
def raised(demo, after_commit):
    """A low-stock alert and a report failure in the demo store."""
    with after_commit():
        sell(demo, make_product(demo, "Mustard oil test", stock=10, reorder_point=4), 7)
    report_failed_alert(store=demo, key=f"daily:{demo.pk}:sales:2026-11-25", error="The mail server refused.")
    return demo


def _open(client, **params):
    response = client.get("/api/v1/alerts", params)
    assert response.status_code == 200, response.content
    return response.json()


def test_the_owner_lists_every_kind_and_staff_only_theirs(raised, api_client, staff_api_client):
    owner = _open(api_client)
    assert owner["count"] == 2 and {a["kind"] for a in owner["results"]} == {Kind.LOW_STOCK, Kind.REPORT_FAILED}
    low = next(a for a in owner["results"] if a["kind"] == Kind.LOW_STOCK)
    assert low["message"] == "Mustard oil test is down to 3 (reorder point 4)." and low["facts"]["stock"] == 3
    staff = _open(staff_api_client)
    assert [a["kind"] for a in staff["results"]] == [Kind.LOW_STOCK]
    report = next(a for a in owner["results"] if a["kind"] == Kind.REPORT_FAILED)
    refused = staff_api_client.post(f"/api/v1/alerts/{report['id']}/ack")
    assert refused.status_code == 404 and refused.json()["error"]["code"] == "not_found"


def test_acknowledge_moves_an_alert_to_past_and_twice_keeps_the_first_time(raised, api_client):
    alert = _open(api_client)["results"][0]
    first = api_client.post(f"/api/v1/alerts/{alert['id']}/ack").json()
    again = api_client.post(f"/api/v1/alerts/{alert['id']}/ack").json()
    assert first["acknowledged_at"] and again["acknowledged_at"] == first["acknowledged_at"]
    assert _open(api_client)["count"] == 1
    assert [a["id"] for a in _open(api_client, state="past")["results"]] == [alert["id"]]
    snooze = api_client.post(f"/api/v1/alerts/{alert['id']}/snooze", {"hours": 2}, format="json")
    assert snooze.status_code == 400 and snooze.json()["error"]["message"] == "That alert was already acknowledged."


def test_snooze_hides_an_alert_until_the_time(raised, api_client):
    alert = _open(api_client)["results"][0]
    until = (dt.datetime.now(dt.UTC) + dt.timedelta(hours=3)).isoformat()
    answer = api_client.post(f"/api/v1/alerts/{alert['id']}/snooze", {"until": until}, format="json")
    assert answer.status_code == 200 and answer.json()["snoozed_until"]
    assert alert["id"] not in [a["id"] for a in _open(api_client)["results"]]
    assert [a["id"] for a in _open(api_client, state="snoozed")["results"]] == [alert["id"]]


@pytest.mark.parametrize("body, message", [
    ({}, "Give either until or hours."),
    ({"hours": 0}, "hours: Ensure this value is greater than or equal to 1."),
    ({"until": "2020-01-01T00:00:00Z"}, "Snooze until a time in the next 30 days."),
    ({"until": "tomorrow-ish"}, "until: Datetime has wrong format."),
])
def test_a_bad_snooze_is_a_short_error_and_changes_nothing(raised, api_client, body, message):
    alert = _open(api_client)["results"][0]
    answer = api_client.post(f"/api/v1/alerts/{alert['id']}/snooze", body, format="json")
    assert answer.status_code == 400 and answer.json()["error"]["message"].startswith(message)
    assert _open(api_client)["count"] == 2


def test_another_stores_alert_and_a_bad_state_are_refused(raised, other_store, api_client):
    from rest_framework.test import APIClient

    from tenants.services import token_create

    _, raw = token_create(store=other_store, name="other", scopes=["api", "orders:confirm"])
    other = APIClient()
    other.credentials(HTTP_AUTHORIZATION=f"Bearer {raw}")
    alert = _open(api_client)["results"][0]
    assert _open(other)["count"] == 0
    assert other.post(f"/api/v1/alerts/{alert['id']}/ack").status_code == 404
    bad = api_client.get("/api/v1/alerts", {"state": "everything"})
    assert bad.status_code == 400 and bad.json()["error"]["code"] == "invalid_input"


def test_a_kind_is_turned_off_by_the_owner_only(raised, api_client, staff_api_client, after_commit):
    staff = staff_api_client.put(f"/api/v1/alerts/preferences/{Kind.LOW_STOCK}", {"enabled": False}, format="json")
    assert staff.status_code == 403 and staff.json()["error"]["code"] == "permission_denied"
    owner = api_client.put(f"/api/v1/alerts/preferences/{Kind.LOW_STOCK}", {"enabled": False}, format="json")
    assert owner.status_code == 200 and owner.json() == {"kind": "low_stock", "enabled": False, "channels": [
        "workspace", "email", "spoken"]}
    with after_commit():
        sell(raised, make_product(raised, "Another oil", stock=10, reorder_point=4), 7)
    assert _open(api_client)["count"] == 2  # nothing new raised for the kind that is off
    prefs = {p["kind"]: p for p in api_client.get("/api/v1/alerts/preferences").json()}
    assert prefs["low_stock"]["enabled"] is False and prefs["sold_out"]["enabled"] is True
    unknown = api_client.put("/api/v1/alerts/preferences/weather", {"enabled": False}, format="json")
    assert unknown.status_code == 400 and "Unknown alert kind" in unknown.json()["error"]["message"]
    channel = api_client.put("/api/v1/alerts/preferences/sold_out", {"enabled": True, "channels": ["pager"]},
                             format="json")
    assert channel.status_code == 400
