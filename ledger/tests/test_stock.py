"""Stock counts are compare-and-set and every change is journalled."""

from __future__ import annotations

import threading

import pytest
from django.db import connection, connections

from ledger import selectors, services
from ledger.errors import InvalidInput, InvalidQuantity, NotFound, StockConflict
from ledger.models import Product, StockEntry
from ledger.tests.conftest import ACTOR, create_product
from tenants.context import use_store
from tests.factories import StoreFactory


def _journal(store, product):
    return [(e.reason, e.before, e.after, e.actor) for e in selectors.journal_for(store=store, product=product)]


def test_a_new_product_opens_its_journal_with_the_opening_count(store, make_product):
    product = make_product(stock=12)
    assert _journal(store, product) == [("opening", 0, 12, ACTOR)]


def test_a_count_with_the_current_expected_value_sets_stock_and_records_before_and_after(store, make_product):
    product = make_product(stock=10)
    entry = services.stock_set(store=store, product=product, count=15, expected=10, actor="user:7", note="recount")
    assert (entry.before, entry.after, entry.reason, entry.actor, entry.note) == (10, 15, "count", "user:7", "recount")
    assert selectors.product_get(store=store, product_id=product.pk).stock == 15
    assert product.stock == 15
    assert _journal(store, product)[-1] == ("count", 10, 15, "user:7")


def test_a_stale_expected_count_changes_nothing_and_says_the_current_count(store, make_product):
    product = make_product(stock=10)
    with pytest.raises(StockConflict) as caught:
        services.stock_set(store=store, product=product, count=3, expected=9, actor="user:7")
    assert caught.value.code == "stock_conflict"
    assert caught.value.current == 10
    assert "10" in caught.value.message
    assert selectors.product_get(store=store, product_id=product.pk).stock == 10
    assert _journal(store, product) == [("opening", 0, 10, ACTOR)]


@pytest.mark.parametrize("count", [-1, 1_000_001, 2.5, "7", True, None])
def test_negative_fractional_or_absurd_counts_are_refused(store, make_product, count):
    product = make_product(stock=10)
    with pytest.raises(InvalidQuantity):
        services.stock_set(store=store, product=product, count=count, expected=10, actor="user:7")
    assert len(_journal(store, product)) == 1


def test_sales_cannot_be_recorded_as_a_stock_update(store, make_product):
    product = make_product(stock=10)
    with pytest.raises(InvalidInput):
        services.stock_set(store=store, product=product, count=9, expected=10, actor="user:7", reason=StockEntry.Reason.SALE)


def test_a_change_needs_an_actor(store, make_product):
    product = make_product(stock=10)
    with pytest.raises(InvalidInput):
        services.stock_set(store=store, product=product, count=9, expected=10, actor="")


def test_another_stores_product_is_not_found_and_untouched(store, other_store):
    theirs = create_product(other_store, "Secret sauce", stock=5)
    with pytest.raises(NotFound) as caught:
        services.stock_set(store=store, product=theirs, count=50, expected=5, actor="user:7")
    with pytest.raises(NotFound) as missing:
        selectors.product_get(store=store, product_id=999_999)
    assert caught.value.message == missing.value.message
    assert selectors.product_get(store=other_store, product_id=theirs.pk).stock == 5


def test_a_call_for_another_store_than_the_active_one_fails_closed(store, other_store, make_product):
    product = make_product(stock=10)
    with use_store(other_store), pytest.raises(NotFound):
        services.stock_set(store=store, product=product, count=9, expected=10, actor="user:7")


def test_a_delivery_is_journalled_with_its_reason(store, make_product):
    product = make_product(stock=4)
    services.stock_set(
        store=store, product=product, count=46, expected=4, actor="user:7", reason=StockEntry.Reason.DELIVERY
    )
    assert _journal(store, product)[-1] == ("delivery", 4, 46, "user:7")


@pytest.mark.skipif(connection.vendor != "postgresql", reason="row locks need PostgreSQL")
@pytest.mark.django_db(transaction=True)
def test_two_concurrent_writers_with_the_same_expected_count_one_wins_and_the_journal_shows_one_change():
    store = StoreFactory(slug="race-shop")
    product = create_product(store, "Atta", stock=10)
    barrier = threading.Barrier(2, timeout=10)
    outcomes: list[str] = []
    lock = threading.Lock()

    def writer(count: int) -> None:
        try:
            mine = Product(pk=product.pk, store_id=store.pk, stock=10)
            barrier.wait()
            services.stock_set(store=store, product=mine, count=count, expected=10, actor=f"user:{count}")
            result = f"won:{count}"
        except StockConflict as exc:
            result = f"conflict:{exc.current}"
        finally:
            connections.close_all()
        with lock:
            outcomes.append(result)

    threads = [threading.Thread(target=writer, args=(count,)) for count in (7, 8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=30)
    assert not any(thread.is_alive() for thread in threads)

    winners = [o for o in outcomes if o.startswith("won:")]
    losers = [o for o in outcomes if o.startswith("conflict:")]
    assert len(winners) == 1 and len(losers) == 1
    final = int(winners[0].split(":")[1])
    assert losers == [f"conflict:{final}"]
    assert selectors.product_get(store=store, product_id=product.pk).stock == final
    changes = [e for e in selectors.journal_for(store=store, product=product) if e.reason == "count"]
    assert [(e.before, e.after) for e in changes] == [(10, final)]
