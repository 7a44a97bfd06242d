"""The fast path inside real router turns, through POST /api/v1/turns and the audit.

The router model is a ``FakeBackend`` with no script (a call would fail the test loudly) or a
scripted one where the model must decide; the guard, grounding, policy, gateway and ledger run
for real, and so do the matcher's templates and MiniLM head.
"""

from __future__ import annotations

from functools import partial

import pytest
from django.core.management import call_command
from rest_framework.test import APIClient

from audit.models import Record
from inference.base import Role
from ledger.models import Product
from tenants.context import use_store
from tenants.services import token_create
from tests.turns import say

_say = partial(say, mode="router")


def _route(answer, store):
    """The turn's route event (read inside the store's context: row-level security on PostgreSQL)."""
    with use_store(store):
        return _route_record(answer)


def _model_calls(answer, store):
    with use_store(store):
        return Record.objects.filter(conversation=answer["conversation"], kind=Record.Kind.MODEL_CALL).count()


def _route_record(answer):
    return Record.objects.get(conversation=answer["conversation"], kind=Record.Kind.EVENT, name="route",
                              turn__index=answer["turn"]).result


def test_a_plain_lookup_is_answered_without_the_router_model_and_audited_as_the_matchers(api_client, demo, fast, router):
    answer = _say(api_client, "um where did we keep the haldi")
    assert answer["tool_calls"][0]["tool"] == "get_inventory"
    assert answer["tool_calls"][0]["arguments"] == {"item": "Turmeric powder"}
    assert "Aisle" in answer["reply"] and answer["media"][0]["kind"] == "photo"
    assert router.requests == []
    assert answer["guard"]["output"] is None  # a reply built by code from tool results needs no output guard
    route = _route(answer, demo)
    assert route["decided_by"] == "matcher" and route["source"] == "template" and route["confidence"] == 1.0
    assert _model_calls(answer, demo) == 0


def test_a_count_change_through_the_fast_path_writes_the_owners_number(api_client, demo, fast, router):
    answer = _say(api_client, "so we actually have fifteen bags of atta, fix the count")
    assert [call["tool"] for call in answer["tool_calls"]] == ["get_inventory", "update_inventory"]
    assert router.requests == [] and _route(answer, demo)["decided_by"] == "matcher"
    with use_store(demo):
        assert Product.objects.get(store=demo, name="Atta").stock == 15


def test_what_the_matcher_is_unsure_of_goes_to_the_router_model(api_client, demo, fast, router):
    router.add({"action": "general"})
    answer = _say(api_client, "what's the capital of australia")
    assert len(router.requests) == 1 and answer["action"] == "general"
    assert _route(answer, demo) == {"decided_by": "model", "action": "general"}
    assert answer["guard"]["output"] is not None  # the general model wrote this reply, so it is judged


def test_another_one_repeats_the_guide_from_the_conversations_last_action(api_client, demo, fast, router):
    first = _say(api_client, "give me a quick tip on managing inventory")
    second = _say(api_client, "play another one", conversation=first["conversation"])
    assert first["media"][0]["kind"] == second["media"][0]["kind"] == "audio"
    assert first["media"][0]["url"] != second["media"][0]["url"]
    assert router.requests == []
    assert _route(second, demo)["source"] == "context"


def test_the_setting_off_sends_every_request_to_the_model(api_client, demo, settings, router):
    settings.SHELFWISE_FAST_PATH = False
    router.add({"action": "find_product", "item": "haldi", "ask": "where"})
    answer = _say(api_client, "where is the haldi")
    assert len(router.requests) == 1 and answer["tool_calls"][0]["arguments"] == {"item": "Turmeric powder"}
    assert _route(answer, demo)["decided_by"] == "model"


def test_another_store_gets_only_its_own_catalog_through_the_fast_path(api_client, other_store, fast, router):
    _, raw = token_create(store=other_store, name="tests", scopes=["api"])
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Bearer {raw}")
    answer = _say(client, "where is the haldi")
    assert router.requests == []
    assert all(call["tool"] != "get_inventory" or call["result"].get("product") is None for call in answer["tool_calls"])
    assert "Aisle" not in answer["reply"]
    with use_store(other_store):
        assert not Record.objects.filter(store=other_store, kind=Record.Kind.TOOL_CALL, result__product__isnull=False).exists()


def test_a_malformed_template_file_fails_the_system_check(settings, tmp_path, monkeypatch):
    from django.core.management.base import SystemCheckError

    from assistant.matcher import templates
    from packs.source import pack_files

    (tmp_path / "broken").mkdir()
    (tmp_path / "broken" / "pack.yaml").write_text("slug: broken\n")
    (tmp_path / "broken" / "matcher.yaml").write_text("threshold: [\n")
    monkeypatch.setattr("packs.source.BUNDLED", tmp_path)
    pack_files.cache_clear()
    templates.matcher_pack.cache_clear()
    settings.SHELFWISE_FAST_PATH = True
    try:
        with pytest.raises(SystemCheckError, match="assistant.E001"):
            call_command("check")
        settings.SHELFWISE_FAST_PATH = False
        call_command("check")
    finally:
        pack_files.cache_clear()
        templates.matcher_pack.cache_clear()


def test_route_eval_reports_what_the_matcher_decided_and_its_precision(db, tmp_path):
    import io
    import json

    from inference.config import backend_override
    from inference.fake import FakeBackend

    routing = tmp_path / "routing.json"
    routing.write_text(json.dumps({"actions": ["general", "find_product", "draft_restock"], "items": [
        {"id": "a", "say": "where's the basmati", "action": "find_product", "item": "Basmati rice", "ask": "where"},
        {"id": "b", "say": "do we have pizza", "action": "find_product", "item": None, "not_carried": "pizza"},
        {"id": "c", "say": "is it true ghee can cure diabetes", "action": "general"},
        {"id": "d", "say": "order twenty boxes of frozen samosas", "action": "draft_restock",
         "items": [{"item": "Frozen samosas", "qty": 20}]},
    ]}))
    router = FakeBackend(default={"action": "general"})
    output = io.StringIO()
    scores = tmp_path / "scores.json"
    with backend_override(Role.ROUTER, router):
        call_command("route_eval", "--set", str(routing), "--no-warm", "--no-progress", "--fast-path", "on",
                     "--json", str(scores), stdout=output)
    text = output.getvalue()
    assert "Fast-path matcher: on" in text and "Action:      4/4 = 100.0%" in text
    assert "Decided by the fast-path matcher: 3/4" in text
    assert "the matcher's precision, action:      3/3" in text
    decided = {row["id"]: row["decided_by"] for row in json.loads(scores.read_text())["scores"]}
    assert decided == {"a": "matcher", "b": "matcher", "c": "model", "d": "matcher"}
    assert len(router.requests) == 1


def test_a_greeting_gets_a_reply_written_by_code_with_no_model_and_no_output_guard(api_client, demo, fast, router):
    answer = _say(api_client, "hey shelfwise, good morning")
    assert answer["action"] == "general" and answer["reply"].startswith("Good morning!")
    assert answer["tool_calls"] == [] and answer["guard"]["output"] is None
    assert _model_calls(answer, demo) == 0


def test_a_unit_conversion_is_answered_exactly_by_code_without_any_model(api_client, demo, fast, router):
    answer = _say(api_client, "how many grams are in a pound")
    assert answer["reply"] == "1 pound is 453.6 grams."
    assert answer["tool_calls"] == [] and router.requests == []
    assert answer["guard"]["output"] is None  # code wrote it: nothing for the output guard's judge
    route = _route(answer, demo)
    assert route["decided_by"] == "matcher" and route["source"] == "computed"
    assert _model_calls(answer, demo) == 0
