"""Period words: one regular expression per shape of phrase, read by a handler of the same name.

Named calendar dates ("3rd of November", "Nov 3 2025", "14/11") go to dateparser, anchored at the
store's local now and preferring the past; everything around them is read here.
"""

from __future__ import annotations

import datetime as dt
import re
from dataclasses import replace
from functools import lru_cache

from django.utils.translation import gettext as _

from ledger.periods.spans import (
    MONTHS,
    WEEKDAYS,
    Period,
    PeriodError,
    _add_months,
    _calendar,
    _day,
    _last_days,
    _month,
    _past_date,
    _past_month_day,
    _past_weekday,
    _span,
    _week_start,
    day_label,
    hint,
    shift_back,
)

_MONTH_ABBR = {name[:3]: index for index, name in enumerate(MONTHS, start=1)} | {"sept": 9}
_ORDINAL_WORDS = {
    "first": 1, "second": 2, "third": 3, "fourth": 4, "fifth": 5, "sixth": 6, "seventh": 7, "eighth": 8,
    "ninth": 9, "tenth": 10, "eleventh": 11, "twelfth": 12, "thirteenth": 13, "fourteenth": 14, "fifteenth": 15,
    "sixteenth": 16, "seventeenth": 17, "eighteenth": 18, "nineteenth": 19, "twentieth": 20, "thirtieth": 30,
}
_COUNT_WORDS = {"a": 1, "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7, "eight": 8,
                "nine": 9, "ten": 10, "eleven": 11, "twelve": 12, "fourteen": 14, "thirty": 30, "couple of": 2,
                "few": 3}
_WEEKDAY = r"(?P<weekday>monday|tuesday|wednesday|thursday|friday|saturday|sunday|mon|tues?|wed|thu(?:rs?)?|fri|sat|sun)"
_MONTH = (r"(?P<month>january|february|march|april|may|june|july|august|september|october|november|december|"
          r"jan|feb|mar|apr|jun|jul|aug|sept?|oct|nov|dec)")
_ORD = (r"(?P<ord>(?:[123]?\d)(?:st|nd|rd|th)?|first|second|third|fourth|fifth|sixth|seventh|eighth|ninth|tenth|"
        r"eleventh|twelfth|thirteenth|fourteenth|fifteenth|sixteenth|seventeenth|eighteenth|nineteenth|twentieth|"
        r"thirtieth|(?:twenty|thirty|20|30)[ -](?:first|second|third|fourth|fifth|sixth|seventh|eighth|ninth))")
_YEAR = r"(?P<year>(?:19|20)\d\d)"
_COUNT = r"(?P<count>\d+|a|one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|fourteen|thirty|couple of|few)"
_UNIT = r"(?P<unit>day|week|weekend|month|quarter|year)"


def _ordinal(text: str) -> int:
    text = text.strip().replace("-", " ")
    if text in _ORDINAL_WORDS:
        return _ORDINAL_WORDS[text]
    parts = text.split()
    if len(parts) == 2:
        tens = {"twenty": 20, "thirty": 30, "20": 20, "30": 30}[parts[0]]
        return tens + _ORDINAL_WORDS[parts[1]]
    return int(re.sub(r"(st|nd|rd|th)$", "", text))


def _month_index(text: str) -> int:
    return MONTHS.index(text) + 1 if text in MONTHS else _MONTH_ABBR[text[:4] if text == "sept" else text[:3]]


def _weekday_index(text: str) -> int:
    return next(index for index, name in enumerate(WEEKDAYS) if name.startswith(text[:3]))


@lru_cache(maxsize=1)
def _dateparser():
    import dateparser

    return dateparser


def _named_date(text: str, *, now: dt.datetime) -> dt.date:
    """A calendar date said or written ("3rd of November", "Nov 3 2025", "14/11", "2026-11-03") via dateparser."""
    base = now.replace(tzinfo=None)
    parsed = _dateparser().parse(
        text, languages=["en"],
        settings={"PREFER_DATES_FROM": "past", "RELATIVE_BASE": base, "RETURN_AS_TIMEZONE_AWARE": False,
                  "REQUIRE_PARTS": ["day", "month"], "STRICT_PARSING": False},
    )
    if parsed is None:
        raise PeriodError(_("I couldn't read the date '%(text)s'. ") % {"text": text[:40]} + hint())
    day = parsed.date()
    if day > now.date() and not re.search(r"(19|20)\d\d", text):
        # A date without a year that has not come yet this year is last year's.
        day = _past_date(day.month, day.day, today=now.date(), year=day.year - 1)
    return day


# One pattern per shape, each read by the handler of the same name. At each position the longest
# match wins (then the earlier shape in this list).
_SHAPES: tuple[tuple[str, str], ...] = (
    ("range", r"(?:between|from) (?P<a>.+?) (?:and|to|till|until|through|thru) (?P<b>.+)"),
    ("since", r"(?:since|starting(?: from)?) (?P<a>.+)"),
    ("start_of", r"(?:since )?(?:the )?(?:start|beginning) of (?:the |this )?(?P<unit>week|month|quarter|year)"),
    ("todate", r"(?P<unit>week|month|quarter|year) to date|(?P<abbr>wtd|mtd|ytd)"),
    ("day_before_yesterday", r"(?:the )?day before yesterday"),
    ("yesterday", r"yesterday|last night"),
    ("today", r"today|tonight|this (?:morning|afternoon|evening)"),
    ("same_day", r"(?:the )?same (?:day|time) (?:last|a|the) (?P<unit>week|month|year)(?: before)?"),
    ("before", (r"(?:the )?(?:previous|prior|preceding) (?P<unit>day|week|weekend|month|quarter|year)"
                r"|(?:the|a) (?P<unit2>day|week|weekend|month|quarter|year) (?:before|earlier)")),
    ("weekday_of", r"(?:on )?" + _WEEKDAY + r"s? (?P<rel>last|this) week"),
    ("before_last", r"(?:the )?(?P<unit>day|week|weekend|month|quarter|year) before last"),
    ("last_n", r"(?:the )?(?:last|past|previous) " + _COUNT + r" (?P<unit>day|week|month|year)s?"),
    ("past_unit", r"(?:the )?past (?P<unit>week|month|year)"),
    ("calendar", r"(?P<rel>this|last|current) (?P<unit>day|week|weekend|month|quarter|year)(?: so far)?"),
    ("the_weekend", r"(?:over )?the weekend"),
    ("month_year", _MONTH + r"(?: of)? (?:" + _YEAR + r"|(?P<last>last year|this year))"),
    ("month_day", r"(?:on )?" + _MONTH + r" (?:the )?" + _ORD + r"(?: " + _YEAR + r")?"),
    ("day_month", r"(?:on )?(?:the )?" + _ORD + r" (?:of )?" + _MONTH + r"(?: " + _YEAR + r")?"),
    ("numeric", r"(?P<iso>\d{4}-\d{1,2}-\d{1,2})|(?P<slash>\d{1,2}/\d{1,2}(?:/\d{2,4})?)"),
    ("last_weekday", r"(?P<rel>last|this|on|past) " + _WEEKDAY),
    ("month", r"(?:in |during |for |of )?(?:(?P<rel>last|this) )?" + _MONTH),
    ("nth", r"(?:on )?the " + _ORD),
    ("weekday", _WEEKDAY),
    ("lately", r"lately|recently|these days|of late"),
    ("future", r"tomorrow|next (?:day|week|weekend|month|quarter|year)|next " + _WEEKDAY),
)
_COMPILED = tuple((name, re.compile(rf"\b(?:{pattern})\b")) for name, pattern in _SHAPES)
# "more ghee than last month", "vs yesterday": a lone period after these is the one compared against.
_COMPARED_AGAINST = re.compile(r"\b(?:than|vs\.?|versus|compared (?:to|with)|against)\s+(?:\w+\s+){0,2}$")
_COMPARING = re.compile(
    r"\b(compare[sd]?|comparison|up or down|down or up|better or worse|worse or better|vs\.?|versus|than|"
    r"change[sd]?|growth|grow|grew)\b"
)
# Three-letter names alone ("may", "sun", "sat", "wed") are words far more often than dates.
_AMBIGUOUS = {"may", "mar", "sun", "sat", "wed", "jan", "dec", "oct", "nov", "aug", "jun", "jul", "apr", "feb",
              "sep", "sept", "mon", "tue", "tues", "thu", "thur", "thurs", "fri"}


def _clean(text: str) -> str:
    text = (text or "").casefold().replace("\u2019", "'")
    text = re.sub(r"[,?!;]", " ", text)
    text = re.sub(r"(?<!\d)\.(?!\d)", " ", text)
    text = re.sub(r"\b(\d{4}-\d{1,2}-\d{1,2})\s*(?:\.\.|\u2013|\u2014)\s*(\d{4}-\d{1,2}-\d{1,2})\b", r"from \1 to \2", text)
    text = re.sub(r"\s*[\u2013\u2014]\s*", " - ", text)  # "nov 1–nov 15"
    text = " ".join(text.split())
    text = _BARE_END.sub(r"\g<head> the \g<day>", text)
    return _BARE_START.sub(r"the \1 ", text)


def _count(text: str) -> int:
    return int(text) if text.isdigit() else _COUNT_WORDS[text]


def _future() -> PeriodError:
    return PeriodError(_("That is still to come: I can only tell you about sales that have happened. ") + hint())


_NTH = re.compile(r"(?:the )?" + _ORD)


def _range(g: dict, now: dt.datetime, base: Period | None) -> Period:
    a, b = _clean(g["a"]), _clean(g["b"])
    first_nth, last_nth = _NTH.fullmatch(a), _NTH.fullmatch(b)
    if last_nth and not first_nth:
        # "november 1st to the 15th", "november 1 to 15": the 15th of the same month.
        first = period_parse(a, now=now)
        if first.unit != "day":
            raise PeriodError(_("I couldn't tell which days '%(text)s' means. ") % {"text": g["b"][:40]} + hint())
        last = _day(min(_month_day(first.first_day, _ordinal(last_nth.group("ord"))), now.date()), now=now)
    else:
        last = period_parse(b, now=now, clip=True)
        if first_nth and last.unit == "day":
            # "between the first and the fifteenth of November": the first of the same month.
            first = _day(_month_day(last.first_day, _ordinal(first_nth.group("ord"))), now=now)
        else:
            first = period_parse(a, now=now)
        weekday = re.fullmatch(_WEEKDAY, b)
        if weekday and last.last_day < first.first_day:
            # "last monday through friday": the friday after that monday (today at the latest).
            ahead = (_weekday_index(weekday.group("weekday")) - first.first_day.weekday()) % 7
            last = _day(min(first.first_day + dt.timedelta(days=ahead), now.date()), now=now)
    return _span(first.first_day, last.last_day, now=now, label=f"{first.label} to {last.label}")


def _month_day(day: dt.date, number: int) -> dt.date:
    """The ``number``th of ``day``'s month."""
    try:
        return day.replace(day=number)
    except ValueError:
        raise PeriodError(_("There is no such day in the calendar. ") + hint()) from None


def _since(g: dict, now: dt.datetime, base: Period | None) -> Period:
    first = period_parse(g["a"], now=now)
    label = first.label if first.label.endswith("so far") else f"since {first.label}"
    return _span(first.first_day, now.date(), now=now, label=label)


def _start_of(g: dict, now: dt.datetime, base: Period | None) -> Period:
    unit = g["unit"]
    return _calendar(unit, 0, now=now, label=f"this {unit} so far")


def _todate(g: dict, now: dt.datetime, base: Period | None) -> Period:
    unit = g["unit"] or {"wtd": "week", "mtd": "month", "ytd": "year"}[g["abbr"]]
    return _calendar(unit, 0, now=now, label=f"this {unit} so far")


def _day_before_yesterday(g: dict, now: dt.datetime, base: Period | None) -> Period:
    return _day(now.date() - dt.timedelta(days=2), now=now)


def _yesterday(g: dict, now: dt.datetime, base: Period | None) -> Period:
    return _day(now.date() - dt.timedelta(days=1), now=now)


def _today(g: dict, now: dt.datetime, base: Period | None) -> Period:
    return _day(now.date(), now=now)


def _same_day(g: dict, now: dt.datetime, base: Period | None) -> Period:
    unit = g["unit"]
    if base is None:
        base = _day(now.date(), now=now)

    def back(day: dt.date) -> dt.date:
        return day - dt.timedelta(weeks=1) if unit == "week" else _add_months(day, -1 if unit == "month" else -12)

    first, last = back(base.first_day), back(base.last_day)
    if base.days == 1:
        return _day(first, now=now, label=f"{day_label(first, now=now)}, the same day last {unit}")
    return _span(first, last, now=now, label=f"the same days last {unit}")


def _before(g: dict, now: dt.datetime, base: Period | None) -> Period:
    unit = g["unit"] or g["unit2"]
    if base is not None:
        return shift_back(base, now=now)
    # Said alone, "the previous week" is last week.
    if unit == "day":
        return _day(now.date() - dt.timedelta(days=1), now=now)
    return _calendar(unit, -1, now=now, label=f"last {unit}")


def _before_last(g: dict, now: dt.datetime, base: Period | None) -> Period:
    unit = g["unit"]
    if unit == "day":
        return _day(now.date() - dt.timedelta(days=2), now=now)
    period = _calendar(unit, -2, now=now, label=f"the {unit} before last")
    return period


def _weekday_of(g: dict, now: dt.datetime, base: Period | None) -> Period:
    monday = _week_start(now.date()) - dt.timedelta(weeks=1 if g["rel"] == "last" else 0)
    day = monday + dt.timedelta(days=_weekday_index(g["weekday"]))
    if day > now.date():
        raise _future()
    return _day(day, now=now)


def _last_n(g: dict, now: dt.datetime, base: Period | None) -> Period:
    count, unit = _count(g["count"]), g["unit"]
    return _last_days(count, unit, now=now, label=f"the last {count} {unit}{'s' if count != 1 else ''}")


def _past_unit(g: dict, now: dt.datetime, base: Period | None) -> Period:
    return _last_days(1, g["unit"], now=now, label=f"the past {g['unit']}")


def _calendar_words(g: dict, now: dt.datetime, base: Period | None) -> Period:
    offset = 0 if g["rel"] in ("this", "current") else -1
    unit = g["unit"]
    if unit == "day":
        return _day(now.date() + dt.timedelta(days=offset), now=now)
    period = _calendar(unit, offset, now=now, label="")
    label = ("this " if offset == 0 else "last ") + unit + (" so far" if period.running else "")
    return replace(period, label=label)


def _the_weekend(g: dict, now: dt.datetime, base: Period | None) -> Period:
    period = _calendar("weekend", 0, now=now, label="")
    return replace(period, label="this weekend so far" if period.running else "the weekend")


def _month_year(g: dict, now: dt.datetime, base: Period | None) -> Period:
    year = int(g["year"]) if g["year"] else now.year - (1 if g["last"] == "last year" else 0)
    return _month(year, _month_index(g["month"]), now=now)


def _calendar_date(g: dict, now: dt.datetime, base: Period | None) -> Period:
    if g.get("iso") or g.get("slash"):
        return _day(_named_date(g.get("iso") or g["slash"], now=now), now=now)
    year = f" {g['year']}" if g.get("year") else ""
    return _day(_named_date(f"{_ordinal(g['ord'])} {g['month']}{year}", now=now), now=now)


def _last_weekday(g: dict, now: dt.datetime, base: Period | None) -> Period:
    index = _weekday_index(g["weekday"])
    if g["rel"] == "this":
        day = _week_start(now.date()) + dt.timedelta(days=index)
        if day > now.date():
            raise _future()
        return _day(day, now=now)
    return _day(_past_weekday(index, today=now.date()), now=now)


def _month_words(g: dict, now: dt.datetime, base: Period | None) -> Period:
    index, today = _month_index(g["month"]), now.date()
    year = today.year if index <= today.month else today.year - 1
    if g["rel"] == "last" and index >= today.month:
        year = today.year - 1
    return _month(year, index, now=now)


def _nth(g: dict, now: dt.datetime, base: Period | None) -> Period:
    return _day(_past_month_day(_ordinal(g["ord"]), today=now.date()), now=now)


def _weekday(g: dict, now: dt.datetime, base: Period | None) -> Period:
    return _day(_past_weekday(_weekday_index(g["weekday"]), today=now.date()), now=now)


def _lately(g: dict, now: dt.datetime, base: Period | None) -> Period:
    return _last_days(7, "day", now=now, label="the last 7 days")


def _future_words(g: dict, now: dt.datetime, base: Period | None) -> Period:
    raise _future()


_HANDLERS = {
    "range": _range, "since": _since, "start_of": _start_of, "todate": _todate,
    "day_before_yesterday": _day_before_yesterday, "yesterday": _yesterday, "today": _today,
    "same_day": _same_day, "before": _before, "before_last": _before_last, "weekday_of": _weekday_of, "last_n": _last_n,
    "past_unit": _past_unit, "calendar": _calendar_words, "the_weekend": _the_weekend, "month_year": _month_year,
    "month_day": _calendar_date, "day_month": _calendar_date, "numeric": _calendar_date,
    "last_weekday": _last_weekday, "month": _month_words, "nth": _nth, "weekday": _weekday, "lately": _lately,
    "future": _future_words,
}
_RELATIVE = ("same_day", "before")


# Shapes that name fixed days, so "A to B" between two of them is one span ("november 1 to november 15",
# "monday to wednesday", "the 3rd to the 10th"); "this week to last week" is a comparison, never a span.
_SPAN_ENDS = {"month_day", "day_month", "numeric", "month", "month_year", "weekday", "last_weekday", "nth",
              "yesterday", "day_before_yesterday", "today"}
_SPAN_JOIN = re.compile(r" (?:to|till|until|through|thru|-) ")
_RANGE = re.compile(r"\b(?:" + dict(_SHAPES)["range"] + r")\b")
# "1st to 15th november": the bare ordinal before a span's end is "the 1st".
_BARE_START = re.compile(r"(?<!the )(?<!from )(?<!between )\b(\d{1,2}(?:st|nd|rd|th)) (?=(?:to|till|until|through|thru|-) "
                         r"(?:the )?\d{1,2}(?:st|nd|rd|th)? (?:of )?" + _MONTH + r"\b)")


# "november 1 to 15": the bare number after a month's day and "to" is "the 15".
_BARE_END = re.compile(r"\b(?P<head>" + _MONTH + r" (?:the )?\d{1,2}(?:st|nd|rd|th)? (?:to|till|until|through|thru|-)) "
                       r"(?P<day>\d{1,2}(?:st|nd|rd|th)?)\b(?! (?:of )?(?:" + _MONTH.replace("?P<month>", "") + r"))")


def _matches(text: str) -> list[tuple[int, int, str, re.Match]]:
    """Every shape found in ``text``, longest first at each position, without overlaps, in order; two fixed
    days joined by "to" (and no comparing word in the text) are one span."""
    chosen = _shapes_in(text)
    if len(chosen) < 2 or _COMPARING.search(text):
        return chosen
    joined: list[tuple[int, int, str, re.Match]] = []
    for item in chosen:
        if joined and joined[-1][2] in _SPAN_ENDS and item[2] in _SPAN_ENDS \
                and _SPAN_JOIN.fullmatch(text[joined[-1][1]:item[0]]):
            start, end = joined[-1][0], joined[-1][1]
            span = _RANGE.fullmatch(f"from {text[start:end]} to {text[item[0]:item[1]]}")
            if span is not None:
                joined[-1] = (start, item[1], "range", span)
                continue
        joined.append(item)
    return joined


def _shapes_in(text: str) -> list[tuple[int, int, str, re.Match]]:
    found = []
    for order, (name, pattern) in enumerate(_COMPILED):
        for m in pattern.finditer(text):
            if name in ("weekday", "month") and m.group(0) in _AMBIGUOUS:
                continue
            found.append((m.start(), -(m.end() - m.start()), order, m.end(), name, m))
    found.sort(key=lambda item: item[:3])
    chosen: list[tuple[int, int, str, re.Match]] = []
    for start, _length, _order, end, name, m in found:
        if chosen and start < chosen[-1][1]:
            continue
        chosen.append((start, end, name, m))
    return chosen


def _iso(text: str, *, now: dt.datetime, clip: bool) -> Period | None:
    iso = re.fullmatch(r"(\d{4}-\d{2}-\d{2})(?:\s*(?:\.\.|to|/)\s*(\d{4}-\d{2}-\d{2}))?", text)
    if iso is None:
        return None
    try:
        first = dt.date.fromisoformat(iso.group(1))
        last = dt.date.fromisoformat(iso.group(2)) if iso.group(2) else first
    except ValueError:
        raise PeriodError(_("There is no such day in the calendar. ") + hint()) from None
    if clip:
        last = min(last, now.date())
    if first == last:
        return _day(first, now=now)
    return _span(first, last, now=now, label=f"{day_label(first, now=now)} to {day_label(last, now=now)}")


def period_parse(text: str, *, now: dt.datetime, base: Period | None = None, clip: bool = False) -> Period:
    """The one period ``text`` says, in the time zone of the aware ``now`` (the store's local now).

    ``base``: the period a relative one ("the week before", "same day last week") is counted from.
    ``clip``: a period running past today is cut at today rather than refused (a range's end).

    Raises:
        PeriodError: no period, several, one in the future, or one too long.
    """
    cleaned = _clean(text)
    if not cleaned:
        raise PeriodError(hint())
    iso = _iso(cleaned, now=now, clip=clip)
    if iso is not None:
        return iso
    matches = _matches(cleaned)
    if not matches:
        raise PeriodError(_("I couldn't tell which days '%(text)s' means. ") % {"text": text.strip()[:60]} + hint())
    if len(matches) > 1:
        raise PeriodError(_("'%(text)s' names more than one period: ask for one at a time, or compare two.")
                          % {"text": text.strip()[:60]})
    _start, _end, name, match = matches[0]
    return _HANDLERS[name](match.groupdict(), now, base)
