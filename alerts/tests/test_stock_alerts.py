"""Stock alerts raised from the sale that caused them: once per event, under retries and sweeps."""

from __future__ import annotations

import threading

import pytest
from django.db import IntegrityError, connection, transaction

from alerts import services
from alerts.checks import stock_sweep
from alerts.kinds import Kind
from alerts.messages import alert_message
from alerts.models import Alert
from alerts.tasks import stock_alert_task
from alerts.tests.conftest import ACTOR, make_product, sell
from ledger import services as ledger
from ledger.models import StockEntry
from tenants.context import use_store

pytestmark = pytest.mark.django_db


def _sale_entry(store, product):
    with use_store(store):
        return StockEntry.objects.get(product=product, reason=StockEntry.Reason.SALE)


def _alerts(store):
    with use_store(store):
        return list(Alert.objects.filter(store=store).order_by("id"))


def test_a_sale_that_crosses_the_reorder_point_raises_one_alert_after_it_commits(store, oil, after_commit):
    with after_commit():
        recorded = sell(store, oil, 7)  # 10 -> 3, reorder point 4
        assert _alerts(store) == []  # nothing before the sale commits
    [alert] = _alerts(store)
    entry = _sale_entry(store, oil)
    assert alert.kind == Kind.LOW_STOCK and alert.event_key == f"stock:{entry.pk}" and alert.product_id == oil.pk
    assert alert.facts["stock"] == 3 and alert.facts["before"] == 10 and alert.facts["reorder_point"] == 4
    assert f"#{recorded.receipt.number}" in alert.facts["note"]
    assert alert_message(alert.kind, alert.facts) == "Mustard oil is down to 3 (reorder point 4)."


def test_selling_out_raises_sold_out_not_low_stock(store, oil, after_commit):
    with after_commit():
        sell(store, oil, 12)  # oversold: stock stops at 0
    [alert] = _alerts(store)
    assert alert.kind == Kind.SOLD_OUT and alert_message(alert.kind, alert.facts) == "Mustard oil is sold out."


def test_a_sale_that_stays_above_or_was_already_below_raises_nothing(store, oil, after_commit):
    with after_commit():
        sell(store, oil, 2)  # 10 -> 8: above the reorder point
    low = make_product(store, "Atta", stock=3, reorder_point=5)
    with after_commit():
        sell(store, low, 1)  # 3 -> 2: already below, no new crossing
    assert _alerts(store) == []


def test_a_rolled_back_sale_raises_nothing(store, oil, after_commit):
    with after_commit() as callbacks:
        with pytest.raises(RuntimeError), transaction.atomic():
            sell(store, oil, 7)
            raise RuntimeError("the turn failed after the sale")
    assert callbacks == [] and _alerts(store) == []


def test_retries_and_the_sweep_find_the_same_alert(store, oil, after_commit):
    with after_commit():
        sell(store, oil, 7)
    entry = _sale_entry(store, oil)
    stock_alert_task.delay(store_id=store.pk, entry_id=entry.pk)  # a redelivered task
    stock_alert_task.delay(store_id=store.pk, entry_id=entry.pk)
    assert stock_sweep(store=store) == 1  # the beat's sweep sees the crossing, raises nothing new
    assert len(_alerts(store)) == 1


def test_the_sweep_raises_an_alert_whose_task_was_lost(store, oil):
    sell(store, oil, 7)  # on_commit never runs here: as if the broker had been down
    assert _alerts(store) == []
    assert stock_sweep(store=store) == 1
    [alert] = _alerts(store)
    assert alert.kind == Kind.LOW_STOCK


def test_the_unique_constraint_refuses_a_second_row_for_one_event(store, oil, after_commit):
    with after_commit():
        sell(store, oil, 7)
    [alert] = _alerts(store)
    with use_store(store), pytest.raises(IntegrityError), transaction.atomic():
        Alert.objects.create(store=store, kind=alert.kind, event_key=alert.event_key, facts={},
                             created_at=alert.created_at)


def test_a_product_with_an_open_alert_is_not_alerted_again_until_acknowledged(store, oil, after_commit):
    with after_commit():
        sell(store, oil, 7)  # 10 -> 3
    with use_store(store):
        ledger.stock_set(store=store, product=oil, count=9, expected=3, actor=ACTOR, reason="delivery")
    with after_commit():
        sell(store, oil, 6)  # 9 -> 3 again: the first alert still stands
    [first] = _alerts(store)
    services.alert_acknowledge(store=store, alert_id=first.pk, actor="user:1", owner=True)
    with use_store(store):
        ledger.stock_set(store=store, product=oil, count=9, expected=3, actor=ACTOR, reason="delivery")
    with after_commit():
        sell(store, oil, 6)
    assert [a.kind for a in _alerts(store)] == [Kind.LOW_STOCK, Kind.LOW_STOCK]


def test_a_kind_switched_off_raises_nothing(store, owner, oil, after_commit):
    services.preference_set(store=store, kind=Kind.LOW_STOCK, enabled=False, channels=None, actor=f"user:{owner.pk}")
    with after_commit():
        sell(store, oil, 7)
    assert _alerts(store) == []


def test_another_stores_entry_is_not_found(store, other_store, oil, after_commit):
    with after_commit():
        sell(store, oil, 7)
    entry = _sale_entry(store, oil)
    assert services.stock_alert_for_entry(store=other_store, entry_id=entry.pk) is None
    assert len(_alerts(store)) == 1 and _alerts(other_store) == []


@pytest.mark.skipif(connection.vendor != "postgresql", reason="concurrent transactions need PostgreSQL")
@pytest.mark.django_db(transaction=True)
def test_concurrent_workers_raise_one_alert(store):
    oil = make_product(store)
    sell(store, oil, 7)
    entry = _sale_entry(store, oil)
    barrier, errors = threading.Barrier(4), []

    def worker():
        try:
            barrier.wait()
            services.stock_alert_for_entry(store=store, entry_id=entry.pk)
        except Exception as exc:  # pragma: no cover - the assertion below reports it
            errors.append(exc)
        finally:
            connection.close()

    threads = [threading.Thread(target=worker) for _ in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert errors == []
    assert len(_alerts(store)) == 1


def test_the_alert_tables_are_fenced_by_row_level_security(store, other_store, oil, after_commit):
    from django.apps import apps

    from tenants.rls import fenced_tables

    assert {"alerts_alert", "alerts_alertpreference", "alerts_alertdigest"} <= set(fenced_tables(apps))
    with after_commit():
        sell(store, oil, 7)
    with use_store(store):
        assert Alert.objects.count() == 1
    if connection.vendor == "postgresql":  # the policy itself hides another store's rows, unfiltered
        with use_store(other_store):
            assert not Alert.objects.exists()
