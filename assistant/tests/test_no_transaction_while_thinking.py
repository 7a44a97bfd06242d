"""No database transaction is open while a model thinks (issue 14): the turn reads, asks the model
outside any transaction, then writes in short transactions of its own.

These tests use real transactions (``transaction=True``: no test-wide transaction wraps them), so
``connection.in_atomic_block`` says what production would hold. The language models are replaced
at their process boundary by ``FakeBackend``s whose ``complete`` also notes whether a transaction
was open at that moment; the guard's local layers (the MiniLM classifier) are real and checked the
same way. Each test makes the turn write, so a model call after the write is covered too.
"""

from __future__ import annotations

import json

import pytest
from django.db import connection

from assistant.guard import Guard
from inference.base import Role
from inference.fake import FakeBackend, fake_models
from ledger.models import Product
from tenants.context import use_store
from tests.turns import say

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture
def open_transactions(monkeypatch):
    """(who, whether a transaction was open) for every model call and guard check of the test."""
    seen: list[tuple[str, bool]] = []
    complete, check_input, check_output = FakeBackend.complete, Guard.check_input, Guard.check_output

    def noting(name, original):
        def wrapper(self, *args, **kwargs):
            seen.append((name, connection.in_atomic_block))
            return original(self, *args, **kwargs)
        return wrapper

    monkeypatch.setattr(FakeBackend, "complete", noting("model", complete))
    monkeypatch.setattr(Guard, "check_input", noting("input guard", check_input))
    monkeypatch.setattr(Guard, "check_output", noting("output guard", check_output))
    return seen


def _stock(store, name):
    with use_store(store):
        return Product.objects.get(store=store, name=name).stock


def _models_ran_outside_transactions(seen, *, model_calls):
    assert sum(1 for who, _ in seen if who == "model") >= model_calls, seen
    assert any(who == "input guard" for who, _ in seen)
    assert [who for who, open_ in seen if open_] == [], seen


def test_a_router_turn_decides_outside_any_transaction_then_writes(api_client, demo, open_transactions):
    with fake_models(Role.ROUTER) as router:
        router.add({"action": "update_count", "item": "atta"})
        answer = say(api_client, "we actually have fifteen bags of atta", mode="router")
    assert _stock(demo, "Atta") == 15, answer
    _models_ran_outside_transactions(open_transactions, model_calls=1)


def test_a_native_turn_asks_the_model_again_after_its_write_outside_any_transaction(
    api_client, demo, open_transactions, monkeypatch
):
    monkeypatch.setenv("SHELFWISE_NATIVE_VARIANT", "hardened")
    monkeypatch.setenv("SHELFWISE_NATIVE_TOOLS_K", "10")
    monkeypatch.setenv("SHELFWISE_NATIVE_CODE_REPLIES", "0")  # the model writes the reply after the write
    with fake_models(Role.NATIVE) as model:
        model.add({"name": "update_inventory", "arguments": {"item": "otta", "stock": 15}},
                  {"reply": "Done: Atta is now 15."})
        answer = say(api_client, "so we actually have fifteen bags of atta, fix the count", mode="native")
    assert _stock(demo, "Atta") == 15, answer
    _models_ran_outside_transactions(open_transactions, model_calls=2)
    assert any(who == "output guard" for who, _ in open_transactions)


def test_a_small_turn_reads_its_result_outside_any_transaction(api_client, demo, open_transactions):
    with fake_models(Role.SMALL) as small:
        small.add(' Call: update_inventory {"item": "otta", "stock": 15}', " Answer: Done, Atta is now 15.")
        answer = say(api_client, "so we actually have fifteen bags of atta, fix the count", mode="small")
    assert _stock(demo, "Atta") == 15, json.dumps(answer)
    _models_ran_outside_transactions(open_transactions, model_calls=2)
