"""Rows for the owner-page tests, written through ledger services as the store (row-level security)."""

from __future__ import annotations

from decimal import Decimal

from audit.models import Record, Turn
from audit.turns import turn_finish, turn_start
from ledger import services
from ledger.models import Product, ReorderDraft
from tenants.context import use_store


def make_product(store, name: str, *, stock: int = 20, par: int = 30, reorder: int = 8, **extra) -> Product:
    values = {
        "unit": "1 kg bag",
        "category": "Staples",
        "location": "Aisle 2, top shelf",
        "price": Decimal("4.00"),
        "unit_cost": Decimal("2.50"),
        "actor": "system:test",
    }
    values.update(extra)
    with use_store(store):
        return services.product_create(
            store=store, name=name, stock=stock, par_level=par, reorder_point=reorder, **values
        )


def make_draft(store, items, *, source: str = ReorderDraft.Source.ASSISTANT) -> ReorderDraft:
    with use_store(store):
        return services.draft_create(store=store, items=items, actor="assistant:router", source=source)


def make_turn(store, text: str, reply: str, *, tool: str = "get_inventory", conversation: str = "conv-1") -> Turn:
    with use_store(store):  # the audit is fenced too: write it as its own store, whatever the test's store
        return _make_turn(store, text, reply, tool=tool, conversation=conversation)


def _make_turn(store, text: str, reply: str, *, tool: str, conversation: str) -> Turn:
    turn = turn_start(store=store, conversation=conversation, index=1, mode="router", channel="assistant",
                      actor="user:1", text=text)
    Record.objects.create(
        store=store, turn=turn, conversation=conversation, kind=Record.Kind.TOOL_CALL, channel="assistant",
        mode="router", actor="user:1", name=tool, arguments={"product": "Toor dal"}, result={"stock": 4},
        outcome=Record.Outcome.OK, duration_ms=3.0,
    )
    return turn_finish(turn=turn, normalized=text.lower(), action="check_stock", reply=reply, outcome="answered",
                       latency_ms=42.0, stages={}, result={})
