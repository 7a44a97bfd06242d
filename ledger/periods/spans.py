"""Spans of a store's local days: ``Period``, calendar units (weeks from Monday, months, quarters, years),
and the period just before another. No words here: ``ledger.periods.words`` reads them."""

from __future__ import annotations

import calendar
import datetime as dt
from dataclasses import dataclass

from django.utils.translation import gettext as _

from ledger.errors import InvalidInput

MAX_DAYS = 731  # two years in one period
EARLIEST_YEAR = 2000


def hint() -> str:
    """What to say instead, for an error message."""
    return _("Say a day or a span such as 'yesterday', 'last week', 'this month', 'since Monday', 'in October' "
             "or 'the last 7 days'.")


WEEKDAYS = ("monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday")
MONTHS = ("january", "february", "march", "april", "may", "june", "july", "august", "september", "october",
          "november", "december")
class PeriodError(InvalidInput):
    """The words name no period we can read, a future one, or one too long."""

    code = "invalid_period"


@dataclass(frozen=True)
class Period:
    """A span of the store's local days.

    Attributes:
        start: the first day's local midnight (aware).
        end: the end, exclusive: the local midnight after the last day, or now for a running period.
        first_day / last_day: the local calendar days covered (inclusive).
        label: how to say it ("yesterday", "last week", "October 2026", "Monday 30 November").
        unit: "day", "week", "weekend", "month", "quarter" or "year" for a calendar unit; "" for a
            span of days or a range.
        running: the period includes now, so its figures are "so far".
        trimmed: a comparison period cut to the same length as a running one ("to the same point").
    """

    start: dt.datetime
    end: dt.datetime
    first_day: dt.date
    last_day: dt.date
    label: str
    unit: str = ""
    running: bool = False
    trimmed: bool = False

    @property
    def days(self) -> int:
        return (self.last_day - self.first_day).days + 1

    def as_dict(self) -> dict:
        return {
            "label": self.label, "unit": self.unit, "from": self.first_day.isoformat(), "to": self.last_day.isoformat(),
            "days": self.days, "running": self.running, "trimmed": self.trimmed,
            "start": self.start.isoformat(), "end": self.end.isoformat(),
        }


@dataclass(frozen=True)
class Found:
    """The period words inside a request: what to pass to ``period_parse`` (``compare`` relative to ``period``)."""

    period: str
    compare: str | None = None


# ---------------------------------------------------------------------------------------------
# Days and spans


def local_midnight(day: dt.date, tz: dt.tzinfo) -> dt.datetime:
    """The instant a local day starts (through UTC, so a midnight in a DST gap is a real instant)."""
    return dt.datetime.combine(day, dt.time.min, tzinfo=tz).astimezone(dt.UTC).astimezone(tz)


def _span(first: dt.date, last: dt.date, *, now: dt.datetime, label: str, unit: str = "") -> Period:
    """The days ``first``..``last`` (inclusive); a span reaching today ends now and is running."""
    tz = now.tzinfo
    if tz is None:
        raise ValueError("now must be an aware datetime in the store's time zone")
    today = now.date()
    if first > today:
        raise PeriodError(_("That is still to come: I can only tell you about sales that have happened. ") + hint())
    if last < first:
        raise PeriodError(_("That span ends before it starts. ") + hint())
    if first.year < EARLIEST_YEAR:
        raise PeriodError(_("That is too far back: the books start in %(year)s at the earliest.") % {"year": EARLIEST_YEAR})
    if (min(last, today) - first).days + 1 > MAX_DAYS:
        raise PeriodError(_("That is too long a span: ask for at most two years at a time."))
    running = last >= today
    last = min(last, today)
    end = now if running else local_midnight(last + dt.timedelta(days=1), tz)
    return Period(start=local_midnight(first, tz), end=end, first_day=first, last_day=last, label=label, unit=unit,
                  running=running)


def _day(day: dt.date, *, now: dt.datetime, label: str | None = None) -> Period:
    return _span(day, day, now=now, label=label or day_label(day, now=now), unit="day")


def day_label(day: dt.date, *, now: dt.datetime) -> str:
    """"today", "yesterday", "Monday 30 November", "Monday 30 November 2025"."""
    today = now.date()
    if day == today:
        return "today"
    if day == today - dt.timedelta(days=1):
        return "yesterday"
    text = f"{WEEKDAYS[day.weekday()].capitalize()} {day.day} {MONTHS[day.month - 1].capitalize()}"
    return text if day.year == today.year else f"{text} {day.year}"


def _week_start(day: dt.date) -> dt.date:
    return day - dt.timedelta(days=day.weekday())


def _month_last(year: int, month: int) -> dt.date:
    return dt.date(year, month, calendar.monthrange(year, month)[1])


def _add_months(day: dt.date, months: int) -> dt.date:
    index = day.year * 12 + day.month - 1 + months
    year, month = divmod(index, 12)
    return dt.date(year, month + 1, min(day.day, calendar.monthrange(year, month + 1)[1]))


def _month(year: int, month: int, *, now: dt.datetime, label: str | None = None) -> Period:
    name = MONTHS[month - 1].capitalize()
    return _span(dt.date(year, month, 1), _month_last(year, month), now=now, unit="month",
                 label=label or (name if year == now.year else f"{name} {year}"))


def _quarter(year: int, quarter: int, *, now: dt.datetime, label: str) -> Period:
    first = dt.date(year, 3 * quarter - 2, 1)
    return _span(first, _month_last(year, 3 * quarter), now=now, label=label, unit="quarter")


def _calendar(unit: str, offset: int, *, now: dt.datetime, label: str) -> Period:
    """The week, weekend, month, quarter or year ``offset`` units from the current one (0 this, -1 last)."""
    today = now.date()
    if unit == "week":
        first = _week_start(today) + dt.timedelta(weeks=offset)
        return _span(first, first + dt.timedelta(days=6), now=now, label=label, unit="week")
    if unit == "weekend":
        # The weekend on now, else the one just gone; "last weekend" on a weekend is the one before.
        saturday = _week_start(today) + dt.timedelta(days=5)
        if today.weekday() < 5:  # on a weekday, "this weekend" and "last weekend" are the one just gone
            offset = min(offset + 1, 0) - 1
        saturday += dt.timedelta(weeks=offset)
        return _span(saturday, saturday + dt.timedelta(days=1), now=now, label=label, unit="weekend")
    if unit == "month":
        first = _add_months(today.replace(day=1), offset)
        return _month(first.year, first.month, now=now, label=label)
    if unit == "quarter":
        index = today.year * 4 + (today.month - 1) // 3 + offset
        return _quarter(index // 4, index % 4 + 1, now=now, label=label)
    if unit == "year":
        year = today.year + offset
        return _span(dt.date(year, 1, 1), dt.date(year, 12, 31), now=now, label=label, unit="year")
    raise ValueError(unit)


def _last_days(count: int, unit: str, *, now: dt.datetime, label: str) -> Period:
    """The last ``count`` days (weeks, months) up to and including today."""
    if count < 1:
        raise PeriodError(hint())
    days = {"day": count, "week": 7 * count, "month": 30 * count, "year": 365 * count}[unit]
    if days > MAX_DAYS:
        raise PeriodError(_("That is too long a span: ask for at most two years at a time."))
    today = now.date()
    return _span(today - dt.timedelta(days=days - 1), today, now=now, label=label)


def _past_weekday(index: int, *, today: dt.date, allow_today: bool = False) -> dt.date:
    back = (today.weekday() - index) % 7
    if back == 0 and not allow_today:
        back = 7
    return today - dt.timedelta(days=back)


def _past_date(month: int, day: int, *, today: dt.date, year: int | None = None) -> dt.date:
    """That month and day in ``year``, or the latest one not after today."""
    try:
        if year is not None:
            return dt.date(year, month, day)
        candidate = dt.date(today.year, month, day)
        return candidate if candidate <= today else dt.date(today.year - 1, month, day)
    except ValueError:
        raise PeriodError(_("There is no such day in the calendar. ") + hint()) from None


def _past_month_day(day: int, *, today: dt.date) -> dt.date:
    """"The 28th": that day of this month, or of the latest month that has it, not after today."""
    if not 1 <= day <= 31:
        raise PeriodError(_("There is no such day in the calendar. ") + hint())
    month = today.replace(day=1)
    for _step in range(13):
        if day <= calendar.monthrange(month.year, month.month)[1]:
            candidate = month.replace(day=day)
            if candidate <= today:
                return candidate
        month = _add_months(month, -1)
    raise PeriodError(hint())  # pragma: no cover - every month has days 1..28



def shift_back(base: Period, *, now: dt.datetime) -> Period:
    """The period just before ``base``, of the same kind: the week before a week, the month before a month, the
    same number of days before a day or a span."""
    unit = base.unit
    if unit in ("month", "quarter", "year"):
        months = {"month": 1, "quarter": 3, "year": 12}[unit]
        first = _add_months(base.first_day, -months)
        last = _add_months(first, months) - dt.timedelta(days=1)
        return _span(first, last, now=now, label=f"the {unit} before", unit=unit)
    if unit in ("week", "weekend"):
        first = base.first_day - dt.timedelta(days=7)
        last = first + dt.timedelta(days=6 if unit == "week" else 1)
        return _span(first, last, now=now, label=f"the {unit} before", unit=unit)
    length = base.days
    first = base.first_day - dt.timedelta(days=length)
    if length == 1:
        return _day(first, now=now, label=f"{day_label(first, now=now)}, the day before")
    return _span(first, base.first_day - dt.timedelta(days=1), now=now, label=f"the {length} days before")
