"""The small mode's loop through POST /api/v1/turns, with the real guard layers, policy, gateway and ledger.

Except for the last test, the small model is replaced at its process boundary by a scripted
``FakeBackend`` (so are the guard's and the general model's LLMs): it answers each prompt with
the next scripted protocol line and records the prompts, so these tests check what the runtime
does with the model's lines — runs calls, grounds items, fills quantities in code, re-asks a
premature answer as a forced call, stops at the step limit, rejects malformed lines, and lets
the policy refuse writes nobody asked for. The last test (``-m model``) loads the shipped
checkpoint for real.
"""

from __future__ import annotations

from functools import partial

import pytest

from assistant.modes.small import runtime
from assistant.modes.small.protocol import MAX_STEPS
from inference.base import Role
from inference.config import backend_override
from inference.fake import FakeBackend, fake_models
from ledger.models import Order, Product, ReorderDraft, StockEntry
from ledger.stock_velocity import reorder_suggestions
from tenants.context import use_store
from tests.turns import say


@pytest.fixture
def small():
    with fake_models(Role.SMALL, general="Canberra is the capital of Australia.") as fake:
        yield fake


_say = partial(say, mode="small")


def _product(store, name):
    with use_store(store):
        return Product.objects.get(store=store, name=name)


def _books(store):
    with use_store(store):
        return (StockEntry.objects.filter(store=store).count(), ReorderDraft.objects.filter(store=store).count(),
                Order.objects.filter(store=store).count())


def test_a_lookup_runs_the_call_grounds_the_hindi_word_and_answers_after_the_result(api_client, demo, small):
    small.add(' Call: get_inventory {"item": "gur"}', " Answer: Jaggery is in Aisle 1, oil shelf, upper right.")
    answer = _say(api_client, "um where did we put the gur")
    assert [call["tool"] for call in answer["tool_calls"]] == ["get_inventory"]
    assert answer["tool_calls"][0]["arguments"] == {"item": "Jaggery"}
    assert answer["reply"] == "Jaggery is in Aisle 1, oil shelf, upper right."
    assert answer["media"][0]["kind"] == "photo"
    first, second = (request.prompt for request in small.requests)
    assert first.startswith("### Catalog: Jaggery") and first.endswith("### Owner: where did we put the jaggery\n###")
    stock = _product(demo, "Jaggery").stock
    assert f"### Result: Jaggery: stock {stock} x" in second and second.endswith("###")


def test_an_answer_with_a_fact_before_any_tool_ran_is_re_asked_as_a_forced_call(api_client, demo, small):
    small.add(" Answer: Jaggery is in Aisle 9 with 99 blocks.", ' get_inventory {"item": "Jaggery"}',
              " Answer: Jaggery is in Aisle 1, oil shelf, upper right.")
    answer = _say(api_client, "where is the jaggery")
    assert small.requests[1].prompt.endswith("### Owner: where is the jaggery\n### Call:")
    assert [call["tool"] for call in answer["tool_calls"]] == ["get_inventory"]
    assert "Aisle 9" not in answer["reply"] and "Aisle 1" in answer["reply"]


def test_a_greeting_answered_without_a_tool_is_not_re_asked(api_client, demo, small):
    small.add(" Answer: Good morning! How can I help with the store today?")
    answer = _say(api_client, "good morning")
    assert answer["tool_calls"] == [] and answer["reply"].startswith("Good morning")
    assert len(small.requests) == 1


def test_the_loop_stops_after_the_step_limit(api_client, demo, small):
    small.add(*[f' Call: get_inventory {{"item": "{name}"}}' for name in ("Atta", "Ghee", "Poha", "Dahi", "Paneer", "Besan", "Sooji", "Jaggery")])
    answer = _say(api_client, "what is low")
    assert len(answer["tool_calls"]) == MAX_STEPS
    assert answer["reply"] == runtime.TOO_MANY


@pytest.mark.parametrize("line", ["I think the rice is over there", " Call: get inventory please", ' Call: get_inventory {"item": '])
def test_a_malformed_line_runs_nothing_and_asks_again(api_client, demo, small, line):
    books = _books(demo)
    small.add(line)
    answer = _say(api_client, "where is the rice")
    assert answer["tool_calls"] == [] and answer["reply"] == runtime.CLARIFY
    assert _books(demo) == books


def test_a_product_the_store_lacks_gets_we_dont_carry_from_code(api_client, demo, small):
    small.add(' Call: get_inventory {"item": "Basmati rice"}')
    answer = _say(api_client, "do we carry saffron")
    assert answer["tool_calls"][0]["arguments"] == {"item": "saffron"}
    assert "don't carry saffron" in answer["reply"]
    assert len(small.requests) == 1  # code answered; the model's rice never ran


def test_a_count_update_takes_the_owners_number_and_the_ledgers_expected_count(api_client, demo, small):
    before = _product(demo, "Atta").stock
    small.add(' Call: update_inventory {"item": "otta", "stock": 99, "expectedStock": 1}', " Answer: Done, Atta is now 15.")
    answer = _say(api_client, "so we actually have fifteen bags of atta, fix the count")
    update = answer["tool_calls"][0]
    assert update["tool"] == "update_inventory"
    assert update["arguments"] == {"item": "Atta", "stock": 15, "expectedStock": before}
    assert _product(demo, "Atta").stock == 15
    assert f"Atta: stock {before} -> 15" in small.requests[1].prompt


def test_an_unrequested_write_asked_by_the_model_is_refused_and_the_ledger_is_unchanged(api_client, demo, small):
    books, stock = _books(demo), _product(demo, "Atta").stock
    small.add(' Call: update_inventory {"item": "Atta", "stock": 0}')
    answer = _say(api_client, "where is the atta")
    assert answer["tool_calls"][0]["tool"] == "update_inventory" and answer["tool_calls"][0]["ok"] is False
    assert answer["reply"].startswith("I didn't change anything")
    assert _books(demo) == books and _product(demo, "Atta").stock == stock


def test_a_named_restock_is_a_draft_with_the_ledgers_quantity_never_a_confirmed_order(api_client, demo, small):
    books = _books(demo)
    dal = _product(demo, "Toor dal")
    with use_store(demo):
        suggested = reorder_suggestions(store=demo, products=[dal])[dal.pk].qty
    small.add(' Call: place_reorder {"items": [{"item": "toor dal", "qty": 5}], "confirmed": true}',
              " Answer: I've drafted Toor dal. Shall I order it?")
    answer = _say(api_client, "actually just reorder the toor dal")
    call = answer["tool_calls"][0]
    assert call["arguments"] == {"items": [{"item": "Toor dal", "qty": suggested}], "confirmed": False}
    assert answer["pending_draft"] is not None
    assert _books(demo)[1] == books[1] + 1 and _books(demo)[2] == books[2]


def test_a_client_tool_plays_the_demo_film(api_client, demo, small):
    small.add(" Call: play_demo_video {}", " Answer: Here is the Shelfwise demo.")
    answer = _say(api_client, "play the shelfwise demo video")
    assert answer["tool_calls"][0]["tool"] == "play_demo_video"
    assert [item["kind"] for item in answer["media"]] == ["video"]
    assert "### Result: playing" in small.requests[1].prompt


def test_the_previous_turn_is_in_the_prompt_for_a_follow_up(api_client, demo, small):
    small.add(' Call: get_inventory {"item": "haldi"}', " Answer: Turmeric powder is in Aisle 1.")
    first = _say(api_client, "where did we keep the haldi")
    small.add(' Call: get_inventory {"item": "Turmeric powder"}', " Answer: It costs $3.")
    second = _say(api_client, "and how much is it", conversation=first["conversation"])
    prompt = small.requests[2].prompt
    assert '### Call: get_inventory {"item": "Turmeric powder"}\n### Answer: Turmeric powder is in Aisle 1.' in prompt, prompt
    assert "### Answer: Turmeric powder is in Aisle 1.\n### Owner: and how much is it\n###" in prompt
    assert second["tool_calls"][0]["arguments"] == {"item": "Turmeric powder"}


@pytest.mark.model
def test_the_shipped_checkpoint_answers_where_the_haldi_is(api_client, demo):
    """The real small model (bundled base + shipped adapter); only the guard's LLM judge is scripted safe."""
    from inference.config import backends_reset

    backends_reset()
    guard = FakeBackend(default={"verdict": "safe", "category": "none"})
    with backend_override(Role.GUARD, guard):
        answer = _say(api_client, "um where did we keep the haldi")
    lookups = [call for call in answer["tool_calls"] if call["tool"] == "get_inventory"]
    assert lookups and lookups[0]["arguments"] == {"item": "Turmeric powder"}
    location = _product(demo, "Turmeric powder").location
    assert location.split(",")[0].lower() in answer["reply"].lower()
    assert not any(call["tool"] in ("update_inventory", "place_reorder") for call in answer["tool_calls"])


def test_an_answer_quoting_a_number_no_result_gave_is_replaced_by_codes_reply(api_client, demo, small):
    small.add(' Call: get_inventory {"item": "jaggery"}', " Answer: We have 977 blocks of Jaggery.")
    answer = _say(api_client, "how many blocks of jaggery do we have")
    stock = _product(demo, "Jaggery").stock
    assert "977" not in answer["reply"] and str(stock) in answer["reply"]


def test_a_call_repeated_in_the_same_turn_ends_the_loop_with_codes_answer_from_its_result(api_client, demo, small):
    small.add(*[' Call: get_inventory {"item": "Jaggery"}'] * 3)
    answer = _say(api_client, "where is the jaggery")
    assert len(answer["tool_calls"]) == 1 and len(small.requests) == 2
    location = _product(demo, "Jaggery").location
    assert location in answer["reply"]


def test_an_answer_that_swaps_two_products_counts_is_replaced_by_codes_reply(api_client, demo, small):
    samosas, dal = _product(demo, "Frozen samosas").stock, _product(demo, "Toor dal").stock
    assert samosas != dal
    small.add(' Call: get_inventory {"filter": "low"}', f" Answer: Samosas are at {dal}, toor dal at {samosas}.")
    answer = _say(api_client, "what's running low")
    assert answer["tool_calls"][0]["arguments"] == {"filter": "low"}
    assert f"Samosas are at {dal}" not in answer["reply"]
    assert "Frozen samosas" in answer["reply"] and "Toor dal" in answer["reply"]  # code's list of the low items


def test_an_answer_after_a_long_result_may_be_long_enough_to_restate_it(api_client, demo, small):
    # The catalog's 38 names are ~150 tokens: at one line's fixed budget the answer stopped mid-list.
    small.add(' Call: get_inventory {"filter": "all"}', " Answer: We carry them all.")
    _say(api_client, "list all the products we carry")
    ask_call, ask_answer = small.requests
    assert ask_call.max_tokens == runtime.LINE_TOKENS
    assert ask_answer.max_tokens > runtime.LINE_TOKENS + 100
    assert runtime.line_budget([{"tag": "Result", "text": "x" * 10_000}]) == runtime.MAX_LINE_TOKENS
