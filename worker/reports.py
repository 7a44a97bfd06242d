"""Report emails sent at most once per idempotency key, and the daily reports' day.

``report_dispatch`` wraps ``ledger.services.report_send`` (which renders, sends and records the
``ReportDelivery``) in a ``ReportDispatch`` row keyed by the caller's idempotency key:

* ``sent`` or ``skipped`` already: nothing happens (a redelivered or retried task);
* ``sending`` already: an earlier attempt died between asking the mail server and recording the
  answer; it may have gone, so it is not sent again (``unknown``, visible in the admin);
* otherwise ``sending`` is committed, the mail server is asked, and the row becomes ``sent``; a
  refused send (``DeliveryFailed``) goes back to ``pending`` and the task retries.

So a retried task never sends twice; the price is that a worker killed in the instant between
the claim and the send loses that one email, and says so.
"""

from __future__ import annotations

import datetime as dt
import logging

from django.db import IntegrityError, transaction
from django.utils import timezone

from ledger.errors import DeliveryFailed, LedgerError
from ledger.models import ReportDelivery
from ledger.selectors import store_tz
from ledger.services import report_send
from tenants.models import Store
from worker.models import ReportDispatch

logger = logging.getLogger(__name__)

SCHEDULE_ACTOR = "schedule:daily-reports"
DAILY_KINDS = (ReportDelivery.Kind.SALES, ReportDelivery.Kind.INVENTORY)
_DONE = (ReportDispatch.Status.SENT, ReportDispatch.Status.SKIPPED, ReportDispatch.Status.FAILED,
         ReportDispatch.Status.UNKNOWN)


def report_moment(*, store: Store, now: dt.datetime | None = None) -> dt.datetime:
    """The store's latest daily report time at or before ``now``, in its time zone.

    A run delayed past midnight (a worker was down) still reports on the day it was due, under
    that day's key, so it cannot send a second report for the same day or skip to the next.
    """
    tz = store_tz(store)
    local = (now or timezone.now()).astimezone(tz)
    due = dt.datetime.combine(local.date(), store.report_time, tzinfo=tz)
    if due > local:
        due = dt.datetime.combine(local.date() - dt.timedelta(days=1), store.report_time, tzinfo=tz)
    return due


def daily_key(*, store: Store, kind: str, day: dt.date) -> str:
    return f"daily:{store.pk}:{kind}:{day.isoformat()}"


def _claim(*, store: Store, kind: str, key: str) -> ReportDispatch | None:
    """Take the dispatch for sending (committed), or None when it went, was skipped, or may have gone."""
    with transaction.atomic():
        try:
            dispatch, _ = ReportDispatch.objects.select_for_update().get_or_create(
                key=key, defaults={"store": store, "kind": kind}
            )
        except IntegrityError:  # taken by a row this store cannot see (row-level security: another store's)
            dispatch = None
        if dispatch is None or dispatch.store_id != store.pk or dispatch.kind != kind:
            raise ValueError(f"Idempotency key {key!r} belongs to another report.")
        if dispatch.status in _DONE:
            return None
        if dispatch.status == ReportDispatch.Status.SENDING:
            logger.warning("Report %s was interrupted while sending; not sending it again", key)
            dispatch.status = ReportDispatch.Status.UNKNOWN
            dispatch.save(update_fields=["status", "updated_at"])
            return None
        dispatch.status = ReportDispatch.Status.SENDING
        dispatch.attempts += 1
        dispatch.save(update_fields=["status", "attempts", "updated_at"])
    return dispatch


def _settle(dispatch: ReportDispatch, status: str, **fields: object) -> ReportDispatch:
    for name, value in {"status": status, **fields}.items():
        setattr(dispatch, name, value)
    dispatch.save(update_fields=["status", "updated_at", *fields])
    return dispatch


def report_dispatch(
    *, store: Store, kind: str, key: str, actor: str, to: str | None = None, at: dt.datetime | None = None
) -> ReportDispatch:
    """Email the report under ``key`` unless it already went (or may have gone); returns its row.

    A report that cannot go to anyone (no address, a recipient not allowed, the sales report
    switched off) is ``skipped`` with the reason and is not retried.

    Raises:
        DeliveryFailed: the mail server did not take it; the row is ``pending`` again (retry).
    """
    dispatch = _claim(store=store, kind=kind, key=key)
    if dispatch is None:
        return ReportDispatch.objects.get(key=key)
    try:
        deliveries = report_send(store=store, kind=kind, actor=actor, to=to, now=at)
    except DeliveryFailed as exc:
        _settle(dispatch, ReportDispatch.Status.PENDING, error=exc.message)
        raise
    except LedgerError as exc:
        return _settle(dispatch, ReportDispatch.Status.SKIPPED, error=exc.message)
    # One message to each of the store's recipients, recorded once per recipient.
    return _settle(dispatch, ReportDispatch.Status.SENT, delivery=deliveries[0] if deliveries else None,
                   recipient=", ".join(d.recipient for d in deliveries)[:254],
                   sent_at=deliveries[0].sent_at if deliveries else timezone.now(), error="")


def report_dispatch_give_up(*, key: str, error: str) -> None:
    """After the last retry: the report did not go and will not be tried again; the owner is alerted."""
    from alerts.checks import report_failed_alert

    given_up = ReportDispatch.objects.filter(key=key, status=ReportDispatch.Status.PENDING).update(
        status=ReportDispatch.Status.FAILED, error=error[:500], updated_at=timezone.now()
    )
    dispatch = ReportDispatch.objects.select_related("store").filter(key=key).first() if given_up else None
    if dispatch is not None:
        report_failed_alert(store=dispatch.store, key=key, error=dispatch.error, at=dispatch.updated_at)
