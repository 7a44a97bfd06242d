"""The public shelf finder over HTTP: where a product is, found through the assistant's lexicon.

Products are made through ledger services in the store's context; the page is fetched by an
anonymous client, as a shopper would.
"""

from __future__ import annotations

import re
from decimal import Decimal

import pytest
from django.core.cache import cache
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.urls import reverse

from ledger import services
from ledger.models import Product
from ledger.photos import render_shelf_photo
from tenants.context import use_store

pytestmark = pytest.mark.django_db


@pytest.fixture(autouse=True)
def _fresh_rate_limits():
    cache.clear()
    yield
    cache.clear()


def add(store, name, *, category="Spices", location="Aisle 1, spice rack", aliases=(), photo=False, **extra):
    values = {
        "unit": "200 g pack", "stock": 17, "par_level": 40, "reorder_point": 8,
        "price": Decimal("3.49"), "unit_cost": Decimal("1.61"), "actor": "system:test",
    }
    values.update(extra)
    with use_store(store):
        product = services.product_create(
            store=store, name=name, category=category, location=location, aliases=aliases, **values
        )
        if photo:
            png = render_shelf_photo(name=name, unit=product.unit, location=location, category=category)
            product = services.product_photo_set(store=store, product=product, content=png)
    return product


@pytest.fixture
def grocery(store):
    add(store, "Turmeric powder", location="Aisle 1, spice rack, row 1", shelf_note="bright yellow packs", photo=True)
    add(store, "Toor dal", category="Lentils", location="Aisle 3, middle shelf, left", unit="4 lb bag")
    add(store, "Masoor dal", category="Lentils", location="Aisle 3, middle shelf, right", unit="4 lb bag")
    add(store, "Basmati rice", category="Rice & grains", location="Aisle 2, bottom shelf, left")
    add(store, "Sona masoori rice", category="Rice & grains", location="Aisle 2, bottom shelf, right")
    return store


def find(client, store, q=None, **extra):
    url = reverse("public:shelf-finder", args=[store.slug])
    return client.get(url, {"q": q} if q is not None else {}, **extra)


def test_a_local_name_finds_the_product_with_its_aisle_shelf_and_photo(client, grocery):
    # The catalog has no "haldi" alias: the grocery lexicon's local name does the work.
    response = find(client, grocery, "where is the haldi?")
    html = response.content.decode()
    assert response.status_code == 200
    assert "Turmeric powder" in html and "Aisle 1, spice rack, row 1" in html and "bright yellow packs" in html
    assert '<img src="/media/shelves/' in html and 'alt="The shelf where Turmeric powder is"' in html


def test_a_misheard_name_is_corrected_as_in_the_assistant(client, grocery):
    html = find(client, grocery, "tour dahl").content.decode()
    assert "Toor dal" in html and "Aisle 3, middle shelf, left" in html
    assert "Masoor dal" not in html


def test_a_word_several_products_share_asks_which_one(client, grocery):
    html = find(client, grocery, "rice").content.decode()
    assert "Which one did you mean?" in html
    assert "Basmati rice" in html and "Sona masoori rice" in html


def test_a_group_word_lists_the_aisle(client, grocery):
    response = find(client, grocery, "lentils")
    html = response.content.decode()
    assert "Toor dal" in html and "Masoor dal" in html and "Turmeric" not in html


def test_something_the_store_does_not_carry_is_not_found_and_never_swapped(client, grocery):
    html = find(client, grocery, "pizza").content.decode()
    assert "We couldn't find “pizza” here" in html
    assert "Aisle" not in html.split("Not found", 1)[1]


def test_a_close_spelling_of_a_name_the_lexicon_does_not_list_is_found(client, grocery):
    add(grocery, "Kashmiri chilli flakes", location="Aisle 1, spice rack, row 3")
    html = find(client, grocery, "kashmiri chili flake").content.decode()
    assert "Kashmiri chilli flakes" in html and "Aisle 1, spice rack, row 3" in html


@pytest.mark.parametrize("q", ["\u200b\u0301", "हल्दी?!", "%_%", "   ", "a" * 199])
def test_odd_queries_answer_200(client, grocery, q):
    assert find(client, grocery, q).status_code == 200


def test_the_page_shows_no_stock_prices_or_costs(client, grocery):
    html = find(client, grocery, "haldi").content.decode()
    # File URLs carry a random storage suffix ("powder_q9W40sI.png"); every other byte counts.
    html = re.sub(r'(src|href)="[^"]*"', r'\1=""', html)
    for private in ("17", "3.49", "1.61", "40", "stock", "Stock", "$"):
        assert private not in html, private


def test_the_empty_page_invites_a_search_and_works_without_javascript(client, grocery):
    response = find(client, grocery)
    html = response.content.decode()
    assert response.status_code == 200
    assert '<form class="finder" method="get"' in html and 'name="q"' in html
    assert "<label for=\"finder-q\">" in html
    # The mic button is hidden until the script finds speech recognition.
    assert 'id="say-it" hidden' in html


def test_another_stores_products_are_never_found(client, grocery, other_store):
    add(other_store, "Saffron", location="Back room safe")
    html = find(client, grocery, "saffron").content.decode()
    assert "Back room safe" not in html


def test_an_unknown_store_is_a_friendly_404(client, db):
    response = client.get(reverse("public:shelf-finder", args=["no-such-store"]), {"q": "haldi"})
    assert response.status_code == 404
    assert "Store not found" in response.content.decode()


def test_too_long_a_query_is_refused_without_searching(client, grocery):
    response = find(client, grocery, "x" * 500)
    assert response.status_code == 400
    assert "shorter name" in response.content.decode()


def test_searches_are_rate_limited_per_visitor_and_store(client, grocery, other_store, settings, finder_minute):
    settings.SHELF_FINDER_RATE_PER_MINUTE = 3
    for _ in range(3):
        assert find(client, grocery, "haldi").status_code == 200
    limited = find(client, grocery, "haldi")
    assert limited.status_code == 429 and limited["Retry-After"] == "60"
    assert "Please wait a minute" in limited.content.decode()
    # Another visitor, and the same visitor at another store, are not held back.
    assert find(client, grocery, "haldi", REMOTE_ADDR="10.0.0.9").status_code == 200
    assert find(client, other_store, "haldi").status_code == 200


def test_the_finder_query_count_does_not_grow_with_the_catalog(client, store, other_store):
    add(store, "Turmeric powder")
    for i in range(60):
        add(other_store, f"Item {i:02d}", location=f"Aisle {i}")
    add(other_store, "Turmeric powder")

    def count(target):
        with CaptureQueriesContext(connection) as queries:
            assert find(client, target, "haldi").status_code == 200
        return len(queries)

    assert count(store) == count(other_store) <= 3


def test_a_moved_renamed_or_archived_product_shows_as_it_is_now_on_the_next_search(client, grocery):
    """The finder keeps each store's catalog between searches; every catalog write is seen at once."""
    assert "Aisle 3, middle shelf, left" in find(client, grocery, "toor dal").content.decode()
    with use_store(grocery):
        toor = Product.objects.get(store=grocery, name="Toor dal")
        toor = services.product_update(store=grocery, product=toor, version=toor.version, actor="system:test",
                                       aisle="Aisle 7", shelf="top shelf", position="", aliases=["arhar"])
    page = find(client, grocery, "arhar").content.decode()
    assert "Aisle 7, top shelf" in page and "Aisle 3, middle shelf, left" not in page
    with use_store(grocery):
        services.product_archive(store=grocery, product=toor, actor="system:test")
    page = find(client, grocery, "toor dal").content.decode()
    assert "Aisle 7, top shelf" not in page
    add(grocery, "Chana dal", category="Lentils", location="Aisle 3, lower shelf")
    assert "Aisle 3, lower shelf" in find(client, grocery, "chana dal").content.decode()


def test_a_search_after_the_first_reads_the_catalog_fingerprint_not_the_catalog(client, grocery):
    find(client, grocery, "haldi")
    with CaptureQueriesContext(connection) as queries:
        assert "Aisle 1, spice rack, row 1" in find(client, grocery, "haldi").content.decode()
    assert len(queries) == 2  # the store and its catalog's fingerprint
