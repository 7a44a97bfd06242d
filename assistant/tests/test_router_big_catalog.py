"""The router's prompt on a big catalog, through POST /api/v1/turns with the router model faked at
its process boundary (a ``FakeBackend`` that records every prompt it is sent).

A catalog over ``FULL_CATALOG_LIMIT`` products is not listed in the system prompt: that part stays
the same turn after turn (so a model server's prompt cache keeps it), and the few products a request
may name come with the request, by name without pack size or brand.
"""

from __future__ import annotations

from functools import partial

import pytest

from assistant.grounding import Catalog, CatalogEntry
from assistant.modes.router import prompt as prompts
from ledger.models import CatalogImport
from ledger.services import imports
from tenants.context import use_store
from tests.turns import say

BRANDS = ("Tata", "MDH", "Everest", "Aashirvaad", "24 Mantra", "Daawat")
KINDS = ("Sella basmati", "Brown basmati", "Chana masala", "Idli rava", "Lime pickle")
SIZES = ("100 g", "200 g", "500 g", "1 kg")


def _import_branded(store, capture_on_commit) -> None:
    """120 branded packs ("Tata Sella basmati 1 kg") imported through the catalog CSV import."""
    rows = ["sku,name,category,unit,aisle,shelf,price"]
    n = 0
    for size in SIZES:
        for kind in KINDS:
            for brand in BRANDS:
                n += 1
                rows.append(f"GEN-{n:04d},{brand} {kind} {size},Spices,pack,3,top shelf,2.50")
    with use_store(store):
        with capture_on_commit(execute=True):  # the preview and apply tasks run after commit
            job = imports.import_create(store=store, kind="catalog", filename="big.csv",
                                        content=("\n".join(rows) + "\n").encode(), actor="system:test")
        with capture_on_commit(execute=True):
            imports.import_apply_request(store=store, import_id=job.pk, actor="system:test")
        assert CatalogImport.objects.get(pk=job.pk).status == "applied"


@pytest.fixture
def big(demo, django_capture_on_commit_callbacks):
    """The demo store (38 products) with 120 branded packs beside them."""
    _import_branded(demo, django_capture_on_commit_callbacks)
    return demo


_say = partial(say, mode="router")


def _products_line(request) -> list[str]:
    user = request.messages[-1]["content"]
    line = next((line for line in user.splitlines() if line.startswith("Products it may name: ")), None)
    return [] if line is None else line.removeprefix("Products it may name: ").rstrip(".").split("; ")


def test_a_big_catalogs_system_prompt_is_the_same_every_turn_and_names_no_product(api_client, big, router):
    router.add({"action": "find_product", "item": "basmati", "ask": "where"}, {"action": "todays_sales"},
               {"action": "find_product", "item": "rava", "ask": "where"})
    _say(api_client, "where do we keep the basmati")
    _say(api_client, "how are sales today")
    answer = _say(api_client, "where's the rava")
    systems = {request.messages[0]["content"] for request in router.requests}
    assert len(systems) == 1
    system = systems.pop()
    assert "Spices" in system and "Basmati rice" not in system and "Sella basmati" not in system
    assert answer["tool_calls"][0]["arguments"] == {"item": "Sooji"}  # grounding still sees the whole catalog


def test_the_products_a_request_may_name_come_with_it_grounded_first_without_sizes_or_brands(api_client, big, router):
    router.add({"action": "find_product", "item": "basmati", "ask": "where"}, {"action": "todays_sales"})
    answer = _say(api_client, "where do we keep the basmati")
    listed = _products_line(router.requests[0])
    assert listed[0] == "Basmati rice (chawal)"
    assert {"Sella basmati", "Brown basmati"} <= set(listed)
    assert len(listed) <= prompts.REQUEST_PRODUCTS
    assert not any(brand in line for line in listed for brand in ("Tata", "MDH", "24 Mantra"))
    assert not any(line.endswith((" g", " kg")) for line in listed)
    assert answer["tool_calls"][0]["arguments"] == {"item": "Basmati rice"}
    _say(api_client, "how are sales today")
    assert _products_line(router.requests[1]) == []  # words that name no product list none


def test_the_big_catalog_prompt_is_no_longer_than_the_demo_stores(api_client, demo, router,
                                                                 django_capture_on_commit_callbacks):
    router.add({"action": "find_product", "item": "toor dal", "ask": "where"})
    _say(api_client, "where is the toor dal")
    demo_prompt = sum(len(message["content"]) for message in router.requests[-1].messages)
    _import_branded(demo, django_capture_on_commit_callbacks)
    router.add({"action": "find_product", "item": "toor dal", "ask": "where"})
    _say(api_client, "where is the toor dal")
    big_prompt = sum(len(message["content"]) for message in router.requests[-1].messages)
    assert big_prompt <= demo_prompt


def test_a_product_added_to_a_big_catalog_is_listed_with_the_next_request(api_client, big, router, owner):
    from django.test import Client

    page = Client()
    page.force_login(owner)
    added = page.post("/app/inventory/new", {
        "name": "Kala namak", "category": "Spices", "unit": "100 g pack", "pack_size": 1, "aisle": "1",
        "shelf": "spice rack", "position": "row 6", "price": "2.49", "unit_cost": "1.10", "par_level": 10,
        "reorder_point": 2, "aliases": "black salt", "stock": 7,
    })
    assert added.status_code == 302
    router.add({"action": "find_product", "item": "black salt", "ask": "where"})
    answer = _say(api_client, "where is the black salt")
    assert _products_line(router.requests[0])[0] == "Kala namak (black salt)"
    assert "Aisle 1, spice rack, row 6" in answer["reply"]


def test_a_leading_word_is_a_brand_only_when_it_starts_many_products_that_others_start_too() -> None:
    entries = [CatalogEntry(id=n, name=f"{brand} {kind} {size}")
               for n, (brand, kind, size) in enumerate(
                   (b, k, s) for b in BRANDS for k in KINDS for s in SIZES)]
    entries += [CatalogEntry(id=1000 + n, name=name) for n, name in enumerate(
        ("Frozen samosas", "Frozen parathas", "Frozen peas", "Frozen corn", "Frozen okra", "Green tea",
         "Green chili pickle", "Mustard oil 1 l", "Red chili powder"))]
    listed = prompts.RequestProducts(Catalog(entries))
    assert {"Sella basmati", "Chana masala", "Frozen samosas", "Frozen okra", "Green tea", "Mustard oil",
            "Red chili powder"} <= set(listed.lines)
    assert not any(line.startswith(("Tata", "24 Mantra")) for line in listed.lines)
    assert len(listed.lines) == len(KINDS) + 9


def test_pack_sizes_are_taken_off_the_end_of_a_name_only() -> None:
    assert prompts.pack_size_stripped("MDH Turmeric powder 200 g") == "MDH Turmeric powder"
    assert prompts.pack_size_stripped("Coconut milk (400 ml)") == "Coconut milk"
    assert prompts.pack_size_stripped("Mustard oil 1L") == "Mustard oil"
    assert prompts.pack_size_stripped("7 Up") == "7 Up"
    assert prompts.pack_size_stripped("Garam masala") == "Garam masala"
