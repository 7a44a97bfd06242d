"""What counts as a yes to an offered draft: the labelled phrasings in assistant/data/confirmations.json."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from assistant.phrases import Reply, yes_or_no
from tests.turns import say as _say

DATA = json.loads((Path(__file__).resolve().parents[1] / "data" / "confirmations.json").read_text())
PHRASES = [(text, Reply(label)) for text, label in DATA["phrases"]]


def test_the_set_covers_at_least_forty_yes_no_and_hedged_phrasings():
    labels = [label for _, label in PHRASES]
    assert len(PHRASES) >= 40
    assert {labels.count(Reply.YES), labels.count(Reply.NO), labels.count(Reply.UNSURE)} and min(
        labels.count(Reply.YES), labels.count(Reply.NO), labels.count(Reply.UNSURE)) >= 8


@pytest.mark.parametrize(("text", "expected"), PHRASES, ids=[text for text, _ in PHRASES])
def test_each_phrasing_is_read_as_labelled(text, expected):
    assert yes_or_no(text) == expected


def test_a_yes_that_names_a_product_narrows_instead_of_confirming():
    assert yes_or_no("yes but only the toor dal", names_products=True) == Reply.OTHER


# -- in a turn ------------------------------------------------------------------------------------


@pytest.fixture
def router():
    from inference.base import Role
    from inference.fake import fake_models

    with fake_models(Role.ROUTER) as fake:
        yield fake


def test_a_hedged_yes_is_asked_again_and_only_the_plain_yes_after_it_places_the_order(api_client, demo, router):
    from ledger.models import Order, ReorderDraft
    from tenants.context import use_store

    router.add({"action": "draft_restock"})
    offer = _say(api_client, "restock all the low stuff")

    hedged = _say(api_client, "yeah hang on, let me ask my wife", conversation=offer["conversation"])

    assert hedged["reply"] == "Shall I place it? Say yes or no."
    assert hedged["pending_draft"] is not None
    with use_store(demo):
        assert not Order.objects.filter(store=demo).exists()
        assert ReorderDraft.objects.get(store=demo).status == ReorderDraft.Status.PENDING

    yes = _say(api_client, "yes", conversation=offer["conversation"])

    assert yes["action"] == "confirm" and yes["pending_draft"] is None
    with use_store(demo):
        assert Order.objects.get(store=demo).draft_id == offer["pending_draft"]["id"]
    assert len(router.requests) == 1  # neither answer reached the model
