"""Periods said in plain words ("yesterday", "last week", "since Monday", "in October"), resolved in code.

Everything is in the store's time zone: a day is the store's local calendar day, from local
midnight to local midnight (23 or 25 hours across a DST change), so a receipt rung up at 23:30
local time belongs to that local day whatever the UTC date. Weeks start on Monday.

Two entry points:

- ``period_parse(text, now=...)``: one period said alone ("last week", "October", "2026-10-01",
  "2026-10-01..2026-10-31", "since the 1st"), or, with ``base``, a period said relative to another
  ("the week before", "same day last week"). The MCP tool and the REST endpoint take these.
- ``periods_find(text, now=...)``: the period (and the period to compare it with) inside a whole
  request ("are we selling more ghee than last month" → this month against last month), as the
  words to pass to ``period_parse``. The assistant's sales action uses it.

Named calendar dates ("October 3rd", "3 Nov 2025", "14/11") are read by dateparser (BSD-3),
anchored at the store's local now and preferring the past; the shapes around them (weeks,
months, ranges, "since", comparisons) are this module's. A period still running (today, this
week) ends now, and its ``running`` flag says the figures are "so far". Nothing in the future
and nothing longer than ``MAX_DAYS`` is accepted: ``PeriodError`` says what to say instead.
"""

from __future__ import annotations

import datetime as dt
from dataclasses import replace
from zoneinfo import ZoneInfo

from ledger.periods.spans import (
    MAX_DAYS,
    Found,
    Period,
    PeriodError,
    day_label,
    local_midnight,
    shift_back,
)
from ledger.periods.words import (
    _COMPARED_AGAINST,
    _COMPARING,
    _RELATIVE,
    _clean,
    _matches,
    period_parse,
)

__all__ = [
    "MAX_DAYS",
    "Found",
    "Period",
    "PeriodError",
    "comparison_resolve",
    "day_label",
    "local_midnight",
    "period_parse",
    "period_shapes",
    "periods_find",
    "same_length",
    "shift_back",
    "store_now",
]


_PREVIOUS = {"day": "the day before", "week": "the week before", "weekend": "the weekend before",
             "month": "the month before", "quarter": "the quarter before", "year": "the year before"}
_CURRENT = {"day": "today", "week": "this week", "weekend": "the weekend", "month": "this month",
            "quarter": "this quarter", "year": "this year"}


def period_shapes(text: str) -> tuple[str, ...]:
    """The kinds of period phrase in ``text`` ("yesterday", "calendar", "since"...), in order; no clock needed."""
    return tuple(name for _start, _end, name, _m in _matches(_clean(text)))


def periods_find(text: str, *, now: dt.datetime) -> Found | None:
    """The period words in a whole request, and the comparison's, or None when it names no period.

    "compare this week with last week" → ("this week", "last week"); "are we selling more ghee than
    last month" → ("this month", "last month"); "were sales up or down last week" → ("last week",
    "the week before"). A relative comparison ("the week before") is counted from the request's period.

    Raises:
        PeriodError: a period the words name cannot be read (a future one, one too long).
    """
    cleaned = _clean(text)
    matches = _matches(cleaned)
    if not matches:
        return None
    words = [cleaned[start:end] for start, end, _name, _m in matches]
    names = [name for _start, _end, name, _m in matches]
    if len(matches) >= 2:
        if names[0] in _RELATIVE and names[1] not in _RELATIVE:
            return Found(period=words[1], compare=words[0])  # "the week before vs last week"
        return Found(period=words[0], compare=words[1])
    only, name, start = words[0], names[0], matches[0][0]
    if name == "same_day":
        return Found(period="today", compare=only)
    if name == "before":
        return Found(period=only)
    period = period_parse(only, now=now)
    if _COMPARED_AGAINST.search(cleaned[:start]):
        current = _CURRENT.get(period.unit, "today") if period.unit else "today"
        return Found(period=current, compare=only)
    if _COMPARING.search(cleaned):
        return Found(period=only, compare=_PREVIOUS.get(period.unit, "the days before"))
    return Found(period=only)


def comparison_resolve(found: Found, *, now: dt.datetime) -> tuple[Period, Period | None]:
    """Both periods of a ``Found``; a comparison with a period still running is cut to the same length
    ("this month so far against last month to the same day").

    Raises:
        PeriodError: either cannot be read.
    """
    period = period_parse(found.period, now=now)
    if found.compare is None:
        return period, None
    other = period_parse(found.compare, now=now, base=period)
    return period, same_length(period, other, now=now)


def same_length(period: Period, other: Period, *, now: dt.datetime) -> Period:
    """``other`` cut to ``period``'s elapsed time when ``period`` is still running and ``other`` is longer.

    The cut is the same local wall-clock time from the other period's start, so "today so far" at 15:00
    is compared with yesterday up to 15:00, across a DST change too.
    """
    if not period.running or other.running:
        return other
    tz = now.tzinfo
    elapsed = period.end.astimezone(tz).replace(tzinfo=None) - period.start.astimezone(tz).replace(tzinfo=None)
    local_cut = other.start.astimezone(tz).replace(tzinfo=None) + elapsed
    end = local_cut.replace(tzinfo=tz).astimezone(dt.UTC).astimezone(tz)
    if end >= other.end:
        return other
    last = (end - dt.timedelta(microseconds=1)).date()
    label = other.label + (" by this time" if other.days == 1 else " to the same point")
    return replace(other, end=end, last_day=last, label=label, trimmed=True)


def store_now(tz: ZoneInfo, now: dt.datetime | None = None) -> dt.datetime:
    """The store's local now (aware)."""
    from django.utils import timezone

    return (now or timezone.now()).astimezone(tz)
