"""Numbers said in a text, whether written in digits or spoken as words, with where they are.

One reader for every place that needs to know what number a text says: the normaliser (the
owner's "twenty-eight bags" becomes "28 bags"), the reply checks (a model-written "twenty-eight" is
as much a claim as "28"; ``assistant.reply_numbers``), the small runtime and the lab's benchmark
scorer. The number words are English and live here, not in the business type's lexicon pack.

How it reads:
- Digit groups are numbers ("1,234.50" is 1234.5, "007" is 7), but not inside a word ("B12").
- A run of number words is one number, read the usual English way and greedily, so "one
  hundred twenty-eight" is 128 and does not also say 28; "a hundred and five" is 105, "two
  dozen" 24, "a dozen" 12. A unit word cannot be followed by a tens word inside one run, so
  "eight ninety-nine" is two runs, 8 and 99.
- "one" after "this", "the", "which", "another"... and "one of" are words, not the number 1.
- ``amounts_in`` also reads prices as one amount: A "dollars" [and] B ["cents"] is A.B, two word
  runs side by side where the second is 10..99 ("eight ninety-nine") or "oh" and a unit ("eight
  oh five") are A.B, A "point" digit words is a decimal, B "cents" alone is 0.B.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from decimal import Decimal, InvalidOperation

UNITS = {"zero": 0, "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7, "eight": 8, "nine": 9}
TEENS = {"ten": 10, "eleven": 11, "twelve": 12, "thirteen": 13, "fourteen": 14, "fifteen": 15, "sixteen": 16,
         "seventeen": 17, "eighteen": 18, "nineteen": 19}
TENS = {"twenty": 20, "thirty": 30, "forty": 40, "fourty": 40, "fifty": 50, "sixty": 60, "seventy": 70,
        "eighty": 80, "ninety": 90}
SCALES = {"thousand": 1000, "million": 1_000_000, "billion": 1_000_000_000}
DOLLARS = frozenset({"dollar", "dollars", "bucks", "buck"})
CENTS = frozenset({"cent", "cents"})
# After these words "one" is a pronoun ("this one", "the same one"), not a count.
ONE_IS_A_WORD_AFTER = frozenset({
    "this", "that", "which", "the", "each", "any", "every", "no", "another", "other", "same", "last", "next",
    "first", "big", "small", "little", "right", "wrong", "new", "old", "good", "bad", "red", "yellow", "green",
    "white", "some", "someone", "one",
})
_ONES_WORDS = {**UNITS, "oh": 0, "o": 0}
_TOKEN = re.compile(r"(?P<digits>(?<![\w.])\d+(?:,\d{3})*(?:\.\d+)?)|[^\W\d_]+|\d+|\S")


@dataclass(frozen=True)
class Number:
    """One number in a text: its value, its characters ``text[start:end]``, and whether it is spoken as words."""

    value: Decimal
    start: int
    end: int
    words: bool

    def __str__(self) -> str:
        """The value written one way ("1200", "8.5", "6")."""
        return canonical(self.value)


def canonical(value: Decimal) -> str:
    """``value`` written one way: "1200" for 1,200, "8.5" for 8.50, "6" for 6.00."""
    return format(value.normalize(), "f") if value else "0"


@dataclass(frozen=True)
class _Tok:
    text: str  # lower case
    start: int
    end: int


def _tokens(text: str) -> list[_Tok]:
    # Digits inside a word ("B12", "FL3KvdR") are marked so that they are never read as a number.
    return [_Tok(("" if m.lastgroup == "digits" or not m.group()[0].isdigit() else "#") + m.group().lower(),
                 m.start(), m.end()) for m in _TOKEN.finditer(text)]


def teen_ty_partner(number: int) -> int | None:
    """The number speech recognition confuses ``number`` with ("fourteen" and "forty"), or None."""
    if 13 <= number <= 19:
        return (number - 10) * 10
    if number in (30, 40, 50, 60, 70, 80, 90):
        return number // 10 + 10
    return None


def is_number_word(word: str) -> bool:
    """Whether ``word`` is a unit, teen, tens or scale word ("twenty-eight" included)."""
    parts = word.lower().split("-")
    return all(p in UNITS or p in TEENS or p in TENS or p in SCALES or p == "hundred" for p in parts)


def word_value(word: str) -> int | None:
    """The value of one 0-99 number word ("seven", "twelve", "forty", "twenty-eight"), or None."""
    if word in UNITS or word in TEENS or word in TENS:
        return UNITS.get(word, TEENS.get(word, TENS.get(word)))
    return _tens_unit(word)


def _tens_unit(word: str) -> int | None:
    """"twenty-eight" written as one word (the normaliser's tokens keep hyphenated words whole)."""
    tens, dash, unit = word.partition("-")
    if dash and tens in TENS and unit in UNITS and unit != "zero":
        return TENS[tens] + UNITS[unit]
    return None


def spoken_run(words: Sequence[str], i: int) -> tuple[int, int] | None:
    """The number spoken by the lower-case ``words`` from ``words[i]``: (value, index after), or None.

    Read as the module says; "twenty-eight" may be one word or three ("twenty", "-", "eight"), and
    a run may start with digits before "hundred", "dozen" or a scale ("5 hundred"). The
    normaliser reads the owner's words with it; ``numbers_in`` reads any text.
    """
    total, group, last, j = 0, 0, None, i
    if words[i: i + 3] in (["half", "a", "dozen"], ["a", "half", "dozen"]):
        return 6, i + 3
    if words[i: i + 2] == ["half", "dozen"]:
        return 6, i + 2
    if words[i: i + 3] in (["a", "couple", "of"], ["a", "pair", "of"]):
        return 2, i + 3
    if words[i: i + 2] == ["couple", "of"]:
        return 2, i + 2
    if words[i] == "a" and i + 1 < len(words) and words[i + 1] in ("hundred", "dozen", *SCALES):
        group, last, j = 1, "unit", i + 1
    elif words[i].isdigit() and i + 1 < len(words) and words[i + 1] in ("hundred", "dozen", *SCALES):
        group, last, j = int(words[i]), "unit", i + 1
    while j < len(words):
        tok = words[j]
        if tok in UNITS and tok != "zero":
            if last in (None, "hundred", "scale"):
                last = "unit"
            elif last == "tens":
                last = "unit after tens"
            else:
                break
            group += UNITS[tok]
        elif tok == "zero":
            if last is not None:
                break
            return 0, j + 1
        elif (pair := _tens_unit(tok)) is not None:
            if last not in (None, "hundred", "scale"):
                break
            group += pair
            last = "unit after tens"
        elif tok in TEENS or tok in TENS:
            if last not in (None, "hundred", "scale"):
                break
            group += TEENS.get(tok) or TENS[tok]
            last = "teen" if tok in TEENS else "tens"
        elif tok == "hundred":
            if last not in ("unit", "teen", "tens", "unit after tens") or not 0 < group < 100:
                break
            group, last = group * 100, "hundred"
        elif tok in SCALES:
            if last in (None, "scale") or group == 0:
                break
            total, group, last = total + group * SCALES[tok], 0, "scale"
        elif tok == "dozen":
            if last in (None, "scale"):
                break
            return (total + group) * 12, j + 1
        elif tok == "-" and last in ("tens",) and j + 1 < len(words) and words[j + 1] in UNITS:
            pass  # "twenty-eight"
        elif not (tok == "and" and last in ("hundred", "scale") and j + 1 < len(words)
                  and (words[j + 1] in UNITS or words[j + 1] in TEENS or words[j + 1] in TENS)):
            break
        j += 1
    return None if last is None else (total + group, j)


def is_pronoun_one(words: Sequence[str], i: int, *, before_of: bool = True) -> bool:
    """Whether ``words[i]`` is "one" as a word, not the number: "this one", "the same one", and
    (``before_of``) "one of". The normaliser passes ``before_of=False``: the owner's "one of each"
    or "one of the samosas" is a count; a reply's "one of the low items" is not a claim of 1."""
    if words[i] != "one":
        return False
    before = words[i - 1] if i else ""
    after = words[i + 1] if i + 1 < len(words) else ""
    return before in ONE_IS_A_WORD_AFTER or (before_of and after == "of")


def _read(toks: list[_Tok]) -> list[tuple[int, int, Number]]:
    """(first token, token after, number) for every number in ``toks``, in order."""
    found: list[tuple[int, int, Number]] = []
    words = [t.text for t in toks]
    i = 0
    while i < len(toks):
        tok = toks[i]
        run = spoken_run(words, i)
        if run is None or (run[1] == i + 1 and is_pronoun_one(words, i)) or (i and toks[i - 1].text == "-" and tok.text[0].isalpha()
                                                               and i > 1 and not is_number_word(toks[i - 2].text)):
            if tok.text[0].isdigit():
                try:
                    found.append((i, i + 1, Number(Decimal(tok.text.replace(",", "")), tok.start, tok.end, False)))
                except InvalidOperation:
                    pass
            i += 1
            continue
        value, end = run
        found.append((i, end, Number(Decimal(value), tok.start, toks[end - 1].end, True)))
        i = end
    return _decimals(toks, found)


def _decimals(toks: list[_Tok], found: list[tuple[int, int, Number]]) -> list[tuple[int, int, Number]]:
    """"eight point nine nine": a whole number, "point" and digit words are one decimal."""
    out: list[tuple[int, int, Number]] = []
    skip_until = -1
    for first, end, number in found:
        if first < skip_until:
            continue
        if number.value == number.value.to_integral_value() and end < len(toks) and toks[end].text == "point":
            k, digits = end + 1, ""
            while k < len(toks) and toks[k].text in _ONES_WORDS:
                digits += str(_ONES_WORDS[toks[k].text])
                k += 1
            if digits:
                value = Decimal(f"{int(number.value)}.{digits}")
                out.append((first, k, Number(value, number.start, toks[k - 1].end, True)))
                skip_until = k
                continue
        out.append((first, end, number))
    return out


def numbers_in(text: str) -> list[Number]:
    """Every number ``text`` says, in digits or words, in order, each once."""
    return [number for _, _, number in _read(_tokens(text))]


def _cents(value: Decimal) -> bool:
    return value == value.to_integral_value() and 0 <= value <= 99


def _amount(toks: list[_Tok], found: list[tuple[int, int, Number]], n: int) -> tuple[Number, int] | None:
    """The price that starts with ``found[n]`` and how many numbers it takes, or None."""
    first, end, number = found[n]
    after = toks[end].text if end < len(toks) else ""
    following = found[n + 1] if n + 1 < len(found) else None
    if after in CENTS and _cents(number.value):
        return Number(number.value / 100, number.start, toks[end].end, number.words), 1
    if number.value != number.value.to_integral_value():
        return None
    if after in DOLLARS and following is not None:
        k = end + 1 + (end + 1 < len(toks) and toks[end + 1].text == "and")
        if following[0] == k and _cents(following[2].value):
            stop = following[2].end
            return Number(number.value + following[2].value / 100, number.start, stop, number.words), 2
    if (number.words and following is not None and following[0] == end and following[2].words
            and 10 <= following[2].value <= 99
            and not (following[1] < len(toks) and toks[following[1]].text == "-")):  # "four twelve-piece boxes"
        return Number(number.value + following[2].value / 100, number.start, following[2].end, True), 2
    if number.words and after in ("oh", "o") and end + 1 < len(toks) and toks[end + 1].text in UNITS:
        cents = Decimal(UNITS[toks[end + 1].text]) / 100
        skip = 2 if following is not None and following[0] == end + 1 else 1
        return Number(number.value + cents, number.start, toks[end + 1].end, True), skip
    return None


def amounts_in(text: str) -> list[Number]:
    """Like ``numbers_in``, but a spoken price ("eight ninety-nine", "8 dollars 99") is one amount."""
    toks = _tokens(text)
    found = _read(toks)
    out: list[Number] = []
    n = 0
    while n < len(found):
        amount = _amount(toks, found, n)
        if amount is None:
            out.append(found[n][2])
            n += 1
        else:
            out.append(amount[0])
            n += amount[1]
    return out


def said_values(text: str) -> set[Decimal]:
    """Every value ``text`` says, read both as plain numbers and as prices."""
    return {n.value for n in numbers_in(text)} | {n.value for n in amounts_in(text)}


def says_number(text: str, value: float | str | Decimal | int) -> bool:
    """Whether ``text`` says ``value`` (in digits, in words, or as a spoken price)."""
    return Decimal(str(value)) in said_values(text)
