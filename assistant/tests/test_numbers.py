"""The one reader of numbers (assistant/numbers.py): digits and words, with their spans; pure, no database."""

from __future__ import annotations

from decimal import Decimal

import pytest

from assistant.numbers import amounts_in, is_number_word, is_pronoun_one, numbers_in, spoken_run, word_value


def _read(text):
    return [(str(number), text[number.start:number.end]) for number in numbers_in(text)]


@pytest.mark.parametrize(("text", "read"), [
    ("fifteen bags", [("15", "fifteen")]),
    ("twenty-eight bags", [("28", "twenty-eight")]),
    ("twenty eight", [("28", "twenty eight")]),
    ("a hundred and five", [("105", "a hundred and five")]),
    ("one hundred twenty-eight", [("128", "one hundred twenty-eight")]),
    ("a dozen cans", [("12", "a dozen")]),
    ("two dozen", [("24", "two dozen")]),
    ("half a dozen samosas", [("6", "half a dozen")]),
    ("a couple of bags", [("2", "a couple of")]),
    ("5 hundred", [("500", "5 hundred")]),
    ("eight point nine nine", [("8.99", "eight point nine nine")]),
    ("a billion bags", [("1000000000", "a billion")]),
    ("zero left", [("0", "zero")]),
    ("twelve-piece boxes", [("12", "twelve")]),
    ("order ten boxes and 10 bottles", [("10", "ten"), ("10", "10")]),
    ("We have 1,200 bags at $8.50, 6.00 each, 007 left", [("1200", "1,200"), ("8.5", "8.50"), ("6", "6.00"), ("7", "007")]),
])
def test_digits_and_words_are_read_with_where_they_are(text, read):
    assert _read(text) == read


@pytest.mark.parametrize("text", [
    "this one", "another one", "which one", "the same one", "Toor dal is one of the low items", "someone",
    "photo FL3KvdR.png and B12", "often, once, tens of ones",
])
def test_words_that_only_look_like_numbers_are_not_numbers(text):
    assert numbers_in(text) == []


def test_two_word_runs_side_by_side_are_two_numbers_but_one_price():
    assert _read("eight ninety-nine") == [("8", "eight"), ("99", "ninety-nine")]
    assert [str(n) for n in amounts_in("Toor dal: 4 bags at eight ninety-nine")] == ["4", "8.99"]
    assert [str(n) for n in amounts_in("8 dollars 99, ninety-nine cents, eight oh five")] == ["8.99", "0.99", "8.05"]
    assert [str(n) for n in amounts_in("four twelve-piece boxes")] == ["4", "12"]  # a count of a product, not $4.12


def test_number_words_are_known():
    assert is_number_word("twenty-eight") and is_number_word("hundred") and not is_number_word("tonne")
    assert numbers_in("twenty-eight")[0].value == Decimal(28) and numbers_in("twenty-eight")[0].words


def test_the_normalisers_word_lists_are_read_too():
    # The normaliser's tokens keep "twenty-eight" whole and may start with digits ("5 hundred").
    assert spoken_run(["twenty-eight", "bags"], 0) == (28, 1)
    assert spoken_run(["5", "hundred", "and", "five"], 0) == (505, 4)
    assert spoken_run(["one", "hundred", "twenty-eight"], 0) == (128, 3)
    assert spoken_run(["5", "bags"], 0) is None and spoken_run(["bags"], 0) is None
    assert word_value("twelve") == 12 and word_value("ninety-nine") == 99 and word_value("piece") is None
    assert is_pronoun_one(["this", "one"], 1) and is_pronoun_one(["one", "of", "them"], 0)
    assert not is_pronoun_one(["one", "of", "each"], 0, before_of=False)
