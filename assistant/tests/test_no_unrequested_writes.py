"""No turn of any suite writes to the books unless the owner's own words asked for it.

The models are replaced, at their process boundary, by hostile FakeBackends: the router answers
``update_count`` or ``draft_restock`` for EVERY request, with no item on one turn and naming
Toor dal on the next, whatever was said; the guard's LLM judge calls everything safe. The rest
of the pipeline runs for real: normalisation, the guard's local layers, grounding, the
owner-words policy, the gateway and the ledger. After each turn the stock journal, the drafts
and the orders are read:

- a stock journal entry is allowed only in a turn whose words ask for a count change with a
  number, and then only to that number for that product (the owner session's count_update turn:
  Atta to 15);
- a new draft only in a turn that asks to order or restock (the owner session's restock turns);
- a new order only in the turn that says yes to the draft just offered (its approval turn).

Whether the words asked is taken from the suites' own labels, written by people, not from the
policy under test: the owner session's categories, and the routing set's gold actions.

Replayed: every turn of the owner session, in order in one conversation, once with the router
always answering update_count and once always draft_restock; and a fixed sample of the routing
set's utterances whose gold action is neither update_count nor draft_restock: every fifth of
them in file order (59 of 292, every action represented, mishearings, fillers and chat
included), each in a conversation of its own, the hostile answer cycling through the four
(action, item) pairs. (The guard's local layers take about half a second a turn on a busy
2-core machine, which is what bounds the sample.)
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from dataclasses import dataclass

import pytest

from inference.base import Role
from inference.config import backend_override
from inference.fake import FakeBackend
from lab.bench.routing import routing_set_load
from lab.bench.suite import suite_load
from ledger.models import Order, ReorderDraft, StockEntry
from packs.source import GROCERY_EVALUATION
from tenants.context import use_store

WRITES = ("update_count", "draft_restock")
ITEMS = (None, "Toor dal")  # no product words, or a product the owner may never have said
SAMPLE_EVERY = 5


@dataclass(frozen=True)
class Writes:
    counts: list[tuple[str, int]]  # (product, new count) of the journal entries the turn made
    drafts: int
    orders: int


def _marks(store) -> tuple[int, int, int]:
    with use_store(store):
        return (
            StockEntry.objects.filter(store=store).order_by("-id").values_list("id", flat=True).first() or 0,
            ReorderDraft.objects.filter(store=store).order_by("-id").values_list("id", flat=True).first() or 0,
            Order.objects.filter(store=store).order_by("-id").values_list("id", flat=True).first() or 0,
        )


def _writes_since(store, marks: tuple[int, int, int]) -> Writes:
    journal, drafts, orders = marks
    with use_store(store):
        return Writes(
            counts=list(StockEntry.objects.filter(store=store, id__gt=journal).values_list("product__name", "after")),
            drafts=ReorderDraft.objects.filter(store=store, id__gt=drafts).count(),
            orders=Order.objects.filter(store=store, id__gt=orders).count(),
        )


@pytest.fixture
def hostile_models() -> Iterator[Callable[[str, str | None], None]]:
    """Install a router that asks for a write on every request; returns a setter for which write."""
    answer: dict = {}
    router = FakeBackend(default=lambda request: dict(answer))
    guard = FakeBackend(default={"verdict": "safe", "category": "none"})
    general = FakeBackend(default="Sure.")

    def ask_for(action: str, item: str | None) -> None:
        answer.clear()
        answer.update({"action": action, **({"item": item} if item else {})})

    with backend_override(Role.ROUTER, router), backend_override(Role.GUARD, guard), \
            backend_override(Role.GENERAL, general):
        yield ask_for


@pytest.fixture
def demo(db):
    from lab.bench.stores import bench_store_create

    return bench_store_create(label="no-writes")


def _turn(store, text: str, conversation: str | None):
    from assistant.pipeline import run_turn
    from assistant.types import Mode, TurnInput

    return run_turn(store=store, turn=TurnInput(text=text, mode=Mode.ROUTER, conversation=conversation,
                                                channel="system", actor="system:test"))


@pytest.mark.django_db
@pytest.mark.parametrize("action", WRITES)
def test_the_owner_session_writes_only_what_the_owner_asked_for(demo, hostile_models, action):
    suite = suite_load(GROCERY_EVALUATION / "suites" / "owner_session.json")
    conversation, problems, asked_and_done = None, [], set()
    for turn in suite.turns:
        hostile_models(action, ITEMS[turn.index % 2])
        marks = _marks(demo)
        result = _turn(demo, turn.say, conversation)
        conversation = result.conversation
        writes = _writes_since(demo, marks)
        if (writes.counts or writes.drafts) and turn.category in ("count_update", "restock"):
            asked_and_done.add(turn.category)
        allowed_counts = turn.expect.get("stock_after", {}) if turn.category == "count_update" else {}
        for product, count in writes.counts:
            if allowed_counts.get(product) != count:
                problems.append(f"turn {turn.index} {turn.say!r}: count of {product} set to {count}")
        if writes.drafts and turn.category != "restock":
            problems.append(f"turn {turn.index} {turn.say!r}: {writes.drafts} draft(s) made")
        if writes.orders and turn.category != "approval":
            problems.append(f"turn {turn.index} {turn.say!r}: {writes.orders} order(s) placed")
    assert problems == []
    # The hostile answers do reach the books where the owner asked, so the check above is not vacuous.
    assert asked_and_done == {"count_update" if action == "update_count" else "restock"}


def _routing_sample() -> list:
    items = [item for item in routing_set_load(GROCERY_EVALUATION / "routing_set.json") if item.action not in WRITES]
    return items[::SAMPLE_EVERY]


def test_the_routing_sample_covers_every_action_that_is_not_a_write():
    sample = _routing_sample()
    assert len(sample) == 59
    actions = set(json.loads((GROCERY_EVALUATION / "routing_set.json").read_text())["actions"]) - set(WRITES)
    assert {item.action for item in sample} == actions


@pytest.mark.django_db
def test_routing_utterances_that_ask_for_no_write_write_nothing(demo, hostile_models):
    problems = []
    for position, utterance in enumerate(_routing_sample()):
        hostile_models(WRITES[position % 2], ITEMS[position // 2 % 2])
        marks = _marks(demo)
        _turn(demo, utterance.say, None)
        writes = _writes_since(demo, marks)
        if writes.counts or writes.drafts or writes.orders:
            problems.append(f"{utterance.id} {utterance.say!r} ({utterance.action}): {writes}")
    assert problems == []
