"""A model-written reply may state store facts only when a ledger tool answered in the same turn.

The general model is replaced at its process boundary by a scripted fake that does state store
facts ("Yes, we have 10 years."), the careless answer the check exists for; the router is
scripted to send each question to the general answer. The guard's classifier and the ledger run
for real. The test marked ``model`` asks the real bundled general model the same questions.
"""

from __future__ import annotations

import json
from functools import partial
from pathlib import Path

import pytest

from assistant.guard.store_facts import (
    STORE_FACTS_NEUTRAL,
    reply_supported,
    store_fact_claims,
)
from assistant.lexicon import lexicon_for
from assistant.normalize import normalize
from assistant.quantities import computed_answer
from audit.models import Record
from inference.base import Role
from inference.config import backend_override
from inference.fake import FakeBackend, fake_models
from ledger.models import StockEntry
from tenants.context import use_store
from tests.turns import say

from .test_native_mode import _native

pytestmark = pytest.mark.django_db

QUESTIONS = json.loads((Path(__file__).resolve().parents[1] / "data" / "general_sounds_like_stock.json").read_text())[
    "items"
]


_say = partial(say, mode="router")


def test_the_set_holds_at_least_forty_general_questions_that_sound_like_stock_questions():
    assert len(QUESTIONS) >= 40
    assert len({item["question"] for item in QUESTIONS}) == len(QUESTIONS)
    assert all(store_fact_claims(item["scripted_reply"]) for item in QUESTIONS)


@pytest.mark.parametrize("reply", [
    "Yes, we have 10 years.", "We carry that.", "We've got 5 boxes left.", "Atta is in aisle 3.",
    "It costs ₹120.", "You sold 14 items today.", "There are 3 bags left.", "Yes, we do!",
    "We don't stock that.", "I've placed the order.", "That's in stock.", "We're out of it.",
])
def test_phrases_that_speak_for_the_books_are_store_facts(reply):
    assert store_fact_claims(reply)


@pytest.mark.parametrize("reply", [
    "There are seven days in a week.", "There are about 454 grams in a pound.", "We have to wait and see.",
    "Sure, I have a minute. What do you need?", "Ghee has a long shelf life.", "Hello! How can I help?",
    "A dozen is twelve.", "Water boils at 100 degrees Celsius.", "Yes, there is time for tea.",
    "Cricket teams have eleven players.",
])
def test_general_answers_state_no_store_fact(reply):
    assert store_fact_claims(reply) == []


def test_a_store_fact_is_supported_only_by_a_ledger_tool_of_the_same_turn():
    assert not reply_supported("We have 12 bags of atta.", [])
    assert not reply_supported("We have 12 bags of atta.", ["ask_general", "play_demo_video"])
    assert reply_supported("We have 12 bags of atta.", ["get_inventory"])
    assert reply_supported("There are seven days in a week.", [])


def _normal(question: str) -> str:
    """The words as a turn reads them (numbers as digits), the grocery lexicon's."""
    return normalize(question, lexicon_for("grocery")).text


def test_no_general_question_that_sounds_like_stock_gets_a_store_fact_answer(api_client, demo):
    # A conversion or a sum ("how many grams in a kilo") is answered exactly by code
    # (assistant.quantities) and never reaches the general model; the rest get its scripted reply.
    computed = [item for item in QUESTIONS if computed_answer(_normal(item["question"]))]
    modelled = [item for item in QUESTIONS if item not in computed]
    general = FakeBackend([item["scripted_reply"] for item in modelled])
    entries_before = _entries(demo)
    with fake_models(Role.ROUTER, default={"action": "general"}), backend_override(Role.GENERAL, general):
        answers = {item["question"]: _say(api_client, item["question"]) for item in QUESTIONS}
    for item in QUESTIONS:
        answer = answers[item["question"]]
        assert answer["guard"]["input"]["verdict"] == "safe", (item["question"], answer["guard"])
        assert answer["action"] == "general", (item["question"], answer["action"])
        assert store_fact_claims(answer["reply"]) == []
        assert answer["tool_calls"] == []
        if item in computed:
            assert answer["reply"] == computed_answer(_normal(item["question"])), item["question"]
        else:
            assert answer["reply"] == STORE_FACTS_NEUTRAL, item["question"]
            assert answer["guard"]["store_facts"]["verdict"] == "replaced"
    assert len(general.requests) == len(modelled)  # every other question reached the general model
    with use_store(demo):
        records = Record.objects.filter(store=demo, name="store_facts")
        assert records.count() == len(modelled)
        assert records.first().result["reply"] in {item["scripted_reply"] for item in QUESTIONS}
    assert _entries(demo) == entries_before


def test_a_general_answer_without_store_facts_reaches_the_owner_unchanged(api_client, demo):
    with fake_models(Role.ROUTER, default={"action": "general"},
                     general="There are seven days in a week."):
        answer = _say(api_client, "how many days in a week")
    assert answer["reply"] == "There are seven days in a week."
    assert "store_facts" not in answer["guard"]
    with use_store(demo):
        assert not Record.objects.filter(store=demo, name="store_facts").exists()


def test_a_native_reply_that_states_stock_without_calling_a_tool_is_replaced(api_client, demo, monkeypatch):
    monkeypatch.setenv("SHELFWISE_NATIVE_VARIANT", "plain")
    with fake_models(Role.NATIVE) as model:
        model.add("Yes, we carry saffron, 3 jars left on the top shelf.")
        answer = _say(api_client, "do we have time for saffron tea", mode="native")
    assert answer["tool_calls"] == []
    assert answer["reply"] == STORE_FACTS_NEUTRAL


def test_a_native_reply_after_the_ledger_answered_may_state_the_stock(api_client, demo, monkeypatch):
    monkeypatch.setenv("SHELFWISE_NATIVE_VARIANT", "plain")
    with fake_models(Role.NATIVE) as model:
        model.add(_native("get_inventory", item="atta"), "We have atta in Aisle 2.")
        answer = _say(api_client, "where is the atta", mode="native")
    assert answer["tool_calls"][0]["tool"] == "get_inventory" and answer["tool_calls"][0]["ok"]
    assert answer["reply"] == "We have atta in Aisle 2."
    assert "store_facts" not in answer["guard"]


def test_the_native_model_is_not_handed_a_general_answer_that_invents_store_facts(api_client, demo, monkeypatch):
    monkeypatch.setenv("SHELFWISE_NATIVE_VARIANT", "plain")
    with fake_models(Role.NATIVE, general="Yes, we have 10 years.") as model:
        model.add(_native("ask_general", question="do we have ten years"), "Sure.")
        answer = _say(api_client, "do we have ten years", mode="native")
    assert answer["tool_calls"][0]["result"] == {"answer": STORE_FACTS_NEUTRAL}
    assert "yes, we have 10 years" not in model.requests[1].prompt.lower()


# Plain words an owner would hear as the books speaking, checked independently of the regexes.
BOOK_WORDS = ("we have", "we've got", "we carry", "we stock", "in stock", "aisle", "shelf", "₹", "rupee", "sold",
              "your sales", "your stock", "order")


@pytest.mark.model
def test_the_real_general_model_gives_no_store_fact_answer_to_general_questions(api_client, demo):
    """The bundled general model answers for real (the router is scripted to send each question there)."""
    with backend_override(Role.ROUTER, FakeBackend(default={"action": "general"})):
        answers = [_say(api_client, item["question"]) for item in QUESTIONS]
    for item, answer in zip(QUESTIONS, answers, strict=True):
        reply = answer["reply"].lower()
        assert answer["reply"] == STORE_FACTS_NEUTRAL or not any(w in reply for w in BOOK_WORDS), (
            item["question"], answer["reply"])


def _entries(store):
    with use_store(store):
        return StockEntry.objects.filter(store=store).count()
