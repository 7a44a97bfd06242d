"""The word rules every product matcher shares: words, boundaries and the matching singular."""

from __future__ import annotations

import pytest

from ledger.matching import key, singular, words


@pytest.mark.parametrize(
    ("plural", "one"),
    [("samosas", "samosa"), ("boxes", "box"), ("chillies", "chilly"), ("peaches", "peach"),
     ("tomatoes", "tomato"), ("glasses", "glass"), ("lentils", "lentil")],
)
def test_plurals_meet_their_singular(plural, one):
    assert singular(plural) == one


@pytest.mark.parametrize("word", ["gas", "hummus", "chassis", "rice", "ghee", "100s", "bus"])
def test_words_that_are_not_plurals_or_too_short_stay_as_they_are(word):
    assert singular(word) == word


def test_words_keep_punctuation_as_boundaries_and_the_key_drops_it():
    assert words("Frozen Samosas, 2 boxes!") == ["frozen", "samosas", ",", "2", "boxes", "!"]
    assert key("Frozen Samosas, 2 boxes!") == ("frozen", "samosa", "2", "box")
    assert key("") == ()
