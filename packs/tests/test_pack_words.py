"""A pack's store is spoken to as its own kind of shop: the general model is told which, advice on taking a
medicine it stocks is not read as a stock question, and "what vitamins do we have" lists its own group.

The router and general models are replaced at their process boundary (scripted FakeBackends that
record what they were sent); the pack versions, the catalog import of the sample catalogs, the
normalisation, grounding and the router's code-side corrections are real.
"""

from __future__ import annotations

import pytest

from lab.bench.packs import pack_version_find
from lab.bench.stores import bench_store_create, bench_store_delete
from packs.source import BUNDLED


@pytest.fixture
def pharmacy(db):
    store = bench_store_create(label="pharmacy-words", pack_version=pack_version_find(str(BUNDLED / "pharmacy")),
                               sample=True)
    yield store
    bench_store_delete(store=store)


def _routed(store, text: str, answer: dict):
    from assistant.modes.router.mode import route_request
    from inference.base import Role
    from inference.fake import fake_models

    with fake_models(Role.ROUTER, default=answer):
        return route_request(store=store, text=text, fast=False)


@pytest.mark.parametrize("text", [
    "how many paracetamol can i take in a day",
    "how much children's ibuprofen do i give a toddler",
    "what's the dose of ibuprofen for a ten year old",
])
def test_advice_on_taking_a_stocked_medicine_stays_a_general_question(pharmacy, text):
    routed = _routed(pharmacy, text, {"action": "general"})
    assert routed.decision.action == "general"
    assert routed.grounding.products  # it does name a product the store stocks


def test_a_general_answer_naming_a_stocked_product_with_stock_words_is_still_a_lookup(pharmacy):
    routed = _routed(pharmacy, "how many boxes of paracetamol are left", {"action": "general"})
    assert routed.decision.action == "find_product"


@pytest.mark.parametrize("answer", [{"action": "general"}, {"action": "list_products", "item": "vitamins"}])
def test_what_vitamins_do_we_have_lists_the_stores_own_group_not_a_nutrition_guide(pharmacy, answer):
    routed = _routed(pharmacy, "what vitamins do we have", answer)
    assert (routed.decision.action, routed.grounding.group) == ("list_products", "Vitamins")


@pytest.mark.parametrize(("pack", "kind"), [("bakery", "small bakery & café"), ("hardware", "small hardware store"),
                                            ("grocery", "small grocery store")])
def test_the_general_model_is_told_the_stores_own_kind_of_shop(db, pack, kind):
    from assistant.pipeline import run_turn
    from assistant.types import Mode, TurnInput
    from inference.base import Role
    from inference.config import backend_override
    from inference.fake import FakeBackend, fake_models

    folder = BUNDLED / pack
    store = bench_store_create(label=f"{pack}-general", pack_version=pack_version_find(str(folder)),
                               sample=pack != "grocery")
    general = FakeBackend(default="Happy to help!")
    try:
        with fake_models(Role.ROUTER, default={"action": "general"}), backend_override(Role.GENERAL, general):
            run_turn(store=store, turn=TurnInput(text="what is the capital of france", mode=Mode.ROUTER,
                                                 channel="system", actor="tests"))
    finally:
        bench_store_delete(store=store)
    system = general.requests[0].messages[0]["content"]
    assert system.startswith(f"You are the voice assistant of a {kind}, talking with its owner.")
    if pack != "grocery":
        assert "grocery" not in system


@pytest.mark.parametrize(("text", "asks"), [
    ("get us 24 boxes of ors sachets", True), ("get me 6 more paint brushes", True), ("get in 20 trays of eggs", True),
    ("get me the price of paracetamol", False), ("how do we get more customers", False),
])
def test_get_us_a_number_of_something_asks_to_order(text, asks):
    from assistant.policy import OwnerWords

    assert OwnerWords(text=text, numbers=()).asks_order is asks


def test_get_us_twenty_four_boxes_is_a_restock_draft_not_a_lookup(pharmacy):
    routed = _routed(pharmacy, "get us twenty four boxes of ors sachets", {"action": "draft_restock", "item": "ors"})
    assert routed.decision.action == "draft_restock"
    assert [ref.name for ref in routed.grounding.products] == ["Oral rehydration salts"]
