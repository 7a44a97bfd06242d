"""The numbers a reply says, whether written in digits or spoken as words.

A reply counts as saying a stock of 28 when it has "28" or "twenty-eight", and a price of 8.99
when it has "$8.99", "8.99", "8 dollars 99", "eight dollars and ninety-nine cents", "eight
ninety-nine" or "eight point nine nine". Native tool calling speaks numbers as words, so a
digits-only scorer under-counts it (seed 000, §4.2).

How it reads a reply:
- Digit groups are numbers ("1,234.50" is 1234.5; a leading "$" is allowed).
- A run of number words is one number, read the usual English way and greedily, so "one
  hundred twenty-eight" is 128 and does not also say 28. A unit word cannot be followed by a
  tens word inside one run, so "eight ninety-nine" is two runs, 8 and 99.
- Prices: A followed by "dollar(s)"/"bucks", an optional "and", and B (0..99), optionally
  "cents", is A.B; two word runs side by side where the second is 10..99 ("eight ninety-nine",
  "three forty-nine") or "oh" and a unit ("eight oh five") are A.B; A "point" digit words is a
  decimal; B "cents" alone is 0.B.
Every number found and every such combination is in the result; a check asks whether the
value it wants is among them.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from decimal import Decimal, InvalidOperation

UNITS = {
    "zero": 0, "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7, "eight": 8, "nine": 9,
}
TEENS = {
    "ten": 10, "eleven": 11, "twelve": 12, "thirteen": 13, "fourteen": 14, "fifteen": 15, "sixteen": 16,
    "seventeen": 17, "eighteen": 18, "nineteen": 19,
}
TENS = {
    "twenty": 20, "thirty": 30, "forty": 40, "fifty": 50, "sixty": 60, "seventy": 70, "eighty": 80, "ninety": 90,
}
SCALES = {"thousand": 1000, "million": 1_000_000}
DOLLARS = frozenset({"dollar", "dollars", "bucks", "buck"})
CENTS = frozenset({"cent", "cents"})

_QUOTES = str.maketrans({"\u2019": "'", "\u2018": "'", "\u201c": '"', "\u201d": '"', "\u2013": "-", "\u2014": "-"})
_THOUSANDS = re.compile(r"(?<=\d),(?=\d{3}(?!\d))")
_WORD_HYPHEN = re.compile(r"(?<=[a-z])-(?=[a-z])")
_TOKEN = re.compile(r"\$?\d+(?:\.\d+)?|[a-z]+|\S")
_ONES_WORDS = {**UNITS, "oh": 0, "o": 0}


@dataclass(frozen=True)
class _Number:
    start: int  # first token
    end: int  # one past the last token
    value: Decimal
    words: bool  # spoken as words (not digits)


def tokens(text: str) -> list[str]:
    """Lower-case tokens: "$8.99", "8", "twenty", "eight" ("twenty-eight" splits at the hyphen)."""
    text = text.translate(_QUOTES).lower()
    text = _THOUSANDS.sub("", text)
    text = _WORD_HYPHEN.sub(" ", text)
    return _TOKEN.findall(text)


def _word_run(toks: list[str], i: int) -> tuple[int, int] | None:
    """The number spoken by the words starting at ``toks[i]``: (value, index after), or None."""
    total, group, last, j = 0, 0, None, i
    if toks[i] == "a" and i + 1 < len(toks) and toks[i + 1] in ("hundred", "dozen", *SCALES):
        group, last, j = 1, "unit", i + 1
    while j < len(toks):
        tok = toks[j]
        if tok in UNITS and tok != "zero":
            if last in (None, "hundred", "scale"):
                group += UNITS[tok]
                last = "unit"
            elif last == "tens":
                group += UNITS[tok]
                last = "unit after tens"
            else:
                break
        elif tok == "zero":
            if last is not None:
                break
            return 0, j + 1
        elif tok in TEENS or tok in TENS:
            if last not in (None, "hundred", "scale"):
                break
            group += TEENS.get(tok) or TENS[tok]
            last = "teen" if tok in TEENS else "tens"
        elif tok == "hundred":
            if last not in ("unit", "teen") or group % 100 != group or group == 0:
                break
            group *= 100
            last = "hundred"
        elif tok in SCALES:
            if last in (None, "scale") or group == 0:
                break
            total += group * SCALES[tok]
            group, last = 0, "scale"
        elif tok == "dozen":
            if last not in ("unit", "teen", "tens", "unit after tens"):
                break
            group *= 12
            j += 1
            break
        elif tok == "and" and last in ("hundred", "scale") and j + 1 < len(toks) and (
            toks[j + 1] in UNITS or toks[j + 1] in TEENS or toks[j + 1] in TENS
        ):
            pass
        else:
            break
        j += 1
    if last is None:
        return None
    return total + group, j


def _numbers(toks: list[str]) -> list[_Number]:
    found: list[_Number] = []
    i = 0
    while i < len(toks):
        tok = toks[i]
        if tok[0] == "$" or tok[0].isdigit():
            try:
                found.append(_Number(i, i + 1, Decimal(tok.lstrip("$")), words=False))
            except InvalidOperation:
                pass
            i += 1
            continue
        run = _word_run(toks, i)
        if run is None:
            i += 1
            continue
        value, end = run
        found.append(_Number(i, end, Decimal(value), words=True))
        i = end
    return found


def _cents(value: Decimal) -> bool:
    return value == value.to_integral_value() and 0 <= value <= 99


def spoken_values(text: str) -> set[Decimal]:
    """Every number ``text`` says, and every price its numbers make together (see the module doc)."""
    toks = tokens(text)
    numbers = _numbers(toks)
    by_start = {number.start: number for number in numbers}
    values = {number.value for number in numbers}
    for number in numbers:
        j = number.end
        after = toks[j] if j < len(toks) else ""
        whole = number.value == number.value.to_integral_value()
        if after in CENTS and _cents(number.value):
            values.add(number.value / 100)
        if not whole:
            continue
        # A dollars [and] B [cents]
        if after in DOLLARS:
            k = j + 1
            if k < len(toks) and toks[k] == "and":
                k += 1
            cents = by_start.get(k)
            if cents is not None and _cents(cents.value):
                values.add(number.value + cents.value / 100)
        # "eight ninety-nine", "three forty-nine": two word runs side by side
        following = by_start.get(j)
        if number.words and following is not None and following.words and 10 <= following.value <= 99:
            values.add(number.value + following.value / 100)
        # "eight oh five"
        if number.words and after in ("oh", "o") and j + 1 < len(toks) and toks[j + 1] in UNITS:
            values.add(number.value + Decimal(UNITS[toks[j + 1]]) / 100)
        # "eight point nine nine"
        if after == "point":
            digits = []
            k = j + 1
            while k < len(toks) and toks[k] in _ONES_WORDS:
                digits.append(str(_ONES_WORDS[toks[k]]))
                k += 1
            if digits:
                values.add(Decimal(f"{int(number.value)}.{''.join(digits)}"))
    return values


def says_number(text: str, value: float | str | Decimal) -> bool:
    """Whether ``text`` says ``value`` (in digits, in words, or as a spoken price)."""
    wanted = Decimal(str(value))
    return wanted in spoken_values(text)
