"""Normalisation and the lexicon pack: pure, no database."""

from __future__ import annotations

import json
import time
from pathlib import Path

import pytest

from assistant.lexicon import Lexicon, LexiconError, lexicon_for, lexicon_load
from assistant.normalize import normalize
from assistant.numbers import numbers_in


@pytest.fixture(scope="module")
def lexicon() -> Lexicon:
    return lexicon_for("grocery")


def text_of(text: str, lexicon: Lexicon) -> str:
    return normalize(text, lexicon).text


# --- the pack -----------------------------------------------------------------------------------


def test_the_grocery_pack_loads_once_per_process() -> None:
    assert lexicon_for("grocery") is lexicon_for("grocery")


def test_a_missing_pack_names_the_file_it_expected() -> None:
    with pytest.raises(LexiconError, match="no lexicon pack.*no-such-type"):
        lexicon_for("no-such-type")


def test_a_slug_that_is_not_a_name_is_refused() -> None:
    with pytest.raises(LexiconError, match="not a business type slug"):
        lexicon_for("../grocery")


def _pack(tmp_path: Path, change) -> Path:
    raw = json.loads((Path(__file__).resolve().parents[2] / "packs/bundled/grocery/lexicon.json").read_text())
    change(raw)
    path = tmp_path / "lexicon.json"
    path.write_text(json.dumps(raw))
    return path


def test_a_malformed_pack_names_the_field(tmp_path: Path) -> None:
    path = _pack(tmp_path, lambda raw: raw["mishearings"].append({"to": "dal", "from": "doll"}))
    with pytest.raises(LexiconError, match=r"malformed at mishearings/\d+/from"):
        lexicon_load(path)


def test_a_pack_that_is_not_json_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "lexicon.json"
    path.write_text("{not json")
    with pytest.raises(LexiconError, match="not readable JSON"):
        lexicon_load(path)


def test_a_correction_whose_target_is_heard_again_is_refused(tmp_path: Path) -> None:
    path = _pack(tmp_path, lambda raw: raw["local_names"].append({"to": "ghee", "from": ["atta"]}))
    with pytest.raises(LexiconError, match="both heard"):
        lexicon_load(path)


def test_one_heard_form_with_two_targets_is_refused(tmp_path: Path) -> None:
    path = _pack(tmp_path, lambda raw: raw["local_names"].append({"to": "ghee", "from": ["ata"]}))
    with pytest.raises(LexiconError, match="already maps"):
        lexicon_load(path)


# --- wake words and fillers -----------------------------------------------------------------------


def test_wake_words_and_fillers_are_removed(lexicon: Lexicon) -> None:
    result = normalize("Alexa, um, where is the ghee", lexicon)
    assert result.text == "where is the ghee"
    assert "wake word: alexa" in result.fixes and "filler: um" in result.fixes


def test_a_wake_word_at_the_end_is_removed(lexicon: Lexicon) -> None:
    assert text_of("thanks alexa", lexicon) == "thanks"
    assert text_of("hey shelfwise which shelf has the ghee", lexicon) == "which shelf has the ghee"


def test_the_app_name_inside_a_request_is_kept(lexicon: Lexicon) -> None:
    assert text_of("how does shelfwise work", lexicon) == "how does shelfwise work"


def test_like_is_removed_only_as_a_filler(lexicon: Lexicon) -> None:
    assert text_of("like tamarind, which side", lexicon) == "tamarind, which side"
    assert text_of("we have like fifteen", lexicon) == "we have 15"
    assert text_of("i'd like 15 bags", lexicon) == "i'd like 15 bags"
    assert text_of("what would you like", lexicon) == "what would you like"


def test_you_know_is_removed_only_between_commas_or_at_the_end(lexicon: Lexicon) -> None:
    assert text_of("the ghee, you know, where is it", lexicon) == "the ghee, where is it"
    assert text_of("you know where the ghee is", lexicon) == "you know where the ghee is"


def test_please_is_kept(lexicon: Lexicon) -> None:
    assert text_of("coconut milk count please", lexicon) == "coconut milk count please"


# --- mishearings and local names ------------------------------------------------------------------


@pytest.mark.parametrize("heard", ["dhal", "daal", "dahl", "Dhal"])
def test_spellings_of_dal_become_dal_anywhere(heard: str, lexicon: Lexicon) -> None:
    assert text_of(f"any {heard} left", lexicon) == "any dal left"


@pytest.mark.parametrize(
    ("said", "expected"),
    [
        ("where is the doll?", "where is the dal?"),
        ("chana doll which aisle", "chana dal which aisle"),
        ("any moong dull on the shelf", "any moong dal on the shelf"),
        ("2 doll", "2 dal"),
        ("the real count on bison is 17", "the real count on besan is 17"),
        ("what's the price for doll today", "what's the price for dal today"),
    ],
)
def test_doll_and_dull_become_dal_where_a_product_is_said(said: str, expected: str, lexicon: Lexicon) -> None:
    assert text_of(said, lexicon) == expected


@pytest.mark.parametrize("said", ["sales are dull today", "she bought a doll", "the dull knife is broken"])
def test_doll_and_dull_stay_english_words_elsewhere(said: str, lexicon: Lexicon) -> None:
    result = normalize(said, lexicon)
    assert result.text == said and result.fixes == ()


@pytest.mark.parametrize("said", ["Turdal", "tur dal", "tour dal", "tour dahl", "tur daal", "toordal"])
def test_toor_dal_mishearings_become_toor_dal(said: str, lexicon: Lexicon) -> None:
    assert text_of(said, lexicon) == "toor dal"


@pytest.mark.parametrize("said", ["do you have otta?", "do you have ata?", "do you have aata?"])
def test_atta_mishearings_become_atta(said: str, lexicon: Lexicon) -> None:
    assert text_of(said, lexicon) == "do you have atta?"


def test_auto_becomes_atta_only_where_a_product_is_said(lexicon: Lexicon) -> None:
    assert text_of("do we have auto", lexicon) == "do we have atta"
    assert text_of("auto bag price", lexicon) == "atta bag price"
    assert text_of("turn on auto reorder", lexicon) == "turn on auto reorder"
    assert text_of("auto-renew my plan", lexicon) == "auto-renew my plan"


@pytest.mark.parametrize(
    ("said", "expected"),
    [
        ("where did we put the gur", "where did we put the jaggery"),
        ("haldi", "turmeric powder"),
        ("jeera still in stock", "cumin seeds still in stock"),
        ("sarson ka tel, get twelve ordered", "mustard oil, get 12 ordered"),
        ("chai patti boxes", "assam tea boxes"),
        ("elaichi price check", "cardamom price check"),
        ("any imli", "any tamarind"),
    ],
)
def test_local_names_become_catalog_words(said: str, expected: str, lexicon: Lexicon) -> None:
    assert text_of(said, lexicon) == expected


def test_a_local_name_followed_by_its_own_head_word_is_not_doubled(lexicon: Lexicon) -> None:
    assert text_of("dhania powder count", lexicon) == "coriander powder count"
    assert text_of("jeera seeds", lexicon) == "cumin seeds"


def test_ordinary_words_are_not_damaged(lexicon: Lexicon) -> None:
    for said in ["all the stock", "play a guide about healthy eating", "sounds good", "what a steal"]:
        result = normalize(said, lexicon)
        assert (result.text, result.fixes) == (said, ())


def test_every_change_is_recorded_for_the_audit(lexicon: Lexicon) -> None:
    result = normalize("um turdal, twelve bags", lexicon)
    assert result.fixes == ("filler: um", "number: twelve -> 12", "mishearing: turdal -> toor dal")


# --- numbers ------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("said", "numbers"),
    [
        ("fifteen", (15,)),
        ("twenty-eight", (28,)),
        ("twenty eight", (28,)),
        ("a dozen cans", (12,)),
        ("two dozen", (24,)),
        ("half a dozen samosas", (6,)),
        ("a couple of bags", (2,)),
        ("one hundred and five", (105,)),
        ("ninety-nine", (99,)),
        ("order ten boxes of samosas and 10 bottles of mustard oil", (10, 10)),
    ],
)
def test_number_words_become_numbers(said: str, numbers: tuple[int, ...], lexicon: Lexicon) -> None:
    assert normalize(said, lexicon).numbers == numbers


def test_the_owners_numbers_are_read_by_the_one_reader(lexicon: Lexicon) -> None:
    # Before the normaliser used assistant.numbers, "a hundred and five" was 100 and 5 and "a
    # million" stayed words; every utterance of the routing sets reads as it did.
    assert normalize("a hundred and five bags", lexicon).numbers == (105,)
    assert normalize("a million", lexicon).numbers == (1_000_000,)
    assert normalize("we got one of each", lexicon).numbers == (1,)  # a count, unlike a reply's "one of"
    for said in ["twenty-eight bags and a dozen cans", "order ten boxes and 10 bottles", "two fifty",
                 "one hundred twenty-eight", "half a dozen samosas, this one"]:
        whole = tuple(int(n.value) for n in numbers_in(said) if n.value == n.value.to_integral_value())
        assert normalize(said, lexicon).numbers == whole, said


@pytest.mark.parametrize("said", ["x" * 10_000, "twenty " * 2_000, "\u200b\u0301 \u0663 \u00bd", "-", "one-"])
def test_odd_or_huge_text_normalises_without_error(said: str, lexicon: Lexicon) -> None:
    assert isinstance(normalize(said, lexicon).text, str)


def test_the_sentence_stays_readable_with_digits(lexicon: Lexicon) -> None:
    result = normalize("Alexa, um, we actually have fifteen bags of otta, update the count.", lexicon)
    assert result.text == "we actually have 15 bags of atta, update the count."
    assert result.numbers == (15,)


def test_one_after_this_or_another_is_a_word(lexicon: Lexicon) -> None:
    for said in ["this one", "another one", "which one", "the same one"]:
        assert normalize(said, lexicon).numbers == ()


def test_a_price_with_cents_is_not_a_count(lexicon: Lexicon) -> None:
    assert normalize("set the price to $6.99", lexicon).numbers == ()


def test_a_number_inside_a_hyphenated_word_is_converted(lexicon: Lexicon) -> None:
    result = normalize("twelve-piece samosa boxes", lexicon)
    assert (result.text, result.numbers) == ("12-piece samosa boxes", (12,))


# --- properties ---------------------------------------------------------------------------------


def test_normalising_twice_changes_nothing_more(lexicon: Lexicon) -> None:
    for said in ["Alexa, uh, where is the doll?", "tour dahl, twenty eight bags", "haldi powder", "do we have auto"]:
        once = normalize(said, lexicon).text
        assert normalize(once, lexicon).text == once


def test_empty_text_is_empty(lexicon: Lexicon) -> None:
    assert normalize("", lexicon) == normalize("", lexicon)
    assert normalize("  um  ", lexicon).text == ""


def test_normalising_takes_under_a_millisecond(lexicon: Lexicon) -> None:
    said = "Alexa, um, we actually have twenty-eight bags of otta and a dozen tur dal, update the count please"
    start = time.perf_counter()
    for _ in range(300):
        normalize(said, lexicon)
    assert (time.perf_counter() - start) / 300 < 0.001
