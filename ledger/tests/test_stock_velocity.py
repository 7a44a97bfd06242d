"""Stock velocity: units a day over the 28 local days before today (net of refunds), days of cover,
and the reorder suggestions built on them (up to par when set, else two weeks of cover), with the why."""

from __future__ import annotations

import datetime as dt
from zoneinfo import ZoneInfo

from rest_framework.test import APIClient

from ledger import services
from ledger.models import ReorderDraft
from ledger.services import SaleLine
from ledger.stock_velocity import WINDOW_DAYS, reorder_suggestions, stock_velocity
from ledger.tests.conftest import ACTOR, create_product
from tenants.context import use_store
from tenants.services import token_create

CHICAGO = ZoneInfo("America/Chicago")
NOW = dt.datetime(2026, 3, 12, 15, 0, tzinfo=CHICAGO)  # a Thursday afternoon in the store's time zone
TODAY = NOW.date()


def local(days_ago: int, hour: int, minute: int = 0) -> dt.datetime:
    return dt.datetime.combine(TODAY - dt.timedelta(days=days_ago), dt.time(hour, minute), tzinfo=CHICAGO)


def history(store, product, *sales: tuple[dt.datetime, int]) -> None:
    """Past sales as imported history (stock does not move, so each test sets the count it wants)."""
    with use_store(store):
        services.receipts_import(store=store, receipts=[(when, [(product, qty)]) for when, qty in sales], actor=ACTOR)


def suggestion(store, product):
    with use_store(store):
        return reorder_suggestions(store=store, products=[product], now=NOW)[product.pk]


def test_the_rate_counts_the_28_local_days_before_today_net_of_refunds(store, other_store, make_product):
    dal = make_product("Toor dal", stock=16, par_level=42, reorder_point=8)
    history(store, dal,
            (local(1, 23, 30), 40),  # yesterday 23:30 local: already today in UTC, still in the window
            (local(WINDOW_DAYS, 0, 10), 44),  # the window's first local day
            (local(WINDOW_DAYS + 1, 23, 50), 30),  # the day before the window
            (local(0, 9), 50))  # today: not a whole day yet, left out
    assert local(1, 23, 30).astimezone(dt.UTC).date() == TODAY
    with use_store(store):
        sold = services.sale_record(store=store, lines=[SaleLine(product=dal, qty=5)], actor=ACTOR,
                                    sold_at=local(3, 11)).receipt
        services.receipt_refund(store=store, receipt_id=sold.pk, actor=ACTOR, now=local(2, 10))
    theirs = create_product(other_store, "Toor dal", stock=5)
    history(other_store, theirs, (local(1, 12), 500))

    with use_store(store):
        velocity = stock_velocity(store=store, products=[dal], now=NOW)[dal.pk]

    assert (velocity.units, velocity.window_days, velocity.per_day) == (84, 28, 3.0)
    assert velocity.days_of_cover == 5.3  # 16 in stock / 3 a day
    assert suggestion(store, dal).reason == (
        "Sells about 3 a day, 5 days left; 26 brings it up to par (42), about 14 days at this rate."
    )


def test_with_a_par_level_the_suggestion_is_up_to_par_and_says_how_long_that_lasts(store, make_product):
    ghee = make_product("Ghee", stock=6, par_level=42, reorder_point=8)
    history(store, ghee, (local(5, 12), 84))

    found = suggestion(store, ghee)

    assert (found.qty, found.target, found.basis) == (36, 42, "par")
    assert found.velocity.days_of_cover == 2.0
    assert found.reason == "Sells about 3 a day, 2 days left; 36 brings it up to par (42), about 14 days at this rate."


def test_nothing_sold_means_no_days_of_cover_and_the_par_level_alone(store, make_product):
    gur = make_product("Jaggery", stock=11, par_level=42, reorder_point=12)

    found = suggestion(store, gur)

    assert found.velocity.per_day is None and found.velocity.days_of_cover is None
    assert (found.qty, found.basis) == (31, "par")
    assert found.reason == "No sales in the last 28 days, 11 left; 31 brings it up to par (42)."


def test_without_a_par_level_the_suggestion_covers_two_weeks_of_sales(store, make_product):
    rice = make_product("Basmati rice", stock=0, par_level=0, reorder_point=0)
    quiet = make_product("Rose water", stock=0, par_level=0, reorder_point=0)
    history(store, rice, (local(3, 12), 42))  # 1.5 a day

    found = suggestion(store, rice)

    assert (found.qty, found.target, found.basis, found.cover_days) == (21, 21, "cover", 14)
    assert found.reason == "Sells about 2 a day, none left; 21 brings it to about 14 days (no par level set)."
    assert suggestion(store, quiet).qty == 0
    assert suggestion(store, quiet).reason == "No sales in the last 28 days, none left; no par level set, so no quantity to suggest."


def test_a_slow_seller_is_said_per_week(store, make_product):
    saffron = make_product("Saffron", stock=3, par_level=10, reorder_point=3)
    history(store, saffron, (local(10, 12), 8))

    found = suggestion(store, saffron)

    assert found.velocity.days_of_cover == 10.5  # 3 / (8 / 28)
    assert found.reason.startswith("Sells about 2 a week, 10 days left; 7 brings it up to par (10)")


def test_restocking_every_low_item_orders_the_suggested_quantities(store, make_product):
    dal = make_product("Toor dal", stock=6, par_level=42, reorder_point=8)
    rice = make_product("Basmati rice", stock=0, par_level=0, reorder_point=0)
    make_product("Rose water", stock=0, par_level=0, reorder_point=0)  # low, but nothing to go on
    history(store, rice, (local(3, 12), 42))

    with use_store(store):
        draft = services.draft_create(store=store, items=None, actor=ACTOR, source=ReorderDraft.Source.DASHBOARD,
                                      now=NOW)
        lines = {line.product.name: line.qty for line in draft.lines.all()}

    assert lines == {"Basmati rice": 21, "Toor dal": 36}
    assert dal.pk != rice.pk


def test_closing_the_day_stores_the_suggested_quantity(store, make_product):
    rice = make_product("Basmati rice", stock=0, par_level=0, reorder_point=0)
    history(store, rice, (local(3, 12), 42))

    with use_store(store):
        reconciliation = services.day_reconcile(store=store, actor=ACTOR, now=NOW)
        line = reconciliation.lines.get(product=rice)

    assert (line.is_low, line.suggested_qty) == (True, 21)


def test_the_rest_product_read_carries_days_of_cover_and_other_stores_get_nothing(store, other_store, make_product):
    dal = make_product("Toor dal", stock=6, par_level=42, reorder_point=8)
    history(store, dal, (dt.datetime.now(CHICAGO) - dt.timedelta(days=2), 84))
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Bearer {token_create(store=store, name='t', scopes=['api'])[1]}")
    other = APIClient()
    other.credentials(HTTP_AUTHORIZATION=f"Bearer {token_create(store=other_store, name='t', scopes=['api'])[1]}")

    detail = client.get(f"/api/v1/products/{dal.pk}")
    listed = client.get("/api/v1/products?search=toor")

    assert detail.status_code == 200, detail.content
    body = detail.json()
    assert (body["daily_sales"], body["days_of_cover"], body["suggested_reorder_qty"]) == (3.0, 2.0, 36)
    assert body["reorder_reason"].startswith("Sells about 3 a day, 2 days left; 36 brings it up to par (42)")
    assert listed.json()["results"][0]["days_of_cover"] == 2.0
    assert other.get(f"/api/v1/products/{dal.pk}").status_code == 404
