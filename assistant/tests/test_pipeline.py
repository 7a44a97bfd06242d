"""The turn pipeline through POST /api/v1/turns, with the real guard layers, policy, gateway and ledger.

Only the language model is replaced, at its process boundary: a ``FakeBackend`` implements the
backend interface, answers with scripted JSON and records every prompt it was sent.
"""

from __future__ import annotations

from functools import partial

import pytest
from rest_framework.test import APIClient

from audit.models import Record, Turn
from inference.base import ErrorCode, InferenceError
from ledger.demo import install_demo_catalog
from ledger.models import Order, Product, ReorderDraft, StockEntry
from tenants.context import use_store
from tenants.services import token_create
from tests.turns import say

_say = partial(say, mode="router")


def _journal(store):
    with use_store(store):
        return StockEntry.objects.filter(store=store).count()


def _stock(store, name):
    with use_store(store):
        return Product.objects.get(store=store, name=name).stock


def test_a_lookup_grounds_the_hindi_name_and_speaks_from_the_result(api_client, demo, router):
    router.add({"action": "find_product", "item": "gur", "ask": "where"})
    answer = _say(api_client, "um where did we put the gur")
    assert answer["action"] == "find_product"
    assert answer["tool_calls"][0]["tool"] == "get_inventory"
    assert answer["tool_calls"][0]["arguments"] == {"item": "Jaggery"}
    assert "Aisle 1, oil shelf, upper right" in answer["reply"]
    assert answer["media"][0]["kind"] == "photo"
    assert answer["guard"]["input"]["verdict"] == "safe"
    prompt = router.requests[0].messages[0]["content"]
    assert "Jaggery (gur)" in prompt and "find_product" in prompt
    assert router.requests[0].json_schema["properties"]["action"]["enum"][0] == "general"


def test_the_model_copying_an_example_product_cannot_replace_one_the_owner_never_said(api_client, demo, router):
    router.add({"action": "find_product", "item": "rice", "ask": "where"})
    answer = _say(api_client, "where is the pizza")
    assert "don't carry pizza" in answer["reply"]
    assert "Aisle 2" not in answer["reply"]
    assert all(call["arguments"].get("item") != "Basmati rice" for call in answer["tool_calls"])


def test_a_count_update_sets_the_owners_number_against_the_ledgers_count(api_client, demo, router):
    before = _stock(demo, "Atta")
    router.add({"action": "update_count", "item": "atta"})
    answer = _say(api_client, "we actually have fifteen bags of atta")
    update = [call for call in answer["tool_calls"] if call["tool"] == "update_inventory"][0]
    assert update["arguments"] == {"item": "Atta", "stock": 15, "expectedStock": before}
    assert _stock(demo, "Atta") == 15
    assert "15" in answer["reply"] and str(before) in answer["reply"]


def test_a_model_asking_for_an_unrequested_count_change_changes_nothing(api_client, demo, router):
    journal = _journal(demo)
    router.add({"action": "update_count", "item": "atta"})
    answer = _say(api_client, "oh great")
    assert not any(call["tool"] == "update_inventory" for call in answer["tool_calls"])
    assert _journal(demo) == journal


def test_a_model_asking_for_an_unrequested_draft_gets_a_lookup_not_a_draft(api_client, demo, router):
    router.add({"action": "draft_restock", "item": "toor dal"})
    answer = _say(api_client, "how much is the toor dal")
    assert answer["action"] == "find_product"
    assert not any(call["tool"] == "place_reorder" and call["ok"] for call in answer["tool_calls"])
    with use_store(demo):
        assert not ReorderDraft.objects.filter(store=demo).exists()


def test_a_model_asking_to_restock_everything_unprompted_is_refused_by_policy(api_client, demo, router):
    router.add({"action": "draft_restock"})
    answer = _say(api_client, "how are things looking today")
    refused = [call for call in answer["tool_calls"] if call["tool"] == "place_reorder"]
    assert refused and refused[0]["ok"] is False
    with use_store(demo):
        assert not ReorderDraft.objects.filter(store=demo).exists()
    assert "didn't change anything" in answer["reply"]


def test_restock_then_a_fresh_yes_places_exactly_that_draft(api_client, demo, router):
    router.add({"action": "draft_restock"})
    offer = _say(api_client, "restock all the low stuff")
    assert offer["pending_draft"] is not None
    assert offer["offered_draft_id"] == offer["pending_draft"]["id"]  # this very turn offered it
    assert "$401.70" in offer["reply"]
    lines = {line["product"]: line["qty"] for line in offer["pending_draft"]["lines"]}
    assert lines == {"Toor dal": 42, "Mustard oil": 21, "Frozen samosas": 18}
    yes = _say(api_client, "yes, place the order", conversation=offer["conversation"])
    assert yes["action"] == "confirm"
    assert len(router.requests) == 1  # the yes never reached the model
    with use_store(demo):
        order = Order.objects.get(store=demo)
    assert order.draft_id == offer["pending_draft"]["id"]
    assert yes["pending_draft"] is None and yes["offered_draft_id"] is None


def test_a_yes_after_another_turn_does_not_confirm_the_draft(api_client, demo, router):
    router.add({"action": "draft_restock"}, {"action": "general"})
    offer = _say(api_client, "restock all the low stuff")
    _say(api_client, "thanks", conversation=offer["conversation"])
    late = _say(api_client, "yes", conversation=offer["conversation"])
    with use_store(demo):
        assert not Order.objects.filter(store=demo).exists()
        assert ReorderDraft.objects.get(store=demo).status == ReorderDraft.Status.PENDING
    assert late["pending_draft"] is not None
    assert late["offered_draft_id"] is None  # waiting in approvals, not on offer in this turn


def test_no_declines_the_draft_on_offer(api_client, demo, router):
    router.add({"action": "draft_restock"})
    offer = _say(api_client, "restock all the low stuff")
    no = _say(api_client, "nah, skip that for now", conversation=offer["conversation"])
    assert no["action"] == "decline"
    with use_store(demo):
        draft = ReorderDraft.objects.get(store=demo)
        assert draft.status == ReorderDraft.Status.DECLINED
    audit = api_client.get("/api/v1/audit", {"conversation": offer["conversation"]}).json()
    declined = [record for record in audit["turns"][1]["records"] if record["name"] == "draft_decline"]
    assert [record["result"]["draft"] for record in declined] == [draft.pk], "the owner's no is in the audit"


def test_another_one_plays_a_different_guide(api_client, demo, router):
    router.add({"action": "play_guide", "topic": "inventory"}, {"action": "play_guide"})
    first = _say(api_client, "give me a quick tip on managing inventory")
    second = _say(api_client, "play another one", conversation=first["conversation"])
    assert first["media"][0]["kind"] == second["media"][0]["kind"] == "audio"
    assert first["media"][0]["url"] != second["media"][0]["url"]
    assert "Last action: play_guide" in router.requests[1].messages[1]["content"]


def test_an_unavailable_model_gets_a_short_answer_and_changes_nothing(api_client, demo, router):
    journal = _journal(demo)
    router.add(InferenceError(ErrorCode.UNAVAILABLE, "server down"))
    answer = _say(api_client, "we actually have fifteen bags of atta")
    assert "not available" in answer["reply"]
    assert _journal(demo) == journal


def test_a_turn_that_fails_before_any_write_says_nothing_was_changed(api_client, demo, router, monkeypatch):
    from assistant.modes.router import mode as router_mode

    def explode(*args, **kwargs):
        raise RuntimeError("boom")

    journal = _journal(demo)
    router.add({"action": "update_count", "item": "atta"})
    monkeypatch.setattr(router_mode, "refine", explode)  # after the model decided, before any write
    answer = _say(api_client, "we actually have fifteen bags of atta")
    assert "Nothing was changed" in answer["reply"]
    assert _journal(demo) == journal and _stock(demo, "Atta") != 15


def test_a_turn_that_fails_after_a_write_says_the_change_stands(api_client, demo, router, monkeypatch):
    """Each write is its own short transaction (no transaction is open while a model thinks), so a
    failure after one keeps it: the reply names it instead of claiming nothing changed, and the
    audit keeps the call as it committed, once."""
    from assistant import replies

    def explode(request):
        raise RuntimeError("boom")

    journal = _journal(demo)
    router.add({"action": "update_count", "item": "atta"})
    monkeypatch.setattr(replies, "count_updated", explode)
    answer = _say(api_client, "we actually have fifteen bags of atta")
    assert "Nothing was changed" not in answer["reply"]
    assert "(set a stock count)" in answer["reply"] and "stands" in answer["reply"]
    assert _stock(demo, "Atta") == 15 and _journal(demo) == journal + 1
    assert [call["tool"] for call in answer["tool_calls"]][-1] == "update_inventory"
    audit = api_client.get("/api/v1/audit", {"conversation": answer["conversation"]}).json()
    turn = audit["turns"][0]
    assert turn["outcome"] == "error"
    names = [record["name"] for record in turn["records"]]
    assert "router" in names and names.count("update_inventory") == 1, names
    assert names[-1] == "error"
    write = next(record for record in turn["records"] if record["name"] == "update_inventory")
    assert write["sql"] and not write["data"].get("rolled_back")


def test_a_report_asked_for_in_a_turn_is_emailed_once_the_turn_commits(
    api_client, demo, owner, router, mailoutbox, django_capture_on_commit_callbacks
):
    router.add({"action": "email_report", "kind": "inventory"})
    with django_capture_on_commit_callbacks(execute=True):
        answer = _say(api_client, "email me the inventory report")
    assert answer["reply"] == "The inventory report is on its way to alice@example.com."
    assert [message.to for message in mailoutbox] == [["alice@example.com"]]


def test_a_turn_that_fails_after_a_report_went_says_it_went_and_sends_it_once(
    api_client, demo, owner, router, mailoutbox, monkeypatch, django_capture_on_commit_callbacks
):
    from assistant import replies

    def explode(result):
        raise RuntimeError("boom")

    router.add({"action": "email_report", "kind": "inventory"})
    monkeypatch.setattr(replies, "report_sent", explode)
    with django_capture_on_commit_callbacks(execute=True):
        answer = _say(api_client, "email me the inventory report")
    assert "Nothing was changed" not in answer["reply"]
    assert "email the inventory report" in answer["reply"]
    assert [message.to for message in mailoutbox] == [["alice@example.com"]], "sent once, when its call committed"


def test_every_model_call_and_tool_call_is_audited_in_order(api_client, demo, router):
    router.add({"action": "find_product", "item": "haldi", "ask": "price"})
    answer = _say(api_client, "how much is the haldi")
    audit = api_client.get("/api/v1/audit", {"conversation": answer["conversation"]}).json()
    records = audit["turns"][0]["records"]
    kinds = [record["kind"] for record in records]
    assert kinds.index("guard") < kinds.index("model_call") < kinds.index("tool_call")
    model_call = next(record for record in records if record["kind"] == "model_call")
    assert model_call["name"] == "router"
    assert "turmeric powder" in model_call["arguments"]["messages"][1]["content"]  # haldi, normalised
    tool_call = next(record for record in records if record["kind"] == "tool_call")
    assert tool_call["sql"], "the tool call's SQL statements are recorded"


def test_another_store_cannot_read_a_conversations_audit(api_client, demo, router, other_store):
    router.add({"action": "find_product", "item": "haldi", "ask": "where"})
    answer = _say(api_client, "where is the haldi")
    _, raw = token_create(store=other_store, name="other", scopes=["api"])
    other = APIClient()
    other.credentials(HTTP_AUTHORIZATION=f"Bearer {raw}")
    foreign = other.get("/api/v1/audit", {"conversation": answer["conversation"]})
    missing = other.get("/api/v1/audit", {"conversation": "no-such-conversation"})
    assert foreign.status_code == missing.status_code == 404
    assert foreign.json() == missing.json()


def test_another_stores_conversation_id_starts_a_new_conversation(api_client, demo, router, other_store):
    router.add({"action": "draft_restock"})
    offer = _say(api_client, "restock all the low stuff")
    install_demo_catalog(store=other_store)
    _, raw = token_create(store=other_store, name="other", scopes=["api"])
    other = APIClient()
    other.credentials(HTTP_AUTHORIZATION=f"Bearer {raw}")
    response = other.post("/api/v1/turns", {"text": "yes", "conversation": offer["conversation"]}, format="json")
    assert response.status_code == 200
    assert response.json()["turn"] == 1
    with use_store(demo):
        assert not Order.objects.filter(store=demo).exists()


@pytest.mark.parametrize(
    "body",
    [{"text": ""}, {"text": "x" * 600}, {"text": "hi", "mode": "psychic"}, {"text": "hi", "conversation": "a b"}],
    ids=["empty", "long", "mode", "conversation"],
)
def test_bad_turn_input_gets_a_400_naming_the_field(api_client, body):
    response = api_client.post("/api/v1/turns", body, format="json")
    assert response.status_code == 400
    assert response.json()["error"]["code"] == "invalid"


def test_malformed_json_gets_a_400(api_client):
    response = api_client.post("/api/v1/turns", "{not json", content_type="application/json")
    assert response.status_code == 400
    assert "error" in response.json()


def test_turns_need_credentials(db):
    assert APIClient().post("/api/v1/turns", {"text": "hi"}, format="json").status_code == 401


def test_the_turn_is_recorded_with_mode_latency_and_stage_timings(api_client, demo, router):
    router.add({"action": "todays_sales"})
    answer = _say(api_client, "how did we do today")
    with use_store(demo):
        turn = Turn.objects.get(store=demo, conversation=answer["conversation"])
        model_calls = Record.objects.filter(turn=turn, kind="model_call").count()
    assert turn.mode == "router" and turn.outcome == "answered"
    assert set(turn.stages) >= {"normalize", "input_guard", "mode"}
    assert "receipts" in answer["reply"]
    assert model_calls == 1


def _offer_then_yes(client):
    offer = _say(client, "restock all the low stuff")
    assert offer["pending_draft"] is not None
    return offer, _say(client, "yes, place the order", conversation=offer["conversation"])


def _refusals(store):
    with use_store(store):
        return list(Record.objects.filter(store=store, name="confirm_refused", outcome="denied").values_list("actor", flat=True))


def test_a_staff_token_saying_yes_is_refused_in_a_sentence_and_audited(staff_api_client, demo, router):
    router.add({"action": "draft_restock"})
    offer, yes = _offer_then_yes(staff_api_client)
    assert yes["action"] == "confirm" and "Only the store's owner can place orders" in yes["reply"]
    assert yes["pending_draft"]["id"] == offer["pending_draft"]["id"]
    with use_store(demo):
        assert not Order.objects.filter(store=demo).exists()
        assert ReorderDraft.objects.get(pk=offer["pending_draft"]["id"]).status == "pending"
    assert len(_refusals(demo)) == 1 and _refusals(demo)[0].startswith("token:")


def test_a_staff_session_saying_yes_is_refused_and_the_owners_session_places_the_order(demo, router, staff, owner):
    router.add({"action": "draft_restock"})
    router.add({"action": "draft_restock"})
    staff_client, owner_client = APIClient(), APIClient()
    staff_client.force_login(staff)
    owner_client.force_login(owner)
    _offer, yes = _offer_then_yes(staff_client)
    assert "Only the store's owner" in yes["reply"]
    with use_store(demo):
        assert not Order.objects.filter(store=demo).exists()
    assert _refusals(demo) == [f"user:{staff.pk}"]
    _offer, yes = _offer_then_yes(owner_client)
    assert yes["action"] == "confirm" and "placed" in yes["reply"]
    with use_store(demo):
        assert Order.objects.filter(store=demo).count() == 1


def test_an_owner_demoted_to_staff_cannot_say_yes_through_the_client_they_linked_as_owner(demo, router, owner):
    """An OAuth link (Alexa, a REST client) acts for its user: its yes counts only while that user owns the store."""
    from django.test import Client

    from identity.tests.oauth_flow import tokens_for
    from tenants.members import member_role_set
    from tenants.models import Membership
    from tests.factories import MembershipFactory, UserFactory, verified

    MembershipFactory(user=verified(UserFactory(username="co-owner", email="co@example.com")), store=demo, role="owner")
    browser = Client()
    browser.force_login(owner)
    linked = APIClient()
    linked.credentials(HTTP_AUTHORIZATION=f"Bearer {tokens_for(browser, demo.pk, ['api', 'orders:confirm'], resource=None)['access_token']}")
    router.add({"action": "draft_restock"}, {"action": "draft_restock"})
    _offer, yes = _offer_then_yes(linked)
    assert yes["action"] == "confirm" and "placed" in yes["reply"]  # as the owner, the link's yes places the order

    member_role_set(store=demo, membership_id=Membership.objects.get(store=demo, user=owner).pk, role="staff",
                    actor="user:0")
    _offer, yes = _offer_then_yes(linked)
    assert "Only the store's owner can place orders" in yes["reply"]
    with use_store(demo):
        assert Order.objects.filter(store=demo).count() == 1
    assert len(_refusals(demo)) == 1 and _refusals(demo)[0].startswith("token:")


def test_a_product_added_on_the_page_can_be_asked_about_in_the_next_turn(api_client, demo, router, owner):
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
    assert "Aisle 1, spice rack, row 6" in answer["reply"]
    assert "Kala namak" in router.requests[0].messages[0]["content"] + router.requests[0].messages[-1]["content"]
    with use_store(demo):
        salt = Product.objects.get(store=demo, name="Kala namak")
    assert page.post(f"/app/inventory/{salt.pk}/archive").status_code == 302
    router.add({"action": "find_product", "item": "black salt", "ask": "where"})
    gone = _say(api_client, "where is the black salt")
    assert "Aisle 1, spice rack, row 6" not in gone["reply"]


def test_the_catalog_is_reused_between_turns_and_rebuilt_after_any_catalog_change(demo):
    from assistant.catalogs import catalog_for
    from assistant.lexicon import lexicon_for
    from ledger import services

    lexicon = lexicon_for("grocery")
    first = catalog_for(store=demo, lexicon=lexicon)
    with use_store(demo):
        dal = Product.objects.get(store=demo, name="Toor dal")
        services.stock_set(store=demo, product=dal, count=9, expected=dal.stock, actor="system:test")
    assert catalog_for(store=demo, lexicon=lexicon) is first  # a count is not a catalog change
    with use_store(demo):
        services.product_update(store=demo, product=dal, version=dal.version, actor="system:test", aliases=["arhar"])
    renamed = catalog_for(store=demo, lexicon=lexicon)
    assert renamed is not first and renamed.entry_named("arhar").name == "Toor dal"


def test_a_question_about_an_order_drafts_nothing_even_when_the_model_says_restock(api_client, demo, router):
    """The spoken set's "where's the otta", heard as "where is the order": a question, not a request."""
    router.add({"action": "draft_restock"})
    answer = _say(api_client, "where is the order")
    assert not any(call["tool"] == "place_reorder" and call["ok"] for call in answer["tool_calls"])
    with use_store(demo):
        assert not ReorderDraft.objects.filter(store=demo).exists()
    assert "didn't change anything" in answer["reply"]
