"""Reorder drafts: pending -> confirmed | declined | expired | replaced; only the exact pending draft orders."""

from __future__ import annotations

import datetime as dt
from decimal import Decimal

import pytest
from django.utils import timezone

from ledger import selectors, services
from ledger.errors import (
    InvalidInput,
    InvalidQuantity,
    InvalidTransition,
    NotFound,
    NothingToOrder,
)
from ledger.models import Order, ReorderDraft
from ledger.tests.conftest import ACTOR, create_product
from tenants.context import use_store

SOURCE = ReorderDraft.Source.ASSISTANT


@pytest.fixture
def low_dal(make_product):
    return make_product("Toor dal", stock=4, par_level=46, reorder_point=8, unit_cost=Decimal("5.00"))


def _orders(store):
    with use_store(store):
        return Order.objects.filter(store=store).count()


def test_drafting_all_low_items_tops_them_up_to_par_with_costs(store, make_product, low_dal):
    make_product("Atta", stock=30, par_level=40, reorder_point=8, unit_cost=Decimal("13.00"))
    make_product("Mustard oil", stock=3, par_level=24, reorder_point=6, unit_cost=Decimal("4.50"))
    draft = services.draft_create(store=store, items=None, actor="assistant:router", source=SOURCE, conversation="c1")
    lines = [(line.product.name, line.qty, line.unit_cost, line.est_cost) for line in draft.lines.all()]
    assert lines == [
        ("Mustard oil", 21, Decimal("4.50"), Decimal("94.50")),
        ("Toor dal", 42, Decimal("5.00"), Decimal("210.00")),
    ]
    assert draft.est_total == Decimal("304.50")
    assert (draft.status, draft.supplier, draft.conversation) == ("pending", "Amazon Business", "c1")
    assert draft.expires_at - draft.created_at == dt.timedelta(minutes=60)


def test_drafts_live_as_long_as_the_setting_says(store, low_dal, settings):
    settings.DRAFT_TTL_MINUTES = 5
    draft = services.draft_create(store=store, items=None, actor=ACTOR, source=SOURCE)
    assert draft.expires_at - draft.created_at == dt.timedelta(minutes=5)


def test_nothing_low_means_nothing_to_order(store, make_product):
    make_product("Atta", stock=30, par_level=40, reorder_point=8)
    with pytest.raises(NothingToOrder):
        services.draft_create(store=store, items=None, actor=ACTOR, source=SOURCE)
    assert selectors.draft_list(store=store) == []


@pytest.mark.parametrize("qty", [0, -1, 10_001, 2.5])
def test_draft_quantities_must_be_between_one_and_ten_thousand(store, low_dal, qty):
    with pytest.raises(InvalidQuantity):
        services.draft_create(store=store, items=[(low_dal, qty)], actor=ACTOR, source=SOURCE)


def test_an_empty_item_list_or_an_unknown_source_is_refused(store, low_dal):
    with pytest.raises(InvalidInput):
        services.draft_create(store=store, items=[], actor=ACTOR, source=SOURCE)
    with pytest.raises(InvalidInput):
        services.draft_create(store=store, items=[(low_dal, 2)], actor=ACTOR, source="email")


def test_confirming_the_pending_draft_places_one_order_with_its_lines(store, low_dal):
    draft = services.draft_create(store=store, items=[(low_dal, 12)], actor="assistant:router", source=SOURCE)
    order = services.draft_confirm(store=store, draft_id=draft.pk, actor="user:3")
    assert (order.supplier, order.total, order.placed_by, order.draft_id) == (
        "Amazon Business",
        Decimal("60.00"),
        "user:3",
        draft.pk,
    )
    assert [(line.product.name, line.qty, line.cost) for line in order.lines.all()] == [("Toor dal", 12, Decimal("60.00"))]
    draft = selectors.draft_get(store=store, draft_id=draft.pk)
    assert (draft.status, draft.decided_by) == ("confirmed", "user:3")
    assert draft.decided_at is not None
    assert _orders(store) == 1


def test_confirming_twice_orders_once(store, low_dal):
    draft = services.draft_create(store=store, items=None, actor=ACTOR, source=SOURCE)
    services.draft_confirm(store=store, draft_id=draft.pk, actor="user:3")
    with pytest.raises(InvalidTransition) as caught:
        services.draft_confirm(store=store, draft_id=draft.pk, actor="user:3")
    assert caught.value.status == "confirmed"
    assert _orders(store) == 1


def test_a_declined_draft_cannot_be_confirmed(store, low_dal):
    draft = services.draft_create(store=store, items=None, actor=ACTOR, source=SOURCE)
    declined = services.draft_decline(store=store, draft_id=draft.pk, actor="user:3")
    assert (declined.status, declined.decided_by) == ("declined", "user:3")
    with pytest.raises(InvalidTransition) as caught:
        services.draft_confirm(store=store, draft_id=draft.pk, actor="user:3")
    assert caught.value.code == "invalid_transition"
    assert "declined" in caught.value.message
    assert _orders(store) == 0


def test_a_new_draft_replaces_the_pending_one_which_can_no_longer_be_confirmed(store, low_dal):
    first = services.draft_create(store=store, items=None, actor=ACTOR, source=SOURCE)
    second = services.draft_create(store=store, items=[(low_dal, 10)], actor=ACTOR, source=SOURCE)
    first = selectors.draft_get(store=store, draft_id=first.pk)
    assert (first.status, first.replaced_by_id) == ("replaced", second.pk)
    with pytest.raises(InvalidTransition) as caught:
        services.draft_confirm(store=store, draft_id=first.pk, actor="user:3")
    assert caught.value.status == "replaced"
    assert _orders(store) == 0
    assert services.draft_confirm(store=store, draft_id=second.pk, actor="user:3").total == Decimal("50.00")
    assert selectors.draft_pending(store=store) is None


def test_an_expired_draft_cannot_be_confirmed_and_is_marked_expired(store, low_dal):
    created = timezone.now() - dt.timedelta(minutes=61)
    draft = services.draft_create(store=store, items=None, actor=ACTOR, source=SOURCE, now=created)
    assert selectors.draft_pending(store=store) is None
    assert [d.pk for d in selectors.draft_list(store=store, status="expired")] == [draft.pk]
    with pytest.raises(InvalidTransition) as caught:
        services.draft_confirm(store=store, draft_id=draft.pk, actor="user:3")
    assert caught.value.status == "expired"
    assert selectors.draft_get(store=store, draft_id=draft.pk).status == "expired"
    with pytest.raises(InvalidTransition):
        services.draft_decline(store=store, draft_id=draft.pk, actor="user:3")
    assert _orders(store) == 0


def test_expiring_drafts_marks_only_pending_drafts_past_their_time_in_every_store(store, other_store, low_dal):
    theirs = create_product(other_store, "Ghee", stock=1, par_level=10, reorder_point=2)
    old = timezone.now() - dt.timedelta(hours=3)
    services.draft_create(store=store, items=None, actor=ACTOR, source=SOURCE, now=old)
    services.draft_create(store=other_store, items=[(theirs, 3)], actor=ACTOR, source=SOURCE, now=old)
    fresh = services.draft_create(store=other_store, items=[(theirs, 4)], actor=ACTOR, source=SOURCE)
    # The other store's old draft was already closed (as expired) when the fresh one was drafted.
    assert services.drafts_expire() == 1
    assert [d.status for d in selectors.draft_list(store=store)] == ["expired"]
    assert selectors.draft_pending(store=other_store).pk == fresh.pk


def test_another_stores_draft_is_not_found_like_a_missing_one(store, other_store, low_dal):
    theirs = create_product(other_store, "Ghee", stock=1, par_level=10, reorder_point=2)
    their_draft = services.draft_create(store=other_store, items=[(theirs, 3)], actor=ACTOR, source=SOURCE)
    for call in (services.draft_confirm, services.draft_decline):
        with pytest.raises(NotFound) as foreign:
            call(store=store, draft_id=their_draft.pk, actor="user:3")
        with pytest.raises(NotFound) as missing:
            call(store=store, draft_id=987_654, actor="user:3")
        assert foreign.value.message == missing.value.message
    with pytest.raises(NotFound):
        selectors.draft_get(store=store, draft_id=their_draft.pk)
    assert selectors.draft_get(store=other_store, draft_id=their_draft.pk).status == "pending"
    assert _orders(other_store) == 0


def test_another_stores_product_cannot_be_drafted(store, other_store):
    theirs = create_product(other_store, "Ghee", stock=1, par_level=10, reorder_point=2)
    with pytest.raises(NotFound):
        services.draft_create(store=store, items=[(theirs, 3)], actor=ACTOR, source=SOURCE)
