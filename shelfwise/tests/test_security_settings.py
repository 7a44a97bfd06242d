"""Production hardening with DEBUG off: headers, cookies, per-install secrets, and body limits at the edge."""

from __future__ import annotations

import asyncio
import stat

import httpx
from django.test import Client

from shelfwise.env import env_or_generated
from shelfwise.limits import BodyLimit


def test_pages_carry_csp_nosniff_referrer_policy_and_frame_denial(db):
    response = Client().get("/accounts/login/")

    assert response.status_code == 200
    csp = response["Content-Security-Policy"]
    assert "default-src 'self'" in csp
    assert "script-src 'self'" in csp and "unsafe-inline" not in csp.split("script-src")[1].split(";")[0]
    assert "frame-ancestors 'none'" in csp
    assert "object-src 'none'" in csp
    assert response["X-Content-Type-Options"] == "nosniff"
    assert response["Referrer-Policy"] == "same-origin"
    assert response["X-Frame-Options"] == "DENY"


def test_an_inline_script_carries_the_nonce_of_its_response(owner, store):
    client = Client()
    client.force_login(owner)

    response = client.get("/app/sales/")

    nonce = response["Content-Security-Policy"].split("'nonce-")[1].split("'")[0]
    assert f'<script nonce="{nonce}">' in response.content.decode()


def test_https_responses_carry_hsts_for_a_year(db):
    response = Client().get("/accounts/login/", secure=True)

    assert response["Strict-Transport-Security"].startswith("max-age=31536000")


def test_the_proxys_forwarded_proto_makes_the_request_secure(db):
    response = Client().get("/accounts/login/", HTTP_X_FORWARDED_PROTO="https")

    assert "Strict-Transport-Security" in response


def test_session_and_csrf_cookies_are_secure_and_the_session_cookie_is_http_only(db, owner):
    client = Client()
    client.get("/accounts/login/")
    response = client.post("/accounts/login/", {"login": owner.email, "password": "correct horse battery staple"})

    assert response.status_code == 302

    session = client.cookies["sessionid"]
    assert session["secure"] and session["httponly"]
    assert session["samesite"] == "Lax"
    assert client.cookies["csrftoken"]["secure"]


def test_the_api_docs_load_swagger_ui_from_this_server_not_a_cdn(db):
    response = Client().get("/api/v1/docs")

    assert response.status_code == 200
    page = response.content.decode()
    assert "cdn.jsdelivr.net" not in page
    assert "/static/drf_spectacular_sidecar/" in page


def test_a_generated_secret_is_random_per_install_stable_and_owner_only(tmp_path, monkeypatch):
    monkeypatch.delenv("DEMO_OWNER_PASSWORD", raising=False)
    first_install, second_install = tmp_path / "a", tmp_path / "b"

    first = env_or_generated("DEMO_OWNER_PASSWORD", first_install, nbytes=12)

    assert len(first) >= 16
    assert env_or_generated("DEMO_OWNER_PASSWORD", first_install, nbytes=12) == first
    assert env_or_generated("DEMO_OWNER_PASSWORD", second_install, nbytes=12) != first
    assert stat.S_IMODE(first_install.stat().st_mode) == 0o600


def test_the_environment_wins_over_a_generated_secret(tmp_path, monkeypatch):
    monkeypatch.setenv("DEMO_OWNER_PASSWORD", "chosen-by-the-operator")

    assert env_or_generated("DEMO_OWNER_PASSWORD", tmp_path / "p", nbytes=12) == "chosen-by-the-operator"
    assert not (tmp_path / "p").exists()


def test_the_demo_password_is_no_longer_the_published_constant(settings):
    assert settings.DEMO_OWNER_PASSWORD != "little-india-demo"


# -- body limits --------------------------------------------------------------------------------


class _RecordingApp:
    """An ASGI app that records the body it received."""

    def __init__(self) -> None:
        self.body: bytes | None = None

    async def __call__(self, scope, receive, send) -> None:
        body = b""
        while True:
            message = await receive()
            body += message.get("body", b"")
            if not message.get("more_body"):
                break
        self.body = body
        await send({"type": "http.response.start", "status": 200, "headers": []})
        await send({"type": "http.response.body", "body": b"ok"})


async def _post(app, path: str, content, headers=None) -> httpx.Response:
    async with httpx.AsyncClient(transport=httpx.ASGITransport(app=app), base_url="http://testserver") as client:
        return await client.post(path, content=content, headers=headers or {})


def test_a_body_over_the_declared_limit_is_refused_unread(settings):
    settings.REQUEST_BODY_MAX_BYTES = 2048
    inner = _RecordingApp()

    response = asyncio.run(_post(BodyLimit(inner), "/api/v1/turns", b"x" * 4096))

    assert response.status_code == 413
    assert response.json()["error"]["code"] == "too_large"
    assert "2048 bytes" in response.json()["error"]["message"]
    assert inner.body is None


def test_a_chunked_body_is_cut_off_at_the_limit(settings):
    settings.REQUEST_BODY_MAX_BYTES = 2048
    inner = _RecordingApp()

    async def chunks():
        for _ in range(8):
            yield b"y" * 1024

    response = asyncio.run(_post(BodyLimit(inner), "/api/v1/turns", chunks()))

    assert response.status_code == 413
    assert inner.body is None


def test_a_body_within_the_limit_reaches_the_app_whole(settings):
    settings.REQUEST_BODY_MAX_BYTES = 2048
    inner = _RecordingApp()

    async def chunks():
        for part in (b"a" * 1000, b"b" * 1000):
            yield part

    response = asyncio.run(_post(BodyLimit(inner), "/api/v1/turns", chunks()))

    assert response.status_code == 200
    assert inner.body == b"a" * 1000 + b"b" * 1000


def test_mcp_has_its_own_smaller_limit(settings):
    settings.REQUEST_BODY_MAX_BYTES = 10_000
    settings.MCP_BODY_MAX_BYTES = 1024
    inner = _RecordingApp()

    refused = asyncio.run(_post(BodyLimit(inner), "/mcp", b"{" * 2000))
    allowed = asyncio.run(_post(BodyLimit(inner), "/api/v1/receipts", b"{" * 2000))

    assert refused.status_code == 413
    assert allowed.status_code == 200


def test_the_project_application_refuses_an_oversized_upload_before_django_reads_it(settings):
    from shelfwise.asgi import application

    settings.REQUEST_BODY_MAX_BYTES = 64 * 1024

    response = asyncio.run(_post(application, "/api/v1/turns", b"z" * (65 * 1024), {"content-type": "multipart/form-data; boundary=x"}))

    assert response.status_code == 413
