"""Degraded modes: the database refusing, Redis gone. Clean answers, never a 500, and recovery.

The database is taken away at its boundary with ``connection.execute_wrapper`` (every statement
fails as it would while PostgreSQL restarts); Redis by pointing the cache at a port nobody
listens on.
"""

from __future__ import annotations

from decimal import Decimal

import pytest
from django.db import OperationalError, connection
from django.test import Client
from django.urls import reverse
from rest_framework.test import APIClient

from ledger import services
from shelfwise.testing import redis_down_caches
from tenants.context import use_store
from tenants.services import token_create

pytestmark = pytest.mark.django_db

UNAVAILABLE = "The service is briefly unavailable. Nothing was changed; please try again in a moment."


def refuse(execute, sql, params, many, context):
    raise OperationalError("server closed the connection unexpectedly")


def test_while_the_database_refuses_a_page_answers_503_and_the_next_request_works(demo, owner):
    client = Client(raise_request_exception=False)
    client.force_login(owner)

    with connection.execute_wrapper(refuse):
        down = client.get("/app/inventory/")
    up = client.get("/app/inventory/")

    assert down.status_code == 503 and down["Retry-After"] == "5"
    assert UNAVAILABLE in down.content.decode()
    assert "Traceback" not in down.content.decode() and "OperationalError" not in down.content.decode()
    assert up.status_code == 200


def test_while_the_database_refuses_the_api_answers_503_in_json_and_the_next_call_works(demo):
    _, raw = token_create(store=demo, name="till", scopes=["api"])
    client = APIClient(raise_request_exception=False)
    client.credentials(HTTP_AUTHORIZATION=f"Bearer {raw}")

    with connection.execute_wrapper(refuse):
        down = client.get("/api/v1/products?search=atta")
    up = client.get("/api/v1/products?search=atta")

    assert down.status_code == 503
    assert down.json() == {"error": {"code": "unavailable", "message": UNAVAILABLE}}
    assert up.status_code == 200 and up.json()


def test_while_the_database_refuses_healthz_says_so_with_503(db):
    client = Client(raise_request_exception=False)
    with connection.execute_wrapper(refuse):
        down = client.get("/healthz")
    assert (down.status_code, down.json()) == (503, {"status": "unavailable", "database": "down"})
    assert client.get("/healthz").status_code == 200


def test_with_redis_down_the_shelf_finder_answers_and_still_rate_limits(store, settings, finder_minute):
    settings.CACHES = redis_down_caches()
    settings.SHELF_FINDER_RATE_PER_MINUTE = 3
    with use_store(store):
        services.product_create(store=store, name="Turmeric powder", unit="200 g pack", category="Spices",
                                location="Aisle 1, spice rack", aliases=["haldi"], stock=5, par_level=10,
                                reorder_point=2, price=Decimal("3.49"), unit_cost=Decimal("1.61"), actor="system:test")
    url = reverse("public:shelf-finder", args=[store.slug])
    client = Client(raise_request_exception=False)

    answers = [client.get(url, {"q": "haldi"}) for _ in range(4)]

    assert [answer.status_code for answer in answers] == [200, 200, 200, 429]
    assert "Aisle 1, spice rack" in answers[0].content.decode()
