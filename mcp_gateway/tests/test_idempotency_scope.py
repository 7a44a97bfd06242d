"""Idempotency keys are scoped per credential and expire."""

from __future__ import annotations

import io
from datetime import timedelta

import pytest
from django.core.management import call_command
from django.utils import timezone

from ledger.models import StockEntry
from mcp_gateway.execution import execute_tool
from mcp_gateway.models import IdempotencyKey
from mcp_gateway.policy import Caller
from tenants.context import use_store
from tenants.services import token_create

pytestmark = pytest.mark.django_db

ARGS = {"item": "Toor dal", "stock": 9, "expectedStock": 4}


def _client(store, name: str) -> Caller:
    token, _ = token_create(store=store, name=name, scopes=["mcp"])
    return Caller.for_token(token)


def _counts(store) -> int:
    with use_store(store):
        return StockEntry.objects.filter(store=store, reason="count").count()


def test_one_clients_key_neither_replays_nor_blocks_another_clients_call(shop):
    first_client, second_client = _client(shop, "Claude"), _client(shop, "Cursor")

    first = execute_tool("update_inventory", ARGS, store=shop, caller=first_client, idempotency_key="k-1")
    other = execute_tool(
        "update_inventory", {**ARGS, "stock": 11, "expectedStock": 9}, store=shop, caller=second_client,
        idempotency_key="k-1",
    )

    assert first.outcome == "ok" and other.outcome == "ok" and not other.replayed
    assert other.data["stock"] == 11
    assert _counts(shop) == 2
    with use_store(shop):
        assert sorted(IdempotencyKey.objects.values_list("credential", flat=True)) == sorted(
            [first_client.credential_key, second_client.credential_key]
        )


def test_the_same_client_and_key_replays_within_the_ttl(shop):
    client = _client(shop, "Claude")

    execute_tool("update_inventory", ARGS, store=shop, caller=client, idempotency_key="k-2")
    again = execute_tool("update_inventory", ARGS, store=shop, caller=client, idempotency_key="k-2")

    assert again.replayed and _counts(shop) == 1


def test_an_expired_key_runs_the_call_again(shop, settings):
    client = _client(shop, "Claude")
    execute_tool("update_inventory", ARGS, store=shop, caller=client, idempotency_key="k-3")
    with use_store(shop):
        IdempotencyKey.objects.filter(key="k-3").update(expires_at=timezone.now() - timedelta(seconds=1))

    again = execute_tool(
        "update_inventory", {**ARGS, "stock": 12, "expectedStock": 9}, store=shop, caller=client, idempotency_key="k-3"
    )

    assert again.outcome == "ok" and not again.replayed and again.data["stock"] == 12
    assert _counts(shop) == 2


def test_a_new_key_expires_after_the_configured_ttl(shop, settings):
    settings.IDEMPOTENCY_KEY_TTL_HOURS = 2
    client = _client(shop, "Claude")

    execute_tool("update_inventory", ARGS, store=shop, caller=client, idempotency_key="k-4")

    with use_store(shop):
        row = IdempotencyKey.objects.get(key="k-4")
    assert timedelta(hours=1, minutes=59) < row.expires_at - timezone.now() <= timedelta(hours=2)


def test_the_purge_deletes_expired_keys_of_every_store_and_keeps_live_ones(shop, other_store):
    from ledger.demo import install_demo_catalog

    with use_store(other_store):
        install_demo_catalog(store=other_store)
    ours, theirs = _client(shop, "Claude"), _client(other_store, "Claude")
    execute_tool("update_inventory", ARGS, store=shop, caller=ours, idempotency_key="old")
    execute_tool("update_inventory", ARGS, store=other_store, caller=theirs, idempotency_key="old")
    execute_tool("update_inventory", {**ARGS, "stock": 3, "expectedStock": 9}, store=shop, caller=ours,
                 idempotency_key="live")
    for store in (shop, other_store):
        with use_store(store):
            IdempotencyKey.objects.filter(key="old").update(expires_at=timezone.now() - timedelta(minutes=1))

    out = io.StringIO()
    call_command("purge_idempotency_keys", stdout=out)

    assert "Deleted 2 expired" in out.getvalue()
    with use_store(shop):
        assert list(IdempotencyKey.objects.values_list("key", flat=True)) == ["live"]
