"""The demo store: the issue's 38 products, today's sales through the ledger, and deterministic seeding."""

from __future__ import annotations

import datetime as dt
import time
from decimal import Decimal
from zoneinfo import ZoneInfo

import pytest
from PIL import Image

from ledger import selectors, services
from ledger.demo import CATALOG, NOT_SOLD_TODAY, install_demo_catalog
from ledger.errors import InvalidInput
from ledger.models import Receipt, ReorderDraft, StockEntry
from ledger.photos import render_shelf_photo
from ledger.tests.conftest import ACTOR, DEMO_NOW, seeded_store
from tenants.context import use_store


def _receipts(store, *, historical: bool):
    with use_store(store):
        return [
            (
                r.number,
                r.sold_at,
                r.total,
                tuple((line.product.name, line.qty, line.unit_price, line.line_total) for line in r.lines.all()),
            )
            for r in Receipt.objects.filter(store=store, historical=historical)
            .prefetch_related("lines__product")
            .order_by("number")
        ]


def test_the_demo_has_the_issues_38_products_with_their_fields(demo_store, db):
    products = {p.name: p for p in selectors.product_list(store=demo_store)}
    assert len(products) == len(CATALOG) == 38
    dal = products["Toor dal"]
    assert (dal.aliases, dal.unit, dal.category, dal.location) == (
        ["tuvar dal", "arhar dal"],
        "4 lb bag",
        "Lentils",
        "Aisle 3, middle shelf, left",
    )
    assert (dal.par_level, dal.reorder_point, dal.price, dal.unit_cost, dal.supplier) == (
        46,
        8,
        Decimal("8.99"),
        Decimal("5.00"),
        "Amazon Business",
    )
    for item in CATALOG:
        product = products[item.name]
        assert (product.price, product.unit_cost) == (Decimal(item.price), Decimal(item.cost))
        assert list(product.aliases) == list(item.aliases)


def test_every_demo_product_has_a_shelf_photo(demo_store, db):
    for product in selectors.product_list(store=demo_store):
        assert product.photo.name.startswith("shelves/")
        with product.photo.open("rb") as handle, Image.open(handle) as image:
            assert (image.format, image.size) == ("PNG", (640, 420))


def test_todays_forty_receipts_moved_stock_through_the_journal_from_the_opening_counts(demo_store, db):
    today = selectors.sales_today(store=demo_store, now=DEMO_NOW)
    assert today.receipts == 40
    assert today.date == dt.date(2025, 3, 12)
    opening = {item.name: item.stock for item in CATALOG}
    for product in selectors.product_list(store=demo_store):
        journal = selectors.journal_for(store=demo_store, product=product)
        assert journal[0].reason == StockEntry.Reason.OPENING and journal[0].after == opening[product.name]
        assert all(entry.reason == StockEntry.Reason.SALE for entry in journal[1:])
        sold = sum(entry.before - entry.after for entry in journal[1:])
        assert product.stock == opening[product.name] - sold
        if product.name in NOT_SOLD_TODAY:
            assert sold == 0
    assert today.units == sum(
        item.stock for item in CATALOG
    ) - sum(p.stock for p in selectors.product_list(store=demo_store))


def test_todays_receipts_fall_in_the_stores_local_day_up_to_now(demo_store, db):
    _day, start, _end = selectors.local_day_bounds(store=demo_store, now=DEMO_NOW)
    times = [sold_at for _n, sold_at, _t, _l in _receipts(demo_store, historical=False)]
    assert len(times) == 40
    assert all(start <= moment <= DEMO_NOW for moment in times)
    assert times == sorted(times)


def test_a_week_of_history_is_recorded_without_moving_stock(demo_store, db):
    days = selectors.sales_by_day(store=demo_store, days=9, now=DEMO_NOW)
    assert days[0].receipts == 0  # eight days ago: before the history
    assert all(day.receipts >= 30 for day in days[1:])
    assert days[-1].receipts == 40
    history = _receipts(demo_store, historical=True)
    chicago = ZoneInfo("America/Chicago")
    assert {sold_at.astimezone(chicago).date() for _n, sold_at, _t, _l in history} == {
        dt.date(2025, 3, 12) - dt.timedelta(days=back) for back in range(1, 8)
    }


def test_reconciling_the_demo_day_finds_exactly_toor_dal_mustard_oil_and_frozen_samosas_low(demo_store, db):
    reconciliation = services.day_reconcile(store=demo_store, actor=ACTOR, now=DEMO_NOW)
    today = selectors.sales_today(store=demo_store, now=DEMO_NOW)
    assert (reconciliation.business_date, reconciliation.receipts) == (dt.date(2025, 3, 12), 40)
    assert (reconciliation.units_sold, reconciliation.revenue) == (today.units, today.revenue)
    lines = {line.product.name: line for line in reconciliation.lines.all()}
    assert len(lines) == 38
    low = {name: line.suggested_qty for name, line in lines.items() if line.is_low}
    assert low == {"Toor dal": 42, "Mustard oil": 21, "Frozen samosas": 18}
    dal = lines["Toor dal"]
    assert (dal.opening_stock, dal.units_sold, dal.stock) == (4, 0, 4)
    for item in CATALOG:
        line = lines[item.name]
        assert line.opening_stock == item.stock
        assert line.stock == item.stock - line.units_sold
    assert selectors.reconciliation_latest(store=demo_store).pk == reconciliation.pk


def test_restocking_all_low_demo_items_costs_210_94_50_and_97_20(demo_store, db):
    draft = services.draft_create(store=demo_store, items=None, actor=ACTOR, source=ReorderDraft.Source.ASSISTANT)
    lines = {line.product.name: (line.qty, line.est_cost) for line in draft.lines.all()}
    assert lines == {
        "Toor dal": (42, Decimal("210.00")),
        "Mustard oil": (21, Decimal("94.50")),
        "Frozen samosas": (18, Decimal("97.20")),
    }
    assert (draft.est_total, draft.supplier) == (Decimal("401.70"), "Amazon Business")


def test_the_same_seed_gives_identical_receipts_lines_and_totals(demo_store, db):
    twin = seeded_store(slug="demo-twin", seed=7)
    for historical in (False, True):
        ours = [(n, t, lines) for n, _at, t, lines in _receipts(demo_store, historical=historical)]
        theirs = [(n, t, lines) for n, _at, t, lines in _receipts(twin, historical=historical)]
        assert ours == theirs
    assert [r[1] for r in _receipts(demo_store, historical=False)] == [r[1] for r in _receipts(twin, historical=False)]
    stock = {p.name: p.stock for p in selectors.product_list(store=demo_store)}
    assert stock == {p.name: p.stock for p in selectors.product_list(store=twin)}


def test_another_seed_gives_other_sales_with_the_same_low_items(db):
    other = seeded_store(slug="demo-seed-8", seed=8)
    assert [p.name for p in selectors.product_list(store=other, low_only=True)] == [
        "Frozen samosas",
        "Mustard oil",
        "Toor dal",
    ]
    assert selectors.sales_today(store=other, now=DEMO_NOW).receipts == 40


def test_the_demo_seeded_just_after_midnight_keeps_its_receipts_in_today(db):
    just_after = dt.datetime(2025, 3, 12, 5, 20, tzinfo=dt.UTC)  # 00:20 in Chicago
    store = seeded_store(slug="demo-midnight", now=just_after)
    today = selectors.sales_today(store=store, now=just_after)
    assert (today.date, today.receipts) == (dt.date(2025, 3, 12), 40)


def test_the_demo_catalog_only_goes_into_an_empty_store(store, make_product):
    make_product("Ghee")
    with pytest.raises(InvalidInput):
        install_demo_catalog(store=store)


def test_shelf_photos_render_quickly():
    started = time.perf_counter()
    photos = [
        render_shelf_photo(name=item.name, unit=item.unit, location=item.location, category=item.category)
        for item in CATALOG
    ]
    assert time.perf_counter() - started < 2.0
    assert all(photo.startswith(b"\x89PNG") for photo in photos)
    assert len(set(photos)) == len(photos)
