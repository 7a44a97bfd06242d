"""Periods said in plain words, resolved in the store's time zone (no database)."""

from __future__ import annotations

import datetime as dt
from zoneinfo import ZoneInfo

import pytest

from ledger.periods import Found, PeriodError, comparison_resolve, period_parse, periods_find

CHICAGO = ZoneInfo("America/Chicago")
# Wednesday 2 December 2026, 15:00 in Chicago.
NOW = dt.datetime(2026, 12, 2, 15, 0, tzinfo=CHICAGO)
D = dt.date


def hours(period) -> dt.timedelta:
    """Elapsed time (Python subtracts same-zone datetimes by wall clock, so through UTC)."""
    return period.end.astimezone(dt.UTC) - period.start.astimezone(dt.UTC)


def days(text: str, now: dt.datetime = NOW) -> tuple[dt.date, dt.date]:
    period = period_parse(text, now=now)
    return period.first_day, period.last_day


@pytest.mark.parametrize(
    ("words", "first", "last"),
    [
        ("today", D(2026, 12, 2), D(2026, 12, 2)),
        ("yesterday", D(2026, 12, 1), D(2026, 12, 1)),
        ("the day before yesterday", D(2026, 11, 30), D(2026, 11, 30)),
        ("this week", D(2026, 11, 30), D(2026, 12, 2)),
        ("last week", D(2026, 11, 23), D(2026, 11, 29)),
        ("the week before last", D(2026, 11, 16), D(2026, 11, 22)),
        ("this month", D(2026, 12, 1), D(2026, 12, 2)),
        ("last month", D(2026, 11, 1), D(2026, 11, 30)),
        ("this year so far", D(2026, 1, 1), D(2026, 12, 2)),
        ("last year", D(2025, 1, 1), D(2025, 12, 31)),
        ("this quarter", D(2026, 10, 1), D(2026, 12, 2)),
        ("last quarter", D(2026, 7, 1), D(2026, 9, 30)),
        ("since monday", D(2026, 11, 30), D(2026, 12, 2)),
        ("since the 1st", D(2026, 12, 1), D(2026, 12, 2)),
        ("since the start of the year", D(2026, 1, 1), D(2026, 12, 2)),
        ("in october", D(2026, 10, 1), D(2026, 10, 31)),
        ("october last year", D(2025, 10, 1), D(2025, 10, 31)),
        ("march 2025", D(2025, 3, 1), D(2025, 3, 31)),
        ("the last 7 days", D(2026, 11, 26), D(2026, 12, 2)),
        ("past 30 days", D(2026, 11, 3), D(2026, 12, 2)),
        ("the last two weeks", D(2026, 11, 19), D(2026, 12, 2)),
        ("the past week", D(2026, 11, 26), D(2026, 12, 2)),
        ("on tuesday", D(2026, 12, 1), D(2026, 12, 1)),
        ("wednesday", D(2026, 11, 25), D(2026, 11, 25)),  # a weekday alone is the last one before today
        ("this monday", D(2026, 11, 30), D(2026, 11, 30)),
        ("friday last week", D(2026, 11, 27), D(2026, 11, 27)),
        ("the weekend", D(2026, 11, 28), D(2026, 11, 29)),
        ("the 14th", D(2026, 11, 14), D(2026, 11, 14)),  # this month's 14th has not come yet
        ("the 2nd", D(2026, 12, 2), D(2026, 12, 2)),
        ("the 31st", D(2026, 10, 31), D(2026, 10, 31)),  # November has no 31st
        ("the third of november", D(2026, 11, 3), D(2026, 11, 3)),
        ("nov 3 2025", D(2025, 11, 3), D(2025, 11, 3)),
        ("december 25", D(2025, 12, 25), D(2025, 12, 25)),  # Christmas has not come yet this year
        ("the 20 eighth of november", D(2026, 11, 28), D(2026, 11, 28)),
        ("2026-10-05", D(2026, 10, 5), D(2026, 10, 5)),
        ("2026-10-01..2026-10-31", D(2026, 10, 1), D(2026, 10, 31)),
        ("between the first and the fifteenth of november", D(2026, 11, 1), D(2026, 11, 15)),
        ("from monday to today", D(2026, 11, 30), D(2026, 12, 2)),
        ("month to date", D(2026, 12, 1), D(2026, 12, 2)),
    ],
)
def test_plain_words_name_the_store_local_days(words, first, last):
    assert days(words) == (first, last)


def test_a_period_reaching_today_ends_now_and_says_so_far():
    week = period_parse("this week", now=NOW)

    assert week.running and week.end == NOW and week.label == "this week so far"
    last = period_parse("last week", now=NOW)
    assert not last.running and last.end == dt.datetime(2026, 11, 30, tzinfo=CHICAGO)


def test_a_local_day_starts_at_local_midnight_whatever_the_utc_date():
    yesterday = period_parse("yesterday", now=NOW)

    # Chicago is UTC-6 in December: the local day is 06:00 to 06:00 UTC.
    assert yesterday.start.astimezone(dt.UTC) == dt.datetime(2026, 12, 1, 6, 0, tzinfo=dt.UTC)
    assert yesterday.end.astimezone(dt.UTC) == dt.datetime(2026, 12, 2, 6, 0, tzinfo=dt.UTC)


def test_the_day_the_clocks_go_back_is_twenty_five_hours_long():
    sunday = dt.datetime(2026, 11, 2, 9, 0, tzinfo=CHICAGO)  # the Monday after DST ended on 1 November
    day = period_parse("yesterday", now=sunday)

    assert day.first_day == D(2026, 11, 1)
    assert hours(day) == dt.timedelta(hours=25)


def test_the_day_the_clocks_go_forward_is_twenty_three_hours_long():
    monday = dt.datetime(2026, 3, 9, 9, 0, tzinfo=CHICAGO)
    day = period_parse("yesterday", now=monday)

    assert hours(day) == dt.timedelta(hours=23)


def test_a_month_boundary_belongs_to_the_month_it_starts():
    first_of_month = dt.datetime(2026, 12, 1, 0, 30, tzinfo=CHICAGO)

    assert days("yesterday", first_of_month) == (D(2026, 11, 30), D(2026, 11, 30))
    assert days("last month", first_of_month) == (D(2026, 11, 1), D(2026, 11, 30))
    assert days("this month", first_of_month) == (D(2026, 12, 1), D(2026, 12, 1))


@pytest.mark.parametrize("words", ["tomorrow", "next week", "next month", "this friday"])
def test_a_period_still_to_come_is_refused_in_a_sentence(words):
    with pytest.raises(PeriodError, match="still to come"):
        period_parse(words, now=NOW)


@pytest.mark.parametrize("words", ["", "the price of atta", "whenever", "may"])
def test_words_without_a_period_are_refused_with_what_to_say(words):
    with pytest.raises(PeriodError, match="yesterday"):
        period_parse(words, now=NOW)


@pytest.mark.parametrize("words", ["the last 5000 days", "1999-01-01..2026-01-01", "2026-02-30", "the 32nd"])
def test_absurd_periods_are_refused(words):
    with pytest.raises(PeriodError):
        period_parse(words, now=NOW)


@pytest.mark.parametrize(
    ("request_words", "found"),
    [
        ("how did we do yesterday", Found("yesterday")),
        ("what sold best in october", Found("in october")),
        ("compare this week with last week", Found("this week", "last week")),
        ("sales this month vs last month", Found("this month", "last month")),
        ("are we selling more ghee than last month", Found("this month", "last month")),
        ("is today better than yesterday", Found("today", "yesterday")),
        ("did we beat last week", Found("last week")),  # "beat" is no comparison word
        ("were sales up or down last week", Found("last week", "the week before")),
        ("how did october compare", Found("october", "the month before")),
        ("monday versus the same day last week", Found("monday", "the same day last week")),
        ("how much atta did we sell", None),
    ],
)
def test_the_periods_of_a_request_are_found_with_their_comparison(request_words, found):
    assert periods_find(request_words, now=NOW) == found


def test_a_comparison_with_a_running_period_is_cut_to_the_same_point():
    found = periods_find("how's this month going compared to last month", now=NOW)
    month, before = comparison_resolve(found, now=NOW)

    assert (month.first_day, month.end) == (D(2026, 12, 1), NOW)
    assert before.first_day == D(2026, 11, 1) and before.trimmed
    assert before.end == dt.datetime(2026, 11, 2, 15, 0, tzinfo=CHICAGO)
    assert before.label == "last month to the same point"


def test_today_is_compared_with_yesterday_up_to_the_same_time_across_a_dst_change():
    monday = dt.datetime(2026, 11, 2, 15, 0, tzinfo=CHICAGO)  # the day after the clocks went back
    today, yesterday = comparison_resolve(Found("today", "yesterday"), now=monday)

    assert hours(today) == dt.timedelta(hours=15)
    # Up to 15:00 local on Sunday, which had an extra hour before it.
    assert yesterday.end == dt.datetime(2026, 11, 1, 15, 0, tzinfo=CHICAGO)
    assert yesterday.label == "yesterday by this time"


def test_relative_comparisons_count_from_the_first_period():
    last_month, before = comparison_resolve(Found("last month", "the month before"), now=NOW)
    monday, week_ago = comparison_resolve(Found("monday", "the same day last week"), now=NOW)

    assert (before.first_day, before.last_day) == (D(2026, 10, 1), D(2026, 10, 31))
    assert (week_ago.first_day, week_ago.last_day) == (D(2026, 11, 23), D(2026, 11, 23))
    assert not before.trimmed and last_month.days == 30


@pytest.mark.parametrize(
    ("words", "first", "last"),
    [
        ("november 1 to november 15", D(2026, 11, 1), D(2026, 11, 15)),
        ("how did we do november 1 to november 15", D(2026, 11, 1), D(2026, 11, 15)),
        ("nov 1 - nov 15", D(2026, 11, 1), D(2026, 11, 15)),
        ("nov 1\u2013nov 15", D(2026, 11, 1), D(2026, 11, 15)),
        ("november 1 to 15", D(2026, 11, 1), D(2026, 11, 15)),
        ("november 1st till the 15th", D(2026, 11, 1), D(2026, 11, 15)),
        ("1st to 15th november", D(2026, 11, 1), D(2026, 11, 15)),
        ("what did we sell 3rd to 10th of november", D(2026, 11, 3), D(2026, 11, 10)),
        ("the 3rd to the 10th", D(2026, 11, 3), D(2026, 11, 10)),
        ("october to november", D(2026, 10, 1), D(2026, 11, 30)),
        ("monday to today", D(2026, 11, 30), D(2026, 12, 2)),
        ("last monday through wednesday", D(2026, 11, 30), D(2026, 12, 2)),  # the wednesday after that monday
        ("november 20 to 30", D(2026, 11, 20), D(2026, 11, 30)),
        ("yesterday to today", D(2026, 12, 1), D(2026, 12, 2)),
    ],
)
def test_two_days_joined_by_to_are_one_span_not_a_comparison(words, first, last):
    found = periods_find(words, now=NOW)
    assert found is not None and found.compare is None
    period = period_parse(found.period, now=NOW)
    assert (period.first_day, period.last_day) == (first, last)
    assert (period.first_day, period.last_day) == days(words)  # the tool reads the words the same way


@pytest.mark.parametrize(
    ("request_words", "found"),
    [
        ("compare october to november", Found("october", "november")),
        ("this week to last week", Found("this week", "last week")),  # relative periods: compared, never a span
        ("monday vs tuesday", Found("monday", "tuesday")),
    ],
)
def test_to_between_compared_or_relative_periods_stays_a_comparison(request_words, found):
    assert periods_find(request_words, now=NOW) == found


@pytest.mark.parametrize("words", ["november 20 to 31", "november 28 to the 12th"])
def test_a_span_that_cannot_be_is_refused(words):
    with pytest.raises(PeriodError):
        period_parse(words, now=NOW)
