"""Daily reports: sent at the store's time, for the day they were due, each at most once."""

from __future__ import annotations

import datetime as dt
from zoneinfo import ZoneInfo

import pytest

from ledger.models import ReportDelivery
from tenants.context import use_store
from worker.models import ReportDispatch
from worker.reports import daily_key, report_moment
from worker.tasks import daily_reports_task, report_email_task
from worker.tests.fakes import FlakyMailServer

pytestmark = pytest.mark.django_db


@pytest.fixture
def retries_followed():
    """Eager tasks follow their retries in process (as a worker would after each backoff)."""
    from shelfwise.celery import app

    saved = app.conf.task_eager_propagates
    app.conf.task_eager_propagates = False
    yield
    app.conf.task_eager_propagates = saved


def _deliveries(store):
    with use_store(store):
        return sorted(ReportDelivery.objects.filter(store=store).values_list("kind", "recipient", "actor"))


def _dispatches(store):
    with use_store(store):
        return sorted(ReportDispatch.objects.filter(store=store).values_list("kind", "status", "attempts"))


def _dispatch(store, kind):
    with use_store(store):
        return ReportDispatch.objects.get(store=store, kind=kind)


def test_the_daily_task_emails_the_sales_and_inventory_reports_to_the_store(demo, owner, mailoutbox):
    outcome = daily_reports_task.delay(store_id=demo.pk).get()

    assert outcome == {"sales": "sent", "inventory": "sent"}
    assert sorted(m.to[0] for m in mailoutbox) == ["alice@example.com", "alice@example.com"]
    assert sorted("sales report" in m.subject or "inventory report" in m.subject for m in mailoutbox) == [True, True]
    assert _deliveries(demo) == [("inventory", "alice@example.com", "schedule:daily-reports"),
                                 ("sales", "alice@example.com", "schedule:daily-reports")]
    assert _dispatches(demo) == [("inventory", "sent", 1), ("sales", "sent", 1)]


def test_a_redelivered_daily_task_sends_nothing_twice(demo, owner, mailoutbox):
    daily_reports_task.delay(store_id=demo.pk)
    again = daily_reports_task.delay(store_id=demo.pk).get()

    assert again == {"sales": "sent", "inventory": "sent"}
    assert len(mailoutbox) == 2
    assert len(_deliveries(demo)) == 2
    assert _dispatches(demo) == [("inventory", "sent", 1), ("sales", "sent", 1)]


def test_a_report_interrupted_while_sending_is_not_sent_again(demo, owner, mailoutbox):
    day = report_moment(store=demo).date()
    # A worker claimed the sales report, then died before recording whether it went.
    with use_store(demo):
        ReportDispatch.objects.create(store=demo, kind="sales", key=daily_key(store=demo, kind="sales", day=day),
                                      status=ReportDispatch.Status.SENDING, attempts=1)

    outcome = daily_reports_task.delay(store_id=demo.pk).get()

    assert outcome == {"sales": "unknown", "inventory": "sent"}
    assert [m.subject for m in mailoutbox if "sales" in m.subject] == []
    assert _dispatches(demo) == [("inventory", "sent", 1), ("sales", "unknown", 1)]


def test_a_refusing_mail_server_is_retried_and_the_report_goes_once(demo, owner, mailoutbox, settings, retries_followed):
    settings.EMAIL_BACKEND = "worker.tests.fakes.FlakyMailServer"
    FlakyMailServer.reset(refusals=2)

    result = daily_reports_task.delay(store_id=demo.pk)

    assert result.successful() and FlakyMailServer.refused == 2
    assert sorted(m.subject.split(": ")[1].split(" for")[0] for m in mailoutbox) == ["inventory report", "sales report"]
    assert _dispatches(demo) == [("inventory", "sent", 1), ("sales", "sent", 3)]


def test_a_mail_server_that_never_takes_it_fails_the_report_after_the_last_retry(
    demo, owner, mailoutbox, settings, retries_followed
):
    from ledger.errors import DeliveryFailed

    settings.EMAIL_BACKEND = "worker.tests.fakes.FlakyMailServer"
    FlakyMailServer.reset(refusals=100)

    result = daily_reports_task.delay(store_id=demo.pk)

    assert isinstance(result.result, DeliveryFailed)
    assert FlakyMailServer.refused == 1 + daily_reports_task.max_retries
    assert mailoutbox == []
    assert _dispatch(demo, "sales").status == "failed"
    assert _deliveries(demo) == []


def test_a_store_without_any_address_is_skipped_with_the_reason_and_not_retried(demo, mailoutbox):
    outcome = daily_reports_task.delay(store_id=demo.pk).get()

    assert outcome == {"sales": "skipped", "inventory": "skipped"}
    assert mailoutbox == []
    assert "email" in _dispatch(demo, "sales").error  # the ledger's reason, kept


def test_one_stores_daily_reports_never_reach_another_store(demo, owner, other_store, other_owner, mailoutbox):
    daily_reports_task.delay(store_id=other_store.pk)

    assert {m.to[0] for m in mailoutbox} == {"charlie@example.com"}
    assert all("Corner Shop" not in m.subject and "Corner Shop" not in m.body for m in mailoutbox)
    assert _deliveries(demo) == [] and _dispatches(demo) == []


def test_a_task_for_a_store_that_no_longer_exists_fails_closed(mailoutbox):
    from tenants.errors import StoreNotFound

    with pytest.raises(StoreNotFound):
        daily_reports_task.delay(store_id=987_654)
    assert mailoutbox == []


def test_the_report_day_is_the_day_whose_report_time_last_passed_in_the_stores_zone(store):
    store.timezone, store.report_time = "Asia/Kolkata", dt.time(21, 0)
    kolkata = ZoneInfo("Asia/Kolkata")

    # 22:00 in Kolkata on 3 March: today's report time has passed.
    late = dt.datetime(2026, 3, 3, 22, 0, tzinfo=kolkata)
    assert report_moment(store=store, now=late) == dt.datetime(2026, 3, 3, 21, 0, tzinfo=kolkata)
    # 01:30 on 4 March (a run delayed past midnight): still the 3 March report.
    delayed = dt.datetime(2026, 3, 4, 1, 30, tzinfo=kolkata)
    assert report_moment(store=store, now=delayed).date() == dt.date(2026, 3, 3)
    # The same instant in UTC (20:00 on 3 March) is already 4 March 01:30 in Kolkata.
    assert report_moment(store=store, now=delayed.astimezone(dt.UTC)).date() == dt.date(2026, 3, 3)


def test_a_one_off_report_email_goes_once_per_key_and_keys_are_per_store(demo, owner, other_store, other_owner, mailoutbox):
    for store in (demo, demo, other_store):
        report_email_task.delay(store_id=store.pk, kind="inventory", key="tool:abc", actor="assistant:router")

    assert sorted(m.to[0] for m in mailoutbox) == ["alice@example.com", "charlie@example.com"]
    for store in (demo, other_store):
        assert _dispatches(store) == [("inventory", "sent", 1)]
