"""Draft expiry: the minute task closes drafts past their time, store by store, and only those."""

from __future__ import annotations

import datetime as dt

import pytest
from django.utils import timezone

from ledger import selectors, services
from ledger.models import ReorderDraft
from ledger.tests.conftest import ACTOR, create_product
from worker.tasks import drafts_expire_task

pytestmark = pytest.mark.django_db
SOURCE = ReorderDraft.Source.ASSISTANT


def _low(store, name="Toor dal"):
    return create_product(store, name, stock=2, par_level=20, reorder_point=5)


def test_the_expiry_task_closes_every_stores_drafts_past_their_time_and_leaves_fresh_ones(store, other_store):
    mine, theirs = _low(store), _low(other_store, "Ghee")
    old = timezone.now() - dt.timedelta(hours=2)
    stale = services.draft_create(store=store, items=[(mine, 3)], actor=ACTOR, source=SOURCE, now=old)
    their_stale = services.draft_create(store=other_store, items=[(theirs, 3)], actor=ACTOR, source=SOURCE, now=old)

    assert drafts_expire_task.delay().get() == 2

    assert selectors.draft_get(store=store, draft_id=stale.pk).status == "expired"
    assert selectors.draft_get(store=other_store, draft_id=their_stale.pk).status == "expired"
    fresh = services.draft_create(store=store, items=[(mine, 4)], actor=ACTOR, source=SOURCE)
    assert drafts_expire_task.delay().get() == 0
    assert selectors.draft_pending(store=store).pk == fresh.pk


def test_running_the_expiry_task_twice_expires_nothing_more(store):
    dal = _low(store)
    services.draft_create(store=store, items=[(dal, 3)], actor=ACTOR, source=SOURCE,
                          now=timezone.now() - dt.timedelta(hours=2))

    assert [drafts_expire_task.delay().get() for _ in range(2)] == [1, 0]
    draft = selectors.draft_list(store=store)[0]
    assert (draft.status, draft.decided_by) == ("expired", "system:expiry")
