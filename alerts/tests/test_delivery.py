"""Delivery on each channel: the members' sockets (real ASGI app, in-memory channel layer), the daily
email digest (Django's locmem outbox) and the spoken preface on a conversation's first turn (the real
pipeline; the launch phrase needs no model). Each channel goes at most once per alert."""

from __future__ import annotations

import datetime as dt

import pytest
from asgiref.sync import async_to_sync
from channels.db import database_sync_to_async

from alerts import services
from alerts.checks import report_failed_alert
from alerts.delivery import before_you_ask, digest_send
from alerts.kinds import Channel, Kind
from alerts.models import Alert, AlertDigest
from alerts.tests.conftest import ACTOR, make_product, sell
from assistant.pipeline import run_turn
from assistant.tests.voice_socket import open_socket, session_cookie
from assistant.types import TurnInput
from inference.base import Role
from inference.fake import fake_models
from ledger import services as ledger
from tenants.context import use_store

LAUNCH = "open shelfwise"


def _alerts(store):
    with use_store(store):
        return list(Alert.objects.filter(store=store).order_by("id"))


# -- workspace: the open sockets -----------------------------------------------------------------


@pytest.mark.django_db(transaction=True)
def test_an_alert_reaches_the_open_sockets_of_the_members_whose_role_sees_it(store, owner, staff):
    oil = make_product(store)
    owner_cookie, staff_cookie = session_cookie(owner), session_cookie(staff)

    async def scenario():
        owner_socket = await open_socket(store.slug, cookie=owner_cookie)
        staff_socket = await open_socket(store.slug, cookie=staff_cookie)
        for socket in (owner_socket, staff_socket):
            assert (await socket.receive_json_from(timeout=10))["type"] == "ready"
        await database_sync_to_async(sell)(store, oil, 7)  # commits: the alert is pushed
        pushed = [await s.receive_json_from(timeout=10) for s in (owner_socket, staff_socket)]
        await database_sync_to_async(report_failed_alert)(
            store=store, key=f"daily:{store.pk}:sales:2026-11-25", error="The mail server refused.")
        owner_only = await owner_socket.receive_json_from(timeout=10)
        staff_heard_nothing = await staff_socket.receive_nothing(timeout=0.5)
        for socket in (owner_socket, staff_socket):
            await socket.disconnect()
        return pushed, owner_only, staff_heard_nothing

    pushed, owner_only, staff_heard_nothing = async_to_sync(scenario)()
    for frame in pushed:
        assert frame["type"] == "alert" and frame["alert"]["kind"] == Kind.LOW_STOCK
        assert frame["alert"]["message"] == "Mustard oil is down to 3 (reorder point 4)."
    assert owner_only["alert"]["kind"] == Kind.REPORT_FAILED and staff_heard_nothing
    assert all(Channel.WORKSPACE in alert.delivered for alert in _alerts(store))


# -- email: the daily digest ---------------------------------------------------------------------


def _due(store):
    """The store's report time today (21:00 in Chicago), as the digest sees it."""
    return dt.datetime(2026, 11, 25, 21, 5, tzinfo=dt.timezone(dt.timedelta(hours=-6)))


@pytest.mark.django_db
def test_the_digest_goes_once_a_day_with_the_open_alerts_only(store, owner, mailoutbox, after_commit):
    oil, atta = make_product(store), make_product(store, "Atta", stock=5, reorder_point=2)
    with after_commit():
        sell(store, oil, 7)
        sell(store, atta, 5)
    low, sold_out = _alerts(store)
    services.alert_acknowledge(store=store, alert_id=sold_out.pk, actor=f"user:{owner.pk}", owner=True)
    assert digest_send(store=store, now=_due(store) - dt.timedelta(hours=1)) is None  # before the report time
    digest = digest_send(store=store, now=_due(store))
    assert digest.status == AlertDigest.Status.SENT and digest.alerts == 1
    [mail] = mailoutbox
    assert mail.to == ["alice@example.com"] and mail.subject == "Corner Shop: 1 open alert"
    assert "- Mustard oil is down to 3 (reorder point 4)." in mail.body and "Atta" not in mail.body
    assert digest_send(store=store, now=_due(store) + dt.timedelta(minutes=10)).status == AlertDigest.Status.SENT
    assert len(mailoutbox) == 1  # the next beat: claimed already, nothing sent again
    with use_store(store):
        assert Channel.EMAIL in Alert.objects.get(pk=low.pk).delivered


@pytest.mark.django_db
def test_no_digest_without_alerts_nowhere_to_send_or_the_channel_off(store, mailoutbox, after_commit):
    oil = make_product(store)
    assert digest_send(store=store, now=_due(store)).status == AlertDigest.Status.EMPTY
    with after_commit():
        sell(store, oil, 7)
    nobody = digest_send(store=store, now=_due(store) + dt.timedelta(days=1))
    assert nobody.status == AlertDigest.Status.SKIPPED  # no verified owner yet: the store sends no email
    assert mailoutbox == [] and Channel.EMAIL not in _alerts(store)[0].delivered


@pytest.mark.django_db
def test_a_kind_kept_off_the_email_stays_out_of_the_digest(store, owner, mailoutbox, after_commit):
    services.preference_set(store=store, kind=Kind.LOW_STOCK, enabled=True, channels=["workspace", "spoken"],
                            actor=f"user:{owner.pk}")
    with after_commit():
        sell(store, make_product(store), 7)
    assert digest_send(store=store, now=_due(store)).status == AlertDigest.Status.EMPTY and mailoutbox == []


# -- spoken: the first turn of the next conversation ----------------------------------------------


def _turn(store, actor, text=LAUNCH, conversation=None, channel="voice"):
    """A turn with the language models scripted at their process boundary (the alert prefix is code's, not theirs)."""
    with fake_models(Role.ROUTER, default={"action": "general"}):
        return run_turn(store=store, turn=TurnInput(text=text, conversation=conversation, channel=channel, actor=actor))


@pytest.mark.django_db
def test_the_next_conversation_opens_with_the_open_alert_once(store, owner, after_commit):
    with after_commit():
        sell(store, make_product(store), 7)
    first = _turn(store, f"user:{owner.pk}")
    assert first.reply.startswith("Before you ask: Mustard oil is down to 3. ")
    assert "Before you ask" not in _turn(store, f"user:{owner.pk}", conversation=first.conversation).reply
    assert "Before you ask" not in _turn(store, f"user:{owner.pk}").reply  # a new conversation: said already
    assert Channel.SPOKEN in _alerts(store)[0].delivered


@pytest.mark.django_db
def test_the_spoken_count_is_the_ledgers_now_and_a_restocked_product_is_not_said(store, owner, after_commit):
    oil, atta = make_product(store), make_product(store, "Atta", stock=9, reorder_point=5)
    with after_commit():
        sell(store, oil, 7)  # 10 -> 3
        sell(store, atta, 5)  # 9 -> 4
        sell(store, oil, 1)  # 3 -> 2: no new crossing, but the count is 2 now
    with use_store(store):
        ledger.stock_set(store=store, product=atta, count=30, expected=4, actor=ACTOR, reason="delivery")
    assert before_you_ask(store=store, actor=f"user:{owner.pk}") == "Before you ask: Mustard oil is down to 2."


@pytest.mark.django_db
def test_staff_hear_only_their_kinds_and_the_system_channel_hears_nothing(store, owner, staff, after_commit):
    with after_commit():
        sell(store, make_product(store, stock=3, reorder_point=1), 3)  # sold out
    report_failed_alert(store=store, key=f"daily:{store.pk}:sales:2026-11-25", error="The mail server refused.")
    assert "Before you ask" not in _turn(store, "system:test", channel="system").reply
    assert "Before you ask" not in _turn(store, f"user:{owner.pk}", channel="api").reply  # a typed REST turn
    assert _turn(store, f"user:{staff.pk}").reply.startswith("Before you ask: Mustard oil is sold out. ")
    assert _turn(store, f"user:{owner.pk}").reply.startswith(
        "Before you ask: the sales report for 2026-11-25 did not send: The mail server refused. ")


@pytest.mark.django_db
def test_a_snoozed_or_acknowledged_alert_is_not_said(store, owner, after_commit):
    with after_commit():
        sell(store, make_product(store), 7)
        sell(store, make_product(store, "Atta", stock=9, reorder_point=5), 5)
    oil, atta = _alerts(store)
    services.alert_snooze(store=store, alert_id=oil.pk, until=dt.datetime.now(dt.UTC) + dt.timedelta(hours=2),
                          owner=True)
    services.alert_acknowledge(store=store, alert_id=atta.pk, actor=f"user:{owner.pk}", owner=True)
    assert before_you_ask(store=store, actor=f"user:{owner.pk}") == ""
