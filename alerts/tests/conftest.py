"""Alerts test helpers: products made through the ledger's services, sales rung up through them."""

from __future__ import annotations

from decimal import Decimal

import pytest

from ledger import services
from ledger.services import SaleLine

ACTOR = "system:test"


def make_product(store, name="Mustard oil", *, stock=10, reorder_point=4, **fields):
    values = {"unit": "1 L bottle", "category": "Oils", "par_level": 20, "price": Decimal("6.50"),
              "unit_cost": Decimal("4.00"), "supplier": "Bharat Foods"}
    values.update(fields)
    return services.product_create(store=store, name=name, stock=stock, reorder_point=reorder_point, actor=ACTOR,
                                   **values)


def sell(store, product, qty, **kwargs):
    return services.sale_record(store=store, lines=[SaleLine(product=product, qty=qty)], actor=ACTOR, **kwargs)


@pytest.fixture
def oil(store):
    return make_product(store)


@pytest.fixture
def after_commit(django_capture_on_commit_callbacks):
    """Run what a write hands to ``transaction.on_commit`` (the test's transaction never commits)."""

    def run():
        return django_capture_on_commit_callbacks(execute=True)

    return run
