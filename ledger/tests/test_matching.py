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


# --- the one product matcher ---------------------------------------------------------------------

from ledger.matching import Matcher, closest, search_spellings, spelled_alike  # noqa: E402

SHOP = Matcher([
    (1, ["Basmati rice"]), (2, ["Sona masoori rice"]), (3, ["Toor dal", "arhar dal"]), (4, ["Chana dal"]),
    (5, ["Frozen samosa"]), (6, ["Jaggery", "gur", "गुड़"]), (7, ["Mustard oil"]),
])


def _ids(text, **kwargs):
    return [match.id for match in SHOP.rank(text, **kwargs)]


def test_a_name_or_alias_said_exactly_comes_first_and_is_marked_exact():
    ranked = SHOP.rank("Arhar Dal", limit=3)
    assert ranked[0].id == 3 and ranked[0].exact
    assert not any(match.exact for match in ranked[1:])


def test_plural_and_singular_meet_on_both_sides():
    assert _ids("samosas")[0] == 5
    assert SHOP.rank("frozen samosas")[0].exact


def test_a_word_shared_by_names_ranks_them_all_and_nothing_else():
    assert set(_ids("rice")) == {1, 2}
    assert set(_ids("dal", limit=10)) == {3, 4}


def test_misspellings_still_rank_the_product_first():
    assert _ids("basmatti")[0] == 1
    assert _ids("chana dahl")[0] == 4


@pytest.mark.parametrize("text", ["pizza", "motor oil filter", "", "   ", "!!!", "\u200b\u0301", "x" * 10_000])
def test_texts_that_name_nothing_rank_nothing(text):
    assert SHOP.rank(text) == []


def test_odd_and_long_texts_are_read_without_error_and_cut_to_a_sentence():
    assert _ids("गुड़")[0] == 6
    assert _ids("gur" + " x" * 5000)[:1] in ([], [6])
    assert SHOP.rank("basmati", limit=0) == [] and Matcher([]).rank("basmati") == []


def test_ties_keep_the_order_the_products_were_given():
    twins = Matcher([("b", ["Red lentils"]), ("a", ["Red lentils"])])
    assert [match.id for match in twins.rank("red lentils")] == ["b", "a"]


def test_the_spelling_rule_is_one_rule_for_words_and_short_phrases():
    assert spelled_alike("basmatti", "basmati") and not spelled_alike("oil", "oat")
    assert spelled_alike("dal", "dal") and not spelled_alike("dahl", "dal")
    assert closest("basmatti", ["basmati", "masoor"]) == ("basmati", pytest.approx(93.3, abs=0.1))
    assert closest("pizza", ["basmati", "masoor"]) is None


def test_a_list_search_reads_each_word_as_typed_and_singular_at_most_eight_words():
    assert search_spellings("Samosas chillies") == [{"samosas", "samosa"}, {"chillies", "chilly"}]
    assert search_spellings("हल्दी") == [{"हल्दी", "\\u0939\\u0932\\u094d\\u0926\\u0940"}]
    assert len(search_spellings("word " * 5000)) == 8
    assert search_spellings("   ") == []
