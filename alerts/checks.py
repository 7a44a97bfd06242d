"""The background checks, one store at a time (``alerts.tasks``; each call is safe to repeat).

* **An unusual day.** From ``ALERT_DAY_HOUR`` (default 17:00, the store's time), today's net sales
  since midnight are compared with the same weekday's sales up to the same hour over the last
  four weeks: the median of the weeks that sold anything (at least three of them, else there is
  no usual yet). Under half the median is a slow day, over twice it a busy one. One per day;
  none on a day the store's opening hours say it is closed.
* **A draft waiting.** A pending reorder draft older than ``ALERT_DRAFT_WAIT_MINUTES`` (default
  30; drafts expire after ``DRAFT_TTL_MINUTES``). One per draft.
* **A report that failed.** A report dispatch that gave up after its retries (``worker.reports``)
  in the last two days. One per dispatch; the worker also raises it the moment it gives up.
* **Stock, swept.** Stock alerts are raised from the sale that caused them (``alerts.receivers``);
  the sweep re-reads the last three hours of the journal so one lost on the way (a broker down)
  is still raised, under the same event key.
"""

from __future__ import annotations

import datetime as dt
import re
import statistics
from decimal import Decimal

from django.conf import settings
from django.db.models import F
from django.utils import timezone

from alerts.kinds import Kind
from alerts.models import Alert
from alerts.services import alert_raise, stock_alert_for_entry
from ledger.models import ReorderDraft, StockEntry
from ledger.periods.spans import local_midnight
from ledger.sales_history import sales_figures
from ledger.selectors import store_tz
from tenants.context import store_context
from tenants.models import Store

SLOW_BELOW = Decimal("0.5")
BUSY_ABOVE = Decimal("2")
WEEKS = 4
MIN_WEEKS = 3
SWEEP = dt.timedelta(hours=3)
REPORT_LOOKBACK = dt.timedelta(days=2)
_DAILY_KEY = re.compile(r"^daily:\d+:(?P<kind>\w+):(?P<day>\d{4}-\d{2}-\d{2})$")


def _revenue_by(store: Store, day: dt.date, hour: int, tz) -> tuple[Decimal, int]:
    start = local_midnight(day, tz)
    end = dt.datetime.combine(day, dt.time(hour), tzinfo=tz)
    figures = sales_figures(store=store, start=start, end=end)
    return figures.revenue, figures.receipts


def day_check(*, store: Store, now: dt.datetime | None = None) -> Alert | None:
    """Today against the same weekday's usual, once the day's check hour has passed."""
    tz = store_tz(store)
    local = (now or timezone.now()).astimezone(tz)
    hour = settings.ALERT_DAY_HOUR
    if local.hour < hour:
        return None
    today = local.date()
    hours = store.opening_hours or {}
    if hours and not hours.get(today.strftime("%a").lower()):
        return None  # a day the store is closed has no usual to miss
    revenue, _receipts = _revenue_by(store, today, hour, tz)
    history = [_revenue_by(store, today - dt.timedelta(weeks=week), hour, tz) for week in range(1, WEEKS + 1)]
    sold = [amount for amount, receipts in history if receipts > 0 and amount > 0]
    if len(sold) < MIN_WEEKS:
        return None
    usual = Decimal(statistics.median(sold)).quantize(Decimal("0.01"))
    if revenue < usual * SLOW_BELOW:
        direction = "slow"
    elif revenue > usual * BUSY_ABOVE:
        direction = "busy"
    else:
        return None
    facts = {"direction": direction, "revenue": str(revenue), "usual": str(usual), "hour": hour,
             "weekday": today.strftime("%A"), "day": today.isoformat(), "weeks": len(sold),
             "currency": store.currency}
    alert, _created = alert_raise(store=store, kind=Kind.UNUSUAL_DAY, event_key=f"day:{today.isoformat()}",
                                  facts=facts, now=now)
    return alert


def drafts_check(*, store: Store, now: dt.datetime | None = None) -> list[Alert]:
    """Pending drafts that have waited longer than ``ALERT_DRAFT_WAIT_MINUTES`` and not yet expired."""
    at = now or timezone.now()
    waited = at - dt.timedelta(minutes=settings.ALERT_DRAFT_WAIT_MINUTES)
    raised = []
    with store_context(store):
        drafts = ReorderDraft.objects.filter(store=store, status=ReorderDraft.Status.PENDING,
                                             created_at__lte=waited, expires_at__gt=at)
        for draft in drafts:
            facts = {"draft": draft.pk, "supplier": draft.supplier, "total": str(draft.est_total),
                     "minutes": int((at - draft.created_at).total_seconds() // 60), "currency": store.currency,
                     "expires_at": draft.expires_at.isoformat()}
            alert, _created = alert_raise(store=store, kind=Kind.DRAFT_WAITING, event_key=f"draft:{draft.pk}",
                                          facts=facts, now=at)
            if alert is not None:
                raised.append(alert)
    return raised


def report_failed_alert(*, store: Store, key: str, error: str, at: dt.datetime | None = None) -> Alert | None:
    """The alert for a report dispatch that gave up (called by the worker, and by the check)."""
    moment = at or timezone.now()
    match = _DAILY_KEY.match(key)
    report = match["kind"] if match else ("sales" if ":sales" in key else "inventory" if ":inventory" in key else "")
    day = match["day"] if match else moment.astimezone(store_tz(store)).date().isoformat()
    facts = {"report": report, "day": day, "error": error[:300], "key": key[:150]}
    alert, _created = alert_raise(store=store, kind=Kind.REPORT_FAILED, event_key=f"report:{key}"[:200],
                                  facts=facts, now=moment)
    return alert


def reports_check(*, store: Store, now: dt.datetime | None = None) -> list[Alert]:
    """Report dispatches of this store that gave up in the last two days."""
    from worker.models import ReportDispatch

    at = now or timezone.now()
    with store_context(store):  # the dispatches are fenced by row-level security
        failed = list(ReportDispatch.objects.filter(store=store, status=ReportDispatch.Status.FAILED,
                                                    updated_at__gte=at - REPORT_LOOKBACK))
    alerts = [report_failed_alert(store=store, key=d.key, error=d.error, at=d.updated_at) for d in failed]
    return [alert for alert in alerts if alert is not None]


def stock_sweep(*, store: Store, now: dt.datetime | None = None) -> int:
    """Raise any stock alert the last three hours of the journal call for; returns how many entries crossed."""
    at = now or timezone.now()
    crossed = 0
    with store_context(store):
        entries = (StockEntry.objects.filter(store=store, created_at__gte=at - SWEEP, after__lt=F("before"))
                   .order_by("id").values_list("pk", flat=True)[:2000])
        for entry_id in entries:
            crossed += stock_alert_for_entry(store=store, entry_id=entry_id) is not None
    return crossed


def store_check(*, store: Store, now: dt.datetime | None = None) -> dict[str, int]:
    """Every check for one store, then the day's email digest when it is due."""
    from alerts.delivery import digest_send

    with store_context(store):
        outcome = {
            "stock": stock_sweep(store=store, now=now),
            "day": int(day_check(store=store, now=now) is not None),
            "drafts": len(drafts_check(store=store, now=now)),
            "reports": len(reports_check(store=store, now=now)),
        }
        digest = digest_send(store=store, now=now)
    outcome["digest"] = int(digest is not None and digest.status == "sent")
    return outcome
