"""REST throttles per token and per user on turns and writes: 429 with a clear message, reads untouched."""

from __future__ import annotations

import pytest
from django.core.cache import cache
from rest_framework.test import APIClient

from shelfwise.throttling import CallerRateThrottle
from tenants.services import token_create


@pytest.fixture(autouse=True)
def _tight_rates(monkeypatch):
    cache.clear()
    monkeypatch.setattr(CallerRateThrottle, "THROTTLE_RATES", {"turns": "2/min", "writes": "3/min"})
    yield
    cache.clear()


def _token_client(store, name="t") -> APIClient:
    _, raw = token_create(store=store, name=name, scopes=["api"])
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Bearer {raw}")
    return client


def _turn(client) -> int:
    # An empty turn is refused by validation, after the throttle has counted it: no model runs.
    return client.post("/api/v1/turns", {"text": ""}, format="json").status_code


def test_a_token_over_its_turn_budget_gets_429_with_a_sentence_and_retry_after(store):
    client = _token_client(store)

    codes = [_turn(client) for _ in range(3)]

    assert codes == [400, 400, 429]
    response = client.post("/api/v1/turns", {"text": ""}, format="json")
    assert response.status_code == 429
    assert response.json()["error"]["code"] == "throttled"
    assert "wait" in response.json()["error"]["message"] and "seconds" in response.json()["error"]["message"]
    assert int(response["Retry-After"]) > 0


def test_each_token_has_its_own_budget(store):
    first, second = _token_client(store, "a"), _token_client(store, "b")

    [_turn(first) for _ in range(3)]

    assert _turn(second) == 400


def test_a_signed_in_user_is_throttled_per_user(owner, store):
    client = APIClient()
    client.force_login(owner)

    assert [_turn(client) for _ in range(3)] == [400, 400, 429]


def test_reads_are_not_throttled(store):
    client = _token_client(store)

    assert {client.get("/api/v1/drafts").status_code for _ in range(6)} == {200}


def test_writes_have_their_own_budget(store):
    client = _token_client(store)

    codes = [client.post("/api/v1/drafts/999999", {}, format="json").status_code for _ in range(4)]

    assert codes[-1] == 429 and 429 not in codes[:3]
