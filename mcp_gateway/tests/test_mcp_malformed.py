"""Malformed input to /mcp: every probe gets a clean error (never a 500 or a stack trace) and the
server keeps serving. Raw HTTP, so nothing is smoothed over by a client library."""

from __future__ import annotations

import json

import httpx
import pytest

from mcp_gateway.tests.conftest import call

pytestmark = pytest.mark.django_db(transaction=True)

HEADERS = {"Accept": "application/json, text/event-stream", "Content-Type": "application/json",
           "MCP-Protocol-Version": "2025-11-25"}
INIT = {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
    "protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "probe", "version": "1"}}}


def _call(tool, arguments, id_=7):
    return {"jsonrpc": "2.0", "id": id_, "method": "tools/call", "params": {"name": tool, "arguments": arguments}}


# (name, body bytes or JSON-able, extra headers)
PROBES = [
    ("not json", b"{this is not json", {}),
    ("empty body", b"", {}),
    ("json array of junk", [1, 2, 3], {}),
    ("json string", "hello", {}),
    ("no jsonrpc field", {"id": 1, "method": "tools/list"}, {}),
    ("wrong jsonrpc version", {"jsonrpc": "1.0", "id": 1, "method": "tools/list"}, {}),
    ("method not a string", {"jsonrpc": "2.0", "id": 1, "method": 42}, {}),
    ("unknown method", {"jsonrpc": "2.0", "id": 1, "method": "tools/explode", "params": {}}, {}),
    ("params not an object", {"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": [1]}, {}),
    ("tool name not a string", _call(123, {}), {}),
    ("unknown tool", _call("drop_all_tables", {}), {}),
    ("arguments not an object", _call("get_inventory", "gur"), {}),
    ("wrong argument type", _call("update_inventory", {"item": "gur", "stock": "lots", "expectedStock": []}), {}),
    ("absurd number", _call("update_inventory", {"item": "gur", "stock": 10**30, "expectedStock": -10**30}), {}),
    ("huge string", _call("get_inventory", {"item": "x" * 200_000}), {}),
    ("deep nesting", _call("get_inventory", {"item": json.loads("[" * 500 + "]" * 500)}), {}),
    ("extra arguments", _call("get_inventory", {"item": "gur", "store": "other-shop"}), {}),
    ("bogus session header", INIT, {"Mcp-Session-Id": "not-a-session-of-ours"}),
    ("unknown protocol version header", {"jsonrpc": "2.0", "id": 1, "method": "tools/list"},
     {"MCP-Protocol-Version": "1999-01-01"}),
    ("wrong content type", INIT, {"Content-Type": "text/plain"}),
    ("accepts nothing we send", INIT, {"Accept": "image/png"}),
    ("null id", {"jsonrpc": "2.0", "id": None, "method": "tools/list"}, {}),
    ("batch", [INIT, INIT], {}),
]


@pytest.mark.parametrize(("name", "body", "headers"), PROBES, ids=[p[0] for p in PROBES])
def test_a_malformed_request_gets_a_clean_error_and_the_server_keeps_serving(mcp_server, shop, mcp_token, name, body,
                                                                             headers):
    content = body if isinstance(body, bytes) else json.dumps(body).encode()
    sent = {**HEADERS, "Authorization": f"Bearer {mcp_token}", **headers}

    response = httpx.post(mcp_server.mcp_url, content=content, headers=sent, timeout=30)

    assert response.status_code < 500, (name, response.status_code, response.text[:300])
    text = response.text
    assert "Traceback" not in text and "File \"/" not in text
    if response.status_code == 200 and response.headers.get("content-type", "").startswith("application/json"):
        payload = response.json()
        # A JSON-RPC error, or a tool result flagged isError: never a silent success for junk.
        results = payload if isinstance(payload, list) else [payload]
        for item in results:
            if "result" in item and isinstance(item["result"], dict) and "content" in item["result"]:
                assert item["result"].get("isError") is True, (name, item)
    # ...and the next well-formed call works.
    assert not call(mcp_server.mcp_url, mcp_token, "get_inventory", {"item": "gur"}).is_error


def test_an_oversized_body_is_refused_before_it_is_read(mcp_server, shop, mcp_token, settings):
    body = json.dumps(_call("get_inventory", {"item": "y" * (2 * 1024 * 1024)})).encode()

    response = httpx.post(mcp_server.mcp_url, content=body,
                          headers={**HEADERS, "Authorization": f"Bearer {mcp_token}"}, timeout=30)

    assert response.status_code == 413
    assert not call(mcp_server.mcp_url, mcp_token, "get_inventory", {"item": "gur"}).is_error


@pytest.mark.parametrize("authorization", ["Bearer", "Basic dXNlcjpwYXNz", "Bearer sw_zz_zz",
                                           "Bearer " + "a" * 5000, "Bearer sw_0123456789_" + "b" * 300])
def test_malformed_credentials_get_401_with_the_metadata_challenge(mcp_server, shop, authorization):
    response = httpx.post(mcp_server.mcp_url, json=INIT, headers={**HEADERS, "Authorization": authorization}, timeout=30)

    assert response.status_code == 401
    assert "resource_metadata=" in response.headers["www-authenticate"]
