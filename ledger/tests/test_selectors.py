"""Reads: finding products by spoken or typed words, lists, and bounded query counts."""

from __future__ import annotations

import pytest

from ledger import selectors, services
from ledger.errors import InvalidInput, NotFound
from ledger.models import ReorderDraft
from ledger.tests.conftest import ACTOR, DEMO_NOW, create_product


def _names(products):
    return [product.name for product in products]


@pytest.mark.parametrize(
    ("said", "meant"),
    [
        ("basmati", "Basmati rice"),
        ("tuvar dal", "Toor dal"),
        ("Tuvar Dal", "Toor dal"),
        ("chana dahl", "Chana dal"),
        ("haldi", "Turmeric powder"),
        ("gur", "Jaggery"),
        ("samosa", "Frozen samosas"),
        ("sarson ka tel", "Mustard oil"),
        ("jeera", "Cumin seeds"),
    ],
)
def test_spoken_words_match_the_product_they_mean_first(demo_store, db, said, meant):
    assert _names(selectors.product_match(store=demo_store, text=said))[0] == meant


def test_a_word_shared_by_several_products_matches_them_all(demo_store, db):
    assert set(_names(selectors.product_match(store=demo_store, text="rice"))) == {
        "Basmati rice",
        "Sona masoori rice",
        "Poha",
    }
    dals = _names(selectors.product_match(store=demo_store, text="dal", limit=10))
    assert {"Toor dal", "Chana dal", "Masoor dal", "Moong dal", "Urad dal"} <= set(dals)


@pytest.mark.parametrize("said", ["pizza", "motor oil filter", "", "   "])
def test_products_the_store_does_not_carry_match_nothing(demo_store, db, said):
    assert selectors.product_match(store=demo_store, text=said) == []


def test_product_by_name_takes_exact_names_and_aliases_in_any_case(demo_store, db):
    assert selectors.product_by_name(store=demo_store, name="  toor DAL ").name == "Toor dal"
    assert selectors.product_by_name(store=demo_store, name="Arhar Dal").name == "Toor dal"
    assert selectors.product_by_name(store=demo_store, name="toor") is None


def test_search_matches_names_and_aliases_at_word_starts_case_insensitively(demo_store, db):
    assert _names(selectors.product_list(store=demo_store, search="GUR")) == ["Jaggery"]
    assert _names(selectors.product_list(store=demo_store, search="arhar")) == ["Toor dal"]
    assert _names(selectors.product_list(store=demo_store, search="samosa")) == ["Frozen samosas"]
    assert _names(selectors.product_list(store=demo_store, search="Dal")) == [
        "Chana dal",
        "Masoor dal",
        "Moong dal",
        "Toor dal",
        "Urad dal",
    ]
    assert selectors.product_list(store=demo_store, search="100% pure") == []


def test_search_finds_plural_and_singular_and_each_word_anywhere(store, make_product):
    # Before the one matcher a search had to be the start of a name's words as typed: "samosas"
    # found no "Frozen samosa", and "rice basmati" no "Basmati rice".
    make_product("Frozen samosa")
    make_product("Green chillies")
    make_product("Basmati rice")
    assert _names(selectors.product_list(store=store, search="samosas")) == ["Frozen samosa"]
    assert _names(selectors.product_list(store=store, search="chillies")) == ["Green chillies"]
    assert _names(selectors.product_list(store=store, search="chilli")) == ["Green chillies"]
    assert _names(selectors.product_list(store=store, search="rice basmati")) == ["Basmati rice"]
    assert selectors.product_list(store=store, search="brown basmati") == []


@pytest.mark.parametrize("search", ["x" * 10_000, "rice " * 2_000, "\u200b\u0301", "'; drop table --", "%_%"])
def test_odd_or_huge_searches_answer_without_error(store, make_product, search):
    make_product("Basmati rice")
    assert selectors.product_list(store=store, search=search) in ([], list(selectors.product_list(store=store)))
    assert selectors.product_match(store=store, text=search) in ([], list(selectors.product_list(store=store)))


def test_matching_finds_a_singular_name_for_a_plural_word(store, make_product):
    make_product("Frozen samosa")
    make_product("Frozen paratha")
    assert _names(selectors.product_match(store=store, text="samosas"))[0] == "Frozen samosa"


def test_search_finds_non_ascii_aliases(store, make_product):
    make_product("Turmeric powder", aliases=["haldi", "हल्दी"])
    assert _names(selectors.product_list(store=store, search="हल्दी")) == ["Turmeric powder"]


def test_low_only_lists_products_at_or_below_their_reorder_point(demo_store, db):
    assert _names(selectors.product_list(store=demo_store, low_only=True)) == [
        "Frozen samosas",
        "Mustard oil",
        "Toor dal",
    ]
    assert len(selectors.product_list(store=demo_store, category="spices")) == 9


def test_another_stores_products_are_not_listed_matched_or_found(store, other_store, make_product):
    make_product("Jaggery", aliases=["gur"])
    theirs = create_product(other_store, "Secret sauce", aliases=["gur special"])
    assert _names(selectors.product_list(store=store)) == ["Jaggery"]
    assert _names(selectors.product_match(store=store, text="secret sauce")) == []
    assert selectors.product_by_name(store=store, name="Secret sauce") is None
    with pytest.raises(NotFound):
        selectors.product_get(store=store, product_id=theirs.pk)
    with pytest.raises(NotFound):
        selectors.journal_for(store=store, product=theirs)


@pytest.mark.parametrize("product_id", ["abc", None, -1, 0, True, "1; drop table"])
def test_ids_that_are_not_ids_are_simply_not_found(store, product_id):
    with pytest.raises(NotFound):
        selectors.product_get(store=store, product_id=product_id)


def test_lists_use_a_fixed_number_of_queries(demo_store, db, django_assert_max_num_queries):
    low = selectors.product_list(store=demo_store, low_only=True)
    for _ in range(3):
        services.draft_create(store=demo_store, items=[(low[0], 5), (low[1], 2)], actor=ACTOR, source="dashboard")
    services.draft_confirm(
        store=demo_store, draft_id=selectors.draft_pending(store=demo_store).pk, actor=ACTOR
    )
    with django_assert_max_num_queries(2):
        drafts = selectors.draft_list(store=demo_store)
        assert sum(len(d.lines.all()) for d in drafts) == 6
        assert {line.product.name for d in drafts for line in d.lines.all()}
    with django_assert_max_num_queries(2):
        orders = selectors.order_list(store=demo_store)
        assert [line.product.name for order in orders for line in order.lines.all()]
    with django_assert_max_num_queries(2):
        assert len(selectors.sales_today(store=demo_store, now=DEMO_NOW).top_sellers) == 5
    with django_assert_max_num_queries(2):
        assert len(selectors.sales_by_day(store=demo_store, days=7, now=DEMO_NOW)) == 7


def test_draft_list_filters_by_status_and_refuses_unknown_ones(demo_store, db):
    draft = services.draft_create(store=demo_store, items=None, actor=ACTOR, source=ReorderDraft.Source.ASSISTANT)
    assert [d.pk for d in selectors.draft_list(store=demo_store, status="pending")] == [draft.pk]
    assert selectors.draft_list(store=demo_store, status="declined") == []
    with pytest.raises(InvalidInput):
        selectors.draft_list(store=demo_store, status="bogus")


def test_sales_by_day_refuses_silly_ranges(store):
    with pytest.raises(InvalidInput):
        selectors.sales_by_day(store=store, days=0)
