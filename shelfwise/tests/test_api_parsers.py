"""JSON bodies the decoder cannot hold: arrays nested thousands deep get a 400 parse error, not a 500."""

from __future__ import annotations

import pytest
from rest_framework.test import APIClient

from tenants.services import token_create

DEEP = "[" * 5000 + "]" * 5000  # 10 KB; Python's decoder gives up near a thousand levels

pytestmark = pytest.mark.django_db


@pytest.fixture
def client(demo):
    _, raw = token_create(store=demo, name="parsers", scopes=["api"])
    client = APIClient(raise_request_exception=False)
    client.credentials(HTTP_AUTHORIZATION=f"Bearer {raw}")
    return client


@pytest.mark.parametrize("path", ["/api/v1/turns", "/api/v1/receipts", "/api/v1/orders/1/receive",
                                  "/api/v1/receipts/1/refund"])
def test_json_nested_too_deep_is_a_400_parse_error_and_the_next_request_works(client, path):
    response = client.generic("POST", path, DEEP, content_type="application/json")

    assert response.status_code == 400, response.content
    assert response.json()["error"] == {"code": "parse_error",
                                        "message": "JSON parse error - the body is nested too deeply."}
    assert client.get("/api/v1/products").status_code == 200


def test_json_nested_but_decodable_is_read_as_usual(client):
    response = client.generic("POST", "/api/v1/turns", '{"text": "", "x": ' + "[" * 100 + "]" * 100 + "}",
                              content_type="application/json")

    assert response.status_code == 400 and response.json()["error"]["code"] == "invalid"
