"""Ledger test helpers: products made through the services, and the demo store seeded once per module."""

from __future__ import annotations

import datetime as dt
from decimal import Decimal

import pytest

from ledger import services
from ledger.demo import install_demo_catalog
from tenants.services import store_delete
from tests.factories import StoreFactory

ACTOR = "system:test"
# A fixed afternoon in the demo store's time zone (14:45 in Chicago, daylight time).
DEMO_NOW = dt.datetime(2025, 3, 12, 19, 45, tzinfo=dt.UTC)


def create_product(store, name: str = "Toor dal", **fields):
    values = {
        "unit": "4 lb bag",
        "category": "Lentils",
        "location": "Aisle 3, middle shelf",
        "stock": 10,
        "par_level": 40,
        "reorder_point": 8,
        "price": Decimal("8.99"),
        "unit_cost": Decimal("5.00"),
        "supplier": "Amazon Business",
        "actor": ACTOR,
    }
    values.update(fields)
    return services.product_create(store=store, name=name, **values)


@pytest.fixture
def make_product(store):
    def make(name: str = "Toor dal", *, on=None, **fields):
        return create_product(on or store, name, **fields)

    return make


def seeded_store(*, slug: str, seed: int = 7, now: dt.datetime = DEMO_NOW):
    store = StoreFactory(slug=slug, name="Little India Grocery", timezone="America/Chicago")
    install_demo_catalog(store=store, seed=seed, now=now)
    return store


@pytest.fixture(scope="module")
def demo_store(django_db_setup, django_db_blocker):
    """The demo catalog seeded once for the module (seed 7, DEMO_NOW); each test's changes roll back."""
    with django_db_blocker.unblock():
        store = seeded_store(slug="demo-module")
        try:
            yield store
        finally:
            store_delete(store=store, actor=ACTOR)
