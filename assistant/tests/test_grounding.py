"""Product grounding against the 38 demo products, built without the database."""

from __future__ import annotations

import json
import statistics
import time
from types import SimpleNamespace

import pytest

from assistant.grounding import Catalog, CatalogEntry, Grounding, ground
from assistant.lexicon import Lexicon, lexicon_for
from ledger.demo import CATALOG
from packs.source import GROCERY_EVALUATION


@pytest.fixture(scope="module")
def lexicon() -> Lexicon:
    return lexicon_for("grocery")


@pytest.fixture(scope="module")
def catalog() -> Catalog:
    return Catalog(
        CatalogEntry(id=i, name=p.name, aliases=p.aliases, category=p.category, unit=p.unit)
        for i, p in enumerate(CATALOG, 1)
    )


@pytest.fixture()
def say(catalog: Catalog, lexicon: Lexicon):
    def run(text: str, **kwargs) -> Grounding:
        return ground(text, catalog=catalog, lexicon=lexicon, **kwargs)

    return run


def names(refs) -> list[str]:
    return [r.name for r in refs]


# --- names, aliases, local names, mishearings ---------------------------------------------------


@pytest.mark.parametrize(
    ("text", "product"),
    [
        ("where is the basmati rice", "Basmati rice"),
        ("flattened rice is where again", "Poha"),
        ("where would i find the arhar dal", "Toor dal"),
        ("the tuvar dal, how many", "Toor dal"),
        ("curd tubs, which cooler shelf", "Dahi"),
        ("which shelf has the bhujia", "Namkeen mix"),
    ],
)
def test_a_name_or_alias_grounds_its_product(text: str, product: str, say) -> None:
    grounding = say(text)
    assert names(grounding.products) == [product]
    assert grounding.products[0].score == 1.0


@pytest.mark.parametrize(
    ("text", "product"),
    [
        ("where did we put the gur", "Jaggery"),
        ("haldi", "Turmeric powder"),
        ("jeera still in stock", "Cumin seeds"),
        ("which shelf has the chawal on it", "Basmati rice"),
        ("chai patti boxes, how many", "Assam tea"),
        ("um what does the achar cost", "Mango pickle"),
        ("sarson ka tel, get twelve ordered", "Mustard oil"),
        ("number of adrak lahsun jars please", "Ginger garlic paste"),
    ],
)
def test_hindi_names_ground_their_product(text: str, product: str, say) -> None:
    assert names(say(text).products) == [product]


@pytest.mark.parametrize(
    ("text", "product"),
    [
        ("where is Turdal?", "Toor dal"),
        ("chana doll which aisle", "Chana dal"),
        ("where is the chana dahl", "Chana dal"),
        ("do you have otta?", "Atta"),
        ("do we have auto", "Atta"),
        ("uh urad dahl, what aisle is that in", "Urad dal"),
    ],
)
def test_mishearings_ground_after_normalisation(text: str, product: str, say) -> None:
    assert names(say(text).products) == [product]


@pytest.mark.parametrize(
    ("text", "product"),
    [("panir count", "Paneer"), ("any basmatee", "Basmati rice"), ("where's the tamrind", "Tamarind")],
)
def test_near_spellings_ground_by_fuzzy_or_phonetic_match(text: str, product: str, say) -> None:
    assert names(say(text).products) == [product]


@pytest.mark.parametrize(
    ("text", "product"),
    [
        ("alexa samosa boxes, which freezer", "Frozen samosas"),
        ("where are the samosas", "Frozen samosas"),
        ("we actually have 15 bags of atta", "Atta"),
        ("mustard oil bottles", "Mustard oil"),
        ("which row has the methi", "Kasuri methi"),
        ("ten pound basmati bags, what's our count", "Basmati rice"),
    ],
)
def test_plurals_units_and_distinctive_parts_of_names_ground(text: str, product: str, say) -> None:
    assert names(say(text).products) == [product]


def test_several_products_are_all_grounded(say) -> None:
    grounding = say("order ten boxes of samosas and ten bottles of mustard oil")
    assert set(names(grounding.products)) == {"Frozen samosas", "Mustard oil"}


# --- words that are not products ----------------------------------------------------------------


def test_unit_words_are_not_products(say) -> None:
    assert say("how many grams in a pound") == Grounding()
    assert names(say("gram flour price").products) == ["Besan"]


def test_a_generic_word_the_store_has_once_is_reported_not_carried(say) -> None:
    grounding = say("what's a good price for milk")
    assert (grounding.products, grounding.unknown, names(grounding.ambiguous)) == ((), "milk", ["Coconut milk"])


def test_a_generic_word_several_products_share_is_ambiguous(say) -> None:
    grounding = say("do we have seeds")
    assert not grounding.products and grounding.unknown is None
    assert set(names(grounding.ambiguous)) == {"Cumin seeds", "Mustard seeds"}


@pytest.mark.parametrize(
    ("text", "unknown"),
    [
        ("do we have saffron", "saffron"),
        ("is peanut butter something we stock", "peanut butter"),
        ("do we have oat milk", "oat milk"),
        ("olive oil price", "olive oil"),
        ("any lime pickle", "lime pickle"),
        ("where's the brown rice", "brown rice"),
    ],
)
def test_a_product_the_store_does_not_carry_is_reported_never_replaced(text: str, unknown: str, say) -> None:
    grounding = say(text)
    assert (grounding.products, grounding.group, grounding.unknown) == ((), None, unknown)


def test_an_unknown_item_in_a_list_is_reported_next_to_the_known_ones(say) -> None:
    grounding = say("order ten boxes of samosas and ten bottles of saffron")
    assert (names(grounding.products), grounding.unknown) == (["Frozen samosas"], "saffron")


# --- groups and ambiguity ------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "group"),
    [
        ("do we have lentils", "Lentils"),
        ("uh the doll, which aisle", "Lentils"),
        ("any daal on the shelves", "Lentils"),
        ("anything in the freezer", "Frozen"),
        ("what masalas and spices are on the rack", "Spices"),
        ("read me all the oils", "Oils & ghee"),
        ("list the drinks and beverages", "Beverages"),
        ("what dairy products are in the cooler", "Dairy"),
    ],
)
def test_group_words_name_a_category(text: str, group: str, say) -> None:
    grounding = say(text)
    assert (grounding.products, grounding.group) == ((), group)


def test_bare_rice_is_the_rice_group_and_names_the_rice_products(say) -> None:
    grounding = say("where is the rice?")
    assert grounding.group == "Rice & grains"
    assert {"Basmati rice", "Sona masoori rice"} <= set(names(grounding.ambiguous))


def test_a_product_question_mentioning_a_group_place_is_about_the_product(say) -> None:
    grounding = say("frozen parathas, any in the freezer")
    assert (names(grounding.products), grounding.group) == (["Frozen parathas"], None)


def test_a_shared_part_of_names_is_ambiguous(say) -> None:
    assert set(names(say("is there any mustard").ambiguous)) == {"Mustard oil", "Mustard seeds"}
    assert set(names(say("is there any masala").ambiguous)) == {"Garam masala", "Chai masala"}


def test_a_shared_part_names_the_product_whose_name_it_mostly_is(lexicon: Lexicon) -> None:
    # An imported catalog: the plain products beside branded packs that share their words.
    branded = [f"{brand} {product} {size}" for brand in ("Tata", "Daawat", "MDH") for size in ("100 g", "1 kg")
               for product in ("Sella basmati", "Brown basmati", "Moong dal namkeen", "Kasuri methi leaves")]
    plain = [CatalogEntry(id=i, name=p.name, aliases=p.aliases, category=p.category, unit=p.unit)
             for i, p in enumerate(CATALOG, 1)]
    catalog = Catalog([*plain, *(CatalogEntry(id=1000 + i, name=name) for i, name in enumerate(branded))])

    def grounded(text: str) -> Grounding:
        return ground(text, catalog=catalog, lexicon=lexicon)

    assert names(grounded("where's the basmati").products) == ["Basmati rice"]
    assert names(grounded("how much namkeen is left").products) == ["Namkeen mix"]
    # Words that are as much of one name as of another stay ambiguous, in a big catalog as in a small one.
    assert set(names(grounded("is there any mustard").ambiguous)) == {"Mustard oil", "Mustard seeds"}
    assert not grounded("is there any mustard").products
    assert len(grounded("any sella basmati").ambiguous) == 6  # every pack size and brand of it: asked, not guessed


def test_a_unit_word_settles_a_shared_part(say) -> None:
    assert names(say("how many cans of coconut").products) == ["Coconut milk"]
    assert names(say("coconut, what's the price per can").products) == ["Coconut milk"]


# --- pronouns ---------------------------------------------------------------------------------------


def test_a_pronoun_refers_to_the_last_product(say) -> None:
    grounding = say("is it in stock", last_product="Paneer")
    assert (names(grounding.products), grounding.via_pronoun) == (["Paneer"], True)
    assert say("set that to twelve", last_product="Ghee").via_pronoun


def test_without_a_pronoun_the_last_product_is_not_assumed(say) -> None:
    assert say("how many are left", last_product="Paneer") == Grounding()


def test_a_pronoun_without_a_last_product_grounds_nothing(say) -> None:
    assert say("is it in stock") == Grounding()


def test_that_before_a_product_word_is_not_a_pronoun(say) -> None:
    grounding = say("what about that saffron", last_product="Paneer")
    assert (grounding.products, grounding.unknown, grounding.via_pronoun) == ((), "saffron", False)


def test_words_that_name_something_beat_a_pronoun(say) -> None:
    assert say("freezer items, list them", last_product="Paneer").group == "Frozen"
    assert names(say("chakki atta, is it by the cooler", last_product="Paneer").products) == ["Atta"]


def test_a_pronoun_settles_an_ambiguity_in_favour_of_the_last_product(say) -> None:
    assert names(say("is it the mustard", last_product="Mustard oil").products) == ["Mustard oil"]


# --- the router's hint ----------------------------------------------------------------------------


@pytest.mark.parametrize("hint", ["rice", "Basmati rice", "basmati"])
def test_a_hint_the_owner_never_said_is_ignored(hint: str, say) -> None:
    grounding = say("where is pizza?", hint=hint)
    assert (grounding.products, grounding.unknown, grounding.hint_used) == ((), "pizza", False)


@pytest.mark.parametrize(("text", "hint"), [("how many packs on how will be left", "packs"),
                                            ("how many bags are left", "bags"), ("where are the boxes", "the boxes")])
def test_a_hint_that_is_only_a_unit_word_names_no_product(text: str, hint: str, say) -> None:
    # A mishearing ("how many packs of haldi" -> "packs on how will") leaves a unit: ask, don't say "we don't carry packs".
    grounding = say(text, hint=hint)
    assert (grounding.products, grounding.unknown) == ((), None)


def test_a_hint_naming_another_product_than_the_owner_said_is_ignored(say) -> None:
    grounding = say("where is the toor dal", hint="Chana dal")
    assert (names(grounding.products), grounding.hint_used) == (["Toor dal"], False)


def test_a_hint_cannot_swap_a_product_the_store_lacks_for_a_near_one(say) -> None:
    grounding = say("what's a good price for milk", hint="coconut milk")
    assert (grounding.products, grounding.unknown) == ((), "milk")


def test_a_hint_chooses_among_products_the_owner_named(say) -> None:
    grounding = say("where is the rice?", hint="basmati rice")
    assert (names(grounding.products)[:1], grounding.hint_used) == (["Basmati rice"], True)


def test_a_hint_naming_the_catalog_word_for_a_local_name_is_accepted(say) -> None:
    grounding = say("where did we put the gur", hint="jaggery")
    assert names(grounding.products) == ["Jaggery"]


def test_a_hint_puts_its_product_first_in_a_list(say) -> None:
    grounding = say("order some samosas and paneer", hint="Frozen samosas")
    assert names(grounding.products) == ["Frozen samosas", "Paneer"]


def test_a_hint_marks_the_exact_words_of_a_product_not_carried(say) -> None:
    assert say("got basil leaves in").unknown == "basil leaves"
    grounding = say("got basil leaves in", hint="basil")
    assert (grounding.unknown, grounding.hint_used) == ("basil", True)


def test_a_group_hint_is_used_when_the_owner_named_the_group(say) -> None:
    grounding = say("uh the doll, which aisle", hint="lentils")
    assert (grounding.products, grounding.group) == ((), "Lentils")


# --- catalogs ---------------------------------------------------------------------------------------


def test_a_catalog_builds_from_product_rows() -> None:
    rows = [SimpleNamespace(pk=7, name="Ghee", aliases=["clarified butter"], category="Oils & ghee", unit="32 oz jar")]
    catalog = Catalog.from_products(rows)
    grounding = ground("any clarified butter", catalog=catalog, lexicon=lexicon_for("grocery"))
    assert (grounding.products[0].id, grounding.products[0].name) == (7, "Ghee")


def test_a_store_that_uses_the_local_name_is_found_by_the_catalog_words(lexicon: Lexicon) -> None:
    catalog = Catalog([{"id": 1, "name": "Haldi", "category": "Spices"}, {"id": 2, "name": "Gur", "category": "Sweeteners"}])
    assert names(ground("turmeric powder please", catalog=catalog, lexicon=lexicon).products) == ["Haldi"]
    assert names(ground("where is the gur", catalog=catalog, lexicon=lexicon).products) == ["Gur"]


def test_a_group_the_store_does_not_have_is_not_reported(lexicon: Lexicon) -> None:
    catalog = Catalog([{"id": 1, "name": "Ghee", "category": "Oils & ghee"}])
    grounding = ground("anything in the freezer", catalog=catalog, lexicon=lexicon)
    assert grounding.group is None


def test_a_small_catalog_is_shortlisted_whole_in_catalog_order(catalog: Catalog, lexicon: Lexicon) -> None:
    assert catalog.shortlist("where is the gur", lexicon=lexicon) == list(catalog.entries)


def test_a_large_catalog_is_shortlisted_to_the_products_meant(catalog: Catalog, lexicon: Lexicon) -> None:
    fillers = [
        CatalogEntry(id=1000 + i, name=f"{brand} {kind}", category="Household")
        for i, (brand, kind) in enumerate(
            (b, k) for b in ("Acme", "Sparkle", "Brite", "Zenith", "Nova", "Orbit", "Pioneer", "Summit")
            for k in ("soap", "detergent", "sponge", "bleach", "mop", "broom", "candles", "matches", "foil",
                      "napkins", "tissues", "batteries", "bulbs", "towels", "wipes", "gloves", "bags", "cups")
        )
    ]
    big = Catalog([*catalog.entries, *fillers], lexicon=lexicon)
    shortlist = big.shortlist("where did we put the gur", limit=40)
    assert len(shortlist) <= 40 and shortlist[0].name == "Jaggery"
    lentils = {e.name for e in big.shortlist("do we have lentils", limit=40)}
    assert {"Toor dal", "Chana dal", "Masoor dal", "Moong dal", "Urad dal"} <= lentils
    assert "Acme soap" in {e.name for e in big.shortlist("any acme soap", limit=40, lexicon=lexicon)}


# --- the development set and speed --------------------------------------------------------------------


def test_the_development_set_grounds_at_least_97_percent_of_products(say) -> None:
    items = [i for i in json.loads((GROCERY_EVALUATION / "routing_dev.json").read_text())["items"] if i.get("item")]
    right = sum(bool(g.products) and g.products[0].name == i["item"] for i in items for g in [say(i["say"])])
    assert right / len(items) >= 0.97


def test_grounding_takes_a_few_milliseconds_at_most(say) -> None:
    say("warm up")
    timings = []
    for text in ["where did we put the gur", "any basmatee", "do we have oat milk", "order some samosas and paneer"]:
        start = time.perf_counter()
        say(text, hint="Basmati rice")
        timings.append(time.perf_counter() - start)
    assert statistics.median(timings) < 0.005
