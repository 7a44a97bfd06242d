"""End to end: the official MCP Python client's OAuth provider against the live server.

The client discovers the protected-resource metadata from the 401, the authorization server's
metadata, registers itself (RFC 7591), sends the owner to the consent page (answered here by a
scripted browser holding the owner's session), exchanges the code with PKCE and a resource
indicator, and calls the store's tools with the token; a second store's owner gets nothing of it.
"""

from __future__ import annotations

import asyncio
import re
from urllib.parse import parse_qs, urljoin, urlsplit

import httpx
import httpx2
import pytest
from django.test import Client as DjangoClient
from mcp import Client
from mcp.client.auth import OAuthClientProvider
from mcp.client.streamable_http import streamable_http_client
from mcp.shared.auth import (
    AuthorizationCodeResult,
    OAuthClientInformationFull,
    OAuthClientMetadata,
    OAuthToken,
)

from identity.models import Connection
from identity.tests.oauth_flow import hidden_fields
from mcp_gateway.tests.conftest import mcp_server, other_shop, shop  # noqa: F401 - the live server and the shops
from tenants.context import use_store

pytestmark = pytest.mark.django_db(transaction=True)

CALLBACK = "http://127.0.0.1:33418/callback"


class MemoryStorage:
    def __init__(self) -> None:
        self.tokens: OAuthToken | None = None
        self.client: OAuthClientInformationFull | None = None

    async def get_tokens(self):
        return self.tokens

    async def set_tokens(self, tokens):
        self.tokens = tokens

    async def get_client_info(self):
        return self.client

    async def set_client_info(self, client_info):
        self.client = client_info


class ScriptedConsent:
    """The owner's browser: opens the consent page, picks the store and scopes, follows the redirect."""

    def __init__(self, session_cookie: str, store_id: int, scopes: list[str]) -> None:
        self.cookie, self.store_id, self.scopes = session_cookie, store_id, scopes
        self.result: AuthorizationCodeResult | None = None
        self.page = ""

    async def redirect(self, url: str) -> None:
        async with httpx.AsyncClient(timeout=30, follow_redirects=False) as browser:
            page = await browser.get(url, headers={"Cookie": f"sessionid={self.cookie}"})
            assert page.status_code == 200, page.text[:300]
            self.page = page.text
            csrf = page.cookies.get("csrftoken")
            form = {**hidden_fields(page.text), "store": str(self.store_id), "allow": "Authorize"}
            form["csrfmiddlewaretoken"] = re.search(r'name="csrfmiddlewaretoken" value="([^"]+)"', page.text).group(1)
            answer = await browser.post(
                urljoin(url, "/oauth/authorize/"), data={**form, "grant_scopes": self.scopes},
                headers={"Cookie": f"sessionid={self.cookie}; csrftoken={csrf}"},
            )
        assert answer.status_code == 302, answer.text[:300]
        query = parse_qs(urlsplit(answer.headers["location"]).query)
        self.result = AuthorizationCodeResult(
            code=query["code"][0], state=query.get("state", [None])[0], iss=query.get("iss", [None])[0]
        )

    async def callback(self) -> AuthorizationCodeResult:
        assert self.result is not None
        return self.result


def _session_cookie(user) -> str:
    browser = DjangoClient()
    browser.force_login(user)
    return browser.cookies["sessionid"].value


def _run_client(url: str, consent: ScriptedConsent, use):
    async def main():
        provider = OAuthClientProvider(
            server_url=url,
            client_metadata=OAuthClientMetadata(
                client_name="Scripted MCP client", redirect_uris=[CALLBACK], grant_types=["authorization_code", "refresh_token"],
                response_types=["code"], token_endpoint_auth_method="none", scope="mcp",
            ),
            storage=MemoryStorage(),
            redirect_handler=consent.redirect,
            callback_handler=consent.callback,
        )
        async with (
            httpx2.AsyncClient(auth=provider, timeout=30) as http,
            Client(streamable_http_client(url, http_client=http)) as client,
        ):
            return await use(client)

    return asyncio.run(main())


def test_the_official_client_signs_in_with_oauth_and_uses_the_owners_store(mcp_server, shop, owner):  # noqa: F811
    consent = ScriptedConsent(_session_cookie(owner), shop.pk, ["mcp"])

    async def use(client):
        listing = await client.list_tools()
        result = await client.call_tool("get_inventory", {"item": "toor dal"})
        return listing, result

    listing, result = _run_client(mcp_server.mcp_url, consent, use)

    assert "get_inventory" in {tool.name for tool in listing.tools}
    assert not result.is_error and result.structured_content["product"]["name"] == "Toor dal"
    assert shop.name in consent.page
    with use_store(shop):  # the store credential is fenced on PostgreSQL
        connection = Connection.objects.select_related("credential").get()
    assert connection.user == owner and connection.credential.store == shop
    assert connection.credential.scopes == ["mcp"]
    with use_store(shop):
        from audit.models import Record

        record = Record.objects.filter(name="get_inventory").get()
    assert record.credential_id == connection.credential.pk and record.channel == "mcp"


def test_a_token_minted_for_one_store_reads_nothing_of_another(mcp_server, shop, owner, other_shop, other_owner):  # noqa: F811
    consent = ScriptedConsent(_session_cookie(other_owner), other_shop.pk, ["mcp"])

    async def use(client):
        return await client.call_tool("get_inventory", {"item": "toor dal"})

    result = _run_client(mcp_server.mcp_url, consent, use)

    # Toor dal is only in the first shop's catalog: the other owner's token sees its own store only.
    assert result.is_error or (result.structured_content.get("product") or {}).get("name") != "Toor dal"
    assert shop.name not in consent.page
