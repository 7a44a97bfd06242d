"""Every write on the owner pages and the REST API leaves one audit record with its channel (audit.middleware)."""

from __future__ import annotations

from decimal import Decimal

import pytest
from django.urls import reverse
from rest_framework.test import APIClient

from audit.models import Record
from ledger import services
from tenants.context import use_store
from tenants.services import token_create

pytestmark = pytest.mark.django_db


def _product(store, name="Toor dal", **fields):
    values = {"price": Decimal("8.99"), "stock": 4, "par_level": 20, "reorder_point": 5, "actor": "system:test",
              "sku": "DAL-1"}
    values.update(fields)
    with use_store(store):
        return services.product_create(store=store, name=name, **values)


def _events(store):
    with use_store(store):
        return list(Record.objects.filter(store=store, kind=Record.Kind.EVENT).order_by("id"))


def test_a_count_set_on_the_inventory_page_is_audited_as_the_dashboard(client, store, owner):
    product = _product(store)
    client.force_login(owner)
    client.post(reverse("owner:stock-count", args=[product.pk]), {"count": "15", "expected": "4", "note": "counted"})

    [record] = _events(store)
    assert (record.channel, record.name, record.actor, record.outcome) == (
        "dashboard", "owner:stock-count", f"user:{owner.pk}", "ok")
    assert record.arguments == {"count": "15", "expected": "4", "note": "counted"}, "no CSRF token, just the fields"
    assert record.result["status"] == 302


def test_a_refused_page_write_is_audited_as_denied_and_reads_are_not_audited(client, store, staff):
    product = _product(store)
    with use_store(store):
        draft = services.draft_create(store=store, items=[(product, 6)], actor="system:test", source="assistant")
    client.force_login(staff)
    client.get(reverse("owner:inventory"))
    assert client.post(reverse("owner:draft-approve", args=[draft.pk])).status_code == 403

    [record] = [record for record in _events(store) if record.name == "owner:draft-approve"]
    assert (record.channel, record.outcome, record.result["status"]) == ("dashboard", "denied", 403)
    assert not [record for record in _events(store) if record.name == "owner:inventory"]


def test_a_tills_receipt_is_audited_as_the_api_with_its_credential(store, owner, other_store):
    _product(store)
    token, raw = token_create(store=store, name="till", scopes=["api"])
    till = APIClient()
    till.credentials(HTTP_AUTHORIZATION=f"Bearer {raw}")
    assert till.post("/api/v1/receipts", {"lines": [{"sku": "DAL-1", "qty": 2}]}, format="json").status_code == 201
    assert till.post("/api/v1/receipts", {"lines": [{"sku": "NOPE", "qty": 1}]}, format="json").status_code == 400

    ok, refused = _events(store)
    assert (ok.channel, ok.name, ok.credential_id, ok.outcome) == ("api", "api-receipts", token.pk, "ok")
    assert ok.actor.startswith("token:") and ok.arguments["lines"] == '[{"sku": "DAL-1", "qty": 2}]'
    assert (refused.outcome, refused.result["status"]) == ("invalid", 400)
    assert _events(other_store) == []


def test_a_turn_is_left_to_the_pipeline_and_secrets_never_reach_the_record(client, store, owner):
    client.force_login(owner)
    client.post(reverse("owner:inventory"), {"password": "hunter2", "api_token": "sw_x", "q": "dal"})

    for record in _events(store):
        assert "password" not in record.arguments and "api_token" not in record.arguments
