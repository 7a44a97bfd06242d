"""Sales move stock through the journal; imported history does not, and stays out of today."""

from __future__ import annotations

import datetime as dt
from decimal import Decimal

import pytest
from django.utils import timezone

from ledger import selectors, services
from ledger.errors import InvalidInput, InvalidLine, NotFound
from ledger.models import Receipt
from ledger.tests.conftest import ACTOR, create_product
from tenants.context import use_store


def test_a_sale_totals_its_lines_and_takes_units_out_of_stock_through_the_journal(store, make_product):
    dal = make_product("Toor dal", stock=10, price=Decimal("8.99"))
    gur = make_product("Jaggery", stock=20, price=Decimal("6.00"))
    receipt = services.receipt_create(store=store, lines=[(dal, 2), (gur, 1), (dal, 1)], actor="token:ab12cd34")
    assert receipt.total == Decimal("32.97")
    assert receipt.number == 1 and not receipt.historical
    with use_store(store):
        lines = [(line.product.name, line.qty, line.line_total) for line in receipt.lines.all()]
    assert lines == [("Toor dal", 3, Decimal("26.97")), ("Jaggery", 1, Decimal("6.00"))]
    assert selectors.product_get(store=store, product_id=dal.pk).stock == 7
    sale = selectors.journal_for(store=store, product=dal)[-1]
    assert (sale.reason, sale.before, sale.after, sale.actor, sale.note) == ("sale", 10, 7, "token:ab12cd34", "receipt #1")


def test_receipts_are_numbered_per_store(store, other_store, make_product):
    ours = make_product("Ghee", stock=10)
    theirs = create_product(other_store, "Ghee", stock=10)
    numbers = [services.receipt_create(store=store, lines=[(ours, 1)], actor=ACTOR).number for _ in range(3)]
    assert numbers == [1, 2, 3]
    assert services.receipt_create(store=other_store, lines=[(theirs, 1)], actor=ACTOR).number == 1


def test_selling_more_than_the_books_hold_is_recorded_stops_at_zero_and_flags_a_recount(store, make_product):
    dal = make_product("Toor dal", stock=2)
    receipt = services.receipt_create(store=store, lines=[(dal, 3)], actor=ACTOR)
    dal = selectors.product_get(store=store, product_id=dal.pk)
    assert (dal.stock, dal.needs_recount) == (0, True)
    with use_store(store):
        assert [(line.qty, line.oversold) for line in receipt.lines.all()] == [(3, 1)]
    sale = selectors.journal_for(store=store, product=dal)[-1]
    assert (sale.before, sale.after) == (2, 0) and "recount" in sale.note
    assert selectors.sales_today(store=store).units == 3
    services.stock_set(store=store, product=dal, count=4, expected=0, actor=ACTOR)
    assert selectors.product_get(store=store, product_id=dal.pk).needs_recount is False


@pytest.mark.parametrize("lines", [[], None], ids=["empty", "none"])
def test_a_receipt_needs_lines(store, lines):
    with pytest.raises(InvalidInput):
        services.receipt_create(store=store, lines=lines, actor=ACTOR)


@pytest.mark.parametrize("qty", [0, -2, 10_001, 1.5])
def test_line_quantities_must_be_whole_and_sensible(store, make_product, qty):
    dal = make_product(stock=50)
    with pytest.raises(InvalidLine) as caught:
        services.receipt_create(store=store, lines=[(dal, qty)], actor=ACTOR)
    assert (caught.value.line, caught.value.field) == (1, "qty")
    assert selectors.product_get(store=store, product_id=dal.pk).stock == 50


def test_another_stores_product_cannot_be_sold(store, other_store):
    theirs = create_product(other_store, "Secret sauce", stock=5)
    with pytest.raises(NotFound):
        services.receipt_create(store=store, lines=[(theirs, 1)], actor=ACTOR)
    assert selectors.product_get(store=other_store, product_id=theirs.pk).stock == 5


def test_imported_history_keeps_stock_and_stays_out_of_todays_figures(store, make_product):
    dal = make_product(stock=10)
    now = timezone.now()
    services.receipt_create(store=store, lines=[(dal, 4)], actor=ACTOR, sold_at=now, move_stock=False)
    services.receipts_import(store=store, receipts=[(now - dt.timedelta(days=2), [(dal, 3)])], actor=ACTOR)
    assert selectors.product_get(store=store, product_id=dal.pk).stock == 10
    assert len(selectors.journal_for(store=store, product=dal)) == 1
    assert selectors.sales_today(store=store, now=now).receipts == 0
    with use_store(store):
        assert Receipt.objects.filter(store=store, historical=True).count() == 2
    days = selectors.sales_by_day(store=store, days=3, now=now)
    assert [day.units for day in days] == [3, 0, 4]


def test_sales_today_counts_the_stores_local_day(store, make_product):
    # 04:30 UTC is still the evening before in Chicago (daylight time, UTC-5).
    dal = make_product(stock=10, price=Decimal("8.99"))
    evening = dt.datetime(2025, 3, 12, 4, 30, tzinfo=dt.UTC)
    services.receipt_create(store=store, lines=[(dal, 1)], actor=ACTOR, sold_at=evening)
    morning = dt.datetime(2025, 3, 12, 15, 0, tzinfo=dt.UTC)
    services.receipt_create(store=store, lines=[(dal, 2)], actor=ACTOR, sold_at=morning)
    today = selectors.sales_today(store=store, now=morning)
    assert (today.date, today.receipts, today.units, today.revenue) == (dt.date(2025, 3, 12), 1, 2, Decimal("17.98"))
    assert today.top_sellers == [("Toor dal", 2, Decimal("17.98"))]
    assert today.top_sellers[0].product == "Toor dal"
    yesterday = selectors.sales_today(store=store, now=evening)
    assert (yesterday.date, yesterday.receipts) == (dt.date(2025, 3, 11), 1)


def test_naive_times_are_refused(store, make_product):
    dal = make_product(stock=10)
    with pytest.raises(InvalidInput):
        services.receipt_create(store=store, lines=[(dal, 1)], actor=ACTOR, sold_at=dt.datetime(2025, 1, 1, 12))


def test_every_line_carries_its_receipts_time_on_every_path_that_writes_lines(store, make_product):
    """Sales over a period sum the lines by their own ``sold_at`` (ledger.sales_history): a sale, imported
    history, a refund and a void each copy their receipt's time onto their lines."""
    from ledger.models import ReceiptLine

    dal = make_product("Toor dal", stock=20)
    gur = make_product("Jaggery", stock=20)
    now = timezone.now()
    sale = services.receipt_create(store=store, lines=[(dal, 2), (gur, 1)], actor=ACTOR, sold_at=now - dt.timedelta(hours=3))
    other = services.receipt_create(store=store, lines=[(gur, 2)], actor=ACTOR, sold_at=now - dt.timedelta(hours=2))
    services.receipts_import(store=store, receipts=[(now - dt.timedelta(days=40), [(dal, 3)]),
                                                    (now - dt.timedelta(days=39), [(gur, 1)])], actor=ACTOR)
    services.receipt_refund(store=store, receipt_id=sale.pk, actor=ACTOR, lines=[(dal, 1)], now=now - dt.timedelta(hours=1))
    services.receipt_refund(store=store, receipt_id=other.pk, actor=ACTOR, void=True, now=now)
    with use_store(store):
        pairs = list(ReceiptLine.objects.filter(store=store).values_list("sold_at", "receipt__sold_at"))
        kinds = set(Receipt.objects.filter(store=store).values_list("kind", flat=True))
    assert len(pairs) == 7 and kinds == {"sale", "refund", "void"}
    assert all(line == receipt for line, receipt in pairs)
