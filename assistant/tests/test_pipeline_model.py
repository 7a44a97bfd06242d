"""The whole pipeline with the real bundled model (router and guard roles), no fakes.

Slow on a laptop CPU (the router's static prompt is evaluated once, ~20-40 s), so it is one
test with two turns; the benchmark (``manage.py bench``) measures the rest.
"""

from __future__ import annotations

import pytest

from assistant.pipeline import run_turn
from assistant.types import TurnInput
from ledger.demo import install_demo_catalog
from ledger.models import StockEntry
from tenants.context import use_store


@pytest.mark.model
def test_the_bundled_model_routes_a_spoken_lookup_and_a_count_update(store):
    install_demo_catalog(store=store)
    first = run_turn(store=store, turn=TurnInput(text="alexa where did we put the gur", channel="system"))
    assert first.action == "find_product"
    assert first.tool_calls[0]["arguments"] == {"item": "Jaggery"}
    assert "Aisle 1" in first.reply
    with use_store(store):
        before = StockEntry.objects.filter(store=store, reason=StockEntry.Reason.COUNT).count()
    second = run_turn(
        store=store,
        turn=TurnInput(text="we actually have fifteen bags of atta", conversation=first.conversation, channel="system"),
    )
    assert second.action == "update_count"
    assert "15" in second.reply
    with use_store(store):
        assert StockEntry.objects.filter(store=store, reason=StockEntry.Reason.COUNT).count() == before + 1
