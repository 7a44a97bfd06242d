"""The beat's checks: an unusual day, a draft waiting, a report that gave up; each raised once."""

from __future__ import annotations

import datetime as dt
from zoneinfo import ZoneInfo

import pytest
from django.test import override_settings

from alerts.checks import day_check, drafts_check, reports_check, store_check
from alerts.kinds import Kind
from alerts.messages import alert_message
from alerts.models import Alert
from alerts.tasks import alerts_check_task
from alerts.tests.conftest import ACTOR, make_product, sell
from ledger import services as ledger
from tenants.context import use_store
from worker.models import ReportDispatch
from worker.reports import report_dispatch_give_up

pytestmark = pytest.mark.django_db

CHICAGO = ZoneInfo("America/Chicago")
# A Wednesday, 18:00 in Chicago: past the day check's hour (17:00).
NOW = dt.datetime(2026, 11, 25, 18, 0, tzinfo=CHICAGO)


def _alerts(store, kind=None):
    with use_store(store):
        rows = Alert.objects.filter(store=store).order_by("id")
        return list(rows.filter(kind=kind) if kind else rows)


def _history(store, product, *, weeks=4, qty=10):
    """The same weekday's sales at 10:00 for ``weeks`` weeks back (6.50 each), plus a late sale after 17:00."""
    receipts = []
    for week in range(1, weeks + 1):
        day = NOW - dt.timedelta(weeks=week)
        receipts.append((day.replace(hour=10), [(product, qty)]))
        receipts.append((day.replace(hour=19), [(product, 50)]))  # after the hour: not part of the usual
    ledger.receipts_import(store=store, receipts=receipts, actor=ACTOR)


@pytest.fixture
def stocked(store):
    return make_product(store, "Atta", stock=1000, reorder_point=5)


def test_a_slow_day_is_raised_once_with_the_ledger_figures(store, stocked):
    _history(store, stocked)  # usual by 17:00: 65.00
    sell(store, stocked, 2, sold_at=NOW.replace(hour=9))  # 13.00 today
    alert = day_check(store=store, now=NOW)
    assert alert.kind == Kind.UNUSUAL_DAY and alert.event_key == "day:2026-11-25"
    assert alert.facts["direction"] == "slow" and alert.facts["usual"] == "65.00" and alert.facts["revenue"] == "13.00"
    assert alert_message(alert.kind, alert.facts) == (
        "Sales by 17:00 are $13.00, under half the usual $65.00 for a Wednesday.")
    day_check(store=store, now=NOW + dt.timedelta(minutes=10))  # the next beat
    assert len(_alerts(store)) == 1


def test_a_busy_day_and_an_ordinary_one(store, stocked):
    _history(store, stocked)
    sell(store, stocked, 15, sold_at=NOW.replace(hour=9))  # 97.50: within 50%..200% of 65.00
    assert day_check(store=store, now=NOW) is None
    sell(store, stocked, 10, sold_at=NOW.replace(hour=11))  # 162.50 > 130.00
    alert = day_check(store=store, now=NOW)
    assert alert.facts["direction"] == "busy" and "more than twice the usual $65.00" in alert_message(alert.kind, alert.facts)


def test_no_day_alert_before_the_hour_without_history_or_on_a_closed_day(store, stocked):
    _history(store, stocked, weeks=2)
    sell(store, stocked, 1, sold_at=NOW.replace(hour=9))
    assert day_check(store=store, now=NOW) is None  # two weeks are not a usual yet
    _history(store, stocked, weeks=4)
    assert day_check(store=store, now=NOW.replace(hour=16, minute=59)) is None  # before 17:00
    store.opening_hours = {"mon": ["09:00", "21:00"]}  # closed on Wednesdays
    assert day_check(store=store, now=NOW) is None
    store.opening_hours = {}
    assert day_check(store=store, now=NOW).facts["direction"] == "slow"


@override_settings(ALERT_DRAFT_WAIT_MINUTES=30, DRAFT_TTL_MINUTES=60)
def test_a_draft_waiting_longer_than_the_limit(store, stocked):
    created = dt.datetime(2026, 11, 25, 12, 0, tzinfo=dt.UTC)
    draft = ledger.draft_create(store=store, items=[(stocked, 12)], actor=ACTOR, source="dashboard", now=created)
    assert drafts_check(store=store, now=created + dt.timedelta(minutes=20)) == []
    [alert] = drafts_check(store=store, now=created + dt.timedelta(minutes=35))
    assert alert.event_key == f"draft:{draft.pk}" and alert.facts["minutes"] == 35
    assert alert_message(alert.kind, alert.facts) == (
        f"The reorder from Bharat Foods (${draft.est_total}) has waited 35 minutes for approval.")
    drafts_check(store=store, now=created + dt.timedelta(minutes=45))
    assert drafts_check(store=store, now=created + dt.timedelta(minutes=61)) == []  # expired: not waiting
    assert len(_alerts(store, Kind.DRAFT_WAITING)) == 1


def test_a_report_that_gave_up_is_alerted_once(store):
    key = f"daily:{store.pk}:sales:2026-11-25"
    with use_store(store):
        ReportDispatch.objects.create(store=store, key=key, kind="sales")
        report_dispatch_give_up(key=key, error="The report could not be sent just now.")
        report_dispatch_give_up(key=key, error="The report could not be sent just now.")  # a second give-up
    assert len(reports_check(store=store)) == 1  # the beat finds the same one
    [alert] = _alerts(store, Kind.REPORT_FAILED)
    assert alert.event_key == f"report:{key}"
    assert alert_message(alert.kind, alert.facts) == (
        "The sales report for 2026-11-25 did not send: The report could not be sent just now.")


def test_the_beat_checks_every_store_in_its_own_context(store, other_store, stocked):
    sell(store, stocked, 996)  # 1000 -> 4 (the sale's task never ran: the sweep raises it)
    other = make_product(other_store, "Ghee", stock=3, reorder_point=2)
    sell(other_store, other, 3)
    assert alerts_check_task.delay().get() == 2
    alerts_check_task.delay()  # beat again: nothing new
    assert [a.kind for a in _alerts(store, Kind.LOW_STOCK)] == [Kind.LOW_STOCK]
    assert [a.kind for a in _alerts(other_store)] == [Kind.SOLD_OUT]
    assert store_check(store=store)["stock"] == 1  # the sweep sees the crossing again, adds nothing
    assert len(_alerts(store, Kind.LOW_STOCK)) == 1
