"""Print an access token for ``/mcp`` obtained from Shelfwise's OAuth server the way a client would, over HTTP.

It registers a public client (RFC 7591), signs the owner in on the login page, opens the
authorization URL with PKCE (S256) and a resource indicator for ``/mcp`` (RFC 8707), answers the
consent page for the owner's store, and exchanges the code at the token endpoint. Used by
``scripts/mcp_inspector_check.sh`` so the MCP Inspector CLI is also run with an OAuth token.

    python scripts/mcp_oauth_token.py http://127.0.0.1:8000 owner@example.com PASSWORD
"""

from __future__ import annotations

import base64
import hashlib
import re
import secrets
import sys
from urllib.parse import parse_qs, urlencode, urlsplit

import httpx

CALLBACK = "http://127.0.0.1:33418/callback"


def _csrf(page: str) -> str:
    found = re.search(r'name="csrfmiddlewaretoken" value="([^"]+)"', page)
    if not found:
        raise SystemExit("no CSRF token on the page")
    return found.group(1)


def _hidden(page: str) -> dict[str, str]:
    fields = {}
    for tag in re.findall(r"<input[^>]*>", page):
        name, value = re.search(r'name="([^"]+)"', tag), re.search(r'value="([^"]*)"', tag)
        if name and 'type="hidden"' in tag:
            fields[name.group(1)] = value.group(1) if value else ""
    return fields


class _Jar:
    """The session and CSRF cookies, sent by hand: with DEBUG off they are Secure, and this is plain http."""

    def __init__(self) -> None:
        self.cookies: dict[str, str] = {}

    def __call__(self, response: httpx.Response) -> None:
        for header in response.headers.get_list("set-cookie"):
            name, _, rest = header.partition("=")
            self.cookies[name.strip()] = rest.split(";", 1)[0]

    def header(self) -> dict[str, str]:
        return {"Cookie": "; ".join(f"{name}={value}" for name, value in self.cookies.items())}


def _expect(response: httpx.Response, status: int, step: str) -> httpx.Response:
    if response.status_code != status:
        raise SystemExit(f"{step}: HTTP {response.status_code}: {response.text[:300]}")
    return response


def token(base: str, email: str, password: str) -> str:
    verifier = secrets.token_urlsafe(48)
    challenge = base64.urlsafe_b64encode(hashlib.sha256(verifier.encode()).digest()).rstrip(b"=").decode()
    resource = f"{base}/mcp"
    jar = _Jar()
    with httpx.Client(base_url=base, timeout=30, follow_redirects=False, event_hooks={"response": [jar]}) as http:
        def get(path: str) -> httpx.Response:
            return http.get(path, headers=jar.header())

        def post(path: str, **kwargs) -> httpx.Response:
            return http.post(path, headers={**jar.header(), "Referer": f"{base}{path}"}, **kwargs)

        client = _expect(post("/oauth/register", json={
            "client_name": "MCP Inspector check", "redirect_uris": [CALLBACK], "token_endpoint_auth_method": "none",
            "grant_types": ["authorization_code", "refresh_token"], "response_types": ["code"], "scope": "mcp",
        }), 201, "register").json()
        login = _expect(get("/accounts/login/"), 200, "login page")
        _expect(post("/accounts/login/", data={
            "login": email, "password": password, "csrfmiddlewaretoken": _csrf(login.text),
        }), 302, "sign in")
        query = urlencode({"response_type": "code", "client_id": client["client_id"], "redirect_uri": CALLBACK,
                           "scope": "mcp", "state": "inspector", "code_challenge": challenge,
                           "code_challenge_method": "S256", "resource": resource})
        page = _expect(get(f"/oauth/authorize/?{query}"), 200, "consent page").text
        store = re.search(r'name="store"[^>]*value="(\d+)"|<option value="(\d+)"', page)
        if not store:
            raise SystemExit("consent page: no store to pick")
        answer = _expect(post("/oauth/authorize/", data={
            **_hidden(page), "csrfmiddlewaretoken": _csrf(page), "store": store.group(1) or store.group(2),
            "grant_scopes": ["mcp"], "allow": "Authorize",
        }), 302, "consent")
        code = parse_qs(urlsplit(answer.headers["location"]).query)["code"][0]
        issued = _expect(post("/oauth/token/", data={
            "grant_type": "authorization_code", "code": code, "redirect_uri": CALLBACK,
            "client_id": client["client_id"], "code_verifier": verifier, "resource": resource,
        }), 200, "token").json()
    return issued["access_token"]


if __name__ == "__main__":
    if len(sys.argv) != 4:
        raise SystemExit(__doc__)
    print(token(sys.argv[1].rstrip("/"), sys.argv[2], sys.argv[3]))
