"""Helpers that walk the OAuth code flow with PKCE the way a client and a consenting owner would."""

from __future__ import annotations

import base64
import hashlib
import re
import secrets
from dataclasses import dataclass
from urllib.parse import parse_qs, urlencode, urlsplit

from django.test import Client

REDIRECT_URI = "http://127.0.0.1:33418/callback"


@dataclass
class Pkce:
    verifier: str
    challenge: str

    @classmethod
    def new(cls) -> Pkce:
        verifier = secrets.token_urlsafe(48)
        digest = hashlib.sha256(verifier.encode()).digest()
        return cls(verifier, base64.urlsafe_b64encode(digest).rstrip(b"=").decode())


def register(client: Client | None = None, **metadata) -> dict:
    body = {"client_name": "Test MCP client", "redirect_uris": [REDIRECT_URI], **metadata}
    response = (client or Client()).post("/oauth/register", body, content_type="application/json")
    assert response.status_code == 201, response.content
    return response.json()


def authorize_url(client_id: str, pkce: Pkce, *, scope: str = "mcp", resource: str | None = "http://testserver/mcp",
                  state: str = "st-1") -> str:
    params = {"response_type": "code", "client_id": client_id, "redirect_uri": REDIRECT_URI, "scope": scope,
              "state": state, "code_challenge": pkce.challenge, "code_challenge_method": "S256"}
    if resource:
        params["resource"] = resource
    return f"/oauth/authorize/?{urlencode(params)}"


def hidden_fields(html: str) -> dict[str, str]:
    fields = {}
    for tag in re.findall(r"<input[^>]*>", html):
        name = re.search(r'name="([^"]+)"', tag)
        value = re.search(r'value="([^"]*)"', tag)
        if name and 'type="hidden"' in tag:
            fields[name.group(1)] = value.group(1) if value else ""
    return fields


def consent(browser: Client, url: str, *, store_id: int, scopes: list[str], allow: bool = True):
    """Open the consent page and answer it; returns the POST's response."""
    page = browser.get(url)
    assert page.status_code == 200, page.content
    form = {**hidden_fields(page.content.decode()), "store": str(store_id), "grant_scopes": scopes}
    if allow:
        form["allow"] = "Authorize"
    return browser.post("/oauth/authorize/", form)


def code_from(response) -> str:
    assert response.status_code == 302, response.content
    query = parse_qs(urlsplit(response["Location"]).query)
    return query["code"][0]


def exchange(code: str, client_id: str, pkce: Pkce, *, resource: str | None = None) -> dict:
    data = {"grant_type": "authorization_code", "code": code, "redirect_uri": REDIRECT_URI, "client_id": client_id,
            "code_verifier": pkce.verifier}
    if resource:
        data["resource"] = resource
    response = Client().post("/oauth/token/", data)
    return {"status": response.status_code, **response.json()}


def tokens_for(browser: Client, store_id: int, scopes: list[str], *, resource: str | None = "http://testserver/mcp",
               scope: str | None = None) -> dict:
    """Register, consent and exchange: the token response of a complete flow."""
    client_id = register()["client_id"]
    pkce = Pkce.new()
    url = authorize_url(client_id, pkce, scope=scope or " ".join(scopes), resource=resource)
    code = code_from(consent(browser, url, store_id=store_id, scopes=scopes))
    answer = exchange(code, client_id, pkce)
    answer["client_id"] = client_id
    return answer
