"""The gateway over real HTTP, driven by the official MCP Python client against a uvicorn server."""

from __future__ import annotations

import httpx
import pytest
from django.core import mail

from audit.models import Record, SqlStatement
from ledger import services
from ledger.models import (
    Order,
    Product,
    Reconciliation,
    ReorderDraft,
    ReportDelivery,
    StockEntry,
)
from mcp_gateway.asgi import METADATA_PATH
from mcp_gateway.registry import REGISTRY
from mcp_gateway.tests.conftest import CORNER_SHOP, OTHER_SHOP, call, mcp_session
from tenants.context import use_store
from tenants.services import token_create, token_revoke

pytestmark = pytest.mark.django_db(transaction=True, serialized_rollback=True)


def stock_of(store, name: str) -> int:
    with use_store(store):
        return Product.objects.get(store=store, name=name).stock


def drafts_of(store) -> list[ReorderDraft]:
    with use_store(store):
        return list(ReorderDraft.objects.filter(store=store).order_by("id"))


# -- listing ---------------------------------------------------------------------------------


@pytest.mark.parametrize("mode", ["auto", "legacy"])
def test_tools_list_shows_every_registry_tool_with_their_schemas_and_annotations(mcp_server, mcp_token, mode):
    listing = mcp_session(mcp_server.mcp_url, mcp_token, lambda client: client.list_tools(), mode=mode)

    tools = {tool.name: tool for tool in listing.tools}
    assert list(tools) == list(REGISTRY)
    for name, spec in REGISTRY.items():
        tool = tools[name]
        assert tool.input_schema == spec.input_schema
        assert tool.input_schema["additionalProperties"] is False
        assert tool.description == spec.description
        assert tool.annotations.read_only_hint == spec.annotations.read_only_hint
        # What the model never sees stays on the server.
        dumped = tool.model_dump_json(by_alias=True)
        assert "timeout" not in dumped and "orders:confirm\"" not in dumped and "side_effects" not in dumped
    assert tools["update_inventory"].input_schema["required"] == ["item", "stock", "expectedStock"]
    assert "draftId" in tools["place_reorder"].input_schema["properties"]


# -- each tool -------------------------------------------------------------------------------


def test_get_inventory_finds_a_product_by_its_spoken_alias(mcp_server, shop, mcp_token):
    result = call(mcp_server.mcp_url, mcp_token, "get_inventory", {"item": "gur"})

    assert not result.is_error
    product = result.structured_content["product"]
    assert (product["name"], product["stock"], product["reorderPoint"], product["isLow"]) == ("Jaggery", 2, 3, True)
    assert set(product) >= {"parLevel", "price", "unitCost", "location", "photoUrl"}
    assert result.content[0].text.startswith('<tool_result name="get_inventory">')


def test_get_inventory_lists_low_items_and_everything(mcp_server, shop, mcp_token):
    low = call(mcp_server.mcp_url, mcp_token, "get_inventory", {"filter": "low"}).structured_content
    everything = call(mcp_server.mcp_url, mcp_token, "get_inventory", {}).structured_content

    assert [p["name"] for p in low["products"]] == ["Jaggery", "Toor dal"]
    assert everything["count"] == len(CORNER_SHOP)


def test_get_todays_transactions_counts_todays_receipts(mcp_server, shop, mcp_token):
    with use_store(shop):
        rice = Product.objects.get(store=shop, name="Basmati rice")
        services.receipt_create(store=shop, lines=[(rice, 3)], actor="system:test")

    result = call(mcp_server.mcp_url, mcp_token, "get_todays_transactions")

    data = result.structured_content
    assert (data["receipts"], data["unitsSold"], data["revenue"]) == (1, 3, "14.97")
    assert data["topSellers"] == [{"item": "Basmati rice", "units": 3, "revenue": "14.97"}]


def test_reconcile_inventory_closes_the_day_and_lists_low_items(mcp_server, shop, mcp_token):
    result = call(mcp_server.mcp_url, mcp_token, "reconcile_inventory")

    data = result.structured_content
    assert [item["item"] for item in data["lowItems"]] == ["Jaggery", "Toor dal"]
    assert data["lowItems"][1]["suggestedQty"] == 20
    with use_store(shop):
        assert Reconciliation.objects.filter(store=shop, pk=data["reconciliationId"]).exists()


def test_update_inventory_sets_the_count_and_journals_it(mcp_server, shop, mcp_token):
    result = call(mcp_server.mcp_url, mcp_token, "update_inventory", {"item": "toor dal", "stock": 18, "expectedStock": 4})

    assert not result.is_error
    assert result.structured_content == {
        "item": "Toor dal", "previousStock": 4, "stock": 18, "isLow": False, "reorderPoint": 5,
    }
    assert stock_of(shop, "Toor dal") == 18
    with use_store(shop):
        entry = StockEntry.objects.filter(store=shop, product__name="Toor dal").latest("id")
    assert (entry.before, entry.after, entry.reason, entry.actor[:6]) == (4, 18, "count", "token:")


def test_place_reorder_drafts_all_low_items_and_orders_nothing(mcp_server, shop, mcp_token):
    result = call(mcp_server.mcp_url, mcp_token, "place_reorder", {"confirmed": False})

    data = result.structured_content
    assert data["status"] == "pending" and data["confirmed"] is False
    assert {line["item"]: line["qty"] for line in data["lines"]} == {"Jaggery": 10, "Toor dal": 20}
    assert data["estimatedTotal"] == "75.00"
    assert "approval" in data["note"]
    [draft] = drafts_of(shop)
    assert (draft.pk, draft.status, draft.source) == (data["draftId"], "pending", "mcp")
    with use_store(shop):
        assert not Order.objects.filter(store=shop).exists()


def test_place_reorder_drafts_only_the_named_items(mcp_server, shop, mcp_token):
    result = call(
        mcp_server.mcp_url, mcp_token, "place_reorder", {"items": [{"item": "basmati", "qty": 12}], "confirmed": False}
    )

    assert [(line["item"], line["qty"]) for line in result.structured_content["lines"]] == [("Basmati rice", 12)]


def test_send_inventory_report_emails_the_owner(mcp_server, shop, mcp_token):
    result = call(mcp_server.mcp_url, mcp_token, "send_inventory_report")

    assert result.structured_content["to"] == "alice@example.com"
    assert [message.to for message in mail.outbox] == [["alice@example.com"]]
    with use_store(shop):
        assert ReportDelivery.objects.filter(store=shop, kind="inventory").count() == 1


def test_send_sales_report_emails_the_owner(mcp_server, shop, mcp_token):
    result = call(mcp_server.mcp_url, mcp_token, "send_sales_report")

    assert not result.is_error and result.structured_content["report"] == "sales"
    assert len(mail.outbox) == 1


def test_a_report_to_another_address_is_refused_until_it_is_a_confirmed_recipient(mcp_server, shop, mcp_token):
    from django.utils import timezone

    from tenants.context import use_store
    from tenants.models import ReportRecipient

    refused = call(mcp_server.mcp_url, mcp_token, "send_inventory_report", {"to": "someone@elsewhere.example"})
    with use_store(shop):  # recipients are fenced on PostgreSQL
        ReportRecipient.objects.create(store=shop, email="someone@elsewhere.example", token_hash="x", added_by="test",
                                       created_at=timezone.now(), confirmed_at=timezone.now())
    allowed = call(mcp_server.mcp_url, mcp_token, "send_inventory_report", {"to": "someone@elsewhere.example"})

    assert refused.is_error and refused.structured_content["error"] == "recipient_not_allowed"
    assert not allowed.is_error
    assert [message.to for message in mail.outbox] == [["someone@elsewhere.example"]]


def test_the_sales_report_can_be_switched_off(mcp_server, shop, mcp_token, settings):
    settings.SALES_REPORT_EMAIL_ENABLED = False

    result = call(mcp_server.mcp_url, mcp_token, "send_sales_report")

    assert result.is_error and "switched off" in result.content[0].text
    assert mail.outbox == []


# -- stores and credentials ------------------------------------------------------------------


def test_two_stores_tokens_see_only_their_own_ledgers(mcp_server, shop, other_shop, mcp_token, other_token):
    mine = call(mcp_server.mcp_url, mcp_token, "get_inventory", {"filter": "all"}).structured_content
    theirs = call(mcp_server.mcp_url, other_token, "get_inventory", {"filter": "all"}).structured_content
    not_theirs = call(mcp_server.mcp_url, other_token, "get_inventory", {"item": "toor dal"})
    call(mcp_server.mcp_url, other_token, "update_inventory", {"item": "Basmati rice", "stock": 70, "expectedStock": 77})

    assert {p["name"] for p in mine["products"]} == {row[0] for row in CORNER_SHOP}
    assert {p["name"] for p in theirs["products"]} == {row[0] for row in OTHER_SHOP}
    assert not_theirs.is_error and not_theirs.structured_content["error"] == "product_not_found"
    assert (stock_of(shop, "Basmati rice"), stock_of(other_shop, "Basmati rice")) == (20, 70)


def test_another_stores_draft_cannot_be_confirmed_or_seen(mcp_server, shop, other_shop, mcp_token):
    draft_id = call(mcp_server.mcp_url, mcp_token, "place_reorder", {"confirmed": False}).structured_content["draftId"]
    other_confirmer = token_create(store=other_shop, name="Other agent", scopes=["mcp", "orders:confirm"])[1]

    result = call(mcp_server.mcp_url, other_confirmer, "place_reorder", {"confirmed": True, "draftId": draft_id})

    assert result.is_error and result.structured_content["error"] == "not_found"
    assert drafts_of(shop)[0].status == "pending"


def _post(mcp_server, headers=None, *, method="POST", path="/mcp", body=None):
    request_headers = {"Content-Type": "application/json", "Accept": "application/json, text/event-stream"}
    request_headers.update(headers or {})
    payload = body if body is not None else {"jsonrpc": "2.0", "id": 1, "method": "ping"}
    with httpx.Client(base_url=mcp_server.base_url, timeout=10) as client:
        if method != "POST":
            return client.request(method, path, headers=request_headers)
        if isinstance(payload, bytes):
            return client.post(path, content=payload, headers=request_headers)
        return client.post(path, json=payload, headers=request_headers)


def test_no_token_gets_401_pointing_at_the_resource_metadata(mcp_server, db):
    response = _post(mcp_server)

    assert response.status_code == 401
    challenge = response.headers["www-authenticate"]
    assert challenge.startswith("Bearer ")
    assert f'resource_metadata="{mcp_server.base_url}{METADATA_PATH}"' in challenge
    assert "error=" not in challenge  # no credentials sent: no error code (RFC 6750)


def test_a_wrong_or_revoked_token_gets_401(mcp_server, shop, mcp_token):
    wrong = _post(mcp_server, {"Authorization": "Bearer sw_0123456789_not-the-secret"})
    token = token_create(store=shop, name="Old laptop", scopes=["mcp"])
    token_revoke(store=shop, token_id=token[0].pk, actor="user:test")
    revoked = _post(mcp_server, {"Authorization": f"Bearer {token[1]}"})
    nonsense = _post(mcp_server, {"Authorization": "Basic dXNlcjpwYXNz"})

    for response in (wrong, revoked):
        assert response.status_code == 401
        assert 'error="invalid_token"' in response.headers["www-authenticate"]
        assert "resource_metadata=" in response.headers["www-authenticate"]
    assert nonsense.status_code == 401


def test_a_token_for_the_rest_api_only_is_not_accepted_here(mcp_server, shop):
    api_only = token_create(store=shop, name="Spreadsheet", scopes=["api"])[1]

    response = _post(mcp_server, {"Authorization": f"Bearer {api_only}"})

    assert response.status_code == 403
    assert 'error="insufficient_scope"' in response.headers["www-authenticate"]
    assert 'scope="mcp"' in response.headers["www-authenticate"]


def test_the_protected_resource_metadata_describes_this_server(mcp_server, db):
    with httpx.Client(base_url=mcp_server.base_url) as client:
        metadata = client.get(METADATA_PATH)

    assert metadata.status_code == 200
    assert metadata.json()["resource"] == mcp_server.mcp_url
    assert metadata.json()["bearer_methods_supported"] == ["header"]
    assert "mcp" in metadata.json()["scopes_supported"]


def test_get_and_delete_answer_405_in_stateless_mode(mcp_server, mcp_token):
    auth = {"Authorization": f"Bearer {mcp_token}"}

    assert _post(mcp_server, auth, method="GET").status_code == 405
    assert _post(mcp_server, auth, method="DELETE").status_code == 405
    assert _post(mcp_server, auth, method="GET").headers["allow"] == "POST"


def test_host_and_origin_must_be_allowed(mcp_server, mcp_token):
    auth = {"Authorization": f"Bearer {mcp_token}"}

    assert _post(mcp_server, {**auth, "Host": "evil.example"}).status_code == 421
    assert _post(mcp_server, {**auth, "Origin": "http://evil.example"}).status_code == 403
    assert _post(mcp_server, {**auth, "Origin": "null"}).status_code == 403
    assert _post(mcp_server, {**auth, "Origin": mcp_server.base_url}).status_code == 200


def test_bad_requests_are_never_a_500(mcp_server, mcp_token):
    auth = {"Authorization": f"Bearer {mcp_token}"}
    bad_arguments = {"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {"name": "get_inventory", "arguments": [1]}}
    answers = [
        _post(mcp_server, auth, body=b"{not json"),
        _post(mcp_server, auth, body={"jsonrpc": "2.0", "id": 1, "method": "no/such/method"}),
        _post(mcp_server, auth, body=bad_arguments),
        _post(mcp_server, {**auth, "Content-Type": "text/plain"}, body=b"hello"),
    ]

    assert all(response.status_code < 500 for response in answers), [r.status_code for r in answers]
    assert all("Traceback" not in response.text for response in answers)


# -- the rules -------------------------------------------------------------------------------


def test_invalid_arguments_give_an_error_result_naming_the_field(mcp_server, shop, mcp_token):
    result = call(mcp_server.mcp_url, mcp_token, "update_inventory", {"item": "toor dal", "stock": -2, "expectedStock": 4})
    extra = call(mcp_server.mcp_url, mcp_token, "get_inventory", {"item": "rice", "store": "other-shop"})

    assert result.is_error
    assert result.content[0].text == "'stock' must be at least 0, not -2."
    assert extra.is_error and "'store'" in extra.content[0].text
    assert stock_of(shop, "Toor dal") == 4


def test_an_unknown_tool_is_an_error_result(mcp_server, shop, mcp_token):
    result = call(mcp_server.mcp_url, mcp_token, "delete_everything", {})

    assert result.is_error
    assert "There is no tool called 'delete_everything'" in result.content[0].text


def test_a_stale_expected_stock_changes_nothing(mcp_server, shop, mcp_token):
    result = call(mcp_server.mcp_url, mcp_token, "update_inventory", {"item": "Toor dal", "stock": 30, "expectedStock": 9})

    assert result.is_error
    assert result.structured_content["error"] == "stock_conflict"
    assert result.structured_content["current"] == 4
    assert stock_of(shop, "Toor dal") == 4
    with use_store(shop):
        assert not StockEntry.objects.filter(store=shop, reason="count").exists()


def test_an_ambiguous_name_is_not_guessed_for_a_write(mcp_server, shop, mcp_token):
    result = call(mcp_server.mcp_url, mcp_token, "update_inventory", {"item": "dal", "stock": 1, "expectedStock": 4})

    assert result.is_error and result.structured_content["error"] == "ambiguous_product"
    assert stock_of(shop, "Toor dal") == 4


def test_confirmed_true_without_the_scope_leaves_the_draft_pending(mcp_server, shop, mcp_token):
    draft_id = call(mcp_server.mcp_url, mcp_token, "place_reorder", {"confirmed": False}).structured_content["draftId"]

    result = call(mcp_server.mcp_url, mcp_token, "place_reorder", {"confirmed": True, "draftId": draft_id})

    assert not result.is_error
    assert result.structured_content["confirmed"] is False
    assert "approval queue" in result.structured_content["note"]
    assert [draft.status for draft in drafts_of(shop)] == ["pending"]
    with use_store(shop):
        assert not Order.objects.filter(store=shop).exists()


def test_confirmed_true_without_a_draft_id_only_drafts(mcp_server, shop, confirm_token):
    result = call(mcp_server.mcp_url, confirm_token, "place_reorder", {"confirmed": True})

    assert result.structured_content["confirmed"] is False and result.structured_content["status"] == "pending"
    with use_store(shop):
        assert not Order.objects.filter(store=shop).exists()


def test_a_credential_with_the_confirm_scope_confirms_the_named_draft(mcp_server, shop, mcp_token, confirm_token):
    draft_id = call(mcp_server.mcp_url, mcp_token, "place_reorder", {"confirmed": False}).structured_content["draftId"]

    result = call(mcp_server.mcp_url, confirm_token, "place_reorder", {"confirmed": True, "draftId": draft_id})

    assert result.structured_content["confirmed"] is True
    assert drafts_of(shop)[0].status == "confirmed"
    with use_store(shop):
        assert Order.objects.get(store=shop).pk == result.structured_content["orderId"]


def test_the_same_idempotency_key_twice_creates_one_draft(mcp_server, shop, mcp_token):
    first = call(mcp_server.mcp_url, mcp_token, "place_reorder", {"confirmed": False}, meta={"idempotencyKey": "turn-7"})
    again = call(mcp_server.mcp_url, mcp_token, "place_reorder", {"confirmed": False}, meta={"idempotencyKey": "turn-7"})
    by_header = [
        call(mcp_server.mcp_url, mcp_token, "place_reorder", {"confirmed": False}, headers={"Idempotency-Key": "turn-8"})
        for _ in range(2)
    ]

    assert first.structured_content == again.structured_content
    assert by_header[0].structured_content["draftId"] == by_header[1].structured_content["draftId"]
    assert len(drafts_of(shop)) == 2
    with use_store(shop):
        outcomes = list(Record.objects.filter(store=shop, name="place_reorder").values_list("outcome", flat=True))
    assert outcomes == ["ok", "replayed", "ok", "replayed"]


def test_an_idempotency_key_reused_for_another_call_is_refused(mcp_server, shop, mcp_token):
    call(mcp_server.mcp_url, mcp_token, "place_reorder", {"confirmed": False}, meta={"idempotencyKey": "k-1"})

    other = call(
        mcp_server.mcp_url, mcp_token, "place_reorder",
        {"items": [{"item": "Basmati rice", "qty": 1}], "confirmed": False}, meta={"idempotencyKey": "k-1"},
    )

    assert other.is_error and other.structured_content["error"] == "idempotency_key_reused"
    assert len(drafts_of(shop)) == 1


def test_the_audit_has_one_record_per_call_with_its_sql(mcp_server, shop, mcp_token):
    async def three_calls(client):
        await client.call_tool("get_inventory", {"item": "basmati"})
        await client.call_tool("update_inventory", {"item": "basmati", "stock": 19, "expectedStock": 20})
        await client.call_tool("update_inventory", {"item": "basmati", "stock": "nineteen", "expectedStock": 20})

    mcp_session(mcp_server.mcp_url, mcp_token, three_calls)

    with use_store(shop):
        records = list(Record.objects.filter(store=shop, kind="tool_call").select_related("credential").order_by("id"))
        statements = list(SqlStatement.objects.filter(record=records[1]).order_by("seq"))
    assert [(r.name, r.outcome, r.channel) for r in records] == [
        ("get_inventory", "ok", "mcp"), ("update_inventory", "ok", "mcp"), ("update_inventory", "invalid", "mcp"),
    ]
    assert all(r.credential is not None and r.actor.startswith("token:") for r in records)
    assert records[1].arguments == {"item": "basmati", "stock": 19, "expectedStock": 20}
    assert records[1].result["stock"] == 19 and records[1].duration_ms > 0
    assert any("UPDATE" in s.sql and "ledger_product" in s.sql for s in statements)
    assert [s.seq for s in statements] == list(range(1, len(statements) + 1))
    assert records[2].error.startswith("'stock' must be a whole number")


def test_a_caller_over_the_rate_limit_is_told_to_wait(mcp_server, shop, mcp_token, settings):
    settings.TOKEN_RATE_LIMIT_PER_MINUTE = 2

    async def three_calls(client):
        return [await client.call_tool("get_todays_transactions", {}) for _ in range(3)]

    results = mcp_session(mcp_server.mcp_url, mcp_token, three_calls)

    assert [r.is_error for r in results] == [False, False, True]
    assert "Too many tool calls" in results[2].content[0].text


def test_products_imported_from_a_catalog_csv_appear_in_get_inventory(mcp_server, shop, mcp_token, owner, client,
                                                                      django_capture_on_commit_callbacks):
    from django.core.files.uploadedfile import SimpleUploadedFile

    client.force_login(owner)
    csv = b"sku,name,category,unit,aisle,shelf,price,aliases\nKN-1,Kala namak,Spices,100 g pack,1,spice rack,2.49,black salt\n"
    with django_capture_on_commit_callbacks(execute=True):
        uploaded = client.post("/app/catalog/import/", {"kind": "catalog", "file": SimpleUploadedFile("c.csv", csv)})
    job = uploaded["Location"].rstrip("/").rsplit("/", 1)[1]
    with django_capture_on_commit_callbacks(execute=True):
        client.post(f"/app/catalog/imports/{job}/apply")

    found = call(mcp_server.mcp_url, mcp_token, "get_inventory", {"item": "black salt"}).structured_content["product"]
    everything = call(mcp_server.mcp_url, mcp_token, "get_inventory", {}).structured_content
    assert (found["name"], found["sku"], found["location"]) == ("Kala namak", "KN-1", "Aisle 1, spice rack")
    assert everything["count"] == len(CORNER_SHOP) + 1


def test_an_archived_product_leaves_get_inventory(mcp_server, shop, mcp_token):
    with use_store(shop):
        jaggery = Product.objects.get(store=shop, name="Jaggery")
        services.product_archive(store=shop, product=jaggery, actor="system:test")
    everything = call(mcp_server.mcp_url, mcp_token, "get_inventory", {}).structured_content
    assert "Jaggery" not in [p["name"] for p in everything["products"]]
    assert call(mcp_server.mcp_url, mcp_token, "get_inventory", {"item": "gur"}).is_error


def test_confirming_over_mcp_needs_orders_confirm_and_a_refusal_is_audited(mcp_server, shop, mcp_token, confirm_token):
    drafted = call(mcp_server.mcp_url, mcp_token, "place_reorder", {"confirmed": False}).structured_content
    refused = call(mcp_server.mcp_url, mcp_token, "place_reorder", {"confirmed": True, "draftId": drafted["draftId"]})
    assert refused.structured_content["confirmed"] is False and "cannot confirm orders" in refused.structured_content["note"]
    with use_store(shop):
        assert not Order.objects.filter(store=shop).exists()
        assert Record.objects.filter(store=shop, name="place_reorder", arguments__confirmed=True).exists()
    placed = call(mcp_server.mcp_url, confirm_token, "place_reorder", {"confirmed": True, "draftId": drafted["draftId"]})
    assert placed.structured_content["confirmed"] is True
    with use_store(shop):
        assert Order.objects.filter(store=shop).count() == 1
