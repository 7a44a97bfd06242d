"""The Alexa skill at POST /alexa/: signed requests in, ASK responses out, turns through the real pipeline.

Requests are signed with a test PKI (see ``pki.py``) and verified by the real code. Only the
language models are replaced, at their process boundary: ``FakeBackend``s serve the router,
general and guard roles through ``backend_override``, answer with scripted JSON and record the
prompts they get. Everything else (normalising, grounding, policy, MCP tools, ledger, audit) is real.
"""

from __future__ import annotations

import pytest

from alexa import responses
from alexa.tests.conftest import alexa_request, post
from alexa.views import CONFIRM_PROMPT, LINK_TEXT, PROMPT, conversation_key
from assistant.models import Conversation
from audit.models import Turn
from inference.base import Role
from inference.config import backend_override
from inference.fake import FakeBackend
from ledger.models import Order, Product, ReorderDraft, StockEntry
from tenants.context import use_store
from tenants.services import token_create, token_revoke

SESSION = "amzn1.echo-api.session.0f6b1c7e-3d4a-4b8e-9a51-2c7d9e0a1b23"


@pytest.fixture
def raw_token(demo):
    return token_create(store=demo, name="alexa", scopes=["api", "orders:confirm"])[1]


def _ask(key, token, words, session=SESSION, intent="OwnerRequestIntent"):
    response = post(alexa_request("IntentRequest", token=token, intent=intent, words=words, session=session), key=key)
    assert response.status_code == 200, response.content
    return response.json()


def _ledger(store) -> tuple[int, int, int, dict[str, int]]:
    with use_store(store):
        return (StockEntry.objects.filter(store=store).count(), ReorderDraft.objects.filter(store=store).count(),
                Order.objects.filter(store=store).count(),
                dict(Product.objects.filter(store=store).values_list("name", "stock")))


def test_the_owners_words_become_a_turn_and_the_answer_comes_back_in_ask_format(fetcher, test_pki, demo,
                                                                                  raw_token, router):
    router.add({"action": "find_product", "item": "gur", "ask": "where"})
    answer = _ask(test_pki.key, raw_token, "where did we put the gur")
    assert answer["version"] == "1.0"
    spoken = answer["response"]["outputSpeech"]
    assert spoken["type"] == "PlainText" and "Aisle 1, oil shelf, upper right" in spoken["text"]
    card = answer["response"]["card"]
    assert card["type"] == "Simple" and card["title"] == "Corner Shop"
    assert card["content"].startswith(spoken["text"]) and "Shelf photo" in card["content"]
    assert answer["response"]["shouldEndSession"] is False
    assert answer["response"]["reprompt"]["outputSpeech"]["text"]
    prompt = router.requests[0].messages[-1]["content"]
    assert "where did we put the jaggery" in prompt  # the lexicon fixed the owner's word, as for typed text
    with use_store(demo):
        turn = Turn.objects.get(store=demo)
    assert (turn.channel, turn.conversation, turn.text) == ("alexa", conversation_key(SESSION),
                                                            "where did we put the gur")
    assert turn.actor.startswith("token:") and turn.action == "find_product"
    assert answer["sessionAttributes"]["conversation"] == turn.conversation


def test_a_yes_in_the_same_session_confirms_the_draft_the_previous_turn_offered(fetcher, test_pki, demo,
                                                                                  raw_token, router):
    router.add({"action": "draft_restock"})
    offer = _ask(test_pki.key, raw_token, "restock all the low stuff")
    assert "$401.70" in offer["response"]["outputSpeech"]["text"]
    assert offer["response"]["reprompt"]["outputSpeech"]["text"] == CONFIRM_PROMPT
    with use_store(demo):
        draft = ReorderDraft.objects.get(store=demo)
        assert not Order.objects.filter(store=demo).exists()
    yes = _ask(test_pki.key, raw_token, None, intent="AMAZON.YesIntent")
    assert yes["response"]["shouldEndSession"] is False
    assert len(router.requests) == 1  # the yes was handled in code, never by the model
    with use_store(demo):
        order = Order.objects.get(store=demo)
        turns = list(Turn.objects.filter(store=demo).values_list("conversation", "text", "action"))
    assert order.draft_id == draft.pk
    key = conversation_key(SESSION)
    assert turns == [(key, "restock all the low stuff", "draft_restock"), (key, "yes", "confirm")]


def test_a_yes_in_a_new_session_confirms_nothing(fetcher, test_pki, demo, raw_token, router):
    router.add({"action": "draft_restock"})
    _ask(test_pki.key, raw_token, "restock all the low stuff")
    yes = _ask(test_pki.key, raw_token, None, intent="AMAZON.YesIntent",
               session="amzn1.echo-api.session.11111111-2222-3333-4444-555555555555")
    assert "no order waiting" in yes["response"]["outputSpeech"]["text"]
    router.add({"action": "find_product", "item": "gur", "ask": "where"})
    lookup = _ask(test_pki.key, raw_token, "where is the gur",
                  session="amzn1.echo-api.session.11111111-2222-3333-4444-555555555555")
    assert lookup["response"]["reprompt"]["outputSpeech"]["text"] == PROMPT  # the old draft is not on offer here
    with use_store(demo):
        assert not Order.objects.filter(store=demo).exists()


def test_a_no_drops_the_offered_draft(fetcher, test_pki, demo, raw_token, router):
    router.add({"action": "draft_restock"})
    _ask(test_pki.key, raw_token, "restock all the low stuff")
    no = _ask(test_pki.key, raw_token, None, intent="AMAZON.NoIntent")
    assert "Nothing was ordered" in no["response"]["outputSpeech"]["text"]
    with use_store(demo):
        assert ReorderDraft.objects.get(store=demo).status != "pending"
        assert not Order.objects.filter(store=demo).exists()


def test_the_other_stores_token_cannot_reach_this_stores_draft_or_books(fetcher, test_pki, demo, raw_token,
                                                                         other_store, router):
    router.add({"action": "draft_restock"})
    _ask(test_pki.key, raw_token, "restock all the low stuff")
    before = _ledger(demo)
    other_raw = token_create(store=other_store, name="alexa", scopes=["api"])[1]
    yes = _ask(test_pki.key, other_raw, None, intent="AMAZON.YesIntent")  # same Alexa session id
    assert yes["response"]["card"]["title"] == "Other Shop"
    assert "no order waiting" in yes["response"]["outputSpeech"]["text"]
    assert _ledger(demo) == before
    with use_store(demo):
        assert not Order.objects.filter(store=demo).exists()
        assert Turn.objects.filter(store=demo).count() == 1
    with use_store(other_store):
        assert Turn.objects.filter(store=other_store, channel="alexa").count() == 1
        assert Conversation.objects.filter(store=other_store, key=conversation_key(SESSION)).exists()


def test_a_launch_welcomes_the_owner_and_keeps_the_session_open(fetcher, test_pki, demo, raw_token, router):
    answer = post(alexa_request(token=raw_token), key=test_pki.key).json()["response"]
    assert "Corner Shop is ready" in answer["outputSpeech"]["text"]
    assert answer["shouldEndSession"] is False and answer["reprompt"]["outputSpeech"]["text"]
    assert answer["card"]["title"] == "Corner Shop"
    assert router.requests == []


@pytest.mark.parametrize("intent", ["AMAZON.StopIntent", "AMAZON.CancelIntent"])
def test_stop_and_cancel_end_the_session_without_a_turn(fetcher, test_pki, demo, raw_token, router, intent):
    answer = _ask(test_pki.key, raw_token, None, intent=intent)
    assert answer["response"]["shouldEndSession"] is True and "reprompt" not in answer["response"]
    with use_store(demo):
        assert not Turn.objects.filter(store=demo).exists()


@pytest.mark.parametrize(("intent", "words", "expected"), [
    ("AMAZON.HelpIntent", None, "You can ask me"),
    ("AMAZON.FallbackIntent", None, "didn't catch that"),
    ("OwnerRequestIntent", None, "didn't catch that"),
    ("OwnerRequestIntent", "   ", "didn't catch that"),
    ("SomeRetiredIntent", None, "didn't catch that"),
])
def test_help_fallback_and_empty_requests_keep_the_session_open(fetcher, test_pki, demo, raw_token, router,
                                                                intent, words, expected):
    answer = _ask(test_pki.key, raw_token, words, intent=intent)["response"]
    assert expected in answer["outputSpeech"]["text"] and answer["shouldEndSession"] is False
    assert router.requests == []


def test_session_ended_gets_an_empty_response(fetcher, test_pki, demo, raw_token):
    response = post(alexa_request("SessionEndedRequest", token=raw_token), key=test_pki.key)
    assert response.status_code == 200 and response.json() == {"version": "1.0", "response": {}}


@pytest.mark.parametrize("link", ["none", "garbage", "revoked", "mcp_only", "other_shape"])
def test_an_unlinked_or_invalid_account_is_asked_to_link_and_nothing_runs(fetcher, test_pki, demo, router, link):
    before = _ledger(demo)
    token = None
    if link == "garbage":
        token = "sw_0000000000_notarealsecret"
    elif link == "revoked":
        created, token = token_create(store=demo, name="old", scopes=["api"])
        token_revoke(store=demo, token_id=created.pk, actor="test")
    elif link == "mcp_only":
        token = token_create(store=demo, name="mcp", scopes=["mcp"])[1]
    elif link == "other_shape":
        token = "Bearer something"
    response = post(alexa_request("IntentRequest", token=token, intent="OwnerRequestIntent",
                                  words="restock all the low stuff"), key=test_pki.key)
    assert response.status_code == 200
    answer = response.json()["response"]
    assert answer["card"] == {"type": "LinkAccount"}
    assert answer["outputSpeech"]["text"] == LINK_TEXT and answer["shouldEndSession"] is True
    assert router.requests == [] and _ledger(demo) == before
    with use_store(demo):
        assert not Turn.objects.filter(store=demo).exists()


def test_a_turn_that_fails_inside_still_answers_in_ask_format(fetcher, test_pki, demo, raw_token):
    from inference.base import ErrorCode, InferenceError

    broken = FakeBackend(default=InferenceError(ErrorCode.SERVER_ERROR, "down"))
    guard = FakeBackend(default={"verdict": "safe", "category": "none"})
    before = _ledger(demo)
    with backend_override(Role.ROUTER, broken), backend_override(Role.GUARD, guard), \
            backend_override(Role.GENERAL, broken):
        answer = _ask(test_pki.key, raw_token, "restock all the low stuff")
    assert answer["response"]["outputSpeech"]["text"]
    assert _ledger(demo) == before


def test_session_ids_become_safe_conversation_keys():
    assert conversation_key(SESSION) == "alexa-0f6b1c7e-3d4a-4b8e-9a51-2c7d9e0a1b23"
    odd = conversation_key("amzn1.echo-api.session.a/b:c")
    assert odd.startswith("alexa-") and len(odd) <= 64 and odd.replace("-", "").isalnum()
    assert conversation_key("x" * 200) != conversation_key("x" * 201)
    assert all(len(conversation_key(s)) <= 64 for s in ("a" * 58, "a" * 59, "a" * 300))
    assert conversation_key(None) is None and conversation_key("  ") is None


def test_ssml_speech_escapes_markup():
    spoken = responses.speech('Dal & "rice" <break time="9s"/>', ssml=True)
    assert spoken == {"type": "SSML",
                      "ssml": "<speak>Dal &amp; &quot;rice&quot; &lt;break time=&quot;9s&quot;/&gt;</speak>"}


def test_the_interaction_model_sends_the_owners_words_in_the_slot_the_endpoint_reads():
    import json
    from pathlib import Path

    from alexa import views

    model = json.loads((Path(views.__file__).parent / "interaction_model.json").read_text())["interactionModel"]
    language = model["languageModel"]
    assert language["invocationName"] == "shelf wise"
    intents = {intent["name"]: intent for intent in language["intents"]}
    request = intents[views.REQUEST_INTENT]
    assert request["slots"] == [{"name": views.REQUEST_SLOT, "type": "AMAZON.SearchQuery"}]
    samples = request["samples"]
    assert len(samples) == len({sample.lower() for sample in samples})
    # AMAZON.SearchQuery needs a carrier phrase, and the carrier is lost: none may carry an action word.
    for sample in samples:
        carrier = sample.replace("{request}", "").strip()
        assert sample.endswith("{request}") and carrier
        assert not {"order", "reorder", "restock", "update", "send", "play", "find"} & set(carrier.lower().split())
    assert set(views.YES_NO) | views.ENDING | {"AMAZON.HelpIntent", "AMAZON.FallbackIntent"} <= set(intents)


def test_a_yes_through_a_token_without_orders_confirm_places_nothing(fetcher, test_pki, demo, router):
    staff_token = token_create(store=demo, name="staff alexa", scopes=["api"])[1]
    router.add({"action": "draft_restock"})
    _ask(test_pki.key, staff_token, "restock all the low stuff")
    yes = _ask(test_pki.key, staff_token, None, intent="AMAZON.YesIntent")
    assert "Only the store's owner can place orders" in yes["response"]["outputSpeech"]["text"]
    with use_store(demo):
        assert not Order.objects.filter(store=demo).exists()
        assert ReorderDraft.objects.get(store=demo).status == "pending"


def test_a_hedged_answer_keeps_the_draft_on_offer_and_asks_yes_or_no_again(fetcher, test_pki, demo, raw_token,
                                                                             router):
    router.add({"action": "draft_restock"})
    _ask(test_pki.key, raw_token, "restock all the low stuff")
    hedged = _ask(test_pki.key, raw_token, "maybe, hang on")
    assert hedged["response"]["reprompt"]["outputSpeech"]["text"] == CONFIRM_PROMPT
    assert len(router.requests) == 1  # code answered the hedge; nothing was placed
    with use_store(demo):
        assert ReorderDraft.objects.get(store=demo).status == "pending"
        assert not Order.objects.filter(store=demo).exists()
