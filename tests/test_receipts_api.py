"""A till's REST calls: receipts by SKU or barcode, idempotent retries, 400s naming the line, refunds,
voids and goods received; each with the database checked afterwards."""

from __future__ import annotations

from decimal import Decimal

import pytest
from rest_framework.test import APIClient

from ledger import selectors, services
from ledger.models import Receipt, ReorderDraft, StockEntry
from tenants.context import use_store
from tenants.services import token_create

ACTOR = "system:test"


def _client(store, scopes=("api",)):
    _, raw = token_create(store=store, name="till", scopes=list(scopes))
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Bearer {raw}")
    return client


def _make(store, name, **fields):
    values = {"price": Decimal("4.00"), "stock": 10, "par_level": 20, "reorder_point": 5, "actor": ACTOR}
    values.update(fields)
    with use_store(store):
        return services.product_create(store=store, name=name, **values)


@pytest.fixture
def till(store, other_store):
    dal = _make(store, "Toor dal", sku="DAL-1", barcode="2000000000046", price=Decimal("8.99"))
    gur = _make(store, "Jaggery", sku="GUR-1", price=Decimal("6.00"), stock=3)
    theirs = _make(other_store, "Secret sauce", sku="SEC-1")
    return {"client": _client(store), "dal": dal, "gur": gur, "theirs": theirs}


def _stock(store, product):
    return selectors.product_get(store=store, product_id=product.pk).stock


def _receipts(store):
    with use_store(store):
        return Receipt.objects.filter(store=store).count()


def test_a_receipt_by_sku_and_barcode_records_the_sale_and_moves_stock(till, store):
    response = till["client"].post(
        "/api/v1/receipts",
        {"lines": [{"sku": "DAL-1", "qty": 2}, {"barcode": "2000000000046", "qty": 1, "price": "8.00"}]},
        format="json",
    )
    assert response.status_code == 201, response.json()
    body = response.json()
    assert body["kind"] == "sale" and body["replayed"] is False and body["warnings"] == []
    assert [(line["sku"], line["qty"], line["unit_price"]) for line in body["lines"]] == [
        ("DAL-1", 2, "8.99"), ("DAL-1", 1, "8.00")]
    assert body["total"] == "25.98"
    assert _stock(store, till["dal"]) == 7
    entry = selectors.journal_for(store=store, product=till["dal"])[-1]
    assert (entry.reason, entry.before, entry.after) == (StockEntry.Reason.SALE, 10, 7)
    assert entry.actor.startswith("token:")


def test_a_retry_with_the_same_idempotency_key_records_one_receipt(till, store):
    body = {"lines": [{"sku": "DAL-1", "qty": 2}]}
    first = till["client"].post("/api/v1/receipts", body, format="json", HTTP_IDEMPOTENCY_KEY="till-7-0001")
    again = till["client"].post("/api/v1/receipts", body, format="json", HTTP_IDEMPOTENCY_KEY="till-7-0001")
    assert (first.status_code, again.status_code) == (201, 200)
    assert again.json()["id"] == first.json()["id"] and again.json()["replayed"] is True
    assert _receipts(store) == 1 and _stock(store, till["dal"]) == 8


def test_the_external_id_alone_makes_a_retry_safe(till, store):
    body = {"lines": [{"sku": "GUR-1", "qty": 1}], "external_id": "pos-99"}
    ids = {till["client"].post("/api/v1/receipts", body, format="json").json()["id"] for _ in range(3)}
    assert len(ids) == 1 and _receipts(store) == 1 and _stock(store, till["gur"]) == 2


def test_a_key_reused_for_a_different_receipt_is_a_conflict_and_writes_nothing(till, store):
    till["client"].post("/api/v1/receipts", {"lines": [{"sku": "DAL-1", "qty": 1}]}, format="json", HTTP_IDEMPOTENCY_KEY="k1")
    other = till["client"].post("/api/v1/receipts", {"lines": [{"sku": "DAL-1", "qty": 5}]}, format="json",
                                HTTP_IDEMPOTENCY_KEY="k1")
    assert other.status_code == 409
    assert other.json()["error"]["code"] == "idempotency_conflict"
    assert _receipts(store) == 1 and _stock(store, till["dal"]) == 9


@pytest.mark.parametrize(
    ("line", "field"),
    [
        ({"sku": "NOPE", "qty": 1}, "sku"),
        ({"barcode": "999", "qty": 1}, "barcode"),
        ({"sku": "SEC-1", "qty": 1}, "sku"),  # another store's SKU is simply unknown here
        ({"sku": "GUR-1", "qty": 0}, "qty"),
        ({"sku": "GUR-1", "qty": -3}, "qty"),
        ({"sku": "GUR-1", "qty": 1.5}, "qty"),
        ({"sku": "GUR-1", "qty": "2"}, "qty"),
        ({"sku": "GUR-1", "qty": True}, "qty"),
        ({"sku": "GUR-1", "qty": 20_000}, "qty"),
        ({"sku": "GUR-1", "qty": 1, "price": "-1"}, "price"),
        ({"sku": "GUR-1", "qty": 1, "price": "abc"}, "price"),
        ({"qty": 1}, "sku"),
        ({"sku": "GUR-1", "barcode": "1", "qty": 1}, "sku"),
        ({"sku": "GUR-1", "qty": 1, "colour": "red"}, "colour"),
    ],
)
def test_a_bad_line_is_a_400_naming_the_line_and_nothing_is_written(till, store, line, field):
    response = till["client"].post("/api/v1/receipts", {"lines": [{"sku": "DAL-1", "qty": 1}, line]}, format="json")
    assert response.status_code == 400
    error = response.json()["error"]
    assert (error["code"], error["line"], error["field"]) == ("invalid_line", 2, field)
    assert error["message"].startswith(f"Line 2, {field}:")
    assert _receipts(store) == 0 and _stock(store, till["dal"]) == 10


@pytest.mark.parametrize(
    "body", [{}, {"lines": []}, {"lines": "DAL-1"}, [1, 2], {"lines": [{"sku": "DAL-1", "qty": 1}], "extra": 1},
             {"lines": [{"sku": "DAL-1", "qty": 1}] * 201}],
)
def test_a_malformed_body_is_a_400_and_nothing_is_written(till, store, body):
    response = till["client"].post("/api/v1/receipts", body, format="json")
    assert response.status_code == 400 and response.json()["error"]["message"]
    assert _receipts(store) == 0


def test_malformed_json_is_a_400(till, store):
    response = till["client"].post("/api/v1/receipts", "{not json", content_type="application/json")
    assert response.status_code == 400 and _receipts(store) == 0


def test_overselling_is_recorded_stock_stops_at_zero_and_the_answer_says_so(till, store):
    response = till["client"].post("/api/v1/receipts", {"lines": [{"sku": "GUR-1", "qty": 5}]}, format="json")
    assert response.status_code == 201
    [warning] = response.json()["warnings"]
    assert (warning["line"], warning["code"], warning["sku"]) == (1, "oversold", "GUR-1")
    assert "recount" in warning["message"]
    line = response.json()["lines"][0]
    assert (line["oversold"], line["stock"], line["needs_recount"]) == (2, 0, True)
    gur = selectors.product_get(store=store, product_id=till["gur"].pk)
    assert (gur.stock, gur.needs_recount) == (0, True)


def test_a_refund_restores_stock_as_its_own_entry_and_cannot_exceed_the_sale(till, store):
    sale = till["client"].post("/api/v1/receipts", {"lines": [{"sku": "DAL-1", "qty": 3}]}, format="json").json()
    refund = till["client"].post(f"/api/v1/receipts/{sale['id']}/refund", {"lines": [{"sku": "DAL-1", "qty": 2}]},
                                 format="json", HTTP_IDEMPOTENCY_KEY="r1")
    assert refund.status_code == 201
    assert (refund.json()["kind"], refund.json()["refund_of"], refund.json()["total"]) == ("refund", sale["id"], "-17.98")
    assert _stock(store, till["dal"]) == 9
    entry = selectors.journal_for(store=store, product=till["dal"])[-1]
    assert (entry.reason, entry.before, entry.after) == (StockEntry.Reason.REFUND, 7, 9)
    too_many = till["client"].post(f"/api/v1/receipts/{sale['id']}/refund", {"lines": [{"sku": "DAL-1", "qty": 2}]},
                                   format="json")
    assert too_many.status_code == 400 and too_many.json()["error"]["line"] == 1
    assert _stock(store, till["dal"]) == 9
    today = till["client"].get("/api/v1/sales/today").json()
    assert (today["receipts"], today["units"], today["revenue"]) == (1, 1, "8.99")


def test_a_void_gives_back_the_whole_sale_once(till, store):
    sale = till["client"].post("/api/v1/receipts", {"lines": [{"sku": "DAL-1", "qty": 2}, {"sku": "GUR-1", "qty": 1}]},
                               format="json").json()
    void = till["client"].post(f"/api/v1/receipts/{sale['id']}/void")
    assert void.status_code == 201 and void.json()["kind"] == "void"
    assert (_stock(store, till["dal"]), _stock(store, till["gur"])) == (10, 3)
    again = till["client"].post(f"/api/v1/receipts/{sale['id']}/void")
    assert again.status_code == 409
    listed = till["client"].get("/api/v1/receipts", {"kind": "void"}).json()
    assert listed["count"] == 1


def test_another_stores_receipt_cannot_be_refunded_or_read(till, store, other_store):
    theirs = _client(other_store).post("/api/v1/receipts", {"lines": [{"sku": "SEC-1", "qty": 1}]}, format="json").json()
    assert till["client"].get(f"/api/v1/receipts/{theirs['id']}").status_code == 404
    assert till["client"].post(f"/api/v1/receipts/{theirs['id']}/refund").status_code == 404
    assert till["client"].get("/api/v1/receipts").json()["count"] == 0
    assert _stock(other_store, till["theirs"]) == 9


def test_a_token_without_the_api_scope_cannot_record_sales(till, store):
    response = _client(store, scopes=("mcp",)).post("/api/v1/receipts", {"lines": [{"sku": "DAL-1", "qty": 1}]},
                                                    format="json")
    assert response.status_code in (401, 403) and _receipts(store) == 0


def test_goods_received_per_line_leave_the_rest_open_then_complete_the_order(till, store):
    with use_store(store):
        draft = services.draft_create(store=store, items=[(till["dal"], 10), (till["gur"], 4)], actor=ACTOR,
                                      source=ReorderDraft.Source.DASHBOARD)
        order = services.draft_confirm(store=store, draft_id=draft.pk, actor=ACTOR)
    lines = {line["sku"]: line["id"] for line in till["client"].get("/api/v1/orders").json()["results"][0]["lines"]}
    partial = till["client"].post(f"/api/v1/orders/{order.pk}/receive",
                                  {"lines": [{"line": lines["DAL-1"], "qty": 6}]}, format="json")
    assert partial.status_code == 200 and partial.json()["status"] == "partial"
    assert _stock(store, till["dal"]) == 16 and _stock(store, till["gur"]) == 3
    too_many = till["client"].post(f"/api/v1/orders/{order.pk}/receive",
                                   {"lines": [{"line": lines["DAL-1"], "qty": 5}]}, format="json")
    assert too_many.status_code == 400 and too_many.json()["error"]["field"] == "qty"
    rest = till["client"].post(f"/api/v1/orders/{order.pk}/receive", format="json")
    assert rest.status_code == 200 and rest.json()["status"] == "received"
    assert _stock(store, till["dal"]) == 20 and _stock(store, till["gur"]) == 7
    entry = selectors.journal_for(store=store, product=till["gur"])[-1]
    assert (entry.reason, entry.note) == (StockEntry.Reason.DELIVERY, f"order #{order.pk}")
    assert till["client"].post(f"/api/v1/orders/{order.pk}/receive").status_code == 409
