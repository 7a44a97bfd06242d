"""Teaching the fast path from the assistant's history: the owner's taught phrases, through real turns.

The router model is a scripted ``FakeBackend`` (``router.add`` per model decision; a call with
nothing scripted fails the test loudly); the matcher's MiniLM, grounding, the guard, the gateway
and the ledger run for real. Turns go through ``POST /api/v1/turns``; teaching and forgetting go
through the owner's history page.
"""

from __future__ import annotations

from functools import partial

import pytest
from django.test import Client

from assistant.matcher.taught import SIMILARITY, TaughtSet, taught_match
from assistant.models import TaughtPhrase
from audit.models import Record, Turn
from tenants.context import use_store
from tests.turns import say

# Slang the pack's templates and head leave to the model (checked below), and a rewording of it
# that is alike enough for a taught phrase to answer (cosine 0.91 > SIMILARITY).
SAID = "how much dough did we pull in"
REWORDED = "how much dough have we pulled in today"


_say = partial(say, mode="router")


def _turn_and_route(answer, store):
    with use_store(store):
        turn = Turn.objects.get(conversation=answer["conversation"], index=answer["turn"])
        route = Record.objects.get(turn=turn, kind=Record.Kind.EVENT, name="route").result
    return turn, route


def _browser(user):
    client = Client()
    client.force_login(user)
    return client


def _taught(store):
    with use_store(store):
        return list(TaughtPhrase.objects.filter(store=store).values_list("said", "action"))


def test_a_turn_the_owner_teaches_is_answered_without_the_model_next_time(api_client, demo, owner, fast, router):
    router.add({"action": "todays_sales"})
    first = _say(api_client, SAID)
    turn, route = _turn_and_route(first, demo)
    assert route["decided_by"] == "model" and len(router.requests) == 1

    page = _browser(owner).post(f"/app/assistant/turns/{turn.pk}/teach", {"action": "todays_sales"}, follow=True)
    assert page.status_code == 200 and "Learned" in page.content.decode()
    assert _taught(demo) == [(SAID, "todays_sales")]

    again = _say(api_client, REWORDED)
    _, route = _turn_and_route(again, demo)
    assert len(router.requests) == 1, "the taught phrase answered: no second model call"
    assert route["decided_by"] == "matcher" and route["source"] == "taught" and route["confidence"] >= SIMILARITY
    assert again["action"] == "todays_sales" and again["tool_calls"][0]["tool"] == first["tool_calls"][0]["tool"]


def test_forgetting_a_phrase_sends_those_words_to_the_model_again(api_client, demo, owner, fast, router):
    router.add({"action": "todays_sales"})
    turn, _ = _turn_and_route(_say(api_client, SAID), demo)
    browser = _browser(owner)
    browser.post(f"/app/assistant/turns/{turn.pk}/teach", {"action": "todays_sales"})
    with use_store(demo):
        phrase = TaughtPhrase.objects.get(store=demo)
    assert browser.post(f"/app/assistant/taught/{phrase.pk}/forget").status_code == 302
    assert _taught(demo) == []
    router.add({"action": "todays_sales"})
    _, route = _turn_and_route(_say(api_client, REWORDED), demo)
    assert route["decided_by"] == "model" and len(router.requests) == 2


def test_another_store_does_not_learn_what_this_owner_taught(api_client, demo, owner, other_store, other_owner, fast, router):
    from ledger.demo import install_demo_catalog
    from tenants.services import token_create

    router.add({"action": "todays_sales"})
    turn, _ = _turn_and_route(_say(api_client, SAID), demo)
    _browser(owner).post(f"/app/assistant/turns/{turn.pk}/teach", {"action": "todays_sales"})
    with use_store(other_store):
        install_demo_catalog(store=other_store)
    from rest_framework.test import APIClient

    _, raw = token_create(store=other_store, name="tests", scopes=["api"])
    other = APIClient()
    other.credentials(HTTP_AUTHORIZATION=f"Bearer {raw}")
    router.add({"action": "todays_sales"})
    _, route = _turn_and_route(_say(other, REWORDED), other_store)
    assert route["decided_by"] == "model"
    # ...and its owner can neither teach nor forget with this store's ids.
    assert _browser(other_owner).post(f"/app/assistant/turns/{turn.pk}/teach", {"action": "todays_sales"}).status_code == 404
    with use_store(demo):
        phrase = TaughtPhrase.objects.get(store=demo)
    assert _browser(other_owner).post(f"/app/assistant/taught/{phrase.pk}/forget").status_code == 404
    assert _taught(demo) == [(SAID, "todays_sales")] and _taught(other_store) == []


def test_staff_see_the_history_but_cannot_teach(api_client, demo, owner, staff, router):
    router.add({"action": "todays_sales"})
    turn, _ = _turn_and_route(_say(api_client, SAID), demo)
    browser = _browser(staff)
    page = browser.get("/app/assistant/")
    assert page.status_code == 200 and SAID in page.content.decode()
    assert f"/app/assistant/turns/{turn.pk}/teach" not in page.content.decode()
    refused = browser.post(f"/app/assistant/turns/{turn.pk}/teach", {"action": "todays_sales"})
    assert refused.status_code == 403 and "Only the store&#x27;s owner can teach" in refused.content.decode()
    assert _taught(demo) == []


def test_the_owners_history_offers_teaching_and_says_who_decided(api_client, demo, owner, router):
    router.add({"action": "todays_sales"})
    turn, _ = _turn_and_route(_say(api_client, SAID), demo)
    page = _browser(owner).get("/app/assistant/").content.decode()
    assert f"/app/assistant/turns/{turn.pk}/teach" in page and "Decided by" in page and "the model" in page
    assert "What the fast path learned here" in page


@pytest.mark.parametrize(("action", "reason"), [
    ("launch_rockets", "Choose one of this store's actions."),
    ("update_count", "cannot mean “update_count” on their own"),  # a count change needs a product and a number
    ("draft_restock", "cannot mean “draft_restock” on their own"),  # does not ask to order
])
def test_a_phrase_the_fast_path_could_never_answer_is_refused_with_the_reason(api_client, demo, owner, router,
                                                                              action, reason):
    router.add({"action": "todays_sales"})
    turn, _ = _turn_and_route(_say(api_client, SAID), demo)
    response = _browser(owner).post(f"/app/assistant/turns/{turn.pk}/teach", {"action": action},
                                    HTTP_ACCEPT="application/json")
    assert response.status_code == 400 and reason in response.json()["message"]
    assert _taught(demo) == []


def test_teaching_the_same_words_again_replaces_the_action(api_client, demo, owner, router):
    router.add({"action": "todays_sales"})
    turn, _ = _turn_and_route(_say(api_client, SAID), demo)
    browser = _browser(owner)
    browser.post(f"/app/assistant/turns/{turn.pk}/teach", {"action": "store_health"})
    browser.post(f"/app/assistant/turns/{turn.pk}/teach", {"action": "todays_sales"})
    assert _taught(demo) == [(SAID, "todays_sales")]


def test_a_taught_phrase_answers_only_where_the_words_fit_its_action(demo):
    """Unit: the nearest phrase must be alike enough, and a count change still needs its number."""
    import numpy as np

    from assistant.grounding import Catalog, ground
    from assistant.lexicon import lexicon_for
    from assistant.matcher.core import Request
    from assistant.normalize import normalize
    from ledger import selectors

    lexicon = lexicon_for("grocery")
    with use_store(demo):
        catalog = Catalog.from_products(selectors.product_list(store=demo), lexicon=lexicon)
    taught = TaughtSet(texts=("we counted 5 item",), actions=("update_count",), vectors=np.array([[1.0, 0.0]], dtype=np.float32))

    def match(text, vector):
        words = normalize(text, lexicon)
        request = Request(business_type="grocery", words=words, catalog=catalog, lexicon=lexicon, taught=taught)
        return taught_match(request, taught=taught, vector=np.array(vector, dtype=np.float32),
                            grounding=ground(words.text, catalog=catalog, lexicon=lexicon))

    assert match("we counted 12 atta", [1.0, 0.0]).decision.action == "update_count"
    assert match("we counted atta", [1.0, 0.0]) is None  # no number: it cannot be a count change
    assert match("we counted 12 atta", [0.8, 0.6]) is None  # cosine 0.8 is below SIMILARITY
