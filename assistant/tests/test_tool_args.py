"""The arguments layer (``assistant/tool_args.py``): one set of rules for what code owns, in every mode.

Through ``POST /api/v1/turns``; the language models are ``FakeBackend``s at their process boundary
(the native model's scripted calls are deliberately wrong: another quantity, a product nobody
named, a stale expected count). Grounding, the layer, the owner-words policy, the gateway, the
ledger and the audit are real; each test asserts the books.
"""

from __future__ import annotations

import json
from functools import partial

import pytest

from audit.models import Record
from inference.base import Role
from inference.fake import fake_models
from ledger.models import Product, ReorderDraft
from ledger.stock_velocity import reorder_suggestions
from tenants.context import use_store
from tests.turns import say

pytestmark = pytest.mark.django_db


@pytest.fixture
def model():
    with fake_models(Role.NATIVE) as fake:
        yield fake


@pytest.fixture(params=["plain", "hardened"])
def variant(request, monkeypatch):
    monkeypatch.setenv("SHELFWISE_NATIVE_VARIANT", request.param)
    monkeypatch.setenv("SHELFWISE_NATIVE_TOOLS_K", "10")
    return request.param


def _call(variant, name, **arguments):
    if variant == "hardened":  # its schema leaves out what code owns: quantities and the expected count
        arguments.pop("expectedStock", None)
        if "items" in arguments:
            arguments["items"] = [{"item": line["item"]} for line in arguments["items"]]
    call = {"name": name, "arguments": arguments}
    return f"<tool_call>\n{json.dumps(call)}\n</tool_call>" if variant == "plain" else call


def _reply(variant, text):
    return text if variant == "plain" else {"reply": text}


_say = partial(say, mode="native")


def _stock(store, name):
    with use_store(store):
        return Product.objects.get(store=store, name=name).stock


def _draft_lines(store):
    with use_store(store):
        draft = ReorderDraft.objects.filter(store=store).order_by("-id").first()
        return None if draft is None else sorted((line.product.name, line.qty) for line in draft.lines.all())


def test_a_quantity_the_owner_said_is_the_quantity_whatever_the_model_wrote(api_client, demo, model, variant):
    model.add(_call(variant, "place_reorder", items=[{"item": "mustard oil", "qty": 42}], confirmed=False),
              _reply(variant, "Drafted."))
    answer = _say(api_client, "order 12 bottles of mustard oil")
    assert _draft_lines(demo) == [("Mustard oil", 12)]
    call = next(c for c in answer["tool_calls"] if c["tool"] == "place_reorder")
    assert call["arguments"]["items"] == [{"item": "Mustard oil", "qty": 12}] and call["arguments"]["confirmed"] is False


def test_without_a_number_the_quantity_is_the_ledgers_suggestion(api_client, demo, model, variant):
    model.add(_call(variant, "place_reorder", items=[{"item": "Mustard oil", "qty": 500}], confirmed=False),
              _reply(variant, "Drafted."))
    _say(api_client, "we need more mustard oil")
    with use_store(demo):
        oil = Product.objects.get(store=demo, name="Mustard oil")
        suggested = reorder_suggestions(store=demo, products=[oil])[oil.pk].qty
    assert _draft_lines(demo) == [("Mustard oil", suggested)]


def test_a_count_for_a_product_nobody_named_is_refused_and_nothing_changes(api_client, demo, model, variant):
    before = _stock(demo, "Atta")
    model.add(_call(variant, "update_inventory", item="Atta", stock=12), _reply(variant, "Done."))
    _say(api_client, "we counted 12")
    assert _stock(demo, "Atta") == before
    with use_store(demo):
        records = list(Record.objects.filter(store=demo, name="update_inventory"))
    # plain: the layer refuses the call (audited); hardened: its own check sends the model back first
    assert [r.outcome for r in records] == ([Record.Outcome.REFUSED] if variant == "plain" else [])
    assert all("not a product the owner named" in r.result["message"] for r in records)


def test_a_stale_expected_count_from_the_model_is_replaced_by_the_ledgers(api_client, demo, model, variant):
    model.add(_call(variant, "update_inventory", item="atta", stock=15, expectedStock=999), _reply(variant, "Done."))
    _say(api_client, "we actually have fifteen bags of atta")
    assert _stock(demo, "Atta") == 15


def test_an_order_line_for_a_product_the_owner_did_not_name_is_refused(api_client, demo, model, variant):
    model.add(_call(variant, "place_reorder", items=[{"item": "Ghee", "qty": 5}], confirmed=False),
              _reply(variant, "Drafted."))
    _say(api_client, "order five bags of atta")
    lines = _draft_lines(demo)
    assert lines is None or lines == [("Atta", 5)]  # the hint "Ghee" names nothing the owner said


def test_the_router_goes_through_the_same_layer(api_client, demo):
    with fake_models(Role.ROUTER) as router:
        router.add({"action": "draft_restock", "item": "mustard oil"})
        answer = _say(api_client, "order 12 bottles of mustard oil", mode="router")
    assert _draft_lines(demo) == [("Mustard oil", 12)]
    assert answer["tool_calls"][-1]["arguments"] == {"items": [{"item": "Mustard oil", "qty": 12}], "confirmed": False}
