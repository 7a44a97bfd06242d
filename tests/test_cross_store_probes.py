"""Cross-store probes: Charlie (owner of another store) tries every surface on Alice's store's rows.

Each probe uses Charlie's own valid credentials (session, store tokens, an OAuth token from
the consent page) and Alice's store's ids and words. Nothing of Alice's may come back, and
nothing of hers may change. Runs on SQLite and, in CI's second run, on PostgreSQL with
row-level security (where the database refuses too).
"""

from __future__ import annotations

import asyncio

import pytest
from django.test import Client
from rest_framework.test import APIClient

from audit.services import tool_call_record
from audit.turns import turn_start
from identity.tests.oauth_flow import tokens_for
from ledger import services
from ledger.models import Product, ReorderDraft
from mcp_gateway.execution import execute_tool
from mcp_gateway.policy import Caller
from tenants.context import use_store
from tenants.services import token_create

SECRET = "Alice secret saffron"


@pytest.fixture
def alice_rows(store, owner):
    """Alice's store: a product only she carries, a pending draft, an audited conversation."""
    with use_store(store):
        product = services.product_create(
            store=store, name=SECRET, unit="1 g tin", category="Spices", location="Safe, top shelf", stock=3,
            par_level=10, reorder_point=4, price="40.00", unit_cost="30.00", aliases=["kesar"], actor="system:test",
        )
        draft = services.draft_create(store=store, items=[(product, 7)], actor="system:test", source=ReorderDraft.Source.ASSISTANT)
        turn = turn_start(store=store, conversation="alice-conv", index=1, mode="router", channel="api", actor="t",
                          text=f"how much {SECRET}")
        record = tool_call_record(store=store, channel="assistant", actor="t", name="get_inventory",
                                  arguments={"item": SECRET}, result={"stock": 3}, outcome="ok", duration_ms=1,
                                  conversation="alice-conv", turn_id=turn.pk)
    return {"product": product, "draft": draft, "turn": turn, "record": record}


@pytest.fixture
def charlie(other_store, other_owner):
    with use_store(other_store):
        services.product_create(
            store=other_store, name="Claw hammer", unit="1", category="Tools", location="Aisle 9", stock=5,
            par_level=10, reorder_point=2, price="9.00", unit_cost="5.00", actor="system:test",
        )
    return other_owner


def _api(store, scopes=("api",)) -> APIClient:
    _, raw = token_create(store=store, name="probe", scopes=list(scopes))
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Bearer {raw}")
    return client


def _browser(user) -> Client:
    client = Client()
    client.force_login(user)
    return client


def _untouched(store, rows) -> None:
    with use_store(store):
        assert Product.objects.get(pk=rows["product"].pk).stock == 3
        assert ReorderDraft.objects.get(pk=rows["draft"].pk).status == ReorderDraft.Status.PENDING


def _no_secret(response) -> None:
    assert SECRET not in response.content.decode(errors="replace")


REST_READS = ["/api/v1/products/{product}", "/api/v1/drafts/{draft}", "/api/v1/audit?conversation=alice-conv"]


@pytest.mark.parametrize("path", REST_READS)
def test_rest_with_charlies_token_finds_none_of_alices_rows(alice_rows, charlie, other_store, store, path):
    response = _api(other_store).get(path.format(product=alice_rows["product"].pk, draft=alice_rows["draft"].pk))

    assert response.status_code == 404
    _no_secret(response)


def test_rest_search_and_lists_show_only_charlies_store(alice_rows, charlie, other_store, store):
    client = _api(other_store)
    for path in ("/api/v1/products?search=saffron", "/api/v1/products?search=kesar", "/api/v1/drafts", "/api/v1/orders"):
        response = client.get(path)
        assert response.status_code == 200
        _no_secret(response)


def test_rest_writes_on_alices_draft_are_not_found_and_change_nothing(alice_rows, charlie, other_store, store):
    response = _api(other_store).post(f"/api/v1/drafts/{alice_rows['draft'].pk}", {"action": "approve"}, format="json")

    assert response.status_code in (404, 405)
    _untouched(store, alice_rows)


def test_rest_with_charlies_session_finds_none_of_alices_rows(alice_rows, charlie, store):
    client = APIClient()
    client.force_login(charlie)

    assert client.get(f"/api/v1/products/{alice_rows['product'].pk}").status_code == 404
    assert client.get("/api/v1/audit?conversation=alice-conv").status_code == 404


def test_mcp_tools_with_charlies_token_cannot_reach_alices_store(alice_rows, charlie, other_store, store):
    token, _ = token_create(store=other_store, name="probe", scopes=["mcp", "orders:confirm"])
    caller = Caller.for_token(token)

    aimed_at_alice = execute_tool("get_inventory", {"item": "kesar"}, store=store, caller=caller)
    own_store = execute_tool("get_inventory", {"item": "kesar"}, store=other_store, caller=caller)
    confirm = execute_tool("place_reorder", {"confirmed": True, "draftId": alice_rows["draft"].pk}, store=other_store,
                           caller=caller)

    assert aimed_at_alice.outcome == "denied"
    assert SECRET not in str(own_store.data) and SECRET not in own_store.message
    assert not confirm.ok or not confirm.data.get("confirmed")
    _untouched(store, alice_rows)


@pytest.mark.parametrize("path", ["/app/inventory/{product}/", "/app/approvals/", "/app/assistant/"])
def test_owner_pages_as_charlie_show_none_of_alices_rows(alice_rows, charlie, store, path):
    response = _browser(charlie).get(path.format(product=alice_rows["product"].pk))

    assert response.status_code in (200, 404)
    _no_secret(response)


def test_page_actions_on_alices_draft_are_not_found(alice_rows, charlie, store):
    browser = _browser(charlie)

    for action in ("approve", "decline"):
        assert browser.post(f"/app/approvals/{alice_rows['draft'].pk}/{action}").status_code == 404
    assert browser.post(f"/app/inventory/{alice_rows['product'].pk}/count", {"count": 0, "expected": 3}).status_code == 404
    _untouched(store, alice_rows)


@pytest.mark.parametrize("path", ["/admin/", "/admin/ledger/product/", "/ops/", "/ops/audit/turns/{turn}/",
                                  "/ops/audit/calls/{record}/"])
def test_admin_and_ops_refuse_a_store_owner(alice_rows, charlie, path):
    response = _browser(charlie).get(path.format(turn=alice_rows["turn"].pk, record=alice_rows["record"].pk))

    assert response.status_code == 403
    _no_secret(response)


def test_the_shelf_finder_of_charlies_store_never_shows_alices_shelves(alice_rows, charlie, other_store, store):
    for query in ("saffron", "kesar", SECRET):
        response = Client().get(f"/s/{other_store.slug}/find", {"q": query})
        assert response.status_code == 200
        # The page may repeat the shopper's words; Alice's shelf and product must not appear.
        assert "Safe, top shelf" not in response.content.decode()
        if query != SECRET:
            _no_secret(response)


def test_the_vendor_prompt_preview_of_alices_store_is_refused(alice_rows, charlie, store):
    response = _browser(charlie).get("/vendors/grocery/", {"store": store.slug})

    assert response.status_code == 404
    _no_secret(response)


def test_an_oauth_token_minted_for_charlies_store_reads_nothing_of_alices(alice_rows, charlie, other_store, store):
    answer = tokens_for(_browser(charlie), other_store.pk, ["api"], resource="http://testserver/api/v1")
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Bearer {answer['access_token']}")

    assert client.get(f"/api/v1/products/{alice_rows['product'].pk}").status_code == 404
    _no_secret(client.get("/api/v1/products?search=saffron"))


def test_charlie_cannot_consent_for_alices_store(alice_rows, charlie, store):
    from identity.tests.oauth_flow import Pkce, authorize_url, consent, register

    client_id = register()["client_id"]
    response = consent(_browser(charlie), authorize_url(client_id, Pkce.new()), store_id=store.pk, scopes=["mcp"])

    assert response.status_code == 200 and "Choose one of your stores" in response.content.decode()


@pytest.mark.django_db(transaction=True)
def test_the_voice_socket_of_alices_store_closes_for_charlie(alice_rows, charlie, store):
    from channels.testing import WebsocketCommunicator
    from django.conf import settings

    from shelfwise.asgi import application

    cookie = _browser(charlie).cookies[settings.SESSION_COOKIE_NAME].value

    async def probe():
        socket = WebsocketCommunicator(application, f"/ws/stores/{store.slug}/voice", headers=[
            (b"origin", b"http://testserver"), (b"host", b"testserver"),
            (b"cookie", f"{settings.SESSION_COOKIE_NAME}={cookie}".encode())])
        connected, _ = await socket.connect(timeout=10)
        first = await socket.receive_output(timeout=10) if connected else {"type": "websocket.close"}
        await socket.disconnect()
        return first

    first = asyncio.run(probe())

    assert first["type"] == "websocket.close"
    assert SECRET not in str(first)
