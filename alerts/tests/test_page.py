"""The workspace's alerts page (/app/alerts/) through Django's test client: open and past alerts,
acknowledge and snooze, and the owner's choices; staff see and act on the staff kinds only."""

from __future__ import annotations

import pytest
from django.test import Client

from alerts.checks import report_failed_alert
from alerts.kinds import Kind
from alerts.models import Alert, AlertPreference
from alerts.tests.conftest import make_product, sell
from tenants.context import use_store

pytestmark = pytest.mark.django_db


@pytest.fixture
def raised(store, after_commit):
    with after_commit():
        sell(store, make_product(store), 7)
    report_failed_alert(store=store, key=f"daily:{store.pk}:sales:2026-11-25", error="The mail server refused.")
    with use_store(store):
        return {a.kind: a for a in Alert.objects.filter(store=store)}


def _client(user):
    client = Client()
    client.force_login(user)
    return client


def test_the_owner_sees_open_alerts_and_acknowledges_one(raised, owner):
    client = _client(owner)
    page = client.get("/app/alerts/").content.decode()
    assert "Mustard oil is down to 3 (reorder point 4)." in page and "The sales report for 2026-11-25" in page
    low = raised[Kind.LOW_STOCK]
    answer = client.post(f"/app/alerts/{low.pk}/ack", follow=True)
    assert answer.redirect_chain[-1][0] == "/app/alerts/" and "Acknowledged." in answer.content.decode()
    with use_store(low.store):
        assert Alert.objects.get(pk=low.pk).acknowledged_by == f"user:{owner.pk}"


def test_snooze_takes_one_of_the_offered_spans(raised, owner):
    client = _client(owner)
    low = raised[Kind.LOW_STOCK]
    assert "Choose how long" in client.post(f"/app/alerts/{low.pk}/snooze", {"hours": "99"}, follow=True
                                            ).content.decode()
    answer = client.post(f"/app/alerts/{low.pk}/snooze", {"hours": "4"}, follow=True).content.decode()
    assert "Snoozed until" in answer
    with use_store(low.store):
        assert Alert.objects.get(pk=low.pk).snoozed_until is not None


def test_staff_see_the_staff_kinds_and_cannot_touch_the_owners(raised, staff):
    client = _client(staff)
    page = client.get("/app/alerts/").content.decode()
    assert "Mustard oil is down to 3" in page and "sales report" not in page
    assert client.post(f"/app/alerts/{raised[Kind.REPORT_FAILED].pk}/ack").status_code == 404
    refused = client.post("/app/alerts/preferences", {}, follow=True).content.decode()
    assert "Only the store&#x27;s owner" in refused or "Only the store's owner" in refused
    with use_store(raised[Kind.LOW_STOCK].store):
        assert not AlertPreference.objects.exists()


def test_the_owner_turns_a_kind_off_and_keeps_a_channel(raised, owner, store):
    form = {f"{kind}:on": "on" for kind in Kind.values if kind != Kind.UNUSUAL_DAY}
    form |= {f"{kind}:workspace": "on" for kind in Kind.values}
    answer = _client(owner).post("/app/alerts/preferences", form, follow=True)
    assert "Alert choices saved." in answer.content.decode()
    with use_store(store):
        prefs = {p.kind: p for p in AlertPreference.objects.filter(store=store)}
    assert prefs[Kind.UNUSUAL_DAY].enabled is False and prefs[Kind.LOW_STOCK].channels == ["workspace"]


def test_another_stores_owner_sees_nothing_of_it(raised, other_owner):
    client = _client(other_owner)
    assert "Mustard oil" not in client.get("/app/alerts/").content.decode()
    assert client.post(f"/app/alerts/{raised[Kind.LOW_STOCK].pk}/ack").status_code == 404
