"""Store tasks: a Celery task runs inside its store's context, and fails closed without one."""

from __future__ import annotations

import asyncio

import pytest
from asgiref.sync import async_to_sync, sync_to_async

from ledger.models import Product
from tenants.context import current_store, current_store_or_none, use_store
from tenants.errors import StoreNotFound
from tests.factories import ProductFactory
from worker.base import store_task


@store_task
def product_names_task(store, *, prefix: str = ""):
    """What the task sees: its store and that store's products (read through the ORM)."""
    assert current_store() == store
    return {"store": store.slug, "names": sorted(prefix + p.name for p in Product.objects.filter(store=current_store()))}


@store_task(bind=True)
def bound_task(self, store, value):
    return [self.name, store.slug, value]


@pytest.fixture
def shelves(store, other_store):
    with use_store(store):
        ProductFactory(store=store, name="Atta")
    with use_store(other_store):
        ProductFactory(store=other_store, name="Secret sauce")


def test_a_store_task_runs_in_its_store(shelves, store):
    result = product_names_task.delay(store_id=store.pk, prefix="- ")
    assert result.get() == {"store": "corner-shop", "names": ["- Atta"]}
    assert current_store_or_none() is None


def test_the_current_store_is_carried_into_a_task_sent_from_its_context(shelves, other_store):
    with use_store(other_store):
        result = product_names_task.delay()
    assert result.get()["names"] == ["Secret sauce"]


def test_bound_store_tasks_get_the_task_and_the_store(store):
    assert bound_task.delay(5, store_id=store.pk).get() == [bound_task.name, store.slug, 5]


def test_a_store_task_without_a_store_fails_closed(shelves, store):
    with pytest.raises(StoreNotFound):
        product_names_task.delay()
    with pytest.raises(StoreNotFound):
        product_names_task.delay(store_id=10**9)
    with pytest.raises(StoreNotFound):
        product_names_task.apply(kwargs={"store_id": True}).get()


def test_the_store_context_is_carried_into_async_code(shelves, store):
    async def in_store():
        with use_store(store):
            inner = await asyncio.create_task(_store_slug())
            names = await sync_to_async(lambda: [p.name for p in Product.objects.filter(store=current_store())])()
            return inner, names

    async def _store_slug():
        return current_store().slug

    assert async_to_sync(in_store)() == ("corner-shop", ["Atta"])
    assert current_store_or_none() is None
